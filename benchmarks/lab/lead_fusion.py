"""How should a claim that names a document order its first documents, now that a larger Climate-FEVER sample shows
selection's order trailing one plain search there (issue 70)?

Selection orders such a claim's 21 by its score (names, hops, chains), and on Climate-FEVER that order puts documents
about the claim's names ahead of the evidence the claim's own search ranks first. The rules: the claim search's first
k documents placed first (`claim_lead`), a reciprocal-rank fusion of selection's order with the claim search's
(`claim_fusion`, `claim_fusion_k`), a title counted as named only through the claim's capitalised words
(`named_words=capitalised`), and their pairings. Replayed on selection records (benchmarks.lab.selection_records, no
model call) and chosen by leave one set out, with every Climate-FEVER claim whose group no claim of the committed
sample has (124, `--extra`) among the sets chosen on, never reported as a sample. The records were made at the
defaults before this choice (claim_lead=0, named_words=any), hence the `--set`s.

    python -m benchmarks.lab.lead_fusion --records /work/specificity --rows /work/every-set-1cdb780 \
        --set claim_lead=0 --set named_words=any \
        --extra climate-fever-choose=/work/ood-b/climate-fever-choose/choose-124.jsonl@/work/ood/climate-fever/documents \
        --out docs/results/every-set/lead-fusion
    python -m benchmarks.lab.lead_fusion --leads ... --out docs/results/every-set/lead-fusion/leads
"""

from __future__ import annotations

import sys
from typing import Any

from benchmarks.lab.selection_records import rules_main

TODAY = "today"


def rules(fusions: bool) -> dict[str, dict[str, Any]]:
    """Leads of 1-3 (and with `fusions` rank fusions of weight 0.5-2 and constant 5 or 60), each alone and with
    named_words=capitalised."""
    orders: dict[str, dict[str, Any]] = {"selection's": {"claim_lead": 0}}
    orders.update({f"lead {k}": {"claim_lead": k} for k in (1, 2, 3)})
    if fusions:
        orders.update({f"fusion {w} k {k}": {"claim_fusion": w, "claim_fusion_k": k}
                       for w in (0.5, 1, 2) for k in (5, 60)})
    out: dict[str, dict[str, Any]] = {}
    for label, rule in orders.items():
        for words in ("any", "capitalised"):
            name = label if words == "any" else f"{label}, capitalised words"
            # TODAY is the records' own settings (the replay checks it); every other rule spells out both knobs
            out[TODAY if name == "selection's" else name] = ({} if name == "selection's"
                                                             else {**rule, "named_words": words})
    return out


def main(argv: list[str] | None = None) -> None:
    """`--leads` alone: the lead family only (the rules with one setting each of lead and words)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    fusions = "--leads" not in argv
    argv = [a for a in argv if a != "--leads"]
    title = "A named claim's first documents: leads" + (", fusions" if fusions else "") + ", named words"
    rules_main(argv, __doc__, "lead_fusion" if fusions else "lead_fusion --leads", title, rules(fusions), TODAY)


if __name__ == "__main__":
    main()
