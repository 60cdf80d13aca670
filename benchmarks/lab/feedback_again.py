"""The claim search's feedback and the unnamed floor again, now with claims to choose on outside the committed
samples (issue 70).

`claim_feedback=20` with `unnamed_floor=21` was chosen on the five sets (benchmarks.lab.floor_feedback). Claims
recorded since, to choose on and never reported (every Climate-FEVER and HealthVer claim outside the committed
samples' groups, 100 Check-COVID claims of other groups), show claimhop's 21 under hybrid's on Climate-FEVER (113
against 117), two of them unnamed claims whose evidence the feedback's fusion moved out of the claim search's 21. The
four pairings (feedback on / off, floor 21 / 0), today's selection otherwise, replayed on two record folders of
benchmarks.lab.selection_records (no model call): the records with both on (`--records`) and records made with both
off (`--plain`; feedback changes the claim search and so the candidates, the floor only selection). Chosen by leave
one set out, ties to today (both on).

    python -m benchmarks.lab.feedback_again --records /work/specificity --plain /work/records-plain \
        --rows /work/every-set-lead1cap --set claim_lead=0 --set file_claim_lead=0 --set named_words=any \
        --extra climate-fever-choose=/work/ood-b/climate-fever-choose/choose-124.jsonl@/work/ood/climate-fever/documents \
        --extra healthver-choose=/work/ood-b/healthver-choose/choose-40.jsonl@/work/ood/healthver/documents \
        --extra check-covid-choose=/work/ood-b/check-covid-choose/choose-100.jsonl@/work/ood/check-covid/documents
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks.every_set import EvalSet
from benchmarks.lab.selection_records import Found, held_out_main, replay

DEFAULTS = {"claim_lead": 1, "file_claim_lead": 5, "named_words": "capitalised"}  # today's, over records of no lead
PLAIN = {"claim_feedback": 0, "unnamed_floor": 0}  # what the --plain records were made with
TODAY = "feedback and floor (today)"


def main(argv: list[str] | None = None) -> None:
    if {"-h", "--help"} & set(argv or sys.argv[1:]):
        print(__doc__)  # --plain, this tool's own option, then the shared ones below
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--plain", type=Path, required=True,
                        help="selection records made with claim_feedback=0 unnamed_floor=0")
    args, rest = parser.parse_known_args(argv)

    def found_for(records: Path, item: EvalSet, recorded: dict[str, Any]) -> dict[str, Found]:
        fed = replay(records, item, recorded, {TODAY: DEFAULTS, "feedback alone": {**DEFAULTS, "unnamed_floor": 0}},
                     checked=True)
        plain = replay(args.plain, item, {**recorded, **PLAIN},
                       {"floor alone": {**DEFAULTS, "unnamed_floor": 21}, "neither": DEFAULTS}, checked=True)
        return {**fed, **plain}

    held_out_main(rest, __doc__, "feedback_again", "The claim search's feedback and the unnamed floor, again",
                  found_for, TODAY, replayed_as=f"today's selection on the records and on {args.plain}, made with "
                  "claim_feedback=0 unnamed_floor=0", own_args=f" --plain {args.plain}")


if __name__ == "__main__":
    main()
