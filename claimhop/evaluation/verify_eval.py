"""`claimhop eval-verify`: how well each verifier reaches HoVer's gold label, on the gold documents (oracle
retrieval) and on the documents claimhop retrieved, so retrieval errors and verification errors can be told
apart. SUPPORTED counts as HoVer's SUPPORTED; CONTRADICTED and INSUFFICIENT_INFO as NOT_SUPPORTED.

Every verifier measured is the verify stage a run builds, called as the graph's node calls it (claimhop.program:
the same module, its optimised predictors, the nothing-to-go-on rule, the facts and quotes): `passages` (the
default: one pass of the model over the claim and whole passages, decided by the trained head; a dev claim the head
was trained on is decided by the fold head that never saw it, and a state saved by an earlier read of the same
prompt is reused), `facts`, `qa` and `single` (the stage under verifier=facts, qa, single), `claimhop` (the run's
own verifier, as a user's run has it: no fold head), and `majority` (the dev set's majority label, its share as
confidence), the floor. Rows are appended as they finish, so a run resumes.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import dspy
from tqdm import tqdm

from claimhop.entities.ner import extract_entities, unique
from claimhop.evaluation.data import DEV_CLAIMS, load_claims
from claimhop.evaluation.figures import pyplot, save_png
from claimhop.evaluation.metric import label_of
from claimhop.evaluation.report import macro_f1, paired_comparison, wilson
from claimhop.evaluation.runner import append_row, finished_rows, rows_in
from claimhop.evaluation.systems import lm_use
from claimhop.evaluation.verifier_features import saved_state_reader
from claimhop.lm.provider import local_engine_stats
from claimhop.program import stages_for
from claimhop.program.verify.stage import ToVerify, Verify
from claimhop.retrieval.corpus import Corpus, documents_by_title  # noqa: F401 - documents_by_title is used from here
from state.context import Context

VERIFIERS = ("passages", "facts", "qa", "single")  # the verify stages a run can pick (setting `verifier`)
SYSTEMS = ("majority", *VERIFIERS, "claimhop")
EVIDENCE_KINDS = ("gold", "retrieved")
BINS = 10  # equal-width confidence bins of the calibration error and the reliability plot


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


def measured_verifier(ctx: Context, system: str) -> dspy.Module:
    """The verify stage a run builds under verifier=`system` (`claimhop`: the run's own), as `stages_for` builds it
    for the node; the passage verifier reads saved states where an earlier read of the same prompt left one."""
    settings = ctx if system == "claimhop" else Context.from_any({**dataclasses.asdict(ctx), "verifier": system})
    stage = stages_for(settings).verify
    if isinstance(stage, Verify):
        stage = copy.copy(stage)  # the built program's stage stays as the node has it
        stage.read_state = saved_state_reader()
    return stage


def measured_case(claim: dict, documents: list[dict], system: str) -> ToVerify:
    """What the node would give the stage for this claim on these documents: its names as intake finds them (no
    plan, so the stage splits the claim itself); a measured verifier also gets the claim's id, for the fold head."""
    names = unique(extract_entities([claim["claim"]], with_spans=True)[0])
    return ToVerify(claim["claim"], documents, names, uid=None if system == "claimhop" else claim["uid"])


def measured_verdict(stage: dspy.Module, case: ToVerify) -> tuple[str, float, dict[str, Any]]:
    """The stage's verdict, its confidence (1 from a verifier that gives none) and what the row keeps of it."""
    out = stage(case)
    extra: dict[str, Any] = {"degraded": [out.degraded] if out.degraded else []}
    if out.probabilities is not None:
        extra["probs"] = {name: round(value, 4) for name, value in out.probabilities.items()}
    if isinstance(stage, Verify):
        extra["cross_fitted"] = case.uid in stage.head.folds
    elif out.facts is not None:
        extra["facts"] = out.facts  # the facts and QA verifiers' judgements, which `claimhop calibrate` replays
    return out.verdict, float(1.0 if out.confidence is None else out.confidence), extra


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
    stages = {system: measured_verifier(ctx, system) for system in systems if system != "majority"}
    with tqdm(total=total, initial=total - len(todo), desc="eval-verify", unit="run") as bar:
        for system, kind, claim in todo:
            titles = claim["supporting_titles"] if kind == "gold" else retrieved[claim["uid"]]
            documents = documents_by_title(corpus, titles)
            started, before = time.perf_counter(), local_engine_stats()
            extra: dict[str, Any] = {}
            if system == "majority":
                verdict, confidence = majority
            else:
                verdict, confidence, extra = measured_verdict(stages[system], measured_case(claim, documents, system))
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
