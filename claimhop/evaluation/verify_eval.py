"""`claimhop eval-verify`: how well each verifier reaches HoVer's gold label, on the gold documents (oracle
retrieval) and on the documents claimhop retrieved, so retrieval errors and verification errors can be told
apart. SUPPORTED counts as HoVer's SUPPORTED; CONTRADICTED and INSUFFICIENT_INFO as NOT_SUPPORTED.

Verifiers: `majority` (the dev set's majority label, its share as confidence), `single` (one constrained call
of the local model on the claim and its evidence sentences, the label's probability as confidence; every label's
probability is kept in the row), `facts` (claimhop's facts verifier, `verifier=facts`), `qa` (the QA verifier,
`verifier=qa`, on the same split of the claim), `passages` (the passage verifier, `verifier=passages`: one pass
of the model over the claim and whole passages, decided by the trained head; a dev claim the head was trained on
is decided by the fold head that never saw it), `passages_yes` (the same pass, P(yes) through the output layer
from the state read, the model's own answer only at the last block; calibrated on synthetic claims),
`passages_dspy` (the same judgement through DSPy with demos compiled by BootstrapFewShotWithRandomSearch on the
synthetic claims, claimhop.evaluation.verifier_dspy), `claimhop` (the graph's
verify node with the run's settings, by default the passage verifier; confidence 1 from a verifier that gives
none). Rows are appended as they finish, so a run resumes.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm import tqdm

from claimhop.evaluation.data import DEV_CLAIMS, load_claims
from claimhop.evaluation.figures import pyplot, save_png
from claimhop.evaluation.metric import label_of
from claimhop.evaluation.report import macro_f1, paired_comparison, wilson
from claimhop.evaluation.runner import append_row, finished_rows, rows_in
from claimhop.evaluation.systems import lm_use
from claimhop.evaluation.verifier_dspy import dspy_verdict
from claimhop.evaluation.verifier_dspy import load_judge as dspy_judge
from claimhop.lm.adapter import adapter_for
from claimhop.lm.provider import get_lm, local_engine_stats
from claimhop.retrieval.corpus import Corpus, documents_by_title  # noqa: F401 - documents_by_title is used from here

SYSTEMS = ("majority", "single", "facts", "qa", "passages", "passages_yes", "passages_dspy", "claimhop")
EVIDENCE_KINDS = ("gold", "retrieved")
SINGLE_LABELS = ("supported", "contradicted", "insufficient")
BINS = 10


def retrieved_titles(path: Path | None) -> dict[str, list[str]]:
    """uid -> the 21 titles claimhop selected, from a `claimhop eval` results file."""
    if path is None:
        return {}
    if not path.is_file():
        raise ValueError(f"retrieved-documents file not found: {path}")
    return {row["uid"]: row["titles"] for row in rows_in(path) if row.get("system") == "claimhop"}


def majority_label(path: Path = DEV_CLAIMS) -> tuple[str, float]:
    counts = Counter(row["label"] for row in load_claims(path))
    label, n = counts.most_common(1)[0]
    return label, n / sum(counts.values())


def single_verdict(claim: str, documents: list[dict], sentences: int) -> tuple[str, float, dict[str, float]]:
    """One constrained call: the label, its probability and every label's (normalised over the three labels)."""
    from claimhop.lm.label_probs import classify_local
    from claimhop.lm.provider import local_engine
    from claimhop.program.verify.alternatives.evidence import rank_evidence
    from claimhop.signatures import JudgeClaimOnSentences

    evidence = rank_evidence(claim, documents, [], sentences)
    numbered = "\n".join(f"[{i}] {e['title']}: {e['sentence']}" for i, e in enumerate(evidence, start=1))
    label, probs = classify_local(local_engine(), JudgeClaimOnSentences, f"Claim: {claim}\nEvidence:\n{numbered}",
                                  SINGLE_LABELS)
    verdict = {"supported": "SUPPORTED", "contradicted": "CONTRADICTED", "insufficient": "INSUFFICIENT_INFO"}[label]
    return verdict, probs[label], {name: round(p, 4) for name, p in probs.items()}


def node_verdict(claim: str, documents: list[dict], ctx) -> tuple[str, float, list[str]]:
    """The graph's verify node on these documents with the claim's named entities (sub-questions and gap
    entities come from retrieval steps, so there are none here); confidence 1 when the node gives none."""
    from types import SimpleNamespace

    from claimhop.entities.ner import extract_entities, unique
    from graph.builder import NODES

    verify = NODES["verify"].function
    state = {"claim": claim, "selected": documents, "claim_entities": unique(extract_entities([claim], with_spans=True)[0])}
    out = verify(state, SimpleNamespace(context=ctx))
    return out["verdict"], float(out.get("confidence", 1.0)), out.get("degraded", [])


def split_facts(claim: str, ctx) -> list[dict]:
    """The claim's facts as the graph's verify node gets them (the planning call's split, its names found)."""
    import dspy

    from claimhop.entities.ner import extract_entities, unique
    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import get_lm
    from claimhop.program import stages_for
    from claimhop.program.verify.facts import facts_from_split

    with dspy.context(lm=get_lm(ctx.model), adapter=adapter_for(ctx.model)):
        split = stages_for(ctx).fact_splitter().split_claim(claim)
    return facts_from_split(split, claim, unique(extract_entities([claim], with_spans=True)[0]),  # as early_gap
                            ctx.tuning.fact_repair)


def facts_verdict(claim: str, documents: list[dict], ctx) -> tuple[str, float, list[dict]]:
    from claimhop.program.verify.alternatives.ensemble import EnsembleRule
    from claimhop.program.verify.alternatives.nli import judge_pair
    from claimhop.program.verify.alternatives.pipeline import check_facts

    result = check_facts(split_facts(claim, ctx), documents, lambda t, s, f: judge_pair(ctx.model, t, s, f),
                         EnsembleRule.from_settings(ctx), ctx.tuning.fact_evidence, ctx.tuning.fact_context)
    return result["verdict"], result["confidence"], result["facts"]


def qa_verdict(claim: str, documents: list[dict], ctx) -> tuple[str, float, list[dict]]:
    """The QA verifier on the same split: a question per fact, answered from these documents."""
    from claimhop.program.verify.alternatives.ensemble import EnsembleRule
    from claimhop.program.verify.alternatives.qa import ask_model, check_claim_qa

    def ask(evidence: list[str], question: str, options: list[str]) -> dict[str, float]:
        return ask_model(ctx.model, evidence, question, options)

    result = check_claim_qa(split_facts(claim, ctx), documents, ask, EnsembleRule.for_questions(ctx), ctx.tuning.qa_evidence,
                            ctx.tuning.qa_resolve)
    return result["verdict"], result["confidence"], result["facts"]


def passages_verdict(claim: dict, documents: list[dict], yes_only: bool = False) -> tuple[str, float, dict]:
    """The passage verifier: the model's hidden state on the claim and the passages read (saved by an earlier read
    when there is one), decided by the shipped head, or for a dev claim the head was trained on, by the fold head
    that never saw it. `yes_only`: P(yes) through the output layer from the state read, calibrated on the
    synthetic claims."""
    import math

    from claimhop.evaluation.verifier_features import state_of
    from claimhop.program.verify.head import decide, load_head

    head = load_head()
    state, read_now = state_of(claim["claim"], documents, head.reading)
    probs = head.probabilities(state, claim["uid"])
    if yes_only:
        a, b = head.yes_calibration
        p = 1.0 / (1.0 + math.exp(-(a * head.yes_logit(state) + b)))
        verdict, confidence = ("SUPPORTED", p) if p >= 0.5 else ("INSUFFICIENT_INFO", 1.0 - p)
    else:
        verdict, confidence = decide(probs["supported"], probs["contradicted_if_not"], head.threshold)
    return verdict, confidence, {"probs": {k: round(v, 4) for k, v in probs.items()}, "read_now": read_now,
                                 "cross_fitted": claim["uid"] in head.folds}


def run_verify_eval(claims: list[dict], systems: list[str], kinds: list[str], corpus: Corpus,
                    retrieved: dict[str, list[str]], ctx, out: Path, fingerprint: str) -> list[dict]:
    out.parent.mkdir(parents=True, exist_ok=True)
    done = finished_rows(out, fingerprint)
    majority = majority_label()
    todo = [(s, k, c) for c in claims for k in kinds for s in systems if (f"{s}@{k}", c["uid"]) not in done]
    missing = [c["uid"] for c in claims if "retrieved" in kinds and c["uid"] not in retrieved]
    if missing:
        raise ValueError(f"{len(missing)} claims have no retrieved documents in --retrieved-from "
                         f"(run `claimhop eval --systems claimhop` on them first), e.g. {missing[0]}")
    total = len(claims) * len(kinds) * len(systems)
    judge = dspy_judge() if any(s == "passages_dspy" for s, _, _ in todo) else None
    with tqdm(total=total, initial=total - len(todo), desc="eval-verify", unit="run") as bar:
        for system, kind, claim in todo:
            titles = claim["supporting_titles"] if kind == "gold" else retrieved[claim["uid"]]
            documents = documents_by_title(corpus, titles)
            started, before = time.perf_counter(), local_engine_stats()
            extra: dict[str, Any] = {}
            if system == "majority":
                verdict, confidence = majority
            elif system == "single":
                verdict, confidence, extra["probs"] = single_verdict(claim["claim"], documents, ctx.evidence_sentences)
            elif system in ("passages", "passages_yes"):
                verdict, confidence, extra = passages_verdict(claim, documents, yes_only=system == "passages_yes")
            elif system == "passages_dspy":
                verdict, confidence, extra = dspy_verdict(judge, claim["claim"], documents, get_lm(ctx.model),
                                                          adapter_for(ctx.model))
            elif system == "claimhop":
                verdict, confidence, extra["degraded"] = node_verdict(claim["claim"], documents, ctx)
            else:
                verdict, confidence, facts = (qa_verdict if system == "qa" else facts_verdict)(claim["claim"], documents, ctx)
                extra["facts"] = facts
            row = {"fingerprint": fingerprint, "system": f"{system}@{kind}", "uid": claim["uid"],
                   "num_hops": claim.get("num_hops"), "label": claim["label"], "verdict": verdict,
                   "predicted": label_of(verdict), "confidence": round(float(confidence), 4),
                   "seconds": round(time.perf_counter() - started, 2), **lm_use(before, local_engine_stats()), **extra}
            append_row(out, row)
            done[(row["system"], row["uid"])] = row
            bar.update(1)
    return [done[(f"{s}@{k}", c["uid"])] for c in claims for k in kinds for s in systems]


def bootstrap_ci(pairs: list[tuple[str, str]], resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of macro-F1 over claims. The pairs are sorted first, so the interval
    depends on the verdicts alone, not on the order the rows were written in (a resumed run, or a report that
    gathers rows in another order, gives the same interval)."""
    if not pairs:
        return (0.0, 0.0)
    pairs = sorted(pairs)
    rng = random.Random(seed)
    scores = sorted(macro_f1([rng.choice(pairs) for _ in pairs]) or 0.0 for _ in range(resamples))
    return scores[int(0.025 * resamples)], scores[int(0.975 * resamples) - 1]


def expected_calibration_error(rows: list[dict]) -> tuple[float, list[tuple[float, float, int]]]:
    """ECE over BINS equal-width confidence bins of the predicted label; and (mean confidence, accuracy, n) per bin."""
    bins: list[list[dict]] = [[] for _ in range(BINS)]
    for row in rows:
        bins[min(BINS - 1, int(row["confidence"] * BINS))].append(row)
    table, ece = [], 0.0
    for group in bins:
        if group:
            confidence = sum(r["confidence"] for r in group) / len(group)
            accuracy = sum(r["predicted"] == r["label"] for r in group) / len(group)
            ece += len(group) / len(rows) * abs(confidence - accuracy)
            table.append((confidence, accuracy, len(group)))
    return round(ece, 4), table


def summarize_verify(rows: list[dict]) -> dict[str, dict]:
    summary: dict[str, dict] = {}
    for system in dict.fromkeys(r["system"] for r in rows):
        items = [r for r in rows if r["system"] == system]
        groups = {"all": items}
        for row in items:
            groups.setdefault(f"{row['num_hops']}-hop", []).append(row)
        stats = {}
        for name, group in groups.items():
            pairs = [(r["label"], r["predicted"]) for r in group]
            correct = sum(g == p for g, p in pairs)
            stats[name] = {"n": len(group), "accuracy": correct / len(group), "accuracy_ci95": wilson(correct, len(group)),
                           "macro_f1": macro_f1(pairs), "macro_f1_ci95": bootstrap_ci(pairs)}
        ece, bins = expected_calibration_error(items)
        confusion = Counter((r["label"], r["verdict"]) for r in items)
        summary[system] = {"groups": stats, "ece": ece, "bins": bins,
                           "confusion": {f"{g} -> {v}": n for (g, v), n in sorted(confusion.items())},
                           "seconds": sum(r["seconds"] for r in items) / len(items),
                           "lm_calls": sum(r.get("lm_calls", 0) for r in items) / len(items),
                           "tokens": sum(r.get("tokens", 0) for r in items) / len(items)}
    return summary


def render_verify(summary: dict[str, dict]) -> str:
    header = ("| verifier@documents | claims | accuracy (95% CI) | macro-F1 (95% CI) | 2-hop F1 | 3-hop F1 | 4-hop F1 "
              "| ECE | s/claim | LM calls/claim | tokens/claim |")
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|---|"]

    def f1(groups: dict, name: str) -> str:
        group = groups.get(name)
        return f"{100 * group['macro_f1']:.1f} (n={group['n']})" if group else "–"

    for system, s in summary.items():
        g = s["groups"]["all"]
        lines.append(f"| {system} | {g['n']} | {100 * g['accuracy']:.1f} ({100 * g['accuracy_ci95'][0]:.0f}-"
                     f"{100 * g['accuracy_ci95'][1]:.0f}) | {100 * g['macro_f1']:.1f} ({100 * g['macro_f1_ci95'][0]:.0f}-"
                     f"{100 * g['macro_f1_ci95'][1]:.0f}) | {f1(s['groups'], '2-hop')} | {f1(s['groups'], '3-hop')} | "
                     f"{f1(s['groups'], '4-hop')} | "
                     f"{s['ece']:.3f} | {s['seconds']:.1f} | {s['lm_calls']:.1f} | {s['tokens']:.0f} |")
    lines.append("")
    for system, s in summary.items():
        lines.append(f"{system} confusion (gold -> verdict): " + ", ".join(f"{k}: {n}" for k, n in s["confusion"].items()))
    return "\n".join(lines)


def verdict_comparison(rows: list[dict]) -> list[str]:
    """Each verifier against the graph's own verify node on the same documents, claim by claim (against the
    facts verifier when the run has no `claimhop` rows)."""
    lines = []
    for kind in dict.fromkeys(r["system"].split("@")[1] for r in rows):
        correct: dict[str, dict[str, bool]] = {}
        for row in rows:
            if row["system"].endswith(f"@{kind}"):
                correct.setdefault(row["system"], {})[row["uid"]] = row["predicted"] == row["label"]
        reference = f"claimhop@{kind}" if f"claimhop@{kind}" in correct else f"facts@{kind}"
        lines += paired_comparison(correct, reference, "verdict right")
    return lines


def reliability_plot(summary: dict[str, dict], path: Path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    for system, s in summary.items():
        if s["bins"]:
            ax.plot([b[0] for b in s["bins"]], [b[1] for b in s["bins"]], marker="o", label=f"{system} (ECE {s['ece']:.2f})")
    ax.set(xlabel="confidence in the predicted label", ylabel="accuracy", xlim=(0, 1), ylim=(0, 1),
           title="HoVer dev: reliability of verdicts")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_png(fig, path, dpi=110)
