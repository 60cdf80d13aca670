"""Read labelled pairs of many genres (benchmarks.pair_sets) as a check reads them, for the passage verifier's head
(issue 69, item 1): each pair's evidence among distractors of its set, through the verify stage's own prompt and
reading rule (the head's: chain-order-1, 21 blocks, 3,000 characters), one model pass each.

A resumable job that carries over from one working day to the next: each state is saved as it is read (the
verifier's feature cache, claimhop.evaluation.verifier_features), and every `--chunk` pairs the states read so far
are packed into the repository (float16, with the pair ids, labels, groups and the reading's version) under
docs/results/verifier/pairs/READING/, and committed with `--commit`. A stopped job (Ctrl-C, a crash, the end of a
session) loses nothing packed or saved; the next run skips every pair already read, here or in the repository.
The order is stratified by set and label (benchmarks.pair_sets.stratified_order), so a stop anywhere leaves a
balanced mix.

Table: the count of pairs read in docs/results/verifier/pairs/README.md (`--status`).

    python -m benchmarks.read_pairs --context 1500 --limit 2000 --commit
    python -m benchmarks.read_pairs --status
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm import tqdm

from benchmarks.pair_sets import (
    LABELS,
    PAIR_SETS,
    Pair,
    distractor_pool,
    load_pairs,
    stratified_order,
    with_distractors,
)
from claimhop.atomic import atomic_path, write_text
from claimhop.evaluation.verifier_features import features_dir, messages_key, save_atomic
from claimhop.program.verify.reading import (
    NEW_HEAD_READING,
    READINGS,
    ReadingRule,
    hidden_state,
    passage_messages,
    passages_read,
    reading_rule,
    three_way_messages,
)

PAIRS_DIR = Path("docs/results/verifier/pairs")
CONTEXT = 1500  # characters of passages a pair is read with (evidence + distractors); see the README beside it
# the question a pair is read with: the verify stage's (is it supported?), the three-way one (which of the labels?),
# or the support question asked of the claim's opposite as the verify stage writes it (opposite_check)
PROMPTS = {"support": passage_messages, "three-ways": three_way_messages, "opposite": passage_messages}


def opposite_writer() -> Callable[[str], str]:
    """The verify stage's opposite of a claim ("... increases ..." -> "... decreases ..."), written by the local model
    with the stage's own signature; DSPy's cache keeps each, so a resumed job does not write it again. A claim the
    model cannot turn stays itself (its state is then the claim's), as in the stage."""
    import dspy

    from claimhop.lm.adapter import adapter_for
    from claimhop.lm.provider import LOCAL, get_lm
    from claimhop.signatures import OppositeClaim

    write = dspy.Predict(OppositeClaim)
    lm = get_lm(LOCAL)

    def opposite(claim: str) -> str:
        with dspy.context(lm=lm, adapter=adapter_for(LOCAL)):  # as the graph's runs call it
            written = str(write(claim=claim).opposite).strip()
        return written or claim

    return opposite


def archive_dir(rule: ReadingRule, context: int, prompt: str = "support") -> Path:
    """Where the packed states of one reading, context length and question live."""
    return PAIRS_DIR / (f"{features_dir(rule).name}-ctx{context}" + ("" if prompt == "support" else f"-{prompt}"))


def manifest_path(folder: Path) -> Path:
    return folder / "pairs.jsonl"


def read_manifest(folder: Path) -> list[dict]:
    path = manifest_path(folder)
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def packed_states(folder: Path) -> dict[str, np.ndarray]:
    """Every packed state by pair id (float32)."""
    states: dict[str, np.ndarray] = {}
    for chunk in sorted(folder.glob("chunk-*.npz")):
        with np.load(chunk) as data:
            for pair_id, state in zip(data["ids"], data["states"]):
                states[str(pair_id)] = state.astype(np.float32)
    return states


def pair_messages(pair: Pair, pool: list[dict], rule: ReadingRule, context: int, prompt: str = "support",
                  opposite: Callable[[str], str] | None = None) -> tuple[list[dict], list[str]]:
    """What the model reads for the pair (the same passages whatever the question, chosen for the claim), and the
    titles read; `prompt="opposite"` asks about `opposite(claim)` instead of the claim."""
    passages = passages_read(with_distractors(pair, pool, context), pair.claim, rule)
    if prompt == "opposite" and opposite is None:
        raise ValueError("prompt 'opposite' needs the opposite's writer (opposite_writer())")
    asked = opposite(pair.claim) if prompt == "opposite" else pair.claim
    return PROMPTS[prompt](asked, passages), [p["title"] for p in passages]


def pack(folder: Path, rows: list[dict], cache: Path, commit: bool) -> None:
    """The rows' states (from the feature cache) as one new chunk, the manifest extended, both written atomically;
    committed when asked (only these paths)."""
    if not rows:
        return
    folder.mkdir(parents=True, exist_ok=True)
    number = len(list(folder.glob("chunk-*.npz")))
    chunk = folder / f"chunk-{number:04d}.npz"
    states = np.stack([np.load(cache / f"{row['key']}.npy") for row in rows]).astype(np.float16)
    with atomic_path(chunk, suffix=".npz") as tmp:
        np.savez_compressed(tmp, ids=np.array([row["id"] for row in rows]), states=states)
    old = read_manifest(folder)
    lines = [json.dumps({**row, "chunk": chunk.name}, ensure_ascii=False) for row in rows]
    write_text(manifest_path(folder), "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in old)
               + "\n".join(lines) + "\n")
    if commit:
        total = len(old) + len(rows)
        for attempt in range(5):  # another commit may hold the index for a moment
            subprocess.run(["git", "add", str(chunk), str(manifest_path(folder))], check=False)
            done = subprocess.run(["git", "commit", "-q", "-m", f"pairs read: {total} ({folder.name})", "--",
                                   str(chunk), str(manifest_path(folder))], check=False)
            if done.returncode == 0:
                break
            time.sleep(2 + attempt)


def read(sets: list[str], mirror: Path, ood: Path, context: int, limit: int, chunk_size: int, commit: bool,
         rule: ReadingRule, prompt: str = "support", same_as: Path | None = None) -> Path:
    """Read pairs until the archive holds `limit`; with `same_as` (another archive), only the pairs it holds: the
    same pairs under another reading or question, for heads compared on the same data."""
    from claimhop.lm.provider import local_engine

    folder = archive_dir(rule, context, prompt)
    cache = features_dir(rule)
    cache.mkdir(parents=True, exist_ok=True)
    done = {row["id"] for row in read_manifest(folder)}
    pools, pairs = {}, []
    for name in sets:
        members = load_pairs(name, mirror, ood)
        pools[name] = distractor_pool(members)
        pairs += members
    wanted = {row["id"] for row in read_manifest(same_as)} if same_as else None
    todo = [p for p in stratified_order(pairs) if p.id not in done and (wanted is None or p.id in wanted)
            ][: max(0, limit - len(done))]
    if not todo:
        print(f"nothing to read: {len(done)} pairs in {folder}")
        return folder
    engine = local_engine()
    opposite = opposite_writer() if prompt == "opposite" else None
    waiting: list[dict] = []
    try:
        for pair in tqdm(todo, desc="pairs", unit="pair", initial=0):
            started = time.time()
            messages, titles = pair_messages(pair, pools[pair.set], rule, context, prompt, opposite)
            key = messages_key(messages)
            if not (cache / f"{key}.npy").is_file():
                save_atomic(cache / f"{key}.npy", hidden_state(engine, messages, rule.blocks).astype(np.float32))
            waiting.append({"id": pair.id, "set": pair.set, "group": pair.group, "label": pair.label, "key": key,
                            "read": len(titles), "evidence_read": sum(t in {d["title"] for d in pair.evidence}
                                                                      for t in titles),
                            "chars": sum(len(m["content"]) for m in messages),
                            "seconds": round(time.time() - started, 2)})
            if len(waiting) >= chunk_size:
                pack(folder, waiting, cache, commit)
                waiting = []
    finally:
        pack(folder, waiting, cache, commit)  # Ctrl-C or a crash: what was read is packed before the exit
    return folder


def status(folder: Path) -> str:
    rows = read_manifest(folder)
    by = Counter((r["set"], r["label"]) for r in rows)
    seconds = sorted(r["seconds"] for r in rows if r["seconds"] > 0.05)
    lines = [f"{folder}: {len(rows)} pairs" + (f", median {seconds[len(seconds) // 2]:.1f} s a pair" if seconds
                                                else "")]
    for name in PAIR_SETS:
        counts = [by[(name, label)] for label in LABELS]
        if any(counts):
            lines.append(f"  {name}: " + ", ".join(f"{label} {n}" for label, n in zip(LABELS, counts)))
    return "\n".join(lines)


def stop_reading(signum: int, frame: object) -> None:
    """`kill` (or a session's end) stops the job as Ctrl-C does: what was read is packed first."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(PAIR_SETS), help="comma-separated pair sets")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--ood", type=Path, default=Path("/work/ood"))
    parser.add_argument("--context", type=int, default=CONTEXT, help="characters of passages a pair is read with")
    parser.add_argument("--limit", type=int, default=2000, help="pairs in the archive when the job stops")
    parser.add_argument("--chunk", type=int, default=50, help="pairs a packed chunk")
    parser.add_argument("--commit", action="store_true", help="git-commit each chunk as it is packed")
    parser.add_argument("--prompt", choices=sorted(PROMPTS), default="support", help="the question read: the verify "
                        "stage's (support), the three-way one a served model is asked (three-ways), or the support "
                        "question of the claim's opposite, written by the local model as the stage writes it "
                        "(opposite)")
    parser.add_argument("--reading", default=NEW_HEAD_READING, choices=sorted(READINGS), help="the reading rule (21 "
                        "blocks, 3,000 characters); a pair whose prompt another rule's cache already holds is not "
                        "read again (benchmarks.feature_archive load --into)")
    parser.add_argument("--same-as", type=Path, help="only the pairs this other archive holds (the same pairs "
                        "under another --reading or --prompt)")
    parser.add_argument("--status", action="store_true", help="print what is read and exit")
    args = parser.parse_args(argv)
    rule = reading_rule(args.reading)
    # a job stopped by `kill` (or a session's end) packs what it read, as Ctrl-C does
    signal.signal(signal.SIGTERM, stop_reading)
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in PAIR_SETS]
    if unknown:
        parser.error(f"unknown pair set(s) {', '.join(unknown)}: one of {', '.join(PAIR_SETS)}")
    if args.status:
        print(status(archive_dir(rule, args.context, args.prompt)))
        return
    if args.same_as and not read_manifest(args.same_as):
        parser.error(f"--same-as {args.same_as}: no pairs read there")
    folder = read(sets, args.mirror, args.ood, args.context, args.limit, args.chunk, args.commit, rule, args.prompt,
                  args.same_as)
    print(status(folder))


if __name__ == "__main__":
    main()
