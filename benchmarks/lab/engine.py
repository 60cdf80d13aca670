"""How fast llama.cpp runs the bundled GGUF on this machine: prompt and generated tokens per second for each
engine configuration (threads, batch and ubatch sizes, flash attention), each in a fresh process so one
configuration's memory or cache never helps the next.

    python -m benchmarks.lab.engine                      # the sweep, a table on stdout
    python -m benchmarks.lab.engine --out docs/results/speed/engine.json

Each configuration processes the same ~750-token prompt of corpus text with llama.cpp's prompt cache off
(every token computed) and then generates 48 tokens, three times; the median of the three is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SWEEP: list[dict[str, int]] = [
    {"threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": -1},
    {"threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": 0},
    {"threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": 1},
    {"threads": 2, "n_batch": 512, "n_ubatch": 128, "flash_attn": -1},
    {"threads": 2, "n_batch": 2048, "n_ubatch": 2048, "flash_attn": -1},
    {"threads": 1, "n_batch": 2048, "n_ubatch": 512, "flash_attn": -1},
]
REPEATS = 3
GENERATED = 48


def prompt_text() -> str:
    """About 750 tokens of real corpus text, the same every time."""
    from claimhop.retrieval.corpus import load_corpus

    corpus = load_corpus()
    text = " ".join(corpus.texts[i] for i in range(0, 400, 40))
    return " ".join(text.split()[:560])


def chat_body() -> dict:
    """The timed chat call: the corpus prompt with llama.cpp's prompt cache off, GENERATED tokens whatever they say."""
    return {"messages": [{"role": "system", "content": "Summarise the passages in one sentence."},
                         {"role": "user", "content": prompt_text()}],
            "max_tokens": GENERATED, "temperature": 0.0, "cache_prompt": False, "ignore_eos": True}


def measure(options: dict[str, int]) -> dict:
    """Run inside a fresh process: load the engine with `options`, time the prompt and generation."""
    from claimhop.lm.local_engine import EngineOptions, LlamaCppEngine
    from claimhop.lm.weights import QWEN_CODER_1_5B, gguf_path

    engine = LlamaCppEngine(gguf_path(QWEN_CODER_1_5B), EngineOptions(**options))
    body = chat_body()
    runs = []
    for _ in range(REPEATS):
        timings = engine.chat(body)["timings"]
        runs.append((timings["prompt_n"], timings["prompt_per_second"], timings["predicted_per_second"]))
    return {
        **options, "prompt_tokens": runs[0][0],
        "prompt_tok_s": round(statistics.median(r[1] for r in runs), 1),
        "gen_tok_s": round(statistics.median(r[2] for r in runs), 1),
    }


def system_info() -> str:
    import xllamacpp

    return xllamacpp.get_system_info().strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one configuration, JSON, in this process
    parser.add_argument("--out", help="also write the results as JSON here")
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(json.loads(args.one))))
        return 0
    results = []
    print(f"engine: {system_info()}", file=sys.stderr)
    for i, options in enumerate(SWEEP, start=1):
        print(f"[{i}/{len(SWEEP)}] {options}", file=sys.stderr, flush=True)
        proc = subprocess.run([sys.executable, "-m", "benchmarks.lab.engine", "--one", json.dumps(options)],
                              capture_output=True, text=True, env={**os.environ}, check=False)
        if proc.returncode != 0:
            print(f"  failed: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    base = results[0] if results else None
    print("| threads | n_batch | n_ubatch | flash_attn | prompt tok/s | generated tok/s | prompt x | generated x |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['threads']} | {r['n_batch']} | {r['n_ubatch']} | {r['flash_attn']} | {r['prompt_tok_s']} | "
              f"{r['gen_tok_s']} | {r['prompt_tok_s'] / base['prompt_tok_s']:.2f} | {r['gen_tok_s'] / base['gen_tok_s']:.2f} |")
    if args.out:
        from claimhop.atomic import write_text

        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        write_text(args.out, json.dumps({"system_info": system_info(), "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
