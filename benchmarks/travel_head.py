"""A verdict head that travels (issue 55, item 3), paired against the bundled head on claims neither was trained
on, from saved states only (no model call; every state was read by benchmarks.real_claims or train-verifier):

- each set's reported sample (benchmarks.real_claims role "sample": the 21 documents claimhop chose where a
  recall-only run recorded them, else hybrid search's 21), judged by the bundled head and by a head trained
  WITHOUT that set (`--heads FOLDER/without-SET.npz`): the other sets' claims, the synthetic and the HoVer claims;
- the 169 HoVer dev claims on the documents claimhop retrieved, each by the fold head that never saw it, bundled
  against `--candidate` (the head that would ship): "HoVer dev unchanged or better".

Verdicts come from the verify stage itself (`Verify` with the head and a reader of saved states; the claim quoted
as one fact, so no model call splits it). Exact McNemar on the claims only one head gets right.

    python -m benchmarks.travel_head --heads /work/ood-runs/heads --candidate /work/ood-runs/heads/all.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.out_of_domain import LABELS, macro_f1
from claimhop.atomic import write_text
from claimhop.evaluation.report import mcnemar_exact

REAL_CLAIMS = Path("docs/results/verifier/real-claims.jsonl")
DEV_RETRIEVED = Path("docs/results/dev-169-selection/eval.jsonl")


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


def main() -> None:
    from claimhop.evaluation.verifier_data import dev_items, real_claim_items
    from claimhop.program.verify.head import HEAD_FILE, load_head

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heads", required=True, help="folder with without-SET.npz heads")
    parser.add_argument("--candidate", required=True, help="the head that would ship (for HoVer dev)")
    parser.add_argument("--pattern", default="without-{set}.npz", help="each set's head file in --heads")
    parser.add_argument("--sets", default="", help="only these sets (comma-separated)")
    parser.add_argument("--real-claims", default=str(REAL_CLAIMS))
    parser.add_argument("--root", default="/work/ood")
    parser.add_argument("--out", default="docs/results/verifier/travel")
    args = parser.parse_args()
    bundled, corpus_of = load_head(HEAD_FILE), corpus_getter()

    samples = real_claim_items(Path(args.real_claims), Path(args.root), roles=("sample",))
    lines = []
    sets = {i["set"] for i in samples}
    chosen = sets & set(filter(None, args.sets.split(","))) or sets  # --sets naming none of them: all
    for name in sorted(chosen):
        items = [i for i in samples if i["set"] == name]
        travel = load_head(Path(args.heads) / args.pattern.format(set=name))
        gold = {i["uid"]: i["label"] for i in items}
        labels = tuple(label for label in LABELS if label in gold.values())
        lines.append(paired_line(name, gold, verdicts(bundled, items, corpus_of), verdicts(travel, items, corpus_of),
                                 labels))
    dev = dev_items("retrieved", DEV_RETRIEVED)
    for item in dev:
        item["uid"] = item["group"]
    candidate = load_head(Path(args.candidate))
    gold = {i["uid"]: i["label"] for i in dev}
    two = {"SUPPORTED": "SUPPORTED", "CONTRADICTED": "NOT_SUPPORTED", "INSUFFICIENT_INFO": "NOT_SUPPORTED"}
    lines.append(paired_line("hover-dev (fold heads)", gold, verdicts(bundled, dev, corpus_of, uid_fold=True),
                             verdicts(candidate, dev, corpus_of, uid_fold=True), ("SUPPORTED", "NOT_SUPPORTED"),
                             to_label=two.get))
    table = ["| claims | n | bundled macro-F1 | travel macro-F1 | contradicted recognised (bundled / travel) | "
             "right only bundled / only travel | exact McNemar p |", "|---|---|---|---|---|---|---|"]
    for line in lines:
        table.append(f"| {line['set']} | {line['claims']} | {line['bundled']} | {line['travel']} | "
                     f"{line['contradicted_bundled']}/{line['contradicted']} / {line['contradicted_travel']}/"
                     f"{line['contradicted']} | {line['only_bundled']} / {line['only_travel']} | {line['p']:.2g} |")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    write_text(Path(args.out) / "paired.md", "\n".join(table) + "\n")
    write_text(Path(args.out) / "paired.json", json.dumps(lines, indent=1) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
