"""The selection's order for claims that name no document (unnamed_order=claim), replayed on recorded rows: each
claimhop row of a `claimhop eval` results file whose 21 documents none is about a name of the claim (as NER finds
them: claimhop.program.select.stage.names_nothing) is put in the order the row's hybrid search of the claim ranked
them (claimhop.program.select.stage.in_claim_order); the rest are copied as they are. The recorded hybrid row stands
in for the claim's own search in the run, and the 21 documents for the candidates (a claim that names a document
outside them is taken as unnamed here), so this is a replay, not a run. Prints evidence recall at 2, 3 and 5 before
and after, and writes the rows for `claimhop eval-verify --retrieved-from` or `benchmarks.out_of_domain --rows`.

    python -m benchmarks.lab.claim_order ROWS.jsonl --out REORDERED.jsonl [--corpus FOLDER]
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

import numpy as np

from claimhop.atomic import write_text
from claimhop.evaluation.runner import rows_in

KS = (2, 3, 5)


def listed(value) -> list[str]:
    """A row's list field (older rows kept lists as their Python text)."""
    return ast.literal_eval(value) if isinstance(value, str) else list(value or [])


def reordered(rows: list[dict], claims: dict[str, str]) -> tuple[list[dict], set[str]]:
    """The rows with the claimhop rows of unnamed claims in their hybrid order; the uids changed."""
    from claimhop.entities.ner import extract_entities, unique
    from claimhop.program.select.stage import in_claim_order, names_nothing

    hybrid = {r["uid"]: listed(r["titles"]) for r in rows if r["system"] == "hybrid"}
    out, changed = [], set()
    for row in rows:
        if row["system"] != "claimhop" or row["uid"] not in hybrid:
            out.append(row)
            continue
        titles = listed(row["titles"])[:21]
        names = unique(extract_entities([claims[row["uid"]]], with_spans=True)[0])
        pool = {t: {"title": t} for t in titles}
        if not names_nothing(pool, names, claims[row["uid"]]):
            out.append(row)
            continue
        selected = [{"title": t, "rank": i} for i, t in enumerate(titles, start=1)]
        order = [d["title"] for d in in_claim_order(selected, [{"title": t} for t in hybrid[row["uid"]]])]
        changed |= {row["uid"]} if order != titles else set()
        out.append({**row, "titles": order, "unnamed_order": "claim"})
    return out, changed


def recall_at(rows: list[dict], k: int) -> float:
    """Mean share of a claim's evidence among its first k documents (claims with evidence)."""
    shares = [len(set(listed(r["gold"])) & set(listed(r["titles"])[:k])) / len(set(listed(r["gold"])))
              for r in rows if listed(r.get("gold"))]
    return float(np.mean(shares)) if shares else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", help="a `claimhop eval` results file with claimhop and hybrid rows")
    parser.add_argument("--claims", required=True, help="the claims file the rows were run on")
    parser.add_argument("--out", required=True)
    parser.add_argument("--judge", action="store_true", help="HoVer dev verdicts before and after (model passes for "
                        "the reordered claims)")
    args = parser.parse_args()
    rows = rows_in(Path(args.rows))
    claims = {c["uid"]: c["claim"] for c in map(json.loads, Path(args.claims).read_text().splitlines()) if c}
    after, changed = reordered(rows, claims)
    before_rows = [r for r in rows if r["system"] == "claimhop"]
    after_rows = [r for r in after if r["system"] == "claimhop"]
    print(f"{len(changed)} of {len(before_rows)} claims reordered")
    for k in KS:
        print(f"evidence share at {k}: {recall_at(before_rows, k):.3f} -> {recall_at(after_rows, k):.3f}"
              f" (on the reordered claims: {recall_at([r for r in before_rows if r['uid'] in changed], k):.3f} -> "
              f"{recall_at([r for r in after_rows if r['uid'] in changed], k):.3f})")
    write_text(Path(args.out), "".join(json.dumps(r) + "\n" for r in after))
    if args.judge:
        judge_dev(Path(args.rows), Path(args.out))


def judge_dev(before: Path, after: Path) -> None:
    """HoVer dev verdicts of the bundled head on the documents as selected before and after, paired."""
    from benchmarks.real_claims import paired_line, verdicts
    from claimhop.evaluation.verifier_data import dev_items
    from claimhop.program.verify.head import HEAD_FILE, load_head
    from claimhop.retrieval.corpus import load_corpus

    head, corpus = load_head(HEAD_FILE), load_corpus()
    judged = []
    for rows in (before, after):
        items = dev_items("retrieved", rows)
        for item in items:
            item["uid"] = item["group"]
        judged.append(verdicts(head, items, lambda _: corpus, uid_fold=True))
    gold = {i["group"]: i["label"] for i in dev_items("gold")}
    two = {"SUPPORTED": "SUPPORTED", "CONTRADICTED": "NOT_SUPPORTED", "INSUFFICIENT_INFO": "NOT_SUPPORTED"}
    line = paired_line("hover-dev", gold, *judged, ("SUPPORTED", "NOT_SUPPORTED"), to_label=two.get)
    print(f"HoVer dev, bundled head: macro-F1 {line['bundled']} (selection order) -> {line['travel']} (claim order "
          f"when unnamed); right only before {line['only_bundled']}, only after {line['only_travel']}, exact McNemar "
          f"p = {line['p']:.2g}")


if __name__ == "__main__":
    main()
