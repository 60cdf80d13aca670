"""Should the claim's own search with feedback (`claim_feedback=20`) and the unnamed floor (`unnamed_floor=21`) be
the defaults (issue 70)? The four combinations, chosen by leave one set out over the five sets.

The pairing was first read off the samples' rows (docs/results/every-set/feedback-search/graph.md); here each set
is held out in turn and the combination is chosen on the other four: the most claims gained less lost against
both off (the defaults then), at 5 and at 21, ties to both off. Selection is replayed on two record folders of
benchmarks.lab.selection_records (no model call): one made with both off (the plain claim search), one with
`claim_feedback=20 unnamed_floor=21` (feedback changes the claim search and so the candidates; the floor changes
only selection, so both floors replay from each folder).

    python -m benchmarks.lab.floor_feedback --plain /work/specificity-default --feedback /work/specificity \
        --rows /work/every-set-fb-floor --out docs/results/every-set/floor-feedback
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.lab import show_table
from benchmarks.lab.selection_records import (
    SETS,
    held_out,
    hybrid_found,
    replay,
)

TODAY = "both off (the defaults before)"
PLAIN = {"claim_feedback": 0, "unnamed_floor": 0}  # what the plain records were made with
FEEDBACK = {"claim_feedback": 20, "unnamed_floor": 21}  # what the feedback records were made with (the defaults since)


def main(argv: list[str] | None = None) -> None:
    from benchmarks.every_set import eval_sets

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--plain", type=Path, required=True,
                        help="selection records made with claim_feedback=0 unnamed_floor=0 (the defaults before)")
    parser.add_argument("--feedback", type=Path, required=True,
                        help="selection records made with claim_feedback=20 unnamed_floor=21")
    parser.add_argument("--rows", type=Path, required=True, help="an every_set run's folder: the hybrid baseline")
    parser.add_argument("--sets", default=SETS)
    parser.add_argument("--out", type=Path, help="folder for README.md (printed either way)")
    args = parser.parse_args(argv)
    items = [item for item in eval_sets(args.root) if item.name in args.sets.split(",")]
    found, hybrid = {}, {}
    for item in items:
        plain = replay(args.plain, item, PLAIN, {TODAY: {}, "unnamed_floor=21": {"unnamed_floor": 21}})
        fed = replay(args.feedback, item, FEEDBACK,
                     {"claim_feedback=20, unnamed_floor=21": {}, "claim_feedback=20": {"unnamed_floor": 0}})
        found[item.name] = {**plain, **fed}
        hybrid[item.name] = hybrid_found(args.rows, item, args.plain)
    heading = ["# The claim search's feedback and the unnamed floor as defaults? (issue 70)", "",
               (f"`python -m benchmarks.lab.floor_feedback --plain {args.plain} --feedback {args.feedback} --rows "
               f"{args.rows}` (no model call). Each set held out in turn, the combination chosen on the other four: "
               "the most claims gained less lost against both off (the defaults then) at 5 and 21, ties to both off.")]
    pooled = {item.name for item in items if not item.every_gold}
    show_table(held_out(found, hybrid, TODAY, heading, pooled), args.out, "README.md")


if __name__ == "__main__":
    main()
