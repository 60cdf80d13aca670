"""Should a claim that names a document keep more of its own search's first results (`claim_floor`, 10), now that
Climate-FEVER claims of that kind lose evidence hybrid ranks 11-21 (issue 70)?

A second Climate-FEVER sample (benchmarks.lab.named_words' README) shows claimhop's 21 under hybrid's there on two
claims; one names a document, so only the claim search's first 10 are kept and selection's score drops the rest (the
other names none: the feedback's fusion moved its evidence out of the 21). Floors of
10 (today), 12, 15 and 21 replayed on selection records of the five sets and that sample (to choose on), chosen by
leave one set out (benchmarks.lab.selection_records, no model call).

    python -m benchmarks.lab.claim_floor --records /work/specificity --rows /work/every-set-fb-floor \
        --extra climate-fever-b=/work/ood-b/climate-fever-b/sample-55.jsonl@/work/ood/climate-fever/documents
"""

from __future__ import annotations

from benchmarks.lab.selection_records import rules_main

TODAY = "claim_floor=10 (today)"
RULES = {TODAY: {}, **{f"claim_floor={k}": {"claim_floor": k} for k in (12, 15, 21)}}


def main(argv: list[str] | None = None) -> None:
    rules_main(argv, __doc__, "claim_floor", "How much of the claim's own search a claim that names a document keeps",
               RULES, TODAY)


if __name__ == "__main__":
    main()
