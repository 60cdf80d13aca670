"""Three-document synthetic claims for the passage verifier: two HotpotQA questions that share a supporting
article (A-B and B-C) written as one claim that joins both answers, so it depends on A, B and C (HoVer's longer
claims are often such joins; FactCG's idea of claims from a document graph, on HotpotQA's own links).

The local model writes each question and its answer as one claim (DSPy ClaimFromQuestion, temperature 0, as the
two-document set does); the claim is the two joined by ", and". Then, with no model, as the two-document set
(claimhop.evaluation.synthetic) does:
- SUPPORTED (`stated`): the claim, read with its three gold paragraphs and hard distractors that fit the budget;
- CONTRADICTED (`swap`): one half's answer replaced by another value of its NER label from its gold paragraphs;
- INSUFFICIENT_INFO (`removed`): one of the three gold paragraphs taken away (a distractor in its place), so a head
  that does not join all three cannot tell it from `stated`.
Questions are drawn from those the two-document set did not use, so the two sets never share a question (a head
trained on one is measured on the other without leaks).

Tried first and dropped: HoVer's own recipe on the corpus link table (a gold article E the claim names replaced by
a description of E written by the local model from an article C that names E). The 1.5B model's descriptions were
often wrong or garbled (of the first six: "the actor who directed and produced Of Mice and Men" for John Malkovich,
who acted in it; "the musicians who performed at ..." for one singer), so SUPPORTED would have been mislabelled,
and one claim took about a minute of model time."""


from __future__ import annotations

import json
import random
from pathlib import Path

from tqdm import tqdm

from claimhop.atomic import write_text
from claimhop.evaluation.synthetic import (
    DISTRACTORS,
    evidence_titles,
    hard_distractors,
    jsonl,
    load_questions,
    seeded,
    states_answer,
    swap_value,
    without,
)
from claimhop.retrieval.titles import normalize_title

CHAIN_CLAIMS = Path("docs/results/verifier/synthetic-chains.jsonl")


def joined(first: str, second: str) -> str:
    """Two claims as one sentence: "A did X, and B did Y." (a leading article of the second lower-cased)."""
    head = first.strip().rstrip(".")
    tail = second.strip()
    if tail.split()[0].lower() in {"the", "a", "an"}:
        tail = tail[:1].lower() + tail[1:]
    return f"{head}, and {tail}"


def question_pairs(questions: list[dict], in_corpus: set[str], seed: int) -> list[tuple[dict, dict]]:
    """Pairs of questions whose supporting articles share exactly one (A-B, B-C; three articles in all), each
    question in one pair at most, in an order fixed by `seed`."""
    by_title: dict[str, list[dict]] = {}
    for q in questions:
        titles = {normalize_title(t) for t in q["supporting_titles"]}
        if len(titles) == 2 and titles <= in_corpus:
            for title in titles:
                by_title.setdefault(title, []).append(q)
    pairs, used = [], set()
    for title in sorted(by_title):
        sharing = list(by_title[title])
        random.Random(f"{seed}|{title}").shuffle(sharing)
        for k, first in enumerate(sharing):
            for second in sharing[k + 1:]:
                both = {normalize_title(t) for q in (first, second) for t in q["supporting_titles"]}
                if len(both) == 3 and not {first["uid"], second["uid"]} & used:
                    pairs.append((first, second))
                    used |= {first["uid"], second["uid"]}
                    break
    random.Random(seed).shuffle(pairs)
    return pairs


def used_questions(path: Path) -> set[str]:
    """The question ids another synthetic set was made from (none when it is missing)."""
    if not path.is_file():
        return set()
    return {json.loads(line)["question_uid"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def make_chains(count: int, out: Path, budget: int, seed: int = 1, exclude: set[str] | None = None) -> list[dict]:
    """Up to `count` three-document claims with their variants, written to `out` (JSON lines) with provenance,
    after each claim (a stopped run keeps what it made)."""
    import dspy

    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import LOCAL, get_lm
    from claimhop.program.verify.reading import PASSAGE_CAP
    from claimhop.retrieval.corpus import load_corpus
    from claimhop.retrieval.factory import search_engine
    from claimhop.signatures import ClaimFromQuestion

    corpus = load_corpus()
    texts = {normalize_title(t): (t, x) for t, x in zip(corpus.titles, corpus.texts)}
    exclude = exclude or set()
    questions = [q for q in load_questions() if q.get("answer") and q["uid"] not in exclude
                 and q["answer"].strip().lower() not in {"yes", "no"}]
    engine = search_engine()
    rewrite = dspy.Predict(ClaimFromQuestion)
    rows: list[dict] = []
    bar = tqdm(total=count, desc="three-document claims", unit="claim")
    with dspy.context(lm=get_lm(LOCAL), adapter=adapter_for(LOCAL)):
        for first, second in question_pairs(questions, set(texts), seed):
            if bar.n >= count:
                break
            gold = list(dict.fromkeys(texts[normalize_title(t)][0] for q in (first, second)
                                      for t in q["supporting_titles"]))
            if sum(min(len(texts[normalize_title(t)][1]), PASSAGE_CAP) + len(t) + 4 for t in gold) > budget:
                continue
            halves = [" ".join(str(rewrite(question=q["question"], answer=q["answer"]).claim).split())
                      for q in (first, second)]
            if any(not h or "?" in h or not states_answer(h, q["answer"]) for h, q in zip(halves, (first, second))):
                continue
            uid = f"{first['uid']}+{second['uid']}"
            claim = joined(*halves)
            distractors = hard_distractors(engine, claim, gold)
            bodies = {t: texts[normalize_title(t)][1] for t in [*gold, *distractors]}
            shown = evidence_titles(gold, distractors[:DISTRACTORS], bodies, uid, budget)
            base = {"question_uid": uid, "group": uid, "questions": [first["question"], second["question"]],
                    "answers": [first["answer"], second["answer"]], "gold": gold, "num_hops": 3, "halves": halves}
            rows.append({**base, "id": f"{uid}-supported", "claim": claim, "titles": shown,
                         "label": "SUPPORTED", "kind": "SUPPORTED", "variant": "stated"})
            order = [0, 1] if seeded(uid, "half").random() < 0.5 else [1, 0]
            for k in order:
                q = (first, second)[k]
                paragraphs = [texts[normalize_title(t)][1] for t in q["supporting_titles"]]
                false_half = swap_value(halves[k], q["answer"], paragraphs, q["uid"])
                if false_half and false_half != halves[k] and "?" not in false_half:
                    false = joined(false_half, halves[1]) if k == 0 else joined(halves[0], false_half)
                    rows.append({**base, "id": f"{uid}-swap", "claim": false, "titles": shown, "swapped_half": k,
                                 "label": "NOT_SUPPORTED", "kind": "CONTRADICTED", "variant": "swap"})
                    break
            if distractors:
                dropped = seeded(uid, "drop").choice(gold)
                rows.append({**base, "id": f"{uid}-removed", "claim": claim,
                             "titles": without(shown, dropped, distractors), "removed": dropped, "label": "NOT_SUPPORTED", "kind": "INSUFFICIENT_INFO",
                             "variant": "removed"})
            bar.update(1)
            write_text(out, jsonl(rows))
    bar.close()
    write_text(out, jsonl(rows))
    return rows
