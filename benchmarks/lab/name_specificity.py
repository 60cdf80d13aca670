"""Do generic names push the claim's own evidence out of the first 5 (issue 70)? Selection replayed with names
weighed by how common they are.

On Climate-FEVER the claims that name a document have their 21 in selection-score order, and what goes ahead of the
evidence one plain search ranks first is documents that mention names the bridge and the links looked up from the
documents found ("United States", "December", "Fahrenheit", "California") or a capitalised first word taken for a
name ("For", "Scientists"). A Wikipedia claim's looked-up names are the next article of a chain ("Buddy Baker"),
which few documents hold. `name_specificity` (claimhop.program.select.specificity) weighs a name that more than a
share of the collection holds by that share's fraction; `specific_names` says whether the claim's names are weighed
too. Rules: off, and each cut below with either scope; chosen by leave one set out over the five sets on selection
records (benchmarks.lab.selection_records, no model call).

    python -m benchmarks.lab.name_specificity --records /work/specificity --rows /work/every-set-fb-floor \
        --set claim_feedback=20 --set unnamed_floor=21 --out docs/results/every-set/name-specificity
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.lab import show_table
from benchmarks.lab.selection_records import SETS, gold_of, held_out, hybrid_found, replay, settings_of

CUTS = (0.002, 0.005, 0.01, 0.02)  # the share of the collection above which a name weighs less
TODAY = "today (off)"
RULES = {TODAY: {}, **{f"cut {cut}, {scope.replace('_', '-')} names": {"name_specificity": cut, "specific_names": scope}
                       for scope in ("looked_up", "all") for cut in CUTS}}


def main(argv: list[str] | None = None) -> None:
    from benchmarks.every_set import eval_sets

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--records", type=Path, required=True, help="benchmarks.lab.selection_records' folder")
    parser.add_argument("--rows", type=Path, required=True, help="an every_set run's folder: the hybrid baseline")
    parser.add_argument("--sets", default=SETS)
    parser.add_argument("--set", action="append", default=[], help="name=value settings the records were made with")
    parser.add_argument("--out", type=Path, help="folder for README.md (printed either way)")
    args = parser.parse_args(argv)
    recorded = settings_of(args.set)
    items = [item for item in eval_sets(args.root) if item.name in args.sets.split(",")]
    found = {item.name: replay(args.records, item.name, item.corpus, recorded, RULES) for item in items}
    hybrid = {item.name: hybrid_found(args.rows, item.name, gold_of(args.records, item.name)) for item in items}
    heading = ["# Names weighed by how common they are in the collection (issue 70)", "",
               f"`python -m benchmarks.lab.name_specificity --records {args.records} --rows {args.rows}` (records of "
               f"{', '.join(f'{k}={v}' for k, v in recorded.items()) or 'the defaults'}; no model call). Each set held "
               "out in turn, the rule chosen on the other four: the most claims gained less lost against today's "
               "selection at 5 and 21, ties to today."]
    show_table(held_out(found, hybrid, TODAY, heading), args.out, "README.md")


if __name__ == "__main__":
    main()
