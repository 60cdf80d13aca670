"""Reading the passages in chunks (issue 69): does a head judge a claim better from several short reads, each of
~600 characters of its passages, than from the one 3,000-character read the verify stage makes?

Why: every head that has seen other genres' contradictions learned them from pairs read at 600 characters
(benchmarks.read_pairs), and MiniCheck-style checkers judge a claim against each chunk of a document and take the
best. Here each sample claim's passages (as the verify stage reads them for the head's reading rule, on the 21
documents claimhop selected: the committed rows) are cut into consecutive chunks of at most `--chunk` characters,
each read alone with the same prompt; the head's P(supported) over the chunks is aggregated by its maximum, and
P(contradicted | not supported) taken from the chunk most likely to be evidence. Compared, claim by claim, with the
one full read's verdicts recorded for the same head (the committed verdict rows, `opposite_check=unnamed`).

States are kept in the feature cache by prompt (claimhop.evaluation.verifier_features.saved_state_reader), so a
stopped run goes on where it stopped and a second run makes no model call. Chunks are read in rank order across all
claims (every claim's first chunk, then every second), so a partial run already answers for the first chunks.

    python -m benchmarks.lab.chunk_reading --chunks 5 \
        --head "pairs=docs/results/verifier/pairs/heads-relevant/pairs-without-{set}.npz" \
        --paired "pairs=pairsrelevant+opposite_check=unnamed" \
        --head "mix=docs/results/verifier/pairs/heads-relevant/shipped-mix.npz" \
        --paired "mix=relevant+opposite_check=unnamed" \
        --out docs/results/out-of-domain/chunks
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.out_of_domain import sample_macro_f1, verdicts_in
from claimhop.atomic import write_text
from claimhop.evaluation.runner import rows_in
from claimhop.evaluation.verifier_report import auc

SETS = ("healthver", "climate-fever", "check-covid")
ROWS = Path("docs/results/out-of-domain/relevant")  # retrieval.jsonl and verdicts.jsonl of each set


def chunks_of(passages: list[dict], limit: int) -> list[list[dict]]:
    """Consecutive passages grouped into chunks of at most `limit` characters each (a longer passage alone)."""
    out: list[list[dict]] = []
    size = 0
    for passage in passages:
        length = len(passage["title"]) + len(passage["text"]) + 4
        if out and size + length <= limit:
            out[-1].append(passage)
            size += length
        else:
            out.append([passage])
            size = length
    return out


def macro_f1(gold: list[str], predicted: list[str]) -> float:
    """Over the sample's labels, as the out-of-domain tables score it."""
    return round(sample_macro_f1(list(zip(gold, predicted))), 1)


def claims_of(name: str, root: Path, rows: Path) -> tuple[list[dict], dict[str, list[str]], dict[str, dict]]:
    """The sample's claims, the 21 titles claimhop kept for each and the full read's recorded verdict rows (by head,
    then claim)."""
    from claimhop.evaluation.data import load_claims

    claims = load_claims(next((root / name).glob("sample-*.jsonl")))
    retrieved = {row["uid"]: row["titles"][:21] for row in rows_in(rows / name / "retrieval.jsonl")
                 if row["system"] == "claimhop"}
    full: dict[str, dict] = {}
    for row in verdicts_in(rows / name / "verdicts.jsonl"):
        full.setdefault(row["head"], {})[row["uid"]] = row
    return [c for c in claims if c["uid"] in retrieved], retrieved, full


def chunk_messages(claims: list[dict], retrieved: dict[str, list[str]], corpus, rule, limit: int
                   ) -> dict[str, list[list[dict]]]:
    """Each claim's chunks as the chat messages the model reads."""
    from claimhop.evaluation.verifier_features import documents_for
    from claimhop.program.verify.reading import passage_messages, passages_read

    out = {}
    for claim in claims:
        passages = passages_read(documents_for(corpus, retrieved[claim["uid"]]), claim["claim"], rule)
        out[claim["uid"]] = [passage_messages(claim["claim"], chunk) for chunk in chunks_of(passages, limit)]
    return out


def verdict(p_support: float, p_kind: float) -> str:
    """The best chunk's label: the head's two probabilities read as the stage reads them, without the stage's other
    rules (a lab rule: the house keeps the stage's own verdict parts inside the stage)."""
    if p_support >= 0.5:
        return "SUPPORTED"
    return "CONTRADICTED" if p_kind >= 0.5 else "INSUFFICIENT_INFO"


def score(name: str, claims: list[dict], probs: dict[str, dict[int, dict]], full: dict[str, dict], head: str,
          chunks: int) -> dict:
    """The head's verdicts from the chunks numbered below `chunks` against the full read's recorded ones. A claim the
    stage found nothing to go on for (no probabilities recorded) stays INSUFFICIENT_INFO with P(supported) 0 in
    every arm, as the stage answers it whatever is read."""
    from claimhop.evaluation.report import mcnemar_exact

    gold = [c["label"] for c in claims]
    supported = [g == "SUPPORTED" for g in gold]
    rows: dict[str, list[str]] = {"chunked": [], "chunked+opposite": [], "full read": []}
    p_max, full_p = [], []
    for claim in claims:
        recorded = full[claim["uid"]]
        rows["full read"].append(recorded["verdict"])
        p_full = recorded["probabilities"]
        parts = [p for k, p in probs[claim["uid"]].items() if k < chunks]
        if "supported" not in p_full or not parts:  # nothing to go on
            p_max.append(0.0)
            full_p.append(0.0)
            rows["chunked"].append("INSUFFICIENT_INFO")
            rows["chunked+opposite"].append("INSUFFICIENT_INFO")
            continue
        full_p.append(p_full["supported"])
        best = max(parts, key=lambda p: p["supported"])  # the chunk most likely to be evidence
        p_max.append(best["supported"])
        rows["chunked"].append(verdict(best["supported"], best["contradicted_if_not"]))
        # the stage's opposite rule (its recorded opposite on the full read), the support from the chunks
        opposite = p_full.get("opposite")
        if best["supported"] >= 0.5:
            rows["chunked+opposite"].append("SUPPORTED")
        elif opposite is not None:
            rows["chunked+opposite"].append("CONTRADICTED" if opposite > p_full["supported"] else "INSUFFICIENT_INFO")
        else:  # the full read was SUPPORTED, so no opposite was read: the best chunk's kind head decides
            rows["chunked+opposite"].append(rows["chunked"][-1])
    out = {"set": name, "head": head, "chunks": chunks, "claims": len(claims),
           "auc": {"full read": round(auc(np.array(supported, dtype=int), np.array(full_p)), 3),
                   "chunked (max)": round(auc(np.array(supported, dtype=int), np.array(p_max)), 3)}}
    for arm, verdicts in rows.items():
        right = [v == g for v, g in zip(verdicts, gold)]
        base = [v == g for v, g in zip(rows["full read"], gold)]
        gained = sum(r and not b for r, b in zip(right, base))
        lost = sum(b and not r for r, b in zip(right, base))
        out[arm] = {"macro_f1": macro_f1(gold, verdicts),
                    "contradicted": f"{sum(v == g == 'CONTRADICTED' for v, g in zip(verdicts, gold))}/"
                                    f"{gold.count('CONTRADICTED')}",
                    "supported": f"{sum(v == g == 'SUPPORTED' for v, g in zip(verdicts, gold))}/"
                                 f"{gold.count('SUPPORTED')}",
                    "gained": gained, "lost": lost, "p": round(mcnemar_exact(gained, lost), 3)}
    return out


def markdown(results: list[dict]) -> str:
    """One row per (set, head, chunks read): support AUC of the full read and of the chunks' best, then macro-F1 /
    contradicted recognised / supported right / gained-lost against the full read, for each arm."""
    arms = ("full read", "chunked", "chunked+opposite")
    lines = ["| set | head | chunks | claims | support AUC: full read / chunks' best | "
             + " | ".join(arms) + " |", "|---|---|---|---|---|" + "---|" * len(arms)]
    for r in results:
        cells = [f"{r[a]['macro_f1']} / {r[a]['contradicted']} / {r[a]['supported']}"
                 + ("" if a == "full read" else f" (+{r[a]['gained']} -{r[a]['lost']}, p = {r[a]['p']:.2g})")
                 for a in arms]
        lines.append(f"| {r['set']} | {r['head']} | {r['chunks']} | {r['claims']} | {r['auc']['full read']} / "
                     f"{r['auc']['chunked (max)']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    from tqdm import tqdm

    from claimhop.evaluation.verifier_features import saved_state_reader
    from claimhop.program.verify.head import load_head
    from claimhop.program.verify.reading import reading_rule
    from claimhop.retrieval.factory import search_engine

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--reading", default="chain-order-1-relevant")
    parser.add_argument("--chunk", type=int, default=600, help="characters of passages a chunk holds, at most")
    parser.add_argument("--chunks", type=int, default=5, help="chunks read a claim, at most")
    parser.add_argument("--head", action="append", default=[], metavar="NAME=FILE",
                        help="a head to score ({set} in FILE: the set's name; its reading must be --reading)")
    parser.add_argument("--paired", action="append", default=[], metavar="NAME=ROWS_HEAD",
                        help="the recorded full-read rows a --head is paired with (their `head` field)")
    parser.add_argument("--out", type=Path, help="write chunks.json and chunks.md here")
    parser.add_argument("--no-read", action="store_true", help="score only what is read already (no model call)")
    args = parser.parse_args(argv)
    rule = reading_rule(args.reading)
    heads = dict(item.split("=", 1) for item in args.head)
    paired = dict(item.split("=", 1) for item in args.paired)
    if set(paired) != set(heads):
        parser.error("every --head needs its --paired full-read rows, and only those")
    sets = args.sets.split(",")
    data = {}
    for name in sets:
        claims, retrieved, full = claims_of(name, args.root, args.rows)
        corpus = search_engine(str(args.root / name / "documents")).corpus
        data[name] = (claims, full, chunk_messages(claims, retrieved, corpus, rule, args.chunk))
    for name in sets:
        counts = [len(chunks) for chunks in data[name][2].values()]
        print(f"{name}: {len(counts)} claims, chunks a claim {min(counts)}-{max(counts)} (median "
              f"{int(np.median(counts))})", flush=True)
    read = saved_state_reader()
    states: dict[str, dict[str, dict[int, np.ndarray]]] = {name: {} for name in sets}  # by chunk number
    todo = [(k, name, claim["uid"]) for k in range(args.chunks) for name in sets for claim in data[name][0]
            if k < len(data[name][2][claim["uid"]])]
    from claimhop.evaluation.verifier_features import features_dir, messages_key

    for k, name, uid in tqdm(todo, desc="chunks", unit="read"):
        messages = data[name][2][uid][k]
        if args.no_read and not (features_dir(rule) / f"{messages_key(messages)}.npy").is_file():
            continue
        states[name].setdefault(uid, {})[k] = read(messages, rule)
    results = []
    for name in sets:
        claims, full, _ = data[name]
        for head_name, pattern in heads.items():
            head = load_head(Path(pattern.format(set=name)))
            rows = full[paired[head_name]]
            scored = [c for c in claims if states[name].get(c["uid"]) and c["uid"] in rows]
            if not scored:
                continue
            probs = {uid: {k: head.probabilities(s) for k, s in these.items()} for uid, these in states[name].items()}
            for n in range(1, args.chunks + 1):
                result = score(name, scored, probs, rows, head_name, n)
                results.append(result)
                print(json.dumps(result), flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        write_text(args.out / "chunks.json", json.dumps(results, indent=1) + "\n")
        write_text(args.out / "chunks.md", markdown(results))


if __name__ == "__main__":
    main()
