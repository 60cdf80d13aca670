"""Where the fuzzy title lookup's cutoff should be, measured on HotpotQA questions, not chosen by eye.

Every name a HotpotQA question gives (its entities, as the graph extracts a claim's) is looked up by title. A
name that matches no title exactly (nor by its base title) goes to the fuzzy match (rapidfuzz ratio); each
fuzzy match is counted as right when its document is one of the question's two gold paragraphs, the documents
the question is about. The table gives, per score band, how many fuzzy matches there are and how many are right,
against the same rate for exact matches; the plot shows both. No model call.

    python -m benchmarks.lab.title_cutoff --out docs/results/title-cutoff
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from rapidfuzz import fuzz, process

from claimhop.atomic import atomic_path, write_text
from claimhop.entities.ner import extract_entities, unique
from claimhop.evaluation.optimize import TRAIN_QUESTIONS
from claimhop.retrieval.corpus import BUNDLED_CORPUS, load_corpus
from claimhop.retrieval.titles import TitleIndex, normalize_title

BANDS = [(70, 75), (75, 80), (80, 85), (85, 88), (88, 90), (90, 92), (92, 95), (95, 101)]


def lookups(questions: list[dict], index: TitleIndex) -> tuple[list[tuple[float, bool]], list[bool]]:
    """(score, right) for every fuzzy match at 70 or more, and `right` for every exact or base-title match."""
    fuzzy, exact = [], []
    names_per_question = extract_entities([q["question"] for q in questions], with_spans=True)
    for question, names in zip(questions, names_per_question):
        gold = {normalize_title(t) for t in question["supporting_titles"]}
        for name in unique(names):
            key = normalize_title(name)
            direct = index.exact.get(key, []) + index.by_base.get(key, [])
            if direct:
                exact.append(any(normalize_title(index.titles[i]) in gold for i in direct))
                continue
            for match, score, _ in process.extract(key, index._keys, scorer=fuzz.ratio, limit=5, score_cutoff=70):
                fuzzy.append((score, match in gold))
    return fuzzy, exact


def table(fuzzy: list[tuple[float, bool]], exact: list[bool]) -> str:
    lines = ["| match | lookups | right (a gold paragraph) | rate |", "|---|---|---|---|"]
    rate = sum(exact) / max(1, len(exact))
    lines.append(f"| exact or base title | {len(exact)} | {sum(exact)} | {rate:.3f} |")
    for low, high in BANDS:
        band = [right for score, right in fuzzy if low <= score < high]
        shown = f"{low}-{min(high, 100)}"
        lines.append(f"| fuzzy {shown} | {len(band)} | {sum(band)} | {sum(band) / max(1, len(band)):.3f} |")
    return "\n".join(lines)


def plot(fuzzy: list[tuple[float, bool]], exact: list[bool], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mids = [(low + min(high, 100)) / 2 for low, high in BANDS]
    rates = [sum(r for s, r in fuzzy if low <= s < high) / max(1, sum(1 for s, _ in fuzzy if low <= s < high))
             for low, high in BANDS]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(mids, rates, marker="o", label="fuzzy matches, by score band")
    ax.axhline(sum(exact) / max(1, len(exact)), color="gray", linestyle="--", label="exact title matches")
    ax.axvline(90, color="red", linestyle=":", label="cutoff in use (90)")
    ax.set_xlabel("rapidfuzz ratio of name and title")
    ax.set_ylabel("share that is a gold paragraph")
    ax.set_title("Title lookups of the HotpotQA questions")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_path(path, suffix=".tmp.png") as tmp:
        fig.savefig(tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description="fuzzy title cutoff on HotpotQA title lookups (no model call)")
    parser.add_argument("--out", type=Path, required=True, help="folder for table.md and plot.png")
    args = parser.parse_args()
    with gzip.open(TRAIN_QUESTIONS, "rt", encoding="utf-8") as handle:
        questions = [json.loads(line) for line in handle if line.strip()]
    index = TitleIndex(load_corpus(BUNDLED_CORPUS).titles)
    fuzzy, exact = lookups(questions, index)
    text = f"{len(questions)} HotpotQA questions\n\n{table(fuzzy, exact)}\n"
    args.out.mkdir(parents=True, exist_ok=True)
    write_text(args.out / "table.md", text)
    plot(fuzzy, exact, args.out / "plot.png")
    print(text)


if __name__ == "__main__":
    main()
