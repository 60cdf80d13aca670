"""Synthetic labelled claims for training the passage verifier's head, made from HotpotQA questions and their
supporting paragraphs in the corpus (never from the HoVer claims that are reported on).

For each sampled question, the local model writes the question and its answer as one claim (DSPy
ClaimFromQuestion, temperature 0, so the set is the same on every machine with the same model; its replies are
cached). Then, with no model:
- SUPPORTED: the claim, read with its gold paragraphs and hard distractors (hybrid search for the claim);
- CONTRADICTED, by kind: `swap` (the answer replaced by another value of the same NER label from the gold
  paragraphs) or `flip` (a yes/no question's claim written for the opposite answer, one more model call);
- INSUFFICIENT_INFO, kind `removed`: the SUPPORTED claim with one gold paragraph taken away (a distractor in its
  place), so that the evidence must be joined across paragraphs to support it (MiniCheck's idea).
The same claim then appears with both labels (`removed`), so the claim's words alone cannot give the label; the
claim-only baseline measures that. Every row records where it came from."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from tqdm import tqdm

from claimhop.atomic import write_text
from claimhop.data import bundled
from claimhop.program.verify.reading import PASSAGE_CAP
from claimhop.retrieval.titles import normalize_title

HOTPOTQA_QUESTIONS = bundled("hotpotqa_questions_dev.jsonl.gz")
DISTRACTORS = 3  # searched per claim; as many as fit the passage budget beside the gold paragraphs are read
SWAP_LABELS = {"PERSON", "ORG", "GPE", "LOC", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "NORP", "DATE", "CARDINAL",
               "LANGUAGE", "QUANTITY", "MONEY", "PERCENT", "ORDINAL", "TIME", "LAW"}


def load_questions(path: Path = HOTPOTQA_QUESTIONS) -> list[dict]:
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def seeded(*parts: str) -> random.Random:
    """A random source fixed by the item it decides for, so one item's choice never moves another's."""
    return random.Random(int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:16], 16))


def states_answer(claim: str, answer: str) -> bool:
    return normalize_title(answer) in normalize_title(claim)


def swap_value(claim: str, answer: str, paragraphs: list[str], uid: str) -> str | None:
    """The claim with its answer replaced by another value of the answer's NER label that the gold paragraphs
    give (so the false claim is about the same things, as a real misstatement is); None when there is none."""
    from claimhop.entities.ner import labelled_entities

    found = [e for ents in labelled_entities(paragraphs) for e in ents]
    label = next((lab for text, lab in found if normalize_title(text) == normalize_title(answer)), None)
    if label is None:
        label = next((lab for text, lab in labelled_entities([answer])[0]), None)
    if label not in SWAP_LABELS:
        return None
    key = normalize_title(answer)
    candidates = sorted({text for text, lab in found if lab == label and normalize_title(text)
                         and normalize_title(text) not in key and key not in normalize_title(text)
                         and normalize_title(text) not in normalize_title(claim)})
    if not candidates:
        return None
    other = seeded(uid, "swap").choice(candidates)
    index = claim.lower().find(answer.lower())
    if index < 0:
        return None
    return claim[:index] + other + claim[index + len(answer):]


def evidence_titles(gold: list[str], distractors: list[str], corpus_texts: dict[str, str], uid: str,
                    budget: int) -> list[str]:
    """Gold titles plus as many distractors as fit the budget, in an order fixed by the question."""
    used = sum(len(corpus_texts[t]) + len(t) + 4 for t in gold)
    chosen = list(gold)
    for title in distractors:
        size = min(len(corpus_texts[title]), PASSAGE_CAP) + len(title) + 4
        if used + size <= budget:
            chosen.append(title)
            used += size
    seeded(uid, "order").shuffle(chosen)
    return chosen


def hard_distractors(engine, claim: str, gold: list[str]) -> list[str]:
    """What hybrid search finds for the claim besides its gold titles (the passages a real run would read beside
    the evidence)."""
    hits = engine.search(claim, DISTRACTORS + len(gold), mode="hybrid")
    golden = {normalize_title(t) for t in gold}
    return [h.title for h in hits if normalize_title(h.title) not in golden]


def without(shown: list[str], dropped: str, distractors: list[str]) -> list[str]:
    """The evidence with one gold title taken away and the next unused distractor in its place."""
    kept = [t for t in shown if t != dropped]
    return kept + [d for d in distractors if d not in kept][:1]


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def make_synthetic(count: int, out: Path, seed: int = 0) -> list[dict]:
    """`count` questions' claims and their variants, written to `out` (JSON lines) with provenance; model replies
    come from DSPy's cache on a second run."""
    import dspy

    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import LOCAL, get_lm
    from claimhop.program.verify.reading import RULE_BUDGET
    from claimhop.retrieval.corpus import load_corpus
    from claimhop.retrieval.factory import search_engine
    from claimhop.signatures import ClaimFromQuestion

    corpus = load_corpus()
    texts = {normalize_title(t): (t, x) for t, x in zip(corpus.titles, corpus.texts)}
    questions = [q for q in load_questions()
                 if q.get("answer") and all(normalize_title(t) in texts for t in q["supporting_titles"])]
    sample = random.Random(seed).sample(questions, min(count, len(questions)))
    engine = search_engine()
    rewrite = dspy.Predict(ClaimFromQuestion)
    rows: list[dict] = []
    with dspy.context(lm=get_lm(LOCAL), adapter=adapter_for(LOCAL)):
        for q in tqdm(sample, desc="synthetic claims", unit="question"):
            gold = [texts[normalize_title(t)][0] for t in q["supporting_titles"]]
            paragraphs = [texts[normalize_title(t)][1] for t in gold]
            claim = " ".join(str(rewrite(question=q["question"], answer=q["answer"]).claim).split())
            yes_no = q["answer"].strip().lower() in {"yes", "no"}
            if not claim or "?" in claim or (not yes_no and not states_answer(claim, q["answer"])):
                continue
            distractors = hard_distractors(engine, claim, gold)
            bodies = {t: texts[normalize_title(t)][1] for t in [*gold, *distractors]}
            shown = evidence_titles(gold, distractors[:DISTRACTORS], bodies, q["uid"], RULE_BUDGET)
            base = {"question_uid": q["uid"], "group": q["uid"], "question": q["question"], "answer": q["answer"],
                    "question_type": q.get("type"), "gold": gold}
            rows.append({**base, "id": f"{q['uid']}-supported", "claim": claim, "titles": shown,
                         "label": "SUPPORTED", "kind": "SUPPORTED", "variant": "stated"})
            if yes_no:
                opposite = "no" if q["answer"].strip().lower() == "yes" else "yes"
                false = " ".join(str(rewrite(question=q["question"], answer=opposite).claim).split())
                variant = "flip"
            else:
                false, variant = swap_value(claim, q["answer"], paragraphs, q["uid"]), "swap"
            if false and false != claim and "?" not in false:
                rows.append({**base, "id": f"{q['uid']}-{variant}", "claim": false, "titles": shown,
                             "label": "NOT_SUPPORTED", "kind": "CONTRADICTED", "variant": variant})
            if len(gold) > 1 and distractors:
                holding = [g for g, p in zip(gold, paragraphs) if states_answer(p, q["answer"])]
                dropped = holding[0] if len(holding) == 1 else seeded(q["uid"], "drop").choice(gold)
                rows.append({**base, "id": f"{q['uid']}-removed", "claim": claim,
                             "titles": without(shown, dropped, distractors), "removed": dropped,
                             "label": "NOT_SUPPORTED", "kind": "INSUFFICIENT_INFO", "variant": "removed"})
    write_text(out, jsonl(rows))
    return rows
