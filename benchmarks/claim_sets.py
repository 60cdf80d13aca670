"""Public claim-verification sets outside Wikipedia-entity domains (climate, health, COVID-19 news) as what a user
would have: a folder of Markdown documents (`# Title`, blank line, text) and a labelled claims file, so claimhop
can be scored on a domain its retrieval and verifier were not tuned on.

Table: none of its own; it makes the folders that benchmarks.out_of_domain's tables (docs/evaluation.md) read.

    python -m benchmarks.claim_sets SNAPSHOT_GIT_DIR --set climate-fever --out /work/ood/climate-fever

SNAPSHOT is the dataset repository: a bare git directory (read at HEAD with `git show`), a checkout, or a plain
folder holding the dataset's files at their repository paths. OUT gets `documents/`, `claims.jsonl` (every usable
claim), `sample-N.jsonl` (15 claims of each label present, seed 0, at most one per group) and `PROVENANCE.md`.

Claims use the labels SUPPORTED, CONTRADICTED and INSUFFICIENT_INFO; `supporting_titles` are the titles of the
documents holding the claim's evidence (for INSUFFICIENT_INFO, the documents shown with it); `group` joins claims
that share any of those documents (connected components), so a sample drawn one per group never shows one claim's
evidence as another's. Nothing here runs a model; SciFact and sets derived from it are deliberately absent.
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
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SUPPORTED, CONTRADICTED, INSUFFICIENT = "SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"
LABELS = (SUPPORTED, CONTRADICTED, INSUFFICIENT)
PER_LABEL = 15
MAX_DOCUMENTS = 6000


class MissingFile(FileNotFoundError):
    """A dataset file the snapshot does not have (absent, or a >= 4 MiB / LFS file the fetch left out)."""


@dataclass(frozen=True)
class Document:
    title: str
    text: str
    key: str  # short id for the file name: the dataset's own id where it has one, else a hash


@dataclass
class Claim:
    uid: str
    claim: str
    label: str
    supporting_titles: list[str]
    source: str
    group: str = ""

    def row(self) -> dict:
        return {"uid": self.uid, "claim": self.claim, "label": self.label,
                "supporting_titles": self.supporting_titles, "num_hops": max(1, len(self.supporting_titles)),
                "group": self.group, "source": self.source}


@dataclass
class ClaimSet:
    documents: dict[str, Document]  # by title
    claims: list[Claim]
    dropped: Counter = field(default_factory=Counter)  # reason -> count of source items left out
    files: list[str] = field(default_factory=list)  # dataset files read
    missing: list[str] = field(default_factory=list)  # optional dataset files the snapshot lacked


class Snapshot:
    """Reads a dataset repository's files by path: from a bare git dir at HEAD, a checkout, or a plain folder."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_dir():
            raise SystemExit(f"{self.path} is not a directory: pass the fetched snapshot's git dir "
                             f"(/work/.mirror/OWNER+NAME/repo) or a folder with the dataset's files")
        self.git_dir = self._git_dir()

    def _git_dir(self) -> Path | None:
        for candidate in (self.path, self.path / ".git"):
            if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
                return candidate
        return None

    def commit(self) -> str | None:
        if self.git_dir is None:
            return None
        return self._git("rev-parse", "HEAD").strip()

    def _git(self, *args: str) -> str:
        done = subprocess.run(["git", f"--git-dir={self.git_dir}", *args], capture_output=True, check=False)
        if done.returncode != 0:
            raise MissingFile(done.stderr.decode("utf-8", "replace").strip())
        return done.stdout.decode("utf-8")

    def read(self, path: str) -> str:
        """The file's text; MissingFile (naming the path) when the snapshot does not hold it whole."""
        if self.git_dir is None:
            file = self.path / path
            if not file.is_file():
                raise MissingFile(f"{file} does not exist")
            return file.read_text(encoding="utf-8")
        try:
            return self._git("show", f"HEAD:{path}")
        except MissingFile as error:
            raise MissingFile(f"{path} is not readable in {self.git_dir} ({error}); files of 4 MiB or more and "
                              f"Git LFS content are absent from fetched snapshots") from None


Reader = Callable[[str], str]


def short_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def slug(title: str, limit: int = 60) -> str:
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")[:limit].rstrip("-") or "document"


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --- CLIMATE-FEVER -------------------------------------------------------------------------------------------------

CLIMATE_FEVER_FILE = "dataset/climate-fever.jsonl"
CLIMATE_FEVER_LABELS = {"SUPPORTS": SUPPORTED, "REFUTES": CONTRADICTED, "NOT_ENOUGH_INFO": INSUFFICIENT}


def climate_fever(read: Reader) -> ClaimSet:
    """CLIMATE-FEVER: the release has no article text, only the 5 annotated Wikipedia sentences of each claim, so a
    document is one article's sentences from the whole set in article order (a sparse extract, not the article).
    The gold documents of a SUPPORTS/REFUTES claim are the articles of its evidence sentences labelled like the
    claim; DISPUTED claims (both kinds of evidence) have no single label and are dropped."""
    sentences: dict[str, dict[int, str]] = defaultdict(dict)
    claims, dropped = [], Counter()
    for row in jsonl(read(CLIMATE_FEVER_FILE)):
        for evidence in row["evidences"]:
            number = evidence["evidence_id"].rsplit(":", 1)[1]
            sentences[squeeze(evidence["article"])][int(number)] = squeeze(evidence["evidence"])
        label = CLIMATE_FEVER_LABELS.get(row["claim_label"])
        if label is None:
            dropped[f"claim_label {row['claim_label']}"] += 1
            continue
        shown = [squeeze(e["article"]) for e in row["evidences"]
                 if label == INSUFFICIENT or e["evidence_label"] == row["claim_label"]]
        claims.append(Claim(f"climate-fever-{row['claim_id']}", squeeze(row["claim"]), label,
                            list(dict.fromkeys(shown)), f"CLIMATE-FEVER test {row['claim_id']}"))
    documents = {title: Document(title, "\n\n".join(text for _, text in sorted(by_number.items())), short_hash(title))
                 for title, by_number in sentences.items()}
    return ClaimSet(documents, claims, dropped, [CLIMATE_FEVER_FILE])


# --- Check-COVID ---------------------------------------------------------------------------------------------------

CHECK_COVID_DIR = "Check-COVID"
CHECK_COVID_SPLITS = {"train": ["train/covidCheck_train_composed+extracted.json"],
                      "dev": ["dev/covidCheck_dev_composed+extracted.json"],
                      "test": ["test/covidCheck_test_composed.json", "test/covidCheck_test_extracted.json"]}
CHECK_COVID_LABELS = {"SUPPORT": SUPPORTED, "REFUTE": CONTRADICTED}


def check_covid(read: Reader) -> ClaimSet:
    """Check-COVID: each claim is judged against one CORD-19 abstract (`corpus.json`, title + sentences). Its
    NOTENOUGHINFO items are sentence-level: every one repeats the text and abstract of a SUPPORT/REFUTE item and only
    points at a sentence that does not decide it, so against the whole abstract they are not INSUFFICIENT_INFO and
    are dropped. The set therefore has two labels."""
    files = [f"{CHECK_COVID_DIR}/corpus.json"]
    abstracts = jsonl(read(files[0]))
    repeated = Counter(squeeze(a["title"]) for a in abstracts)
    documents, title_of = {}, {}
    for abstract in abstracts:
        title = squeeze(abstract["title"]) or f"CORD-19 {abstract['cord_id']}"
        if repeated[title] > 1:
            title = f"{title} [{abstract['cord_id']}]"
        title_of[abstract["cord_id"]] = title
        documents[title] = Document(title, squeeze(" ".join(abstract["abstract"])), abstract["cord_id"])
    claims, dropped = [], Counter()
    for split, paths in CHECK_COVID_SPLITS.items():
        for path in paths:
            files.append(f"{CHECK_COVID_DIR}/{path}")
            for row in jsonl(read(files[-1])):
                label = CHECK_COVID_LABELS.get(row["label"])
                if label is None:
                    dropped[f"label {row['label']} (sentence-level; same claim and abstract as a SUPPORT/REFUTE item)"] += 1
                    continue
                claims.append(Claim(f"check-covid-{row['id']}", squeeze(row["claim"]), label,
                                    [title_of[row["cord_id"]]], f"Check-COVID {split} {row['id']}"))
    return ClaimSet(documents, claims, dropped, files)


# --- HealthVer -----------------------------------------------------------------------------------------------------

HEALTHVER_SPLITS = {"train": "data/healthver_train.csv", "dev": "data/healthver_dev.csv",
                    "test": "data/healthver_test.csv"}
HEALTHVER_LABELS = {"Supports": SUPPORTED, "Refutes": CONTRADICTED}


def healthver_title(text: str) -> str:
    return f"HealthVer evidence {short_hash(text)}"


def healthver(read: Reader) -> ClaimSet:
    """HealthVer: (claim, evidence, label) pairs; the evidence is an untitled excerpt of a CORD-19 abstract, so a
    document is one distinct excerpt, titled by a hash of its text. A claim (same text in one split) gets the label
    of its non-Neutral pairs when they agree (their evidence is its gold), INSUFFICIENT_INFO when every pair is
    Neutral (all its evidence shown), and is dropped when Supports and Refutes pairs conflict - CLIMATE-FEVER's
    DISPUTED rule. A split file the snapshot lacks (train is over the fetch's 4 MiB limit) is skipped and noted."""
    documents: dict[str, Document] = {}
    claims, dropped, files, missing = [], Counter(), [], []
    for split, path in HEALTHVER_SPLITS.items():
        try:
            text = read(path)
        except MissingFile:
            missing.append(path)
            continue
        files.append(path)
        pairs: dict[str, list[dict]] = defaultdict(list)
        for row in csv.DictReader(io.StringIO(text)):
            evidence = squeeze(row["evidence"])
            title = healthver_title(evidence)
            if documents.setdefault(title, Document(title, evidence, short_hash(evidence))).text != evidence:
                raise ValueError(f"two evidence texts share the hash title {title!r}")
            pairs[squeeze(row["claim"])].append({**row, "title": title})
        for claim, rows in pairs.items():
            decided = {HEALTHVER_LABELS[r["label"]] for r in rows if r["label"] in HEALTHVER_LABELS}
            if len(decided) > 1:
                dropped["claim with both Supports and Refutes pairs"] += 1
                continue
            label = decided.pop() if decided else INSUFFICIENT
            gold = [r["title"] for r in rows if label == INSUFFICIENT or HEALTHVER_LABELS.get(r["label"]) == label]
            ids = sorted((r["id"] for r in rows), key=int)
            claims.append(Claim(f"healthver-{split}-{ids[0]}", claim, label, list(dict.fromkeys(gold)),
                                f"HealthVer {split} pairs {','.join(ids)}"))
    if not files:
        raise MissingFile(f"none of {sorted(HEALTHVER_SPLITS.values())} is readable")
    return ClaimSet(documents, claims, dropped, files, missing)


# --- shared: groups, size cap, sample, output -----------------------------------------------------------------------

def assign_groups(claims: list[Claim]) -> None:
    """`group` = connected component over shared supporting documents, numbered in order of first claim."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for claim in claims:
        nodes = [f"doc:{t}" for t in claim.supporting_titles] or [f"claim:{claim.uid}"]
        for node in [f"claim:{claim.uid}", *nodes]:
            parent[root(node)] = root(nodes[0])
    names: dict[str, str] = {}
    for claim in claims:
        claim.group = names.setdefault(root(f"claim:{claim.uid}"), f"g{len(names):04d}")


def cap_documents(claim_set: ClaimSet, limit: int = MAX_DOCUMENTS, seed: int = 0) -> bool:
    """Keep a seeded random subset of claims whose documents total <= `limit` (True if it had to); the documents
    kept are those the kept claims use."""
    if len(claim_set.documents) <= limit:
        return False
    order = list(claim_set.claims)
    random.Random(seed).shuffle(order)
    used: set[str] = set()
    kept: set[str] = set()
    for claim in order:
        if len(used | set(claim.supporting_titles)) <= limit:
            used |= set(claim.supporting_titles)
            kept.add(claim.uid)
    claim_set.dropped[f"claim left out by the {limit}-document cap"] += len(claim_set.claims) - len(kept)
    claim_set.claims = [c for c in claim_set.claims if c.uid in kept]
    claim_set.documents = {t: d for t, d in claim_set.documents.items() if t in used}
    return True


def balanced_sample(claims: list[Claim], per_label: int = PER_LABEL, seed: int = 0) -> list[Claim]:
    """`per_label` claims of each label present, no two from one group: labels take turns, the one with the fewest
    groups first, each picking a seeded-random claim of its label from a group not yet used."""
    rng = random.Random(seed)
    by_label: dict[str, list[Claim]] = defaultdict(list)
    for claim in claims:
        by_label[claim.label].append(claim)
    for pool in by_label.values():
        rng.shuffle(pool)
    order = sorted(by_label, key=lambda label: (len({c.group for c in by_label[label]}), LABELS.index(label)))
    used: set[str] = set()
    picked: list[Claim] = []
    for _ in range(per_label):
        for label in order:
            choice = next((c for c in by_label[label] if c.group not in used), None)
            if choice is None:
                raise ValueError(f"no claim labelled {label} is left in an unused group: "
                                 f"{per_label} per label, one per group, is not possible here")
            used.add(choice.group)
            picked.append(choice)
    position = {c.uid: i for i, c in enumerate(claims)}
    return sorted(picked, key=lambda c: position[c.uid])


def lines(claims: list[Claim]) -> str:
    return "".join(json.dumps(c.row(), ensure_ascii=False) + "\n" for c in claims)


def markdown(document: Document) -> str:
    return f"# {document.title}\n\n{document.text}\n"


def document_file(document: Document) -> str:
    """Slug of the title, then the short id unless the title already ends with it."""
    name = slug(document.title)
    return f"{name}.md" if name.endswith(f"-{document.key.lower()}") else f"{name}-{document.key}.md"


@dataclass(frozen=True)
class SetInfo:
    name: str
    convert: Callable[[Reader], ClaimSet]
    repository: str
    citation: str
    licence: str
    notes: str


SETS = {info.name: info for info in [
    SetInfo("climate-fever", climate_fever, "tdiggelm/climate-fever-dataset",
            "Diggelmann, Boyd-Graber, Bulian, Ciaramita, Leippold. CLIMATE-FEVER: A Dataset for Verification of "
            "Real-World Climate Claims. arXiv:2012.00614 (2020).",
            "No licence file in the repository (Hugging Face lists it as unknown); the evidence sentences are "
            "English Wikipedia text (CC BY-SA).",
            "Labels: SUPPORTS -> SUPPORTED, REFUTES -> CONTRADICTED, NOT_ENOUGH_INFO -> INSUFFICIENT_INFO; DISPUTED "
            "claims dropped. A document is one Wikipedia article's annotated evidence sentences (from all claims, "
            "deduplicated by evidence_id, in article order, one sentence a paragraph): a sparse extract, not the "
            "article, and sentences carry no surrounding context. supporting_titles: for SUPPORTED/CONTRADICTED "
            "the articles of the evidence sentences labelled like the claim (any one may suffice: they are "
            "alternatives, not hops), for INSUFFICIENT_INFO all articles shown with the claim. Frequent articles "
            "(Global warming, ...) join most claims into one big group."),
    SetInfo("check-covid", check_covid, "posuer/Check-COVID",
            "Wang, Harwood, Chillrud, Ananthram, Subbiah, McKeown. Check-COVID: Fact-Checking COVID-19 News Claims "
            "with Scientific Evidence. Findings of ACL 2023 (doi:10.18653/v1/2023.findings-acl.888).",
            "MIT (repository LICENSE, Columbia University); abstracts come from CORD-19 (per-paper licences).",
            "Labels: SUPPORT -> SUPPORTED, REFUTE -> CONTRADICTED; every NOTENOUGHINFO item (495) repeats the "
            "claim text and abstract of a SUPPORT/REFUTE item and only pairs it with a non-deciding sentence, so it "
            "is not INSUFFICIENT_INFO against the whole abstract and is dropped: the set has two labels and its "
            "sample 15 of each. Claims from train, dev and test (split files; Check-COVID_all.json is their "
            "union). A document is one CORD-19 abstract of corpus.json (title + abstract sentences); the "
            "collection is only the 347 evidence abstracts, so retrieval is easy. Claims are news-extracted "
            "(is_auth) or annotator-composed; REFUTE claims are mostly composed edits of a supported claim."),
    SetInfo("healthver", healthver, "sarrouti/HealthVer",
            "Sarrouti, Ben Abacha, Mrabet, Demner-Fushman. Evidence-based Fact-Checking of Health-related Claims. "
            "Findings of EMNLP 2021 (aclanthology 2021.findings-emnlp.297).",
            "No licence file in the repository; evidence is excerpts of CORD-19 abstracts (per-paper licences).",
            "Labels are per (claim, evidence) pair: Supports / Refutes / Neutral. Claim-level rule: the claims of "
            "a split are grouped by text; all non-Neutral pairs Supports -> SUPPORTED (gold = the Supports "
            "evidence), all Refutes -> CONTRADICTED (gold = the Refutes evidence), only Neutral pairs -> "
            "INSUFFICIENT_INFO (gold = all its evidence), both Supports and Refutes -> dropped (as CLIMATE-FEVER "
            "drops DISPUTED). A document is one distinct evidence excerpt (exact text after whitespace squeezing; "
            "shared across claims and splits), titled 'HealthVer evidence <sha1[:8] of text>' as the data has no "
            "title or paper id; excerpts are mostly one abstract sentence (a few up to 7), not whole abstracts. INSUFFICIENT_INFO means "
            "the shown evidence is neutral; other excerpts of the same topic in the folder may still decide it. "
            "Some claims are questions or headlines. uid = healthver-SPLIT-<smallest pair id of the claim>."),
]}


def write_set(info: SetInfo, snapshot: Snapshot, out: Path, per_label: int = PER_LABEL) -> dict:
    """Convert, group, cap, sample and write OUT; returns the counts."""
    from claimhop.atomic import write_text

    try:
        claim_set = info.convert(snapshot.read)
    except MissingFile as error:
        raise SystemExit(f"{info.name}: {error}. Is {snapshot.path} the {info.repository} snapshot?") from None
    capped = cap_documents(claim_set)
    assign_groups(claim_set.claims)
    titles = {t for c in claim_set.claims for t in c.supporting_titles}
    if not titles <= set(claim_set.documents):
        raise ValueError(f"claims name documents that were not built: {sorted(titles - set(claim_set.documents))[:5]}")
    sample = balanced_sample(claim_set.claims, per_label)
    folder = out / "documents"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    names = Counter(document_file(d) for d in claim_set.documents.values())
    if names.most_common(1) and names.most_common(1)[0][1] > 1:
        raise ValueError(f"two documents would share a file name: {names.most_common(1)[0][0]}")
    for document in claim_set.documents.values():
        write_text(folder / document_file(document), markdown(document))
    write_text(out / "claims.jsonl", lines(claim_set.claims))
    for old in out.glob("sample-*.jsonl"):
        old.unlink()
    sample_name = f"sample-{len(sample)}.jsonl"
    write_text(out / sample_name, lines(sample))
    counts = {"documents": len(claim_set.documents), "claims": len(claim_set.claims),
              "labels": dict(Counter(c.label for c in claim_set.claims)),
              "groups": len({c.group for c in claim_set.claims}),
              "largest_group": Counter(c.group for c in claim_set.claims).most_common(1)[0][1],
              "sample": sample_name, "sample_labels": dict(Counter(c.label for c in sample)),
              "dropped": dict(claim_set.dropped), "capped": capped}
    write_text(out / "PROVENANCE.md", provenance(info, snapshot, claim_set, counts, out, per_label))
    return counts


def provenance(info: SetInfo, snapshot: Snapshot, claim_set: ClaimSet, counts: dict, out: Path,
               per_label: int) -> str:
    commit = snapshot.commit() or "not a git snapshot (plain folder)"
    labels = ", ".join(f"{label} {counts['labels'].get(label, 0)}" for label in LABELS)
    dropped = "; ".join(f"{reason}: {n}" for reason, n in counts["dropped"].items()) or "none"
    missing = ", ".join(claim_set.missing) or "none"
    return (f"# {info.name}\n\n"
            f"- Dataset repository: https://github.com/{info.repository}, commit `{commit}` "
            f"(snapshot read: `{snapshot.path}`)\n"
            f"- Paper: {info.citation}\n"
            f"- Files used: {', '.join(f'`{f}`' for f in claim_set.files)}; wanted but absent from the snapshot: "
            f"{missing}\n"
            f"- Licence: {info.licence}\n"
            f"- Built by: `python -m benchmarks.claim_sets {snapshot.path} --set {info.name} --out {out}"
            f"{'' if per_label == PER_LABEL else f' --per-label {per_label}'}` "
            f"(claimhop `benchmarks/claim_sets.py`)\n\n"
            f"## What was kept\n\n{info.notes}\n\n"
            f"## Counts\n\n"
            f"- Documents: {counts['documents']} (all evidence documents of all claims"
            f"{'; capped by a seeded claim subset' if counts['capped'] else ''})\n"
            f"- Claims: {counts['claims']} ({labels})\n"
            f"- Dropped: {dropped}\n"
            f"- Groups (connected components over shared supporting documents): {counts['groups']}, the largest "
            f"holding {counts['largest_group']} claims\n"
            f"- `{counts['sample']}`: seed 0, {per_label} of each label present, at most one claim per group "
            f"({', '.join(f'{k} {v}' for k, v in counts['sample_labels'].items())})\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", type=Path, help="the dataset repository's bare git dir, checkout or folder")
    parser.add_argument("--set", required=True, choices=sorted(SETS))
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--per-label", type=int, default=PER_LABEL, help="sampled claims per label (default 15)")
    args = parser.parse_args(argv)
    counts = write_set(SETS[args.set], Snapshot(args.snapshot), args.out, args.per_label)
    print(json.dumps(counts, indent=1))


if __name__ == "__main__":
    main()
