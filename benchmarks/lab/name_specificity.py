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

from benchmarks.lab.selection_records import rules_main

CUTS = (0.002, 0.005, 0.01, 0.02)  # the share of the collection above which a name weighs less
TODAY = "today (off)"
RULES = {TODAY: {}, **{f"cut {cut}, {scope.replace('_', '-')} names": {"name_specificity": cut, "specific_names": scope}
                       for scope in ("looked_up", "all") for cut in CUTS}}


def main(argv: list[str] | None = None) -> None:
    rules_main(argv, __doc__, "name_specificity", "Names weighed by how common they are in the collection", RULES, TODAY)


if __name__ == "__main__":
    main()
