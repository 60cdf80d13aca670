"""Run settings: every number a user might tune, with defaults, descriptions (Studio's form) and env fallbacks."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args, get_type_hints

from claimhop.retrieval.fusion import DEFAULT_FUSION


ENV_PREFIX = "CLAIMHOP_"
# The graph's model steps that have a deterministic fallback (what `model_steps_off` may name).
MODEL_STEPS = ("plan", "decompose", "early_gap", "bridge", "gap_loop", "claim_split", "verify", "mitigate")
MAX_CLAIM_CHARS = 2000
SECRET_NAME = re.compile(r"key|token|secret|passw|credential", re.IGNORECASE)


def _setting(default: Any, description: str, low: float | None = None, high: float | None = None):
    return field(default=default, metadata={"description": description, "min": low, "max": high})


@dataclass(kw_only=True, init=False)
class Context:
    """How one claimhop run behaves. A setting not given falls back to CLAIMHOP_<FIELD> in the environment, then
    to its default; one given explicitly always wins, even when it equals the default."""

    model: str = _setting(
        "local",
        "Language model: 'local' (the default: Qwen2.5-Coder-1.5B-Instruct run in-process, offline) or any "
        "LiteLLM model name: 'openai/NAME' for an OpenAI-compatible server (Ollama, vLLM, llama.cpp, `claimhop "
        "serve-model`) at OPENAI_API_BASE, 'ollama_chat/NAME', or a hosted model such as 'openai/gpt-4o-mini'. "
        "Address and key come from the environment, never from settings. The answer names the model.",
    )
    corpus_path: str = _setting("", "JSONL corpus of {title, text}; empty means the bundled HoVer Wikipedia corpus.")
    index_dir: str = _setting(
        "", "Folder of the corpus's indexes (as built by `claimhop index --index-dir`); empty: under CLAIMHOP_HOME."
    )
    retriever: str = _setting(
        "", "Search engine: empty for claimhop's own indexes; 'postgresql' for the same search, every hop included, "
        "in PostgreSQL (CLAIMHOP_PG_URL, loaded by `claimhop index --pg`); or 'package.module:function' returning a "
        "LangChain BaseRetriever, e.g. 'claimhop.retrieval.pgvector_store:pgvector_retriever' (dense search only: "
        "no title lookup or link hops).",
    )
    retrieval_mode: Literal["hybrid", "bm25", "dense"] = _setting(
        "hybrid", "Search used by every hop: BM25 + dense fused by reciprocal rank, or one of them."
    )
    # Fusion defaults (claimhop.retrieval.fusion.Fusion) were chosen on HotpotQA questions, not the dev claims.
    bm25_weight: float = _setting(DEFAULT_FUSION.bm25_weight, "Hybrid search: weight of BM25's ranking in reciprocal rank fusion.", 0, 10)
    dense_weight: float = _setting(DEFAULT_FUSION.dense_weight, "Hybrid search: weight of the dense (embedding) ranking in the fusion.", 0, 10)
    rrf_k: int = _setting(
        DEFAULT_FUSION.k, "Hybrid search: reciprocal rank fusion's k; larger values flatten the difference between ranks.", 1, 1000
    )
    fusion_depth: int = _setting(DEFAULT_FUSION.depth, "Hybrid search: documents read from each of BM25 and dense before fusing.", 1, 1000)
    reranker: str = _setting(
        "", "Re-ranking after fusion: empty for none, 'lm' (the run's model judges each document's relevance; "
        "slow: one call per document), or 'package.module:function' returning a LangChain BaseDocumentCompressor.",
    )
    rerank_depth: int = _setting(20, "Re-ranking: fused documents per query the re-ranker re-orders.", 2, 100)
    planner: Literal["facts", "one_call", "two_calls"] = _setting(
        "facts", "How the search is planned: 'facts' (one model call splits the claim into atomic facts, which are "
        "the sub-questions and the facts verify judges, and names the entities to look up), 'one_call' (one call "
        "writes sub-questions and the early gap analysis's entities and queries; verify splits the claim itself) "
        "or 'two_calls' (decompose and early gap analysis ask the model apart)."
    )
    max_sub_questions: int = _setting(3, "Sub-questions the claim is decomposed into (at most).", 1, 5)
    max_gap_queries: int = _setting(3, "Queries from the early gap analysis (at most).", 1, 5)
    phase1_k: int = _setting(18, "Documents retrieved for the sub-questions, in all (phase 1).", 1, 200)
    phase2_k: int = _setting(18, "Documents retrieved for the early gap queries, in all (phase 2).", 1, 200)
    bridge_pick: Literal["lm", "ranking"] = _setting(
        "ranking", "Who picks the bridging entities: 'ranking' (the entity ranking's best, no model call) or 'lm' "
        "(the model picks from the ranking, interleaved with the ranking's best)."
    )
    max_bridge_entities: int = _setting(5, "Bridging entities looked up (3-5 is typical).", 0, 10)
    bridge_search: Literal["any", "naming"] = _setting(
        "any", "Which search results for a bridging entity's name are kept after its own article: 'any' (the "
        "first bridge_k) or 'naming' (only documents that name the entity)."
    )
    bridge_k: int = _setting(5, "Documents per bridging entity (title match first, then search).", 1, 50)
    loop_queries: int = _setting(3, "New queries proposed by each gap-loop round.", 1, 5)
    loop_k: int = _setting(5, "Documents per gap-loop query.", 1, 50)
    max_iterations: int = _setting(2, "Gap-loop rounds at most (0 turns the loop off).", 0, 5)
    gap_loop_when: Literal["uncovered", "always"] = _setting(
        "uncovered", "When the gap loop runs: 'uncovered' (only when a name the claim gives has no document about it "
        "or naming it; checked without a model call) or 'always' (the model judges what is missing every time)."
    )
    link_articles: int = _setting(
        3, "Articles the bridge step adds by following links: those the 10 best documents so far name most "
        "often (0 turns it off).", 0, 20
    )
    link_weighting: Literal["count", "idf"] = _setting(
        "count", "How link following ranks the articles it could add: 'count' (named by the most of the best "
        "documents) or 'idf' (each naming weighted by how few articles in the collection name the target, so a "
        "country that thousands of articles name is a weak bridge)."
    )
    generic_links: int = _setting(
        100, "An article that this many others name or more (a country, a city, a broadcaster) is no bridge: the "
        "bridge does not look it up and link following never adds it. The 28 articles of 24,729 that 100 or more name "
        "are gold in 3 of 4,344 HotpotQA gold uses; off, about 1.3 of the 21 documents a claim keeps are such "
        "articles, for the same recall (docs/recall.md). 0 turns this off.", 0, 100000
    )
    later_link_articles: int = _setting(
        1, "Articles added, after the bridge and the gap loop, by following the links of the articles the chain has "
        "reached: those about a name the claim gives and those the bridge, link following and the gap loop found "
        "('Anthony Bushell' -> 'Danger Man' -> its creator 'Ralph Smart'); no model call. 0 turns it off.", 0, 20
    )
    later_link_weighting: Literal["count", "idf"] = _setting(
        "idf", "How that later hop ranks the articles it could add: as `link_weighting` does."
    )
    top_k: int = _setting(21, "Documents kept by the entity-scored selection.", 1, 100)
    claim_k: int = _setting(
        21, "Selection: the claim's own search results (searched alone, as step 0 does) that are always candidates, "
        "beside what the hops found (0: only the hops' documents).", 0, 100
    )
    claim_floor: int = _setting(
        10, "Selection: the claim's own first search results that are always kept, whatever their entity score.", 0, 100
    )
    coverage_decay: float = _setting(
        0.5, "Selection: what an entity is worth in the next document once one kept document has it (1: every "
        "document earns the full weight; below 1, documents are chosen one by one for what they add).", 0, 1
    )
    chain_weight: float = _setting(
        1.0, "Selection: weight of a document that an already kept one names (the next link of a chain), times how "
        "specific that link is (1 for an article no other names, about 0.2 for one thousands name). Chosen on 200 "
        "HotpotQA questions: docs/recall.md.", 0, 10
    )
    claim_entity_weight: float = _setting(1.0, "Selection: weight of each claim entity a document mentions.", 0, 10)
    gap_entity_weight: float = _setting(0.5, "Selection: weight of each gap-analysis entity a document mentions.", 0, 10)
    both_bonus: float = _setting(0.5, "Selection: bonus when a document matches claim and gap entities.", 0, 10)
    title_match_weight: float = _setting(
        2.0, "Selection: extra weight when an entity is the document's title (the document is about it).", 0, 10
    )
    retrieval_weight: float = _setting(
        3.0, "Selection: weight of the document's fused retrieval score (normalised to 0-1).", 0, 10
    )
    verifier: Literal["passages", "facts", "qa", "single"] = _setting(
        "passages", "How the verdict is reached: 'passages' (the model reads the claim with the best passages whole, a "
        "learned head decides), 'facts' (each atomic fact judged against its own evidence sentences, combined by "
        "rule), 'qa' (each fact asked as a question) or 'single' (one model call over evidence sentences)."
    )
    fact_names: Literal["found", "asked"] = _setting(
        "found", "Facts verifier: each fact's names (which pick its evidence sentences) are 'found' in its text (the "
        "claim's names it mentions, then NER; no tokens to generate) or 'asked' of the model with the split."
    )
    fact_repair: Literal["off", "claim"] = _setting(
        "off", "Facts verifier: when the split loses a name of the claim (no fact mentions it), 'claim' judges the "
        "whole claim as one more fact, so no part of it goes unchecked; 'off' judges the split as it is. On the 42 dev "
        "claims whose split lost a name: verdicts right 27 vs 26 (1 gained, 0 lost), +0.6 model calls on them."
    )
    fact_context: Literal["sentence", "passage"] = _setting(
        "sentence", "Facts verifier: the judge reads each evidence 'sentence' alone, or the 'passage' around it (its "
        "document, up to 600 characters around the sentence), so it sees whom a pronoun names; the sentence is cited "
        "either way. On the 169 dev claims: 105 vs 104 right (11 vs 10), 1.7 s more a claim."
    )
    fact_evidence: int = _setting(
        2, "Facts verifier: evidence sentences judged per fact (one per document). 2 since the speed work: on the "
        "40-claim sample, macro-F1 0.635 against 0.642 with 3 (not a reliable difference) for 2.3 fewer calls a "
        "claim; 1 costs more (0.581).", 1, 5)
    # The facts verifier's four numbers are fitted to the local model by `claimhop calibrate` on the 169 HoVer dev
    # claims with gold documents (docs/results/verify/calibration.json); refit them for another judge model.
    entail_threshold: float = _setting(
        0.015, "Facts verifier: entailment probability a fact needs to count as supported (fitted to the local model).", 0, 1
    )
    contradict_threshold: float = _setting(
        0.7, "Facts verifier: contradiction probability a fact needs to count as contradicted.", 0, 1
    )
    min_alignment: float = _setting(
        0.5, "Facts verifier: share of the fact (names, numbers, meaning) its evidence must cover to support it.", 0, 1
    )
    confidence_slope: float = _setting(
        0.5, "Facts verifier: slope of the calibrated claim confidence in the log of the weakest fact's entailment "
        "(0 keeps the rule's raw confidence).", 0, 20
    )
    qa_evidence: int = _setting(
        4, "QA verifier: evidence sentences a question is answered from (and at most as many other answers offered).", 1, 8
    )
    # The QA verifier's three numbers: `claimhop calibrate --verifier qa` on 40 dev claims of calibration fold 0
    # (docs/verification.md); the 169-claim figures are out of sample for the other fold's claims.
    qa_threshold: float = _setting(
        0.2, "QA verifier: probability the fact's own answer needs for the fact to count as supported (the options "
        "share the probability, so this sits well below 0.5).", 0, 1
    )
    qa_contradict_threshold: float = _setting(
        0.5, "QA verifier: probability another answer needs for the fact to count as contradicted.", 0, 1
    )
    qa_resolve: float = _setting(
        0.5, "QA verifier: probability the answer to \"who is <description>?\" needs to take the description's "
        "place in the fact's question (0: the likeliest name, whatever its odds; below it the fact is asked about "
        "the description itself).", 0, 1
    )
    qa_confidence_slope: float = _setting(
        1.5, "QA verifier: slope of the calibrated claim confidence in the log of the weakest fact's own-answer "
        "probability (0 keeps the rule's raw confidence).", 0, 20
    )
    evidence_sentences: int = _setting(8, "Evidence sentences shown to the verifier.", 1, 20)
    model_steps_off: str = _setting(
        "", "Model steps replaced by their deterministic fallback without asking the model, comma-separated (of "
        f"{', '.join(MODEL_STEPS)}): what `python -m benchmarks.steps` measures each step's worth with."
    )
    model_attempts: int = _setting(
        2, "Attempts at each model step (the node is retried by its RetryPolicy) before its fallback is used.", 1, 5
    )
    model_timeout_s: float = _setting(
        300.0, "Seconds one model call may take before it counts as failed (then retried or replaced).", 1, 3600
    )
    use_optimized_program: bool = _setting(
        True, "Load the optimised DSPy program (the one `claimhop optimize` saved, or program_path) when it exists."
    )
    program_path: str = _setting(
        "", "An optimised DSPy program (.json) to load instead of the one `claimhop optimize` saved, e.g. one "
        "`claimhop optimize --out FILE` saved elsewhere; it must exist."
    )

    def __init__(self, **given: Any) -> None:
        known = {f.name: f for f in fields(self)}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(unknown)}")
        for name, f in known.items():
            env = os.environ.get(ENV_PREFIX + name.upper())
            if name in given:
                value = given[name]
            elif env is not None:
                value = _coerce(name, env, f.type)
            else:
                value = f.default
            setattr(self, name, _check(f, value))
        self._check_combination()

    def _check_combination(self) -> None:
        if self.bm25_weight == 0 and self.dense_weight == 0:
            raise ValueError("settings bm25_weight and dense_weight cannot both be 0 (hybrid search would rank nothing)")
        unknown = sorted(set(self.steps_off()) - set(MODEL_STEPS))
        if unknown:
            raise ValueError(f"setting model_steps_off names no model step: {', '.join(unknown)}; "
                             f"choose from {', '.join(MODEL_STEPS)}")
        if self.reranker not in {"", "lm"} and not re.fullmatch(r"[\w.]+:\w+", self.reranker):
            raise ValueError(f"setting reranker must be empty, 'lm' or 'package.module:function', got {self.reranker!r}")

    def steps_off(self) -> list[str]:
        return [name.strip() for name in self.model_steps_off.split(",") if name.strip()]

    @classmethod
    def from_any(cls, value: Context | dict | None) -> Context:
        """Accept what LangGraph hands a node: a Context, a plain dict (server, Studio), or nothing."""
        if isinstance(value, Context):
            return value
        if value is None:
            return cls()
        if isinstance(value, dict):
            known = {f.name for f in fields(cls)}
            unknown = sorted(set(value) - known)
            secrets = [str(name) for name in unknown if SECRET_NAME.search(str(name))]
            if secrets:
                raise ValueError(
                    f"{', '.join(secrets)}: API keys and other secrets are not run settings (settings are stored "
                    "with every run); set them in the environment, e.g. OPENAI_API_KEY"
                )
            if unknown:
                raise ValueError(f"unknown setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
            return cls(**value)
        raise ValueError(f"settings must be a mapping of names to values, got {type(value).__name__}")


def _coerce(name: str, raw: str, type_name: Any) -> Any:
    text = str(type_name)
    try:
        if text == "int":
            return int(raw)
        if text == "float":
            return float(raw)
        if text == "bool":
            if raw.strip().lower() in {"1", "true", "yes", "on"}:
                return True
            if raw.strip().lower() in {"0", "false", "no", "off"}:
                return False
            raise ValueError
    except ValueError:
        raise ValueError(f"environment variable {ENV_PREFIX}{name.upper()}={raw!r} is not a valid {text}") from None
    return raw


def _check(f, value: Any) -> Any:
    """Reject wrong types and out-of-range numbers with a message naming the setting."""
    kind = str(f.type)
    low, high = f.metadata.get("min"), f.metadata.get("max")
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"setting {f.name} must be true or false, got {value!r}")
        return value
    if kind in {"int", "float"}:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind == "int" and not float(value).is_integer()):
            raise ValueError(f"setting {f.name} must be a{'n integer' if kind == 'int' else ' number'}, got {value!r}")
        value = int(value) if kind == "int" else float(value)
        if not math.isfinite(value):
            raise ValueError(f"setting {f.name} must be a finite number, got {value!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"setting {f.name}={value} is out of range [{low}, {high}]")
        return value
    if not isinstance(value, str):
        raise ValueError(f"setting {f.name} must be a string, got {type(value).__name__}")  # noqa: TRY004 - one error type for bad input
    if kind.startswith(("typing.Literal", "Literal")):
        allowed = get_args(get_type_hints(Context)[f.name])
        if value not in allowed:
            raise ValueError(f"setting {f.name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def settings_table() -> str:
    """README's table of settings, generated from the fields so the two cannot drift apart (a test checks)."""
    rows = ["| setting | default | range | meaning |", "|---|---|---|---|"]
    for f in fields(Context):
        low, high = f.metadata.get("min"), f.metadata.get("max")
        span = f"{low:g}–{high:g}" if low is not None and high is not None else ""
        rows.append(f"| `{f.name}` | `{f.default!r}` | {span} | {f.metadata['description']} |")
    return "\n".join(rows)
