"""The knobs behind claimhop's defaults: fusion weights, selection weights, the non-default verifiers' thresholds,
and alternatives that were measured and not chosen. They are not run settings a user needs (docs/settings.md lists
those); the benchmarks, `claimhop calibrate` and curious users still pass them, flat (`--set fact_evidence=3`,
`Context(chain_weight=0)`) or as `tuning={...}`, and CLAIMHOP_<NAME> works for them too. Each description says
what was measured when the default was chosen."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

from state.fields import fill, setting

# Hybrid search's fusion defaults, named once: the Tuning knobs below and claimhop.retrieval.fusion.Fusion start
# from them.
FUSION_BM25_WEIGHT = 1.5  # chosen on HotpotQA questions held apart from the dev claims (benchmarks/lab/fusion.py)
FUSION_DENSE_WEIGHT = 1.0  # chosen on HotpotQA questions held apart from the dev claims (benchmarks/lab/fusion.py)
FUSION_K = 20  # RRF's k, chosen on HotpotQA questions held apart from the dev claims (benchmarks/lab/fusion.py)
FUSION_DEPTH = 100  # chosen on HotpotQA questions held apart from the dev claims (benchmarks/lab/fusion.py)

# The graph's model steps that have a deterministic fallback (what `model_steps_off` may name).
MODEL_STEPS = ("plan", "decompose", "early_gap", "bridge", "gap_loop", "claim_split", "verify", "mitigate")


@dataclass(kw_only=True, init=False)
class Tuning:
    """Tuned and experimental knobs (fusion, selection weights, the facts and QA verifiers' rules, step switches)."""

    # Fusion defaults (FUSION_* above, which claimhop.retrieval.fusion.Fusion shares) were chosen on HotpotQA
    # questions, not the dev claims.
    bm25_weight: float = setting(
        FUSION_BM25_WEIGHT, "Hybrid search: weight of BM25's ranking in reciprocal rank fusion.", 0, 10
    )
    dense_weight: float = setting(
        FUSION_DENSE_WEIGHT, "Hybrid search: weight of the dense (embedding) ranking in the fusion.", 0, 10
    )
    rrf_k: int = setting(
        FUSION_K, "Hybrid search: reciprocal rank fusion's k; larger values flatten the difference between "
        "ranks.", 1, 1000
    )
    fusion_depth: int = setting(
        FUSION_DEPTH, "Hybrid search: documents read from each of BM25 and dense before fusing.", 1, 1000
    )
    max_gap_queries: int = setting(3, "Queries from the early gap analysis (at most).", 1, 5)
    bridge_search: Literal["any", "naming"] = setting(
        "any", "Which search results for a bridging entity's name are kept after its own article: 'any' (the "
        "first bridge_k) or 'naming' (only documents that name the entity)."
    )
    plan_examples: Literal["terse", "none"] = setting(
        "terse", "Plan (planner=facts): worked examples shown before the claim. 'terse': two made-up claims split into "
        "short facts, which the model copies (it ignores a word limit in the instruction); 'none': the instruction "
        "alone. Chosen on 100 HotpotQA questions: 95 vs 95 with every gold title (0 gained, 0 lost), 63 vs 81 tokens "
        "written (median), plan 6.9 vs 8.9 s. Their ~200 prompt tokens are read once a machine: their model state is "
        "kept on disk and restored by every later process (docs/speed.md)."
    )
    loop_queries: int = setting(3, "New queries proposed by each gap-loop round.", 1, 5)
    link_weighting: Literal["count", "idf"] = setting(
        "count", "How link following ranks the articles it could add: 'count' (named by the most of the best "
        "documents) or 'idf' (each naming weighted by how few articles in the collection name the target, so a "
        "country that thousands of articles name is a weak bridge)."
    )
    generic_links: int = setting(
        100, "An article that this many others name or more (a country, a city, a broadcaster) is no bridge: the "
        "bridge does not look it up and link following never adds it. The 28 articles of 24,729 that 100 or more name "
        "are gold in 3 of 4,344 HotpotQA gold uses; off, about 1.3 of the 21 documents a claim keeps are such "
        "articles, for the same recall (docs/recall.md). 0 turns this off.", 0, 100000
    )
    later_link_weighting: Literal["count", "idf"] = setting(
        "idf", "How that later hop ranks the articles it could add: as `link_weighting` does."
    )
    coverage_decay: float = setting(
        0.5, "Selection: what an entity is worth in the next document once one kept document has it (1: every "
        "document earns the full weight; below 1, documents are chosen one by one for what they add).", 0, 1
    )
    chain_weight: float = setting(
        1.0, "Selection: weight of a document that an already kept one names (the next link of a chain), times how "
        "specific that link is (1 for an article no other names, about 0.2 for one thousands name). Chosen on 200 "
        "HotpotQA questions: docs/recall.md.", 0, 10
    )
    unnamed_floor: int = setting(
        21, "Selection: the claim's own first search results always kept when the claim names none of the documents, "
        "where more than claim_floor (21: its own search's documents alone, with `claim_feedback` that search with "
        "feedback). With claim_feedback=20 chosen over the other three pairings of the two (off / on) in 4 of 5 folds of "
        "leave-one-set-out over HoVer dev, HotpotQA and the three out-of-domain samples, and on all five; alone it "
        "loses claims at 21 on HoVer dev and HotpotQA (docs/results/every-set/floor-feedback).", 0, 100)
    claim_feedback: int = setting(
        20, "The claim's own search with pseudo-relevance feedback: this many words that weigh most in its first 3 "
        "documents are added to the claim and that search is fused with the claim's own; its first 5 stay in place "
        "(claimhop.retrieval.feedback; 0: off; 10-20 ms a claim here). 20 was chosen in every fold of "
        "leave-one-set-out over HoVer dev, HotpotQA and the three out-of-domain samples "
        "(docs/results/every-set/feedback-search); with unnamed_floor=21, held out, claimhop's 21 are at or above "
        "hybrid's on every sample and HoVer dev and HotpotQA lose nothing (docs/results/every-set/floor-feedback).",
        0, 100)
    claim_lead: int = setting(
        1, "Selection: the claim's own first search results placed first among the documents kept when these are in "
        "selection order (a claim that names a document; `file_claim_lead` for passages of files); the others follow "
        "in that order. 1 with "
        "named_words=capitalised was chosen by leave one set out over HoVer dev, HotpotQA, the three samples and 124 "
        "other Climate-FEVER claims, in 4 of 6 folds and on all six (docs/results/every-set/lead-fusion).", 0, 100)
    file_claim_lead: int = setting(
        5, "Selection: `claim_lead` for passages that carry their file (`claimhop index FOLDER`: files and table "
        "rows, a JSONL corpus with a source field, a PostgreSQL collection loaded with sources); on a corpus of one "
        "passage an article (the bundled Wikipedia, a retriever's documents) `claim_lead` holds. With 5 a named "
        "claim's first 5 are the plain search's, as an unnamed claim's are (with claim_fusion and documents_once off). "
        "Chosen by leave one set out with 264 claims to choose on (docs/results/every-set/file-lead).",
        0, 100)
    claim_fusion: float = setting(
        0.0, "Selection: for a claim that names a document, the documents kept ordered by a reciprocal-rank fusion of "
        "selection's order with the claim search's own, this the weight of the claim search's (0: off; when on it "
        "replaces claim_lead and file_claim_lead). Measured, not chosen: the Wikipedia folds of leave one set out "
        "choose fusions that move 15-24 of their claims at 5 (docs/results/every-set/lead-fusion).", 0, 10)
    claim_fusion_k: int = setting(
        60, "Selection: the reciprocal-rank constant of `claim_fusion` (small: the first ranks weigh most; the lab "
        "tried 5 and 60).", 1, 1000)
    contradiction_check: Literal["opposite", "three-ways"] = setting(
        "opposite", "Verification: how a claim chosen by opposite_check is told CONTRADICTED or INSUFFICIENT_INFO: its opposite "
        "written and read ('opposite', two model calls), or the same passages read once more with the three-way "
        "question (SUPPORTED, CONTRADICTED or INSUFFICIENT_INFO?) and the head's contradiction part deciding "
        "('three-ways', one pass; needs a head file that has one: benchmarks.pair_heads --three-ways).")
    documents_once: bool = setting(
        False, "Selection: each document's first passage in place and its later ones (\"Mars (2)\", \"Report > "
        "Methods\") after the first passage of every other document kept, so the first few span as many documents as "
        "they can; nothing moves on a corpus of one passage an article. Measured, not made the default: with "
        "claim_lead=1 it is chosen in every fold of a grouped cross-validation over HealthVer, Climate-FEVER, HoVer dev "
        "and HotpotQA (evidence among the first 5: +6 -0 replayed, +6 -1 held out, none lost on HoVer or HotpotQA); "
        "alone it changes none of those claims (docs/results/out-of-domain/first-five). In one real run on every set "
        "it gained nothing at 5 and lost 7 Check-COVID claims counted by the passage titled as the document "
        "(docs/results/every-set/lead1-once)."
    )
    claim_entity_weight: float = setting(1.0, "Selection: weight of each claim entity a document mentions.", 0, 10)
    gap_entity_weight: float = setting(0.5, "Selection: weight of each looked-up name (the plan's, the bridge's, the gap loop's) a document mentions.", 0, 10)
    both_bonus: float = setting(0.5, "Selection: bonus when a document matches claim names and looked-up names.", 0, 10)
    name_specificity: float = setting(
        0.0, "Selection: a name that more than this share of the collection's documents holds (all its words) weighs "
        "that share's fraction of it, so names much of the collection mentions (\"United States\", \"December\", "
        "a capitalised first word) weigh little; a name of stop words only weighs nothing (0: off). Measured, not "
        "chosen: leave-one-set-out over the five sets keeps it off in every fold; no cut from 0.002 to 0.02 changes "
        "Climate-FEVER at 5 (+1 -1) and each loses HotpotQA claims at 5 (docs/results/every-set/name-specificity).",
        0, 1
    )
    named_words: Literal["any", "capitalised", "every_capitalised"] = setting(
        "capitalised", "Selection: when a claim's own words name a document's title (so selection's score, not the "
        "claim's search, orders its documents): 'any' words, or only where the claim writes a capitalised word of the "
        "title capitalised ('capitalised': \"the exact nature of\" does not name \"Nature\"), or every one "
        "('every_capitalised'). Names NER finds name titles either way. 'capitalised' with claim_lead=1 was chosen "
        "with 124 Climate-FEVER claims to choose on (docs/results/every-set/lead-fusion); alone, before those claims, "
        "it was not (docs/results/every-set/named-words)."
    )
    specific_names: Literal["looked_up", "all"] = setting(
        "looked_up", "Selection: which names `name_specificity` weighs: the looked-up ones only, or the claim's too."
    )
    title_match_weight: float = setting(
        2.0, "Selection: extra weight when an entity is the document's title (the document is about it).", 0, 10
    )
    retrieval_weight: float = setting(
        3.0, "Selection: weight of the document's fused retrieval score (normalised to 0-1).", 0, 10
    )
    # From here to model_steps_off: the verifiers beside the default (verifier=facts, qa) and the fact split they
    # and a failed plan share; a default run reads none of them but `fact_names` and `fact_repair` when its plan fell back.
    fact_names: Literal["found", "asked"] = setting(
        "found", "Facts verifier: each fact's names (which pick its evidence sentences) are 'found' in its text (the "
        "claim's names it mentions, then NER; no tokens to generate) or 'asked' of the model with the split."
    )
    fact_repair: Literal["off", "claim"] = setting(
        "off", "Facts verifier: when the split loses a name of the claim (no fact mentions it), 'claim' judges the "
        "whole claim as one more fact, so no part of it goes unchecked; 'off' judges the split as it is. On the 42 dev "
        "claims whose split lost a name: verdicts right 27 vs 26 (1 gained, 0 lost), +0.6 model calls on them."
    )
    fact_context: Literal["sentence", "passage"] = setting(
        "sentence", "Facts verifier: the judge reads each evidence 'sentence' alone, or the 'passage' around it (its "
        "document, up to 600 characters around the sentence), so it sees whom a pronoun names; the sentence is cited "
        "either way. On the 169 dev claims: 105 vs 104 right (11 vs 10), 1.7 s more a claim."
    )
    fact_evidence: int = setting(
        2, "Facts verifier: evidence sentences judged per fact (one per document). 2 since the speed work: on the "
        "40-claim sample, macro-F1 0.635 against 0.642 with 3 (not a reliable difference) for 2.3 fewer calls a "
        "claim; 1 costs more (0.581).", 1, 5)
    # The facts verifier's four numbers are fitted to the local model by `claimhop calibrate` on the 169 HoVer dev
    # claims with gold documents (docs/results/verify/calibration.json); refit them for another judge model.
    entail_threshold: float = setting(
        0.015, "Facts verifier: entailment probability a fact needs to count as supported (fitted to the local model).", 0, 1
    )
    contradict_threshold: float = setting(
        0.7, "Facts verifier: contradiction probability a fact needs to count as contradicted.", 0, 1
    )
    min_alignment: float = setting(
        0.5, "Facts verifier: share of the fact (names, numbers, meaning) its evidence must cover to support it.", 0, 1
    )
    confidence_slope: float = setting(
        0.5, "Facts verifier: slope of the calibrated claim confidence in the log of the weakest fact's entailment "
        "(0 keeps the rule's raw confidence).", 0, 20
    )
    qa_evidence: int = setting(
        4, "QA verifier: evidence sentences a question is answered from (and at most as many other answers offered).", 1, 8
    )
    # The QA verifier's three numbers: `claimhop calibrate --verifier qa` on 40 dev claims of calibration fold 0
    # (docs/verification.md); the 169-claim figures are out of sample for the other fold's claims.
    qa_threshold: float = setting(
        0.2, "QA verifier: probability the fact's own answer needs for the fact to count as supported (the options "
        "share the probability, so this sits well below 0.5).", 0, 1
    )
    qa_contradict_threshold: float = setting(
        0.5, "QA verifier: probability another answer needs for the fact to count as contradicted.", 0, 1
    )
    qa_resolve: float = setting(
        0.5, "QA verifier: probability the answer to \"who is <description>?\" needs to take the description's "
        "place in the fact's question (0: the likeliest name, whatever its odds; below it the fact is asked about "
        "the description itself).", 0, 1
    )
    qa_confidence_slope: float = setting(
        1.5, "QA verifier: slope of the calibrated claim confidence in the log of the weakest fact's own-answer "
        "probability (0 keeps the rule's raw confidence).", 0, 20
    )
    model_steps_off: str = setting(
        "", "Model steps replaced by their deterministic fallback without asking the model, comma-separated (of "
        f"{', '.join(MODEL_STEPS)}): what `python -m benchmarks.lab.steps` measures each step's worth with."
    )
    def __init__(self, **given: Any) -> None:
        unknown = sorted(set(given) - set(TUNING_NAMES))
        if unknown:
            raise ValueError(f"unknown tuning setting(s): {', '.join(unknown)}")
        fill(self, given)
        if self.bm25_weight == 0 and self.dense_weight == 0:
            raise ValueError("settings bm25_weight and dense_weight cannot both be 0 (hybrid search would rank nothing)")
        unknown = sorted(set(self.steps_off()) - set(MODEL_STEPS))
        if unknown:
            raise ValueError(f"setting model_steps_off names no model step: {', '.join(unknown)}; "
                             f"choose from {', '.join(MODEL_STEPS)}")

    def steps_off(self) -> list[str]:
        return [name.strip() for name in self.model_steps_off.split(",") if name.strip()]

    def value(self, name: str) -> Any:
        return getattr(self, name)

    def given(self) -> dict[str, Any]:
        """The values that differ from the defaults (what a run's settings record shows)."""
        default = Tuning()
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)}


TUNING_NAMES = tuple(f.name for f in fields(Tuning))
