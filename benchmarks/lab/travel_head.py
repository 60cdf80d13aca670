"""A verdict head that travels (issue 55, item 3), paired against the bundled head on claims neither was trained
on, from saved states only (no model call; every state was read by benchmarks.real_claims or train-verifier):

- each set's reported sample (benchmarks.real_claims role "sample": the 21 documents claimhop chose where a
  recall-only run recorded them, else hybrid search's 21), judged by the bundled head and by a head trained
  WITHOUT that set (`--heads FOLDER/without-SET.npz`): the other sets' claims, the synthetic and the HoVer claims;
- the 169 HoVer dev claims on the documents claimhop retrieved, each by the fold head that never saw it, bundled
  against `--candidate` (the head that would ship): "HoVer dev unchanged or better".

Verdicts come from the verify stage itself (`Verify` with the head and a reader of saved states; the claim quoted
as one fact, so no model call splits it). Exact McNemar on the claims only one head gets right.

    python -m benchmarks.lab.travel_head --heads /work/ood-runs/heads --candidate /work/ood-runs/heads/all.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.out_of_domain import LABELS
from benchmarks.real_claims import REAL_CLAIMS, corpus_getter, paired_line, verdicts
from claimhop.atomic import write_text

DEV_RETRIEVED = Path("docs/results/dev-169-selection/eval.jsonl")


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
