"""Where verify's "nothing to go on" rule fires on the documents each set's claims were given, with and without the
exception for a claim whose only unmentioned "name" is its capitalised opening word ("Preventing future pandemics
...": `claimhop.program.verify.coverage.without_opening_word`). No model call: the claims' names as the graph finds
them (NER and capitalised spans) and the 21 of an every_set run's claimhop rows.

    python -m benchmarks.lab.opening_word --rows /work/every-set-lead1cap
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    from benchmarks.every_set import eval_sets
    from claimhop.entities.ner import extract_entities, unique
    from claimhop.evaluation.data import load_claims
    from claimhop.evaluation.verifier_features import documents_for
    from claimhop.program.verify.coverage import (
        claim_names,
        unmentioned_names,
        without_opening_word,
    )
    from claimhop.retrieval.factory import search_engine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--rows", type=Path, required=True, help="an every_set run's folder")
    args = parser.parse_args(argv)
    print("| set (claims) | fires without the exception | with it | claims it no longer fires on |\n|---|---|---|---|")
    for item in eval_sets(args.root):
        engine = search_engine(item.corpus)
        claims = {c["uid"]: c["claim"] for c in load_claims(Path(item.claims))}
        rows = [json.loads(line) for line in (args.rows / item.name / "eval.jsonl").open()]
        before, after, moved = 0, 0, []
        for row in (r for r in rows if r.get("system") == "claimhop"):
            claim = claims[row["uid"]]
            names = claim_names(claim, unique(extract_entities([claim], with_spans=True)[0]))
            unmentioned = unmentioned_names(names, documents_for(engine.corpus, row["titles"][:21]))
            fires = unmentioned is not None
            fires_now = fires and bool(without_opening_word(claim, unmentioned))
            before, after = before + fires, after + fires_now
            if fires != fires_now:
                moved.append(row["uid"])
        print(f"| {item.name} ({len(claims)}) | {before} | {after} | {', '.join(moved) or '-'} |", flush=True)


if __name__ == "__main__":
    main()
