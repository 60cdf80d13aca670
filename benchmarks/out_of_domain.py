"""Claims outside Wikipedia (issue 55): evidence recall and 3-class verdicts on public claim sets whose evidence
documents are a folder a user would have (benchmarks.claim_sets makes them from the public repositories).

Tables: docs/evaluation.md's "Claims outside Wikipedia" recall and verdict tables (docs/results/out-of-domain/).

Retrieval comes from a `claimhop eval --recall-only --systems bm25,hybrid,claimhop` run on the set's sample (rows in
`OUT/NAME/eval.jsonl`): evidence recall@5 and @21 count a claim when ANY of its evidence documents is among the first
k (the sets list alternative evidence, not chains). Verdicts are given on claimhop's 21 documents by the verify stage
a check runs (claimhop.program.verify.stage.Verify: the passages its head reads, the nothing-to-go-on rule, the
quotes), its states read once and saved (claimhop.evaluation.verifier_features.saved_state_reader), for each head:
- `before`: the bundled head as shipped at 9569faa, without the quote rule: the rows recorded then (the committed
  NAME/verdicts.jsonl; that code is gone);
- `bundled`: the bundled head;
- `collection`: the head `claimhop train-verifier --corpus FOLDER` trained on that folder's own documents;
- any head `--head NAME=FILE` names (`{set}` in FILE: the set's name, for a head trained without that set).
The claim is quoted as one fact (the recall-only rows keep no plan). Paired by claim with exact McNemar.

    python -m benchmarks.out_of_domain --sets healthver,climate-fever --root /work/ood --out docs/results/out-of-domain
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from claimhop.atomic import atomic_path, write_text
from claimhop.evaluation.report import mcnemar_exact
from claimhop.evaluation.runner import rows_in

LABELS = ("SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO")
KS = (5, 21)
HEADS = ("before", "bundled", "collection")
# what the committed retrieval rows keep: no claim text or query (the sets' texts stay out of the repository)
KEPT = ("system", "uid", "label", "gold", "titles", "recall@5", "recall@21", "seconds", "lm_calls", "tokens",
        "fingerprint")


def macro_f1(pairs: list[tuple[str, str]], labels: tuple[str, ...] = LABELS) -> float:
    """Mean F1 over `labels` (a label never predicted nor gold counts 0, as scikit-learn's zero_division=0)."""
    scores = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in pairs)
        fp = sum(g != label and p == label for g, p in pairs)
        fn = sum(g == label and p != label for g, p in pairs)
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return 100 * float(np.mean(scores))


def sample_macro_f1(pairs: list[tuple[str, str]]) -> float:
    """Macro-F1 over the labels the sample has: all three, or a two-label sample's two (Check-COVID has no
    not-enough-info claims; a not-enough-info verdict there is still wrong, it just has no F1 of its own)."""
    return macro_f1(pairs, tuple(label for label in LABELS if any(g == label for g, _ in pairs)))


def chance_macro_f1(labels: list[str]) -> float:
    """Macro-F1 of a verdict drawn uniformly from the three labels, over the labels the sample has: a label of share
    p gets precision p and recall 1/3 (33.3 on a balanced 3-label sample, 40 on a balanced 2-label one)."""
    shares = [labels.count(label) / len(labels) for label in LABELS if label in labels]
    return 100 * float(np.mean([2 * p / 3 / (p + 1 / 3) for p in shares]))


def evidence_recall(rows: list[dict], k: int, count: str = "passage") -> float | None:
    """Share of claims with evidence whose any evidence document is among the first k titles (`count`: only the
    passage titled as the document, or any passage of it: claimhop.evaluation.metric.evidence_in)."""
    from claimhop.evaluation.metric import evidence_in

    hits = [evidence_in(row["titles"], row["gold"], k, count) for row in rows if row.get("gold")]
    return float(np.mean(hits)) if hits else None


def heads_for(folder: Path, name: str, more: dict[str, str] | None = None, collection: bool = True
              ) -> dict[str, object]:
    """The heads compared on the set: the bundled one, the collection's own when trained (and `collection`), and
    `more` (NAME: FILE, `{set}` in FILE standing for the set's name)."""
    from claimhop.program.verify.head import HEAD_FILE, collection_head, load_head

    heads = {"bundled": load_head(HEAD_FILE)}
    trained = collection_head(str(folder)) if collection else None
    if trained is not None:
        heads["collection"] = load_head(trained)
    for head_name, pattern in (more or {}).items():
        heads[head_name] = load_head(Path(pattern.format(set=name)))
    return heads


def verdict_rows(name: str, folder: Path, claims: list[dict], retrieved: dict[str, list[str]],
                 cached_only: bool = False, recorded: list[dict] | None = None,
                 more_heads: dict[str, str] | None = None, settings: dict[str, str] | None = None, suffix: str = "",
                 collection: bool = True) -> list[dict]:
    """One row per (claim, head): the verdict, its probabilities and what was read; `before`, and any head not run
    now, from the `recorded` rows. `cached_only`: only the claims whose states every head has read already (no
    model call; a stopped run reports what it read). `settings`: run settings for the verify stage (`--set`), the
    heads then named with `suffix` ("bundled+opposite_check=unnamed")."""
    from tqdm import tqdm

    from claimhop.entities.ner import extract_entities, unique
    from claimhop.evaluation.verifier_features import (
        documents_for,
        features_dir,
        saved_state_reader,
        state_path,
    )
    from claimhop.program.verify.stage import NoContradictionPart, ToVerify, Verify
    from claimhop.retrieval.factory import search_engine
    from state.context import Context

    corpus = search_engine(str(folder)).corpus
    context = Context.from_any({"corpus_path": str(folder), **(settings or {})})
    stages = {}
    for head_name, head in heads_for(folder, name, more_heads, collection).items():
        try:
            stages[head_name + suffix] = Verify(context, saved_state_reader(), head)
        except NoContradictionPart as error:  # the one head these settings cannot run with: said, skipped
            print(f"{name}: {head_name} skipped: {error}")
    kept: dict[str, list[dict]] = {}  # recorded rows of heads not run now, by claim
    for row in recorded or []:
        if row.get("head") not in stages:
            kept.setdefault(row["uid"], []).append(row)
    rows = []
    for claim in tqdm(claims, desc=f"{name} verdicts", unit="claim"):
        documents = documents_for(corpus, retrieved[claim["uid"]])
        names = unique(extract_entities([claim["claim"]], with_spans=True)[0])  # as the graph finds them
        if cached_only and not all(state_path(features_dir(s.reading), claim["claim"], documents, s.reading).is_file()
                                   for s in stages.values()):
            continue
        rows += kept.get(claim["uid"], [])
        for head_name, stage in stages.items():
            started = time.time()
            out = stage(ToVerify(claim["claim"], documents, names, planned_facts=[claim["claim"]]))
            rows.append({"set": name, "uid": claim["uid"], "head": head_name, "label": claim["label"],
                         "verdict": out.verdict, "confidence": out.confidence, "probabilities": out.probabilities or {},
                         "read": out.read or [], "seconds": round(time.time() - started, 2),
                         "nothing_to_go_on": out.read is None})
    return rows


def verdicts_in(path: Path) -> list[dict]:
    """The verdict rows recorded in `path` (one per claim and head; none when there is no file yet)."""
    from claimhop.evaluation.runner import json_objects

    return [row for row in json_objects(path) if "head" in row and "uid" in row] if path.is_file() else []


def table(name: str, eval_rows: list[dict], verdicts: list[dict], count: str = "passage") -> list[str]:
    """The set's table: retrieval per system (evidence counted by `count`, the same for each), verdict per head,
    contradicted claims recognised, paired tests."""
    by_system = {s: [r for r in eval_rows if r["system"] == s] for s in ("bm25", "hybrid", "claimhop")}
    lines = [f"### {name}", "", "| system | evidence recall@5 | @21 | s/claim (retrieval) |", "|---|---|---|---|"]
    for system, rows in by_system.items():
        seconds = np.median([r.get("seconds", 0.0) for r in rows]) if rows else float("nan")
        at5, at21 = evidence_recall(rows, 5, count), evidence_recall(rows, 21, count)
        lines.append(f"| {system} | {fmt(at5)} | {fmt(at21)} | {seconds:.1f} |")
    lines += ["", "| claimhop head | macro-F1 (the sample's labels) | accuracy | contradicted recognised | supported right | "
              "not-enough-info right | s a verdict (median; a saved state is not read again) |", "|---|---|---|---|---|---|---|"]
    correct: dict[str, dict[str, bool]] = {}
    for head in heads_in(verdicts):
        rows = [r for r in verdicts if r["head"] == head]
        if not rows:
            continue
        pairs = [(r["label"], r["verdict"]) for r in rows]
        correct[head] = {r["uid"]: r["label"] == r["verdict"] for r in rows}
        per = {label: (sum(g == p == label for g, p in pairs), sum(g == label for g, _ in pairs)) for label in LABELS}
        read = [r.get("seconds", r.get("read_seconds", 0.0)) for r in rows]
        lines.append(f"| {head} | {sample_macro_f1(pairs):.1f} | {np.mean([g == p for g, p in pairs]):.3f} | "
                     f"{per['CONTRADICTED'][0]}/{per['CONTRADICTED'][1]} | {per['SUPPORTED'][0]}/{per['SUPPORTED'][1]} | "
                     f"{per['INSUFFICIENT_INFO'][0]}/{per['INSUFFICIENT_INFO'][1]} | "
                     f"{np.median(read) if read else 0:.1f} |")
    lines.append("")
    for head in heads_in(verdicts):
        # each head against `before`; a head run with a setting (bundled+NAME=VALUE) also against the head without
        for other in dict.fromkeys(["before", head.split("+")[0]]):
            if other == head or head not in correct or other not in correct:
                continue
            only_new = sum(correct[head][u] and not correct[other][u] for u in correct[head])
            only_old = sum(correct[other][u] and not correct[head][u] for u in correct[head])
            p = mcnemar_exact(only_new, only_old)
            lines.append(f"- {head} vs {other}, paired on {len(correct[head])} claims: right only with {head} "
                         f"{only_new}, only {other} {only_old} (exact McNemar p = {p:.2g})")
    return lines + [""]


def heads_in(verdicts: list[dict]) -> list[str]:
    """The heads of the rows, the fixed ones first."""
    named = list(dict.fromkeys(r["head"] for r in verdicts))
    return [h for h in HEADS if h in named] + [h for h in named if h not in HEADS]


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def plot(summary: dict[str, dict[str, float]], path: Path, chance: dict[str, float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary)
    heads = list(dict.fromkeys(h for n in names for h in summary[n]))
    fig, ax = plt.subplots(figsize=(7, 3.5))
    width = 0.8 / len(heads)
    for i, head in enumerate(heads):
        ys = [summary[n].get(head, 0.0) for n in names]
        ax.bar(np.arange(len(names)) + i * width, ys, width, label=head)
    for i, name in enumerate(names):  # each sample's own chance: Check-COVID's has two labels
        ax.hlines(chance[name], i - width / 2, i + width * (len(heads) - 0.5), color="grey", linestyle=":",
                  label="chance (a uniform guess of the three labels)" if i == 0 else None)
    ax.set_xticks(np.arange(len(names)) + width * (len(heads) - 1) / 2)
    ax.set_xticklabels(names)
    ax.set_ylabel("macro-F1 (the sample's labels)")
    ax.set_ylim(0, 100)  # room above the bars for the legend
    ax.set_title("Verdicts outside Wikipedia, on claimhop's 21 documents")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120)


def named_values(parser: argparse.ArgumentParser, flag: str, items: list[str]) -> dict[str, str]:
    """NAME=VALUE pairs as a dict; anything else ends the run with a usage error naming the flag."""
    bad = [item for item in items if "=" not in item or not item.split("=", 1)[0].strip()]
    if bad:
        parser.error(f"{flag} expects NAME=VALUE, got {bad[0]!r}")
    return {name.strip(): value for name, value in (item.split("=", 1) for item in items)}


def run_settings(parser: argparse.ArgumentParser, items: list[str]) -> dict[str, str]:
    """`--set` NAME=VALUE pairs, checked as run settings: a misspelt setting or a value out of range is a usage
    error said before any model loads."""
    from state.context import Context

    settings = named_values(parser, "--set", items)
    try:
        Context.from_any(settings)
    except ValueError as err:
        parser.error(f"--set: {err}")
    return settings


def main() -> None:
    from claimhop.evaluation.data import load_claims

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="healthver,climate-fever")
    parser.add_argument("--root", default="/work/ood", help="folders made by benchmarks.claim_sets")
    parser.add_argument("--out", default="docs/results/out-of-domain")
    parser.add_argument("--cached-only", action="store_true", help="only claims whose states are read already")
    parser.add_argument("--rows", help="folder holding NAME/eval.jsonl of the recall-only runs (default: --out); "
                        "the committed copy keeps no claim text (NAME/retrieval.jsonl)")
    parser.add_argument("--head", action="append", default=[], metavar="NAME=FILE",
                        help="another head to compare ({set} in FILE: the set's name)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="settings",
                        help="a run setting of the verify stage; the heads' rows are then named NAME=VALUE after "
                             "the head, and the recorded rows of the heads without it are kept")
    parser.add_argument("--no-collection", action="store_true",
                        help="leave the collection's own head out (its recorded rows are kept)")
    parser.add_argument("--count", choices=("passage", "document"), default="passage",
                        help="evidence recall counts the passage titled as the evidence document only ('passage', "
                             "the committed tables) or any passage of it, \"Title (2)\" or \"Title > Section\" "
                             "('document'); the same for bm25, hybrid and claimhop")
    args = parser.parse_args()
    settings, more_heads = run_settings(parser, args.settings), named_values(parser, "--head", args.head)
    suffix = "".join(f"+{key}={value}" for key, value in settings.items())
    out = Path(args.out)
    lines, summary, chance = ["# Claims outside Wikipedia", ""], {}, {}
    for name in args.sets.split(","):
        root = Path(args.root) / name
        sample = next(root.glob("sample-*.jsonl"))
        claims = load_claims(sample)
        eval_rows = [{key: row.get(key) for key in KEPT}
                     for row in rows_in(Path(args.rows or out) / name / "eval.jsonl")]
        for row in eval_rows:
            row["titles"] = (row["titles"] or [])[:50]
        (out / name).mkdir(parents=True, exist_ok=True)
        write_text(out / name / "retrieval.jsonl", "".join(json.dumps(r) + "\n" for r in eval_rows))
        retrieved = {r["uid"]: r["titles"][:21] for r in eval_rows if r["system"] == "claimhop"}
        claims = [c for c in claims if c["uid"] in retrieved]
        recorded = out / name / "verdicts.jsonl"
        verdicts = verdict_rows(name, root / "documents", claims, retrieved, args.cached_only,
                                verdicts_in(recorded), more_heads, settings, suffix,
                                not args.no_collection)
        write_text(out / name / "verdicts.jsonl", "".join(json.dumps(r) + "\n" for r in verdicts))
        lines += table(name, eval_rows, verdicts, args.count)
        summary[name] = {h: sample_macro_f1([(r["label"], r["verdict"]) for r in verdicts if r["head"] == h])
                         for h in heads_in(verdicts)}
        chance[name] = chance_macro_f1([c["label"] for c in claims])
    write_text(out / "README.md", "\n".join(lines) + "\n")
    plot(summary, out / "macro-f1.png", chance)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
