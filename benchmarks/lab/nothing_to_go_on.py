"""How often the "nothing to go on" rule (claimhop.program.verify.coverage) would fire on claims the collection
does cover, from recorded eval rows (the 21 titles claimhop selected per claim), with no model call:

    python -m benchmarks.lab.nothing_to_go_on docs/results/dev-169-selection/eval.jsonl

Prints each claim it fires on and the count; the rule is meant to fire on none of them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from claimhop.entities.ner import extract_entities, unique
from claimhop.evaluation.data import DEV_CLAIMS
from claimhop.evaluation.runner import json_objects
from claimhop.program.verify.coverage import claim_names, unmentioned_names
from claimhop.retrieval.corpus import BUNDLED_CORPUS, load_corpus


def main() -> None:
    parser = argparse.ArgumentParser(description="how often the nothing-to-go-on rule fires on covered claims")
    parser.add_argument("rows", type=Path, help="eval rows with claimhop's selected titles")
    parser.add_argument("--claims", type=Path, default=DEV_CLAIMS)
    args = parser.parse_args()
    corpus = load_corpus(BUNDLED_CORPUS)
    text_of = dict(zip(corpus.titles, corpus.texts))
    claims = {c["uid"]: c["claim"] for c in map(json.loads, args.claims.read_text(encoding="utf-8").splitlines())}
    rows = [r for r in json_objects(args.rows) if r.get("system") == "claimhop" and r.get("titles")]
    fired = 0
    for row in rows:
        claim = claims[row["uid"]]
        names = claim_names(claim, unique(extract_entities([claim], with_spans=True)[0]))
        documents = [{"title": t, "text": text_of.get(t, "")} for t in row["titles"][:21]]
        missing = unmentioned_names(names, documents)
        if missing:
            fired += 1
            print(f"{row['uid'][:8]} nothing about {missing}: {claim}")
    print(f"fires on {fired} of {len(rows)} claims")


if __name__ == "__main__":
    main()
