"""Does the quote rule (a sentence read that says the opposite of the claim makes it CONTRADICTED) change HoVer?
On the 169 dev claims, on the documents claimhop selected (docs/results/dev-169-selection) and on their gold
documents, the passages the shipped head reads, the claim quoted as one fact: where the rule fires, and the
verdicts recorded for the shipped head (docs/results/verifier/dev-169-passages.jsonl) against the same verdicts
with the rule, paired (SUPPORTED vs not, HoVer's two labels). Encoder only, no model call.

    python -m benchmarks.lab.opposite_quotes_hover
"""

from __future__ import annotations

import json
from pathlib import Path

from claimhop.evaluation.data import load_claims
from claimhop.evaluation.report import mcnemar_exact
from claimhop.evaluation.verifier_data import DEV_RETRIEVED
from claimhop.evaluation.verify_eval import retrieved_titles
from claimhop.program.verify.head import load_head
from claimhop.program.verify.quotes import quotes_for
from claimhop.program.verify.reading import passages_read
from claimhop.program.verify.stage import said_opposite
from claimhop.retrieval.corpus import documents_by_title, load_corpus

ROWS = Path("docs/results/verifier/dev-169-passages.jsonl")


def main() -> None:
    import argparse

    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    corpus, rule = load_corpus(), load_head().reading
    claims = {c["uid"]: c for c in load_claims()}
    recorded = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines() if line.strip()]
    selections = {"retrieved": retrieved_titles(DEV_RETRIEVED),
                  "gold": {uid: c["supporting_titles"] for uid, c in claims.items()}}
    for evidence, titles in selections.items():
        rows = {r["uid"]: r for r in recorded if r["system"] == f"passages@{evidence}"}
        fired, gained, lost = [], 0, 0
        for uid, row in rows.items():
            claim = claims[uid]["claim"]
            passages = passages_read(documents_by_title(corpus, titles[uid]), claim, rule)
            if row["verdict"] == "CONTRADICTED" or not said_opposite(quotes_for([claim], passages)):
                continue
            fired.append(uid)
            was_right = (row["verdict"] == "SUPPORTED") == (row["label"] == "SUPPORTED")
            now_right = row["label"] != "SUPPORTED"
            gained += now_right and not was_right
            lost += was_right and not now_right
        print(f"{evidence}: the rule fires on {len(fired)} of {len(rows)} dev claims not already CONTRADICTED; "
              f"right only with it {gained}, only without {lost} (exact McNemar p = {mcnemar_exact(gained, lost):.2g})"
              + (f"; fired on {', '.join(fired)}" if fired else ""))


if __name__ == "__main__":
    main()
