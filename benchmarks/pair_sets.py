"""Labelled (claim, evidence) pairs of many genres for a verdict head that has seen contradiction beyond swapped
Wikipedia names (issue 69): each public set's pairs as {id, set, group, claim, evidence, label}, with the set's
provenance, licence and label mapping, and the distractors a check would read beside the evidence.

Table: none of its own; benchmarks.read_pairs reads its pairs for docs/results/verifier/pairs/.

- vitaminc-real: TalSchuster/talschuster.github.io : static/vitaminc_real.zip (test.jsonl); SUPPORTS / REFUTES /
  NOT ENOUGH INFO; CC BY-SA 3.0
- vitaminc-synthetic: same : static/vitaminc_synthetic.zip (test.jsonl); SUPPORTS / REFUTES; CC BY-SA 3.0
- taxinli: microsoft/TaxiNLI : taxinli10k.tsv (MNLI, 10 genres); entailment / contradiction / neutral; C-UDA (MNLI)
- check-covid, healthver, climate-fever: the folders benchmarks.claim_sets makes; labels and licences in each
  folder's PROVENANCE.md

The last three are also where verdicts are measured: a pair whose group (claims sharing evidence documents) holds
a claim of the set's reported sample (`sample-*.jsonl`) is never a pair here. SciFact and anything made from it are
deliberately absent (COVID-Fact's repository holds SciFact folders; ANLI is non-commercial: neither is read).

A pair's evidence is read among distractors of the same set (other evidence, never of its own group), in a seeded
order, up to `context` characters of passages: a check reads several passages, not one sentence.

    python -m benchmarks.pair_sets --mirror /work/.mirror --ood /work/ood   # counts per set and label
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import random
import re
import subprocess
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

SUPPORTED, CONTRADICTED, INSUFFICIENT = "SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"
LABELS = (SUPPORTED, CONTRADICTED, INSUFFICIENT)
MEASURED_SETS = ("healthver", "climate-fever", "check-covid")  # the sets with a reported 45-claim sample


@dataclass(frozen=True)
class PairSet:
    name: str
    repository: str
    path: str
    licence: str
    labels: str  # the set's labels and ours


PAIR_SETS = {s.name: s for s in [
    PairSet("vitaminc-real", "TalSchuster/talschuster.github.io", "static/vitaminc_real.zip", "CC BY-SA 3.0",
            "SUPPORTS -> SUPPORTED, REFUTES -> CONTRADICTED, NOT ENOUGH INFO -> INSUFFICIENT_INFO; real Wikipedia "
            "revisions that changed a number, date or direction"),
    PairSet("vitaminc-synthetic", "TalSchuster/talschuster.github.io", "static/vitaminc_synthetic.zip",
            "CC BY-SA 3.0", "SUPPORTS -> SUPPORTED, REFUTES -> CONTRADICTED; FEVER evidence edited to flip a claim"),
    PairSet("taxinli", "microsoft/TaxiNLI", "taxinli10k.tsv", "C-UDA (MultiNLI's data; TaxiNLI's annotations MIT)",
            "entailment -> SUPPORTED, contradiction -> CONTRADICTED, neutral -> INSUFFICIENT_INFO; MNLI premises of "
            "10 genres (fiction, government, letters, telephone, travel, ...) as the evidence"),
    PairSet("check-covid", "posuer/Check-COVID", "(benchmarks.claim_sets folder)", "MIT; CORD-19 abstracts",
            "as benchmarks.claim_sets: SUPPORTED / CONTRADICTED; the evidence is the claim's abstract"),
    PairSet("healthver", "sarrouti/HealthVer", "(benchmarks.claim_sets folder)", "none stated; CORD-19 excerpts",
            "as benchmarks.claim_sets: SUPPORTED / CONTRADICTED / INSUFFICIENT_INFO"),
    PairSet("climate-fever", "tdiggelm/climate-fever-dataset", "(benchmarks.claim_sets folder)",
            "none stated; Wikipedia sentences (CC BY-SA)",
            "as benchmarks.claim_sets: SUPPORTED / CONTRADICTED / INSUFFICIENT_INFO"),
]}


@dataclass(frozen=True)
class Pair:
    id: str
    set: str
    group: str  # pairs sharing evidence share a group: never split between training and measuring
    claim: str
    evidence: tuple[dict, ...]  # {"title", "text"}
    label: str


def short_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def git_file(mirror: Path, repository: str, path: str) -> bytes:
    """A file of a fetched repository snapshot (a bare git directory at mirror/OWNER+NAME/repo), read at HEAD."""
    git_dir = mirror / repository.replace("/", "+") / "repo"
    done = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"HEAD:{path}"], capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{repository}:{path} is not readable in {git_dir} (fetch the repository first): "
                         f"{done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def wiki_title(page: str) -> str:
    """FEVER's page names as titles: underscores and -LRB-/-RRB- back to spaces and brackets."""
    return page.replace("_", " ").replace("-LRB-", "(").replace("-RRB-", ")").replace("-COLON-", ":")


def detokenize(text: str) -> str:
    """FEVER-style tokenised text (`` 2 hearts '' was Madonna 's ...) read as plain text."""
    text = text.replace("-LRB-", "(").replace("-RRB-", ")").replace("``", '"').replace("''", '"')
    text = re.sub(r" ([.,;:!?%)'])", r"\1", text)
    text = re.sub(r"\( ", "(", text)
    return re.sub(r"\s+", " ", text).strip()


VITAMINC_LABELS = {"SUPPORTS": SUPPORTED, "REFUTES": CONTRADICTED, "NOT ENOUGH INFO": INSUFFICIENT}


def vitaminc(mirror: Path, name: str) -> list[Pair]:
    info = PAIR_SETS[name]
    archive = zipfile.ZipFile(io.BytesIO(git_file(mirror, info.repository, info.path)))
    member = next(n for n in archive.namelist() if n.endswith("test.jsonl"))
    pairs = []
    for line in archive.read(member).decode("utf-8").splitlines():
        row = json.loads(line)
        title = wiki_title(row["page"])
        pairs.append(Pair(f"{name}:{row['unique_id']}", name, f"{name}:{title}", detokenize(row["claim"]),
                          ({"title": title, "text": detokenize(row["evidence"])},), VITAMINC_LABELS[row["label"]]))
    return pairs


TAXINLI_LABELS = {"entailment": SUPPORTED, "contradiction": CONTRADICTED, "neutral": INSUFFICIENT}


def taxinli(mirror: Path) -> list[Pair]:
    info = PAIR_SETS["taxinli"]
    text = git_file(mirror, info.repository, info.path).decode("utf-8")
    pairs = []
    for row in csv.DictReader(io.StringIO(text), delimiter="\t"):
        label = TAXINLI_LABELS.get(row["label"])
        premise = re.sub(r"\s+", " ", row["prem"]).strip()
        if not label or not premise or not row["hyp"].strip():
            continue
        key = short_hash(premise)
        title = f"{row['genre'].capitalize()} text {key}"
        pairs.append(Pair(f"taxinli:{row['pairID']}", "taxinli", f"taxinli:{key}", row["hyp"].strip(),
                          ({"title": title, "text": premise},), label))
    return pairs


def folder_documents(folder: Path) -> dict[str, str]:
    """A claim_sets folder's documents by title (`# Title`, blank line, text)."""
    documents = {}
    for path in sorted((folder / "documents").glob("*.md")):
        head, _, body = path.read_text(encoding="utf-8").partition("\n")
        documents[head.removeprefix("# ").strip()] = body.strip()
    return documents


def measured_groups(folder: Path) -> set[str]:
    """The groups of the set's reported sample: no pair may come from them."""
    held = set()
    for sample in folder.glob("sample-*.jsonl"):
        held |= {json.loads(line)["group"] for line in sample.read_text(encoding="utf-8").splitlines() if line}
    return held


def folder_pairs(ood: Path, name: str) -> list[Pair]:
    """A claim_sets folder's claims outside the sample's groups, each with its evidence documents."""
    folder = ood / name
    if not (folder / "claims.jsonl").is_file():
        raise SystemExit(f"{folder}/claims.jsonl is missing: make it with `python -m benchmarks.claim_sets`")
    documents = folder_documents(folder)
    held = measured_groups(folder)
    pairs = []
    for line in (folder / "claims.jsonl").read_text(encoding="utf-8").splitlines():
        claim = json.loads(line)
        if claim["group"] in held:
            continue
        evidence = tuple({"title": t, "text": documents[t]} for t in claim["supporting_titles"] if t in documents)
        if evidence:
            pairs.append(Pair(f"{name}:{claim['uid']}", name, f"{name}:{claim['group']}", claim["claim"], evidence,
                              claim["label"]))
    return pairs


def load_pairs(name: str, mirror: Path, ood: Path) -> list[Pair]:
    if name not in PAIR_SETS:
        raise SystemExit(f"unknown pair set {name!r}: one of {', '.join(PAIR_SETS)}")
    if name.startswith("vitaminc"):
        return vitaminc(mirror, name)
    if name == "taxinli":
        return taxinli(mirror)
    return folder_pairs(ood, name)


def with_distractors(pair: Pair, pool: list[dict], context: int, seed: int = 0) -> list[dict]:
    """The pair's evidence among passages of the same set not of its group, up to `context` characters in all,
    the evidence at a seeded position (a check's evidence is rarely first)."""
    rng = random.Random(f"{seed}:{pair.id}")
    documents = list(pair.evidence)
    used = sum(len(d["title"]) + len(d["text"]) for d in documents)
    own = {d["title"] for d in documents}
    for _ in range(40):
        if used >= context or not pool:
            break
        other = pool[rng.randrange(len(pool))]
        if other["group"] == pair.group or other["title"] in own:
            continue
        size = len(other["title"]) + len(other["text"])
        if used + size > context:
            continue
        documents.insert(rng.randrange(len(documents) + 1), {"title": other["title"], "text": other["text"]})
        own.add(other["title"])
        used += size
    return documents


def distractor_pool(pairs: list[Pair]) -> list[dict]:
    """Every distinct evidence passage of a set, with its group."""
    seen, pool = set(), []
    for pair in pairs:
        for document in pair.evidence:
            if document["title"] not in seen:
                seen.add(document["title"])
                pool.append({**document, "group": pair.group})
    return pool


def stratified_order(pairs: list[Pair], seed: int = 0) -> list[Pair]:
    """Pairs interleaved round-robin over (set, label), each stratum in a seeded order and at most one pair a
    group per round: a read stopped anywhere holds every set and label in about equal numbers."""
    strata: dict[tuple[str, str], list[Pair]] = {}
    for pair in sorted(pairs, key=lambda p: p.id):
        strata.setdefault((pair.set, pair.label), []).append(pair)
    for key, members in strata.items():
        random.Random(f"{seed}:{key}").shuffle(members)
    order, cursors = [], {key: 0 for key in strata}
    while any(cursors[k] < len(strata[k]) for k in strata):
        for key in sorted(strata):
            if cursors[key] < len(strata[key]):
                order.append(strata[key][cursors[key]])
                cursors[key] += 1
    return order


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="fetched repositories")
    parser.add_argument("--ood", type=Path, default=Path("/work/ood"), help="benchmarks.claim_sets folders")
    parser.add_argument("--sets", default=",".join(PAIR_SETS))
    args = parser.parse_args(argv)
    for name in args.sets.split(","):
        pairs = load_pairs(name, args.mirror, args.ood)
        counts = Counter(p.label for p in pairs)
        print(f"{name}: {len(pairs)} pairs, {len({p.group for p in pairs})} groups, "
              + ", ".join(f"{label} {counts[label]}" for label in LABELS))


if __name__ == "__main__":
    main()
