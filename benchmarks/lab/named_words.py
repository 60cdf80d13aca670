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

from benchmarks.lab.selection_records import rules_main

TODAY = "today (any words)"
RULES = {TODAY: {}, "a capitalised word": {"named_words": "capitalised"},
         "every capitalised word": {"named_words": "every_capitalised"}}


def main(argv: list[str] | None = None) -> None:
    rules_main(argv, __doc__, "named_words", "A claim's common words naming a title", RULES, TODAY)


if __name__ == "__main__":
    main()
