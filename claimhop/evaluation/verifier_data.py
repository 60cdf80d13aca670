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
    """Whether an item is not a HoVer dev claim (a synthetic claim on its builder's documents, a three-document one,
    one on retrieved documents, or a real claim of another domain): what the kind head learns from and no dev fold
    holds."""
    return not item["source"].startswith("dev-")


def real_claim_items(path: Path, root: Path, without: tuple[str, ...] = (), roles: tuple[str, ...] = ("train",)
                     ) -> list[dict]:
    """Real labelled claims of other domains as items: `path` names each claim (set, uid, label, the documents
    search found for it; benchmarks.real_claims), the claim's text and documents are in `root`/SET (the folders
    benchmarks.claim_sets makes from the public sets, so no set's text is committed here); the sets in `without`
    are left out (a head measured on a set must not have seen it), and so are the rows whose role is not in `roles`
    (the reported samples, role "sample", are measured on, never trained on)."""
    if not path.is_file():
        raise ValueError(f"real claims file not found: {path} (make it with `python -m benchmarks.real_claims`)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts: dict[str, dict[str, str]] = {}
    for name in sorted({row["set"] for row in rows} - set(without)):
        claims = root / name / "claims.jsonl"
        if not claims.is_file():
            raise ValueError(f"{claims}: no such file (make the set's folder with `python -m benchmarks.claim_sets`)")
        texts[name] = {c["uid"]: c["claim"] for c in map(json.loads, claims.read_text(encoding="utf-8").splitlines())}
    return [{**row, "claim": texts[row["set"]][row["uid"]], "folder": str(root / row["set"] / "documents"),
             "key": f"real-{row['set']}:{row['uid']}", "kind": row["label"], "source": f"real-{row['set']}"}
            for row in rows if row["set"] not in without and row.get("role", "train") in roles]


def claims_file(folder: Path) -> Path:
    """The labelled claims `claimhop train-verifier --corpus` made from a collection, in its index folder."""
    return folder / "verifier-claims.jsonl"


def collection_claim_items(source: Path) -> list[dict]:
    """The claims made from a collection's own documents (claimhop.evaluation.collection_claims), as items read in
    that collection: synthetic claims (no label of the user's), so both heads learn from them."""
    from claimhop.retrieval.collection import default_folder

    path = claims_file(default_folder(source))
    if not path.is_file():
        raise ValueError(f"{path}: no claims made from {source} yet (`claimhop train-verifier --corpus {source}` "
                         "makes them)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{**row, "folder": str(source), "source": "collection"} for row in rows]


def synthetic_items(path: Path) -> list[dict]:
    """The synthetic set's rows as items (each row already names its documents and its 3-way kind)."""
    if not path.is_file():
        raise ValueError(f"synthetic claims file not found: {path} (make it with `claimhop train-verifier --make-synthetic`)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{**row, "key": f"synthetic:{row['id']}", "source": "synthetic"} for row in rows]


def retrieved_synthetic_items(folder: Path = SYNTHETIC_RETRIEVED) -> list[dict]:
    """The synthetic claims of `folder`/claims.jsonl as items on the documents `folder`/eval.jsonl selected for them
    (evidence like a user's, a false claim's changed name retrieved too; benchmarks.lab.retrieved_synthetic)."""
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
