"""At the defaults of 36fab17 (`claim_lead=1`, `named_words=capitalised`), does a longer claim lead only when a signal
fires close Climate-FEVER's last claims at 5, chosen with the 124 Climate-FEVER claims to choose on (issue 70)?

Selection runs at today's defaults on the selection records (benchmarks.lab.selection_records, no model call); for a
claim whose 21 are in selection order (it names a document), the claim search's first L (2 or 3) go first when a
signal about its first 5 passes a threshold: documents there with a chain bonus, documents there the claim's own
search did not return in its 21, the claim search's first 5 the claim names, or those two first-5s' overlap (the
signals of benchmarks.lab.lead_rule, which chose on fewer Climate-FEVER claims). Chosen by leave one set out.

    python -m benchmarks.lab.lead_signal --records /work/specificity --rows /work/every-set-1cdb780 \
        --extra climate-fever-choose=/work/ood-b/climate-fever-choose/choose-124.jsonl@/work/ood/climate-fever/documents \
        --out docs/results/every-set/lead-fusion/signals
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from benchmarks.every_set import EvalSet, gold_found
from benchmarks.lab.selection_records import (
    KS,
    Found,
    held_out_main,
    records_of,
    selected_from,
)

SIGNALS = ("chained in 5", "hop-only in 5", "named in search 5", "shared 5")
Rule = tuple[str, int, str, int] | None  # signal, threshold, "<=" or ">=", lead; None: today
RULES: dict[str, Rule] = {"today": None} | {
    f"lead {lead} when {signal} {way} {at}": (signal, at, way, lead)
    for signal, at, way, lead in itertools.product(SIGNALS, (0, 1, 2, 3), ("<=", ">="), (2, 3))}


def signals(selected: list[dict], ranking: list[dict], claim_entities: list[str]) -> dict[str, int]:
    """The four signals of one claim's selection and its own search."""
    from claimhop.entities.matching import is_about
    from claimhop.entities.ner import unique

    names, first5 = unique(claim_entities), selected[:5]
    search5 = [c["title"] for c in ranking[:5]]
    search21 = {c["title"] for c in ranking[:21]}
    return {"chained in 5": sum(1 for d in first5 if d.get("chain")),
            "hop-only in 5": sum(1 for d in first5 if d["title"] not in search21),
            "named in search 5": sum(1 for t in search5 if any(is_about(e, t) for e in names)),
            "shared 5": len({d["title"] for d in first5} & set(search5))}


def replayed(records: Path, item: EvalSet, recorded: dict[str, Any]) -> dict[str, Found]:
    """Per rule, the claims with their gold among the first 5 and 21 of selection (today's defaults, or the
    `recorded` settings given), led further where the rule's signal fires on a claim that names a document."""
    from claimhop.program import stages_for
    from claimhop.program.select.stage import claim_led
    from state.context import Context

    stages = stages_for(Context.from_any({**recorded, "corpus_path": item.corpus or ""}))
    out: dict[str, Found] = {name: {k: {} for k in KS} for name in RULES}
    for row in records_of(records, item):
        selected, ranking = selected_from(stages, row)
        kept = {d["title"] for d in selected}
        in_claim_order = [d["title"] for d in selected] == [c["title"] for c in ranking if c["title"] in kept]
        said = signals(selected, ranking, row["claim_entities"])
        for name, rule in RULES.items():
            titles = [d["title"] for d in selected]
            if rule is not None and not in_claim_order:
                signal, at, way, lead = rule
                if (said[signal] <= at) if way == "<=" else (said[signal] >= at):
                    titles = [d["title"] for d in claim_led([dict(d) for d in selected], ranking, lead)]
            for k in KS:
                out[name][k][row["uid"]] = gold_found(item, titles, row["gold"], k)
    return out


def main(argv: list[str] | None = None) -> None:
    held_out_main(argv, __doc__, "lead_signal", "A longer claim lead when a signal fires, at the defaults of 36fab17",
                  replayed, "today", "selection at today's defaults on the records")


if __name__ == "__main__":
    main()
