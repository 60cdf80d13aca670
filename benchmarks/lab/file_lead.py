"""How many of the claim search's first results should lead a named claim's documents in a collection of files
(`file_claim_lead`), with `claim_lead=1` kept for the bundled Wikipedia corpus (issue 70)?

The lead family (benchmarks.lab.lead_fusion --leads) chose one lead for every collection, and longer leads lost
HoVer dev and HotpotQA claims at 5 (lead 3: 129 -> 125 and 136 -> 130) while Climate-FEVER gained (36 -> 37 of 45;
99 -> 100 of the 124 to choose on). On Wikipedia a name in a claim is an article's title and selection's names and
chains put the chain's articles first; in a folder of documents (passages that carry their file) a name is a topic
many passages mention ("Barack Obama" and three more of its passages, "Rio Grande"), and the plain search ranks the
evidence higher. So the lead is chosen for files alone: leads 1 (today), 2, 3, 5, 10 and 21 for passages of files,
today's selection otherwise, replayed on selection records (benchmarks.lab.selection_records, no model call) of the
five sets and the claims to choose on (every Climate-FEVER and HealthVer claim outside the committed samples' groups,
100 Check-COVID claims of other groups), chosen by leave one set out; on the Wikipedia sets nothing can move.

    python -m benchmarks.lab.file_lead --records /work/specificity --rows /work/every-set-lead1cap \
        --set claim_lead=0 --set file_claim_lead=0 --set named_words=any \
        --extra climate-fever-choose=/work/ood-b/climate-fever-choose/choose-124.jsonl@/work/ood/climate-fever/documents \
        --extra healthver-choose=/work/ood-b/healthver-choose/choose-40.jsonl@/work/ood/healthver/documents \
        --extra check-covid-choose=/work/ood-b/check-covid-choose/choose-100.jsonl@/work/ood/check-covid/documents
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.every_set import EvalSet
from benchmarks.lab.selection_records import Found, held_out_main, replay

DEFAULTS = {"claim_lead": 1, "named_words": "capitalised"}  # 36fab17's, over records made with no lead, any words
TODAY = "files lead 1 (the defaults of 36fab17)"
RULES = {TODAY: {**DEFAULTS, "file_claim_lead": 1},
         **{f"files lead {k}": {**DEFAULTS, "file_claim_lead": k} for k in (2, 3, 5, 10, 21)}}


def main(argv: list[str] | None = None) -> None:
    def found_for(records: Path, item: EvalSet, recorded: dict[str, Any]) -> dict[str, Found]:
        return replay(records, item, recorded, RULES, checked=True)

    held_out_main(argv, __doc__, "file_lead", "A named claim's lead in a collection of files", found_for, TODAY)


if __name__ == "__main__":
    main()
