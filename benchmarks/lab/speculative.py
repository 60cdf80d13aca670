"""Does prompt-lookup speculative decoding make the model steps faster, and leave their answers unchanged?

    python -m benchmarks.lab.speculative                 # 12 claims of the committed sample, planning + judgements

For each engine configuration (no speculation, then ngram-simple drafts of a few sizes), in a fresh process
with an empty DSPy cache: the planning call (PlanClaimAsFacts) on each claim and a fact judgement on the
claim's first gold sentence, timed; then the seconds, generated tokens per second, and how many replies
and label distributions differ from the configuration without speculation (greedy decoding: none should).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CONFIGS: list[dict[str, int]] = [
    {"spec_draft": 0},
    {"spec_draft": 8, "spec_ngram": 2},
    {"spec_draft": 8, "spec_ngram": 3},
    {"spec_draft": 16, "spec_ngram": 3},
]


def measure(claims: int) -> dict:
    """Run inside a fresh process whose CLAIMHOP_LLM_* variables choose the engine options."""
    import dspy

    from benchmarks.speed import sample_file
    from claimhop.evaluation.data import load_claims
    from claimhop.lm.provider import get_lm
    from claimhop.lm.usage import LEDGER, model_step, usage_between
    from claimhop.program import Stages
    from claimhop.program.verify.alternatives.nli import judge_pair
    from claimhop.retrieval.corpus import load_corpus

    corpus = load_corpus()
    text_of = dict(zip(corpus.titles, corpus.texts))
    program = Stages()
    lm = get_lm("local")
    replies, labels, plan_s, judge_s = [], [], 0.0, 0.0
    before = LEDGER.snapshot()
    for claim in load_claims(sample_file())[:claims]:
        with dspy.context(lm=lm, adapter=dspy.JSONAdapter()), model_step("plan"):
            started = time.perf_counter()
            out = program.plan.facts(claim=claim["claim"])
            plan_s += time.perf_counter() - started
        replies.append({"facts": list(out.facts), "entities": list(out.entities)})
        title = claim["supporting_titles"][0]
        sentence = text_of[title].split(". ")[0]
        with model_step("fact_judgements"):
            started = time.perf_counter()
            labels.append(judge_pair("local", title, sentence, replies[-1]["facts"][0] if replies[-1]["facts"] else claim["claim"]))
            judge_s += time.perf_counter() - started
    usage = usage_between(before, LEDGER.snapshot())
    plan = usage.get("plan", {})
    return {"plan_s": round(plan_s, 2), "judge_s": round(judge_s, 2), "plan_output_tokens": plan.get("output_tokens", 0),
            "replies": replies, "labels": labels}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=12)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.claims)))
        return 0
    results = []
    for options in CONFIGS:
        env = {**os.environ, **{f"CLAIMHOP_LLM_{k.upper()}": str(v) for k, v in options.items()},
               "DSPY_CACHEDIR": tempfile.mkdtemp(prefix="claimhop-spec-")}
        print(f"{options}", file=sys.stderr, flush=True)
        proc = subprocess.run([sys.executable, "-m", "benchmarks.lab.speculative", "--one", "--claims", str(args.claims)],
                              capture_output=True, text=True, env=env, check=False)
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            continue
        results.append((options, json.loads(proc.stdout.strip().splitlines()[-1])))
    base = results[0][1]
    print("| engine options | plan s | plan tokens/s | judgement s | replies differing | label distributions differing |")
    print("|---|---|---|---|---|---|")
    for options, r in results:
        differ = sum(a != b for a, b in zip(r["replies"], base["replies"]))
        labels = sum(any(abs(a[k] - b[k]) > 0.02 for k in a) for a, b in zip(r["labels"], base["labels"]))
        print(f"| {options} | {r['plan_s']} | {r['plan_output_tokens'] / r['plan_s']:.1f} | {r['judge_s']} | "
              f"{differ} | {labels} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
