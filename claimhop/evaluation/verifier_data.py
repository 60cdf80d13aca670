"""The labelled items the passage verifier's head is trained and measured on: HoVer dev claims on their gold
documents and on the documents claimhop retrieved for them (a committed `claimhop eval` run), and the synthetic
claims made from HotpotQA questions (claimhop.evaluation.synthetic)."""

from __future__ import annotations

import json
from pathlib import Path

from claimhop.evaluation.data import DEV_CLAIMS, load_claims
from claimhop.evaluation.verify_eval import retrieved_titles

# the documents claimhop selected for every dev claim at the current retrieval defaults (commit c288e94)
DEV_RETRIEVED = Path("docs/results/dev-169-selection/eval.jsonl")
# synthetic claims (claims.jsonl) and the documents claimhop selected for each (eval.jsonl)
SYNTHETIC_RETRIEVED = Path("docs/results/verifier/synthetic-retrieved")


def dev_items(kind: str, retrieved_from: Path = DEV_RETRIEVED, claims_path: Path = DEV_CLAIMS) -> list[dict]:
    """Dev claims as items on `kind` documents: 'gold' (oracle retrieval) or 'retrieved' (claimhop's selection)."""
    claims = load_claims(claims_path)
    retrieved = retrieved_titles(retrieved_from) if kind == "retrieved" else {}
    items = []
    for claim in claims:
        titles = claim["supporting_titles"] if kind == "gold" else retrieved.get(claim["uid"])
        if titles is None:
            raise ValueError(f"claim {claim['uid']} has no retrieved documents in {retrieved_from}")
        items.append({"key": f"dev-{kind}:{claim['uid']}", "group": claim["uid"], "claim": claim["claim"],
                      "titles": list(titles), "label": claim["label"], "num_hops": claim.get("num_hops"),
                      "source": f"dev-{kind}"})
    return items


def is_synthetic(item: dict) -> bool:
    """Whether an item is a synthetic claim (on its builder's documents, a three-document one, or on retrieved
    documents), not a dev claim: what the kind head and the yes calibration learn from, and no dev fold holds."""
    return not item["source"].startswith("dev-")


def synthetic_items(path: Path) -> list[dict]:
    """The synthetic set's rows as items (each row already names its documents and its 3-way kind)."""
    if not path.is_file():
        raise ValueError(f"synthetic claims file not found: {path} (make it with `claimhop train-verifier --make-synthetic`)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{**row, "key": f"synthetic:{row['id']}", "source": "synthetic"} for row in rows]


def retrieved_synthetic_items(folder: Path = SYNTHETIC_RETRIEVED) -> list[dict]:
    """The synthetic claims of `folder`/claims.jsonl as items on the documents `folder`/eval.jsonl selected for them
    (evidence like a user's, a false claim's changed name retrieved too; benchmarks.retrieved_synthetic)."""
    if not (folder / "claims.jsonl").is_file():
        raise ValueError(f"no synthetic claims on retrieved documents in {folder} (claims.jsonl is missing)")
    claims = [json.loads(line) for line in (folder / "claims.jsonl").read_text(encoding="utf-8").splitlines() if line]
    titles = retrieved_titles(folder / "eval.jsonl")
    missing = [c["uid"] for c in claims if c["uid"] not in titles]
    if missing:
        raise ValueError(f"{len(missing)} claims have no retrieved documents in {folder / 'eval.jsonl'} (run "
                         f"`claimhop eval --recall-only` on {folder / 'claims.jsonl'}), e.g. {missing[0]}")
    return [{"key": f"synthetic-retrieved:{c['uid']}", "group": c["group"], "claim": c["claim"],
             "titles": titles[c["uid"]], "label": c["label"], "kind": c["kind"], "variant": c["variant"],
             "num_hops": c["num_hops"], "source": "synthetic-retrieved"} for c in claims]
