"""Measure selection offline: record what selection was given for each claim, then score selection rules on it.

Selection is the graph's last step before verify, so a rule change needs no model call to measure. `record` runs
each claim up to selection (recall-only) with a DSPy cache that an earlier run filled, so every model call is
replayed, and writes, per claim, the candidates with the steps that found them, the entities selection scores
by, and the claim's own search ranking. `compare` then runs selection rules on those records in seconds and
prints recall@21 overall and on 3-hop claims, with paired counts and the exact McNemar p against the first rule.

    DSPY_CACHEDIR=<cache of the eval run> python -m benchmarks.lab.selection record --out records.jsonl
    python -m benchmarks.lab.selection compare records.jsonl --rule current --rule 'claim_floor=10'
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from claimhop.evaluation.data import DEV_CLAIMS, load_claims
from claimhop.evaluation.metric import all_gold_in
from claimhop.evaluation.report import mcnemar_exact
from claimhop.evaluation.runner import json_objects


def record(claims_path: Path, out: Path, settings: dict[str, Any]) -> None:
    """Append one record per claim not yet in `out` (resumable)."""
    from claimhop.lm.provider import local_engine_stats
    from claimhop.program import stages_for
    from claimhop.program.runtime import get_lm
    from graph.runs import run_graph
    from state.context import Context

    ctx = Context.from_any(settings)
    get_lm(ctx.model)
    retriever = stages_for(ctx).built.engine
    done = {row["uid"] for row in json_objects(out) if "uid" in row}
    claims = [c for c in load_claims(claims_path) if c["uid"] not in done]
    with out.open("a") as sink:
        for claim in tqdm(claims, desc="record selection inputs", unit="claim"):
            before = local_engine_stats()["calls"]
            state = run_graph(claim["claim"], ctx, recall_only=True)
            row = {
                "uid": claim["uid"], "num_hops": claim["num_hops"], "gold": claim["supporting_titles"],
                "claim": claim["claim"],
                "claim_entities": state.get("claim_entities", []), "looked_up": state.get("looked_up", []),
                # what the later hop added is left out: `compare` replays it under each rule's settings
                "candidates": [{k: c[k] for k in ("doc_id", "title", "retrieval_score", "found_by")}
                               for c in state.get("candidates", {}).values() if c["found_by"] != ["later_links"]],
                "claim_ranking": [h.doc_id for h in retriever.search_fused(claim["claim"], 50, ctx.retrieval_mode)],
                "selected": [d["title"] for d in state.get("selected", [])],
                "model_calls": local_engine_stats()["calls"] - before,  # 0 when the cache replayed every call
            }
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
            sink.flush()


def parse_rule(text: str) -> tuple[str, dict[str, Any]]:
    """'current' or 'name=value,name=value': run settings for selection, applied over the defaults."""
    if text == "current":
        return text, {}
    settings: dict[str, Any] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if not value:
            raise SystemExit(f"--rule {text!r}: expected name=value pairs, got {part!r}")
        settings[name.strip()] = json.loads(value) if value[:1] in "-0123456789[{\"tf" else value
    return text, settings


def compare(records_path: Path, rules: list[str]) -> None:
    from claimhop.program.found import candidate
    from claimhop.program.later_links import later_hop
    from claimhop.program.select.stage import select_from
    from claimhop.retrieval.service import Hit, index_search
    from state.context import Context
    from state.schema import merge_candidates

    rows = [row for row in json_objects(records_path) if "uid" in row]
    search = index_search()
    titles, texts = search.corpus.titles, search.corpus.texts  # the bundled corpus the records' document ids index
    # the claim as one hybrid search (its own first 21), which a rule must never lose a claim to
    hybrid = [all_gold_in([titles[i] for i in row["claim_ranking"]], row["gold"]) for row in rows]
    links = search.link_table()
    results: dict[str, list[bool]] = {}
    for rule in rules:
        name, settings = parse_rule(rule)
        ctx = Context.from_any(settings)
        found = []
        for row in tqdm(rows, desc=name, unit="claim", leave=False):
            candidates = {c["title"]: {**c, "text": texts[c["doc_id"]]} for c in row["candidates"]}
            if ctx.later_link_articles:  # the later hop runs after the recorded steps, so it is replayed exactly
                linked = later_hop(search, links, candidates, row["claim_entities"], ctx.later_link_articles,
                                   ctx.tuning.later_link_weighting == "idf", ctx.tuning.generic_links)
                candidates = merge_candidates(candidates, linked.candidates)
            claim_ranking = [candidate(Hit(i, titles[i], 0.0, texts[i]), rank, "claim")
                             for rank, i in enumerate(row["claim_ranking"], start=1)]
            selected = select_from(candidates, row["claim_entities"], row["looked_up"], claim_ranking, ctx, links)
            found.append(all_gold_in([d["title"] for d in selected], row["gold"]))
        results[name] = found
    base_name, base = next(iter(results.items()))
    three = [i for i, row in enumerate(rows) if row["num_hops"] == 3]
    print(f"{len(rows)} claims ({len(three)} 3-hop) from {records_path}")
    print(f"hybrid search of the claim alone: {sum(hybrid)}/{len(rows)}")
    print("| rule | all gold@21 | 3-hop | only this | only " + base_name + " | McNemar p | lost to hybrid |")
    print("|---|---|---|---|---|---|---|")
    for name, found in results.items():
        gain = sum(a and not b for a, b in zip(found, base))
        loss = sum(b and not a for a, b in zip(found, base))
        print(f"| {name} | {sum(found)}/{len(rows)} | {sum(found[i] for i in three)}/{len(three)} | {gain} | {loss} "
              f"| {mcnemar_exact(gain, loss):.3f} | {sum(h and not f for h, f in zip(hybrid, found))} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run each claim up to selection and record selection's inputs")
    rec.add_argument("--claims", type=Path, default=DEV_CLAIMS)
    rec.add_argument("--out", type=Path, required=True)
    rec.add_argument("--set", action="append", default=[], help="name=value run settings (as for eval)")
    cmp_ = sub.add_parser("compare", help="score selection rules on recorded inputs")
    cmp_.add_argument("records", type=Path)
    cmp_.add_argument("--rule", action="append", default=[], help="'current' or name=value,... (first is the base)")
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.claims, args.out, {k: v for s in args.set for k, v in parse_rule(s)[1].items()})
    else:
        if not args.records.is_file():
            sys.exit(f"no records at {args.records}: make them with `record` first")
        compare(args.records, args.rule or ["current"])


if __name__ == "__main__":
    main()
