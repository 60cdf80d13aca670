"""Run settings a user chooses: the model, where and how to search, how many documents to keep, how the verdict
is reached, and limits, each one sentence in Studio's form, `claimhop check --set` and docs/settings.md. The knobs
behind the defaults (fusion and selection weights, thresholds, alternatives measured and not chosen) are in
`state.tuning`; a run takes them flat or as `tuning`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from state.fields import fill, setting, table
from state.tuning import MODEL_STEPS, TUNING_NAMES, Tuning

MAX_CLAIM_CHARS = 2000  # ten times the longest bundled HoVer dev claim (216): more is a document, not a claim
SECRET_NAME = re.compile(r"key|token|secret|passw|credential", re.IGNORECASE)
GROUPS = ("model", "retrieval", "selection", "verification", "limits")
__all__ = ["GROUPS", "MAX_CLAIM_CHARS", "MODEL_STEPS", "Context", "Tuning", "settings_table"]


@dataclass(kw_only=True, init=False)
class Context:
    """How one claimhop run behaves. A setting not given (or given as None, JSON's null) falls back to
    CLAIMHOP_<NAME> in the environment, then to its default; one given explicitly always wins, even when it equals
    the default."""

    # model
    model: str = setting(
        "local", "The language model: 'local' (Qwen2.5-Coder-1.5B run in-process, offline) or a LiteLLM name such "
        "as 'openai/NAME' for an OpenAI-compatible server at OPENAI_API_BASE (keys come from the environment).",
        group="model")
    use_optimized_program: bool = setting(
        True, "Load the DSPy program `claimhop optimize` saved (or program_path), when there is one.", group="model")
    program_path: str = setting(
        "", "A saved DSPy program (.json) to load instead of the one `claimhop optimize` saved.", group="model")
    # retrieval
    corpus_path: str = setting(
        "", "What to search: a folder, CSV or Parquet table indexed by `claimhop index PATH`, or a JSONL corpus of "
        "{title, text}; empty: the bundled HoVer Wikipedia corpus.", group="retrieval")
    index_dir: str = setting(
        "", "Where the corpus's indexes are (`claimhop index --index-dir`); empty: under CLAIMHOP_HOME.",
        group="retrieval")
    retriever: str = setting(
        "", "The search engine: empty for claimhop's own indexes, 'postgresql' for the same search in PostgreSQL "
        "(CLAIMHOP_PG_URL), or 'package.module:function' returning a LangChain retriever.", group="retrieval")
    retrieval_mode: Literal["hybrid", "bm25", "dense"] = setting(
        "hybrid", "The search every hop uses: BM25 and embeddings fused ('hybrid'), or one of them.", group="retrieval")
    reranker: str = setting(
        "", "Re-ranking after the search: none (empty), 'lm' (the model judges each document; slow), or "
        "'package.module:function' returning a LangChain document compressor.", group="retrieval")
    rerank_depth: int = setting(20, "Documents per query the re-ranker re-orders.", 2, 100, group="retrieval")
    planner: Literal["facts", "one_call", "two_calls"] = setting(
        "facts", "How the search is planned: 'facts' (one model call splits the claim into facts and names what to "
        "look up), 'one_call' (sub-questions and names) or 'two_calls' (sub-questions, then names).",
        group="retrieval")
    phase1_k: int = setting(18, "Documents found for the claim's facts or sub-questions, in all.", 1, 200,
                            group="retrieval")
    phase2_k: int = setting(18, "Documents found for the names the plan says to look up, in all.", 1, 200,
                            group="retrieval")
    bridge_pick: Literal["lm", "ranking"] = setting(
        "ranking", "Who picks the bridging entities: the entity ranking ('ranking', no model call) or the model "
        "('lm').", group="retrieval")
    max_bridge_entities: int = setting(5, "Bridging entities looked up.", 0, 10, group="retrieval")
    bridge_k: int = setting(5, "Documents per bridging entity (its own article first).", 1, 50, group="retrieval")
    gap_loop_when: Literal["uncovered", "always"] = setting(
        "uncovered", "When the gap loop asks the model what is missing: only when a name of the claim has no "
        "document yet ('uncovered'), or 'always'.", group="retrieval")
    loop_k: int = setting(5, "Documents per query of a gap-loop round.", 1, 50, group="retrieval")
    link_articles: int = setting(
        3, "Articles the bridge adds by following the links of the best documents (0: none).", 0, 20,
        group="retrieval")
    later_link_articles: int = setting(
        1, "Articles added at the end by following the links of the articles the chain reached (0: none).", 0, 20,
        group="retrieval")
    # selection
    top_k: int = setting(21, "Documents kept for the verdict.", 1, 100, group="selection")
    claim_k: int = setting(
        21, "The claim's own search results that may be kept beside what the hops found.", 0, 100, group="selection")
    claim_floor: int = setting(
        10, "The claim's own first search results that are always kept.", 0, 100, group="selection")
    unnamed_order: Literal["claim", "score"] = setting(
        "claim", "The order of the documents kept when the claim names none of them (a scientific claim names no "
        "paper): as one search of the claim ranks them ('claim'; the verifier reads the first few), or by selection "
        "score ('score', as for a claim that names its documents, claim_lead or file_claim_lead included).", group="selection")
    # verification
    verifier: Literal["passages", "facts", "qa", "single"] = setting(
        "passages", "How the verdict is reached: the model reads the best passages whole and a learned head decides "
        "('passages'), each fact judged on sentences ('facts'), asked as a question ('qa'), or one call ('single').",
        group="verification")
    opposite_check: Literal["never", "unnamed", "always"] = setting(
        "unnamed", "How the passage verifier tells CONTRADICTED from INSUFFICIENT_INFO for a claim the passages do "
        "not support: by the head's kind alone ('never'), or the model writes the claim's opposite and reads it on "
        "the same passages, CONTRADICTED when the opposite reads as better supported (one more model call and "
        "pass), for claims that name none of the documents ('unnamed': a scientific claim) or for every claim "
        "('always'). 'unnamed' on 194 real claims it was not chosen on (Check-COVID, HealthVer, Climate-FEVER): 31 "
        "verdicts gained, 8 lost (p = 0.0003); HoVer's claims name their articles (docs/evaluation.md).",
        group="verification")
    evidence_sentences: int = setting(8, "Evidence sentences the 'single' verifier reads.", 1, 20,
                                      group="verification")
    # limits
    max_sub_questions: int = setting(3, "Facts or sub-questions the plan searches for, at most.", 1, 5,
                                     group="limits")
    max_iterations: int = setting(2, "Gap-loop rounds at most (0: no gap loop).", 0, 5, group="limits")
    model_attempts: int = setting(2, "Attempts at a model step before its fallback answers.", 1, 5, group="limits")
    model_timeout_s: float = setting(
        300.0, "Seconds one model call may take before it counts as failed.", 1, 3600, group="limits")
    tuning: Tuning = field(default=None, metadata={  # type: ignore[assignment]  # filled in __init__
        "nested": True, "description": "The knobs behind the defaults (docs/settings.md, second table), as a mapping; or flat."})

    def __init__(self, **given: Any) -> None:
        known = {f.name for f in fields(self)}
        given = {name: value for name, value in given.items()  # a setting given as null: not given
                 if value is not None or name not in known | set(TUNING_NAMES)}
        unknown = sorted(set(given) - known - set(TUNING_NAMES))
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(unknown)}")
        tuning = given.pop("tuning", None)
        if tuning is None:  # not given: the defaults (and CLAIMHOP_<NAME>)
            tuning = {}
        if isinstance(tuning, Tuning):
            tuning = tuning.given()
        if not isinstance(tuning, dict):
            raise ValueError(f"setting tuning must be a mapping of names to values, got {type(tuning).__name__}")
        flat = {name: given.pop(name) for name in list(given) if name in TUNING_NAMES}
        fill(self, given)
        try:
            self.tuning = Tuning(**{**{str(name): value for name, value in tuning.items()}, **flat})
        except (TypeError, ValueError) as err:
            raise ValueError(f"setting tuning: {err}") from None
        if self.reranker not in {"", "lm"} and not re.fullmatch(r"[\w.]+:\w+", self.reranker):
            raise ValueError(f"setting reranker must be empty, 'lm' or 'package.module:function', got {self.reranker!r}")

    def steps_off(self) -> list[str]:
        return self.tuning.steps_off()

    def value(self, name: str) -> Any:
        """A setting's value by name, a run setting or a tuning knob (records and fingerprints name either)."""
        return getattr(self.tuning if name in TUNING_NAMES else self, name)

    @classmethod
    def from_any(cls, value: Context | dict | None) -> Context:
        """Accept what LangGraph hands a node: a Context, a plain dict (server, Studio), or nothing."""
        if isinstance(value, Context):
            return value
        if value is None:
            return cls()
        if isinstance(value, dict):
            known = {f.name for f in fields(cls)} | set(TUNING_NAMES)
            unknown = sorted(set(map(str, value)) - known)
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


def settings_table() -> str:
    """docs/settings.md's tables, generated from the fields so the two cannot drift apart (a test checks)."""
    return f"{table(Context, GROUPS)}\n\n### Tuning\n\n{table(Tuning)}"
