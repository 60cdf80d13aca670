"""Real labelled claims from other domains, read as a check reads them, for a verdict head that travels (issue 55,
item 3): the public claim sets benchmarks.claim_sets makes (HealthVer, Climate-FEVER, Check-COVID; never SciFact).

Table: none of its own; it writes docs/results/verifier/real-claims.jsonl, which
`claimhop train-verifier --real-claims` and benchmarks.verify_setting read.

Each claim is read on what search finds for it in its set's folder, as a check would: the reported samples on the
21 documents claimhop chose (the recall-only rows of benchmarks.out_of_domain), the other claims on hybrid search's
first 21 (no model call to choose them). A SUPPORTED or CONTRADICTED claim whose evidence is not among the passages
read is left out (what is read cannot decide it); an INSUFFICIENT_INFO claim is kept whatever is read. Training
claims come from groups (claims sharing evidence) that no sample claim is in, at most `--per-label` a label, seeded.
The states are saved as every verifier feature is (claimhop.evaluation.verifier_features): read once, resumable.

Also the verify stage's verdicts on saved states of such claims (`verdicts`), and the paired line two runs of them
give (`paired_line`), which benchmarks.verify_setting reports.

    python -m benchmarks.real_claims --root /work/ood --rows /work/ood-runs --out docs/results/verifier/real-claims.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from claimhop.atomic import write_text
from claimhop.evaluation.report import mcnemar_exact
from claimhop.evaluation.runner import rows_in

SETS = ("check-covid", "healthver", "climate-fever")
RETRIEVED_K = 21  # what the check's verify stage is given: the 21 documents selected
# training claims a label and set (a set's own size caps it): Check-COVID most (whole abstracts, claims false by
# direction or number, as scientific claims are), Climate-FEVER least (its claims are the furthest from science)
PER_LABEL = {"check-covid": 60, "healthver": 40, "climate-fever": 25}
REAL_CLAIMS = Path("docs/results/verifier/real-claims.jsonl")


def verdicts(head, items: list[dict], corpus_of, uid_fold: bool = False, settings: dict | None = None,
             desc: str = "") -> dict[str, str]:
    """The verify stage's verdict with `head` on each item's saved state (the claim quoted as one fact, as
    benchmarks.out_of_domain does; `uid_fold`: a dev claim judged by the fold head that never saw it), under the
    run `settings` given (a progress bar when `desc` names the run)."""
    from tqdm import tqdm

    from claimhop.entities.ner import extract_entities, unique
    from claimhop.evaluation.verifier_features import documents_for, saved_state_reader
    from claimhop.program.verify.stage import ToVerify, Verify
    from state.context import Context

    stage = Verify(Context.from_any(settings or {}), saved_state_reader(), head)
    out = {}
    for item in tqdm(items, desc=desc, unit="claim", disable=not desc):
        names = unique(extract_entities([item["claim"]], with_spans=True)[0])
        case = ToVerify(item["claim"], documents_for(corpus_of(item), item["titles"]), names,
                        planned_facts=[item["claim"]], uid=item["uid"] if uid_fold else None)
        out[item["uid"]] = stage(case).verdict
    return out


def corpus_getter():
    """The corpus of an item's folder (the bundled one for an item with none), each loaded once."""
    from claimhop.evaluation.train_verifier import folder_corpus
    from claimhop.retrieval.corpus import load_corpus

    corpora: dict[str, object] = {}

    def corpus_of(item: dict):
        folder = item.get("folder", "")
        if folder not in corpora:
            corpora[folder] = folder_corpus(folder) if folder else load_corpus()
        return corpora[folder]

    return corpus_of


def paired_line(name: str, gold: dict[str, str], a: dict[str, str], b: dict[str, str], labels: tuple[str, ...],
                to_label=lambda v: v) -> dict:
    """Macro-F1 of both heads and the claims only one gets right."""
    from benchmarks.out_of_domain import macro_f1

    uids = sorted(gold)
    right_a = {u: to_label(a[u]) == gold[u] for u in uids}
    right_b = {u: to_label(b[u]) == gold[u] for u in uids}
    only_a = sum(right_a[u] and not right_b[u] for u in uids)
    only_b = sum(right_b[u] and not right_a[u] for u in uids)
    contradicted = [u for u in uids if gold[u] == "CONTRADICTED"]
    return {"set": name, "claims": len(uids),
            "bundled": round(macro_f1([(gold[u], to_label(a[u])) for u in uids], labels), 1),
            "travel": round(macro_f1([(gold[u], to_label(b[u])) for u in uids], labels), 1),
            "contradicted_bundled": sum(a[u] == "CONTRADICTED" for u in contradicted),
            "contradicted_travel": sum(b[u] == "CONTRADICTED" for u in contradicted),
            "contradicted": len(contradicted),
            "only_bundled": only_a, "only_travel": only_b, "p": mcnemar_exact(only_b, only_a)}


def sample_claims(root: Path) -> list[dict]:
    sample = next(root.glob("sample-*.jsonl"))
    return [json.loads(line) for line in sample.read_text().splitlines() if line.strip()]


def training_claims(root: Path, per_label: int, seed: int = 0) -> list[dict]:
    """Claims outside every sample claim's group, at most one a group first, `per_label` a label."""
    held = {c["group"] for c in sample_claims(root)}
    claims = [json.loads(line) for line in (root / "claims.jsonl").read_text().splitlines() if line.strip()]
    rng = random.Random(seed)
    rng.shuffle(claims)
    chosen, groups_used, counts = [], set(), {}
    for one_a_group in (True, False):
        for claim in claims:
            if claim["group"] in held or claim in chosen or counts.get(claim["label"], 0) >= per_label:
                continue
            if one_a_group and claim["group"] in groups_used:
                continue
            chosen.append(claim)
            groups_used.add(claim["group"])
            counts[claim["label"]] = counts.get(claim["label"], 0) + 1
    return chosen


def items_for(name: str, root: Path, rows: Path, per_label: int) -> list[dict]:
    """The set's items: sample claims on claimhop's 21, training claims on hybrid search's 21; evidence checked."""
    from claimhop.evaluation.verifier_features import documents_for
    from claimhop.program.verify.reading import passages_read, reading_rule
    from claimhop.retrieval.factory import search_engine

    engine = search_engine(str(root / "documents"))
    rule = reading_rule()
    chosen = {r["uid"]: r["titles"][:RETRIEVED_K] for r in rows_in(rows / name / "eval.jsonl")
              if r.get("system") == "claimhop"} if (rows / name / "eval.jsonl").is_file() else {}
    items, dropped = [], 0
    for role, claims in (("sample", sample_claims(root)), ("train", training_claims(root, per_label))):
        for claim in claims:
            titles = chosen.get(claim["uid"]) if role == "sample" else None
            source = "claimhop" if titles else "hybrid"
            if not titles:
                titles = [hit.title for hit in engine.search(claim["claim"], RETRIEVED_K)]
            read = [p["title"] for p in passages_read(documents_for(engine.corpus, titles), claim["claim"], rule)]
            evidence_read = bool(set(read) & set(claim["supporting_titles"]))
            if role == "train" and claim["label"] != "INSUFFICIENT_INFO" and not evidence_read:
                dropped += 1
                continue
            items.append({"key": claim["uid"], "uid": claim["uid"], "claim": claim["claim"], "titles": titles,
                          "label": claim["label"], "group": f"{name}:{claim['group']}", "set": name, "role": role,
                          "folder": str(root / "documents"),
                          "documents_from": source, "evidence_read": evidence_read})
    print(f"{name}: {len(items)} items ({dropped} training claims left out: evidence not read)")
    return items


def main() -> None:
    from claimhop.evaluation.verifier_features import extract_features
    from claimhop.program.verify.reading import reading_rule
    from claimhop.retrieval.factory import search_engine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--root", default="/work/ood")
    parser.add_argument("--rows", default="/work/ood-runs", help="folder holding NAME/eval.jsonl (recall-only runs)")
    parser.add_argument("--per-label", default=",".join(f"{k}={v}" for k, v in PER_LABEL.items()),
                        help="training claims a label, as SET=N,...")
    parser.add_argument("--out", default="docs/results/verifier/real-claims.jsonl",
                        help="the claims named (set, uid, label, documents read on; their texts stay in --root)")
    parser.add_argument("--no-read", action="store_true", help="write the items only")
    args = parser.parse_args()
    sets = args.sets.split(",")
    per_label = {k: int(v) for k, v in (pair.split("=") for pair in args.per_label.split(","))}
    by_set = {name: items_for(name, Path(args.root) / name, Path(args.rows), per_label.get(name, 0)) for name in sets}
    named = [{k: v for k, v in item.items() if k not in ("claim", "folder", "key")}  # no set's text is committed
             for items in by_set.values() for item in items]
    write_text(Path(args.out), "".join(json.dumps(item) + "\n" for item in named))
    if args.no_read:
        return
    for role in ("train", "sample"):  # training claims first: they are what a head learns from
        for name, items in by_set.items():
            corpus = search_engine(str(Path(args.root) / name / "documents")).corpus
            extract_features([i for i in items if i["role"] == role], corpus, reading_rule(), desc=f"{name} {role}")


if __name__ == "__main__":
    main()
