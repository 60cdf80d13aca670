"""Three-document synthetic claims for the passage verifier: a HotpotQA question's claim (two documents) made to
need a third, the way HoVer grew its 3-hop claims, on the corpus's own link table (FactCG's idea of claims from a
document graph).

For a sampled question whose claim names one of its two gold articles E (A names B in HotpotQA's bridge), an
article C that names E (the link table: C -> E) gives a sentence about E; the local model writes that fact as a
short description of E that names C's subject but not E ("the team that drafted Vincent Lecavalier"), and the claim
says the description where it said E. The claim now depends on C, A and B. Then, with no model, as the two-document
set (claimhop.evaluation.synthetic) does:
- SUPPORTED (`stated`): the claim, read with its three gold paragraphs and hard distractors that fit the budget;
- CONTRADICTED (`swap`): the question's answer replaced by another value of its NER label, description kept;
- INSUFFICIENT_INFO (`removed`): one of the three gold paragraphs taken away (a distractor in its place), so a head
  that does not join all three cannot tell it from `stated`.
Questions are drawn from those the two-document set did not use, so its claims and these never share a question
(a head trained on one is measured on the other without leaks). Model replies are cached (temperature 0)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
from tqdm import tqdm

from claimhop.atomic import write_text
from claimhop.evaluation.synthetic import (
    DISTRACTORS,
    evidence_titles,
    load_questions,
    seeded,
    states_answer,
    swap_value,
)
from claimhop.retrieval.titles import base_title, normalize_title

CHAIN_CLAIMS = Path("docs/results/verifier/synthetic-chains.jsonl")
VIA_TRIES = 2  # articles naming E asked for a description before the question is given up
MAX_DESCRIPTION_WORDS = 16
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_SHORT = {"the", "and", "of", "in", "on", "for", "at", "by", "with", "from", "to", "film", "song", "album", "band",
          "list", "season", "series", "novel", "book", "game", "team", "club"}


def naming_articles(offsets: np.ndarray, targets: np.ndarray, article: int) -> list[int]:
    """The articles whose text names `article` (the link table read backwards)."""
    positions = np.flatnonzero(targets == article)
    return sorted(set((np.searchsorted(offsets, positions, side="right") - 1).tolist()) - {article})


def words(title: str) -> set[str]:
    """The words of a name that identify it ("Tampa Bay Lightning" -> tampa, bay, lightning)."""
    return {w for w in normalize_title(base_title(title)).split() if len(w) > 2 and w not in _SHORT}


def sentence_naming(text: str, name: str) -> str | None:
    """The first sentence of `text` that says `name` (case-insensitive), or None."""
    for sentence in _SENTENCE.split(text):
        if name.lower() in sentence.lower():
            return sentence.strip()
    return None


def good_description(description: str, entity: str, via: str) -> bool:
    """Short, names the via article's subject, and says nothing of the entity's own name."""
    said = set(normalize_title(description).split())
    return (0 < len(description.split()) <= MAX_DESCRIPTION_WORDS and "?" not in description
            and not (words(entity) & said) and bool(words(via) & said))


def described(claim: str, name: str, description: str) -> str | None:
    """The claim with its first mention of `name` replaced by `description` (capitalised at the start)."""
    index = claim.lower().find(name.lower())
    if index < 0:
        return None
    phrase = description.strip().rstrip(".")
    if index == 0:
        phrase = phrase[:1].upper() + phrase[1:]
    elif phrase[:1].isupper() and phrase.split()[0].lower() in {"the", "a", "an"}:
        phrase = phrase[:1].lower() + phrase[1:]
    return claim[:index] + phrase + claim[index + len(name):]


def used_questions(path: Path) -> set[str]:
    """The question ids another synthetic set was made from (none when it is missing)."""
    if not path.is_file():
        return set()
    return {json.loads(line)["question_uid"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def make_chains(count: int, out: Path, budget: int, seed: int = 1, exclude: set[str] | None = None) -> list[dict]:
    """Up to `count` three-document claims with their variants, written to `out` (JSON lines) with provenance."""
    import dspy

    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import LOCAL, get_lm
    from claimhop.retrieval.corpus import load_corpus
    from claimhop.retrieval.factory import search_engine
    from claimhop.signatures import ClaimFromQuestion, DescribeThrough
    from claimhop.verification.passages import PASSAGE_CAP

    corpus = load_corpus()
    engine = search_engine()
    links = engine.link_table()
    offsets, targets = np.asarray(links.offsets), np.asarray(links.targets)
    by_name = {normalize_title(t): i for i, t in enumerate(corpus.titles)}
    size = {i: min(len(corpus.texts[i]), PASSAGE_CAP) + len(corpus.titles[i]) + 4 for i in range(len(corpus.titles))}
    exclude = exclude or set()
    questions = [q for q in load_questions() if q.get("answer") and q["uid"] not in exclude
                 and q["answer"].strip().lower() not in {"yes", "no"}
                 and all(normalize_title(t) in by_name for t in q["supporting_titles"])]
    random.Random(seed).shuffle(questions)
    rewrite, describe = dspy.Predict(ClaimFromQuestion), dspy.Predict(DescribeThrough)
    rows: list[dict] = []
    made = 0
    bar = tqdm(total=count, desc="three-document claims", unit="claim")
    with dspy.context(lm=get_lm(LOCAL), adapter=adapter_for(LOCAL)):
        for q in questions:
            if made >= count:
                break
            gold_ids = [by_name[normalize_title(t)] for t in q["supporting_titles"]]
            if len(gold_ids) != 2:
                continue
            gold = [corpus.titles[i] for i in gold_ids]
            claim = " ".join(str(rewrite(question=q["question"], answer=q["answer"]).claim).split())
            if not claim or "?" in claim or not states_answer(claim, q["answer"]):
                continue
            # E: a gold article the claim names, and not the answer (so the swap stays independent of the hop)
            entities = [i for i in gold_ids if base_title(corpus.titles[i]).lower() in claim.lower()
                        and not (words(corpus.titles[i]) & words(q["answer"]))]
            if not entities:
                continue
            entity = seeded(q["uid"], "entity").choice(entities)
            name = base_title(corpus.titles[entity])
            room = budget - sum(size[i] for i in gold_ids)
            vias = [c for c in naming_articles(offsets, targets, entity)
                    if c not in gold_ids and size[c] <= room and not (words(corpus.titles[c]) & words(name))
                    and sentence_naming(corpus.texts[c], name)]
            seeded(q["uid"], "via").shuffle(vias)
            for via in vias[:VIA_TRIES]:
                sentence = sentence_naming(corpus.texts[via], name)
                description = " ".join(str(describe(entity=name, article=base_title(corpus.titles[via]),
                                                    sentence=sentence).description).split())
                if good_description(description, name, corpus.titles[via]):
                    break
            else:
                continue
            chained = described(claim, name, description)
            if not chained:
                continue
            three = [*gold, corpus.titles[via]]
            hits = engine.search(chained, DISTRACTORS + len(three), mode="hybrid")
            distractors = [h.title for h in hits if normalize_title(h.title) not in {normalize_title(t) for t in three}]
            bodies = {t: corpus.texts[by_name[normalize_title(t)]] for t in [*three, *distractors]}
            shown = evidence_titles(three, distractors[:DISTRACTORS], bodies, q["uid"], budget)
            base = {"question_uid": q["uid"], "group": q["uid"], "question": q["question"], "answer": q["answer"],
                    "question_type": q.get("type"), "gold": three, "num_hops": 3, "two_document_claim": claim,
                    "described": name, "via": corpus.titles[via], "via_sentence": sentence,
                    "description": description}
            rows.append({**base, "id": f"{q['uid']}-chain-supported", "claim": chained, "titles": shown,
                         "label": "SUPPORTED", "kind": "SUPPORTED", "variant": "stated"})
            paragraphs = [corpus.texts[i] for i in gold_ids]
            false = swap_value(chained, q["answer"], paragraphs, q["uid"])
            if false and false != chained and "?" not in false:
                rows.append({**base, "id": f"{q['uid']}-chain-swap", "claim": false, "titles": shown,
                             "label": "NOT_SUPPORTED", "kind": "CONTRADICTED", "variant": "swap"})
            if distractors:
                dropped = seeded(q["uid"], "drop").choice(three)
                kept = [t for t in shown if t != dropped]
                spare = [d for d in distractors if d not in kept]
                rows.append({**base, "id": f"{q['uid']}-chain-removed", "claim": chained,
                             "titles": kept + spare[:1], "removed": dropped,
                             "label": "NOT_SUPPORTED", "kind": "INSUFFICIENT_INFO", "variant": "removed"})
            made += 1
            bar.update(1)
            write_text(out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    bar.close()
    write_text(out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return rows
