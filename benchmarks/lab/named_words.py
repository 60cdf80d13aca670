"""Is a claim that names a document only through a common word ("the exact nature of the records" and the article
"Nature"; "halting deforestation" and "Deforestation") better read as one that names none (issue 70)?

Such a claim has its 21 in selection-score order, and on Climate-FEVER that order puts hop documents ahead of the
evidence one plain search ranks first. `named_words=capitalised` counts a title as named by the claim's words only
where the claim writes its capitalised words capitalised (names NER finds count either way), so those claims get
the unnamed claim's floor and order. Replayed on selection records of the five sets (benchmarks.lab.selection_records,
no model call), chosen by leave one set out. Selection only: the verify stage's own unnamed test (`opposite_check`)
is not changed here.

    python -m benchmarks.lab.named_words --records /work/specificity --rows /work/every-set-fb-floor \
        --out docs/results/every-set/named-words
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.lab import show_table
from benchmarks.lab.selection_records import SETS, gold_of, held_out, hybrid_found, replay, settings_of

TODAY = "today (any words)"
RULES = {TODAY: {}, "a capitalised word": {"named_words": "capitalised"},
         "every capitalised word": {"named_words": "every_capitalised"}}


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
    heading = ["# A claim's common words naming a title (issue 70)", "",
               f"`python -m benchmarks.lab.named_words --records {args.records} --rows {args.rows}` (records of "
               f"{', '.join(f'{k}={v}' for k, v in recorded.items()) or 'the defaults'}; no model call). Each set held "
               "out in turn, the rule chosen on the other four: the most claims gained less lost against today's "
               "selection at 5 and 21, ties to today."]
    show_table(held_out(found, hybrid, TODAY, heading), args.out, "README.md")


if __name__ == "__main__":
    main()
