"""Issue 41 item 6: would a re-quantised model file make the engine faster here, and would the shipped head still
read its states? The bundled Q4_K_M file against copies whose block weights gguf-py re-quantises to Q4_0 (llama.cpp
repacks Q4_0 for AVX2 at load) or Q4_0 with Q8_0 where Q4_K_M has Q6_K (claimhop.lm.cut_model.write_cut).

    python -m benchmarks.lab.quant_files --out docs/results/speed/quant-files            # speed (~15 min)
    python -m benchmarks.lab.quant_files --transfer 48 --out docs/results/speed/quant-files  # and states (~25 min more)

Speed, in one fresh process holding every file, the files taking turns on each prompt, medians: the verify pass (the 21-block cut read over the real
prompts of the first 8 three-document synthetic claims, each twice, llama.cpp's embeddings mode as the verifier reads) and a
chat call on the whole model (~870 prompt tokens of corpus text, prompt cache off, 48 generated tokens; three times).
Transfer: the first N three-document synthetic claims (no head was trained on them) read by a re-quantised cut; the
shipped head (trained on Q4_K_M states) scores those states and the Q4_K_M states the feature cache holds: how
close the states are and how often the verdict stays. A new file still needs a head trained on its own states; this
says how far the old one is off, not whether to skip retraining."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from claimhop.atomic import write_text
from claimhop.cache_root import cache_root
from claimhop.program.verify.reading import MODEL_BLOCKS

SCHEMES = {"q4_0": {"Q4_K": "Q4_0", "Q6_K": "Q4_0"}, "q4_0+q8_0": {"Q4_K": "Q4_0", "Q6_K": "Q8_0"}}
SHIPPED = "q4_k_m"
CUT = 21  # the verifier's blocks (claimhop.program.verify.reading.NEW_HEAD_BLOCKS)
REPEATS = 3  # chat calls
PROMPTS, PASSES = 8, 2  # verify prompts, each read twice
NAMES = {1: "SUPPORTED", 0: "NOT_SUPPORTED"}


def model_file(scheme: str, blocks: int) -> Path:
    """The bundled model (or its 21-block cut) in `scheme`: re-quantised on first use into claimhop's cache."""
    import gguf

    from claimhop.lm.cut_model import cut_path, write_cut
    from claimhop.lm.weights import gguf_path

    if scheme == SHIPPED:
        return gguf_path() if blocks == MODEL_BLOCKS else cut_path(blocks)
    target = cache_root() / "quant-files" / f"{scheme}-first{blocks}.gguf"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        mapping = {gguf.GGMLQuantizationType[a]: gguf.GGMLQuantizationType[b] for a, b in SCHEMES[scheme].items()}
        print(f"making {target.name} (~1 min)", file=sys.stderr, flush=True)
        write_cut(gguf.GGUFReader(str(gguf_path())), target, blocks, mapping)
    return target


def chain_prompts(limit: int, rule=None) -> list[tuple[dict, list[dict]]]:
    """(item, chat messages) of the first `limit` three-document synthetic claims, read as `rule` reads (default:
    the shipped reading)."""
    from claimhop.evaluation.synthetic_chains import CHAIN_CLAIMS
    from claimhop.evaluation.verifier_data import synthetic_items
    from claimhop.evaluation.verifier_features import documents_for
    from claimhop.program.verify.head import load_head
    from claimhop.program.verify.reading import (
        passage_messages,
        passages_read,
    )
    from claimhop.retrieval.corpus import load_corpus

    corpus, rule = load_corpus(), rule or load_head().reading
    out = []
    for item in synthetic_items(CHAIN_CLAIMS)[:limit]:
        documents = documents_for(corpus, item["titles"])
        out.append((item, passage_messages(item["claim"], passages_read(documents, item["claim"], rule))))
    return out


def server(path: Path):
    import xllamacpp

    from claimhop.lm.local_engine import EngineOptions, server_params

    return xllamacpp.Server(server_params(path, EngineOptions.from_env()))


def states(path: Path, prompts: list[list[dict]], progress: str = "") -> np.ndarray:
    """The hidden state of one verify pass per prompt on the file at `path`, as the verifier reads it."""
    from claimhop.lm.chat_template import chatml

    reader, rows = server(path), []
    for i, messages in enumerate(prompts, 1):
        result = reader.handle_embeddings({"input": [chatml(messages)], "embd_normalize": -1})
        rows.append(np.asarray(result["data"][0]["embedding"], dtype=np.float32))
        if progress:
            print(f"\r{progress} {i}/{len(prompts)}", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return np.stack(rows)


def rotated(schemes: list[str], turn: int) -> list[str]:
    """The schemes starting at the turn's one, so no file always goes first."""
    start = turn % len(schemes)
    return schemes[start:] + schemes[:start]


def measure(schemes: list[str]) -> list[dict]:
    """In one fresh process with every file loaded: the verify pass on each cut and a chat call on each whole model,
    the schemes taking turns on each prompt (the order rotating), so a slower minute of the machine falls on all of
    them alike; each scheme's seconds are also divided by the bundled file's on the same prompt and round."""
    from benchmarks.lab.engine import chat_body
    from claimhop.lm.chat_template import chatml

    prompts = [chatml(messages) for _, messages in chain_prompts(PROMPTS)]
    readers = {scheme: server(model_file(scheme, CUT)) for scheme in schemes}
    for reader in readers.values():
        reader.handle_embeddings({"input": ["warm up"], "embd_normalize": -1})
    seconds: dict[str, list[float]] = {scheme: [] for scheme in schemes}
    tokens: dict[str, int] = {}
    for turn, prompt in enumerate(prompts * PASSES):
        for scheme in rotated(schemes, turn):
            started = time.perf_counter()
            result = readers[scheme].handle_embeddings({"input": [prompt], "embd_normalize": -1})
            seconds[scheme].append(time.perf_counter() - started)
            tokens[scheme] = int(result["usage"]["prompt_tokens"])
        print(f"\r[speed] verify {turn + 1}/{len(prompts) * PASSES}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    del readers
    chats = {scheme: server(model_file(scheme, MODEL_BLOCKS)) for scheme in schemes}
    body = chat_body()
    timings: dict[str, list[dict]] = {scheme: [] for scheme in schemes}
    for turn in range(REPEATS):
        for scheme in rotated(schemes, turn):
            timings[scheme].append(chats[scheme].handle_chat_completions(body)["timings"])
    base = schemes[0]
    return [{"scheme": scheme, "verify_s": round(statistics.median(seconds[scheme]), 2),
             "verify_ratio": round(statistics.median(a / b for a, b in zip(seconds[scheme], seconds[base])), 3),
             "verify_tokens": tokens[scheme],
             "prompt_tok_s": round(statistics.median(t["prompt_per_second"] for t in timings[scheme]), 1),
             "gen_tok_s": round(statistics.median(t["predicted_per_second"] for t in timings[scheme]), 1),
             "cut_mb": round(model_file(scheme, CUT).stat().st_size / 1e6),
             "full_mb": round(model_file(scheme, MODEL_BLOCKS).stat().st_size / 1e6)} for scheme in schemes]


def transfer(scheme: str, limit: int) -> dict:
    """The shipped head on the first `limit` three-document claims' states read from `scheme`'s cut, against the
    Q4_K_M states the feature cache holds."""
    from claimhop.evaluation.report import macro_f1
    from claimhop.evaluation.verifier_features import (
        features_dir,
        load_features,
        save_atomic,
    )
    from claimhop.evaluation.verifier_report import auc
    from claimhop.program.verify.head import load_head
    from claimhop.retrieval.corpus import load_corpus

    head = load_head()
    pairs = chain_prompts(limit, head.reading)  # the prompts its cached states were read from
    items = [item for item, _ in pairs]
    shipped = load_features(items, load_corpus(), head.reading, features_dir(head.reading))
    cache = cache_root() / "quant-files" / f"{scheme}-chain-states-{limit}.npy"
    if cache.is_file():
        other = np.load(cache)
    else:
        other = states(model_file(scheme, CUT), [m for _, m in pairs], progress=f"{scheme} states")
        save_atomic(cache, other)
    y = np.array([item["label"] == "SUPPORTED" for item in items], dtype=int)
    p = {name: np.array([head.probabilities(s)["supported"] for s in rows]) for name, rows in
         (("shipped", shipped), (scheme, other))}
    centred = shipped - shipped.mean(0), other - shipped.mean(0)
    cosine = (centred[0] * centred[1]).sum(1) / np.linalg.norm(centred[0], axis=1) / np.linalg.norm(centred[1], axis=1)
    verdict = {name: (probs >= head.threshold).astype(int) for name, probs in p.items()}
    return {"scheme": scheme, "items": limit, "centred_cosine_median": round(float(np.median(cosine)), 3),
            "p_correlation": round(float(np.corrcoef(p["shipped"], p[scheme])[0, 1]), 3),
            "p_mean_abs_diff": round(float(np.abs(p["shipped"] - p[scheme]).mean()), 3),
            "same_verdict": int((verdict["shipped"] == verdict[scheme]).sum()),
            "auc": {name: round(auc(y, probs), 3) for name, probs in p.items()},
            "macro_f1": {name: round(100 * macro_f1([(NAMES[g], NAMES[v]) for g, v in zip(y, verdict[name])]), 1) for name in p}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one scheme's speed, JSON, in this process
    parser.add_argument("--transfer", type=int, metavar="N", help="also read N three-document claims with each scheme")
    parser.add_argument("--out", type=Path, help="path stem: writes <stem>.json and <stem>.md")
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one.split(","))))
        return 0
    schemes = [SHIPPED, *SCHEMES]
    for scheme in schemes:  # made here, not inside the timed process
        model_file(scheme, CUT)
        model_file(scheme, MODEL_BLOCKS)
    proc = subprocess.run([sys.executable, "-m", "benchmarks.lab.quant_files", "--one", ",".join(schemes)], text=True,
                          stdout=subprocess.PIPE, env={**os.environ}, check=False)
    if proc.returncode != 0:
        raise SystemExit("the timed process failed (its messages are above)")
    speed = json.loads(proc.stdout.strip().splitlines()[-1])
    base = next((r for r in speed if r["scheme"] == SHIPPED), None)
    lines = [("| file | verify pass s (cut to 21 blocks, median) | x (paired median) | prompt tok/s (whole model) | x "
              "| generated tok/s | x | cut MB | whole MB |"), "|---|---|---|---|---|---|---|---|---|"]
    for r in speed:
        lines.append(f"| {r['scheme']} | {r['verify_s']} | {r['verify_ratio']:.2f} | "
                     f"{r['prompt_tok_s']} | {r['prompt_tok_s'] / base['prompt_tok_s']:.2f} | {r['gen_tok_s']} | "
                     f"{r['gen_tok_s'] / base['gen_tok_s']:.2f} | {r['cut_mb']} | {r['full_mb']} |")
    moved = [transfer(scheme, args.transfer) for scheme in SCHEMES] if args.transfer else []
    if moved:
        lines += ["", ("| states from | items | centred cosine to Q4_K_M (median) | P(supported) correlation "
                       "| mean abs dP | same verdict | AUC Q4_K_M / this | macro-F1 Q4_K_M / this |"),
                  "|---|---|---|---|---|---|---|---|"]
        for r in moved:
            lines.append(f"| {r['scheme']} | {r['items']} | {r['centred_cosine_median']} | {r['p_correlation']} | "
                         f"{r['p_mean_abs_diff']} | {r['same_verdict']} of {r['items']} | {r['auc']['shipped']} / "
                         f"{r['auc'][r['scheme']]} | {r['macro_f1']['shipped']} / {r['macro_f1'][r['scheme']]} |")
    print("\n".join(lines))
    if args.out:
        from benchmarks.lab.engine import system_info

        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_text(args.out.with_suffix(".json"), json.dumps({"system_info": system_info(), "speed": speed,
                                                               "transfer": moved}, indent=1) + "\n")
        write_text(args.out.with_suffix(".md"), "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
