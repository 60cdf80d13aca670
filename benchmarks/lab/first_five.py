"""Where the evidence that hybrid search puts among its first 5 goes in claimhop's ranking (issue 70, item 1), claim
by claim on the committed out-of-domain retrieval rows, with no model call.

For every claim whose evidence the hybrid baseline (the claim as one query) ranks among its first 5 while claimhop's
first 5 hold none, each such evidence document is put in the first of these cases that fits:

- (a) not a candidate: neither among claimhop's 21 nor among the claim's own first `claim_k` search results (the
  committed rows keep no hop candidates, so a document a hop found and selection dropped would also land here; the
  claim's own results are always candidates);
- (b) dropped by selection: among the claim's own first `claim_k` results (a candidate), not among the 21 kept;
- (d) ranked lower by the claim search itself: kept, but the claim's own search (`search_claim`, re-run now) ranks it
  below 5, so that search is not the baseline's ranking;
- (c) pushed down by passages of one document: kept at rank 6 or lower, but counted by document (every passage of a
  document at the place of its first one) its document is among the first 5;
- (e) ordered below 5 by the selection score: the claim's own search ranks it among its first 5 and it is kept, but
  the 21 are in selection-score order (the claim names a document, or the rows were recorded with
  `unnamed_order=score`, before `unnamed_order=claim` was the default).

The claim's own search and the hybrid baseline are re-run on the set's folder (`claimhop index FOLDER` first; CPU
only). The current default is also replayed on rows recorded before it (a claim that names none of its documents has
its 21 put in its own search's order, as claimhop.program.select.stage.select_from does), with the names as the
graph finds them (spaCy) and the claim's 21 search results plus the 21 kept standing in for the candidates.

Then `unnamed_floor=21` (item 2): a claim that names none of its documents keeps its own search's first 21, in that
search's order. For such a claim that order needs no model at all (the floor fills the 21, `unnamed_order=claim`
orders them), so it is replayed exactly from the re-run search; whether a claim names a document is decided on the
same stand-in pool (the hops' candidates are not in the rows; on HealthVer, whose titles are hashes, no claim can
name one). It is paired with the default replayed and with hybrid, on the out-of-domain samples and on the committed
HoVer dev and HotpotQA rows (recall there: every gold title among the first k, as `claimhop eval` counts it).

    python -m benchmarks.lab.first_five --root /work/ood --out docs/results/out-of-domain/first-five

writes table.md (the tables) and lost-at-5.jsonl (each claim lost at 5: ids, titles and ranks, no claim text).
"""

from __future__ import annotations

import argparse
import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from claimhop.atomic import write_text
from claimhop.evaluation.report import mcnemar_exact

COMMITTED = "docs/results/out-of-domain"
# (set, rows label, rows file): what was recorded, committed beside the set's table
ROWS = (
    ("healthver", "committed (unnamed_order=score)", f"{COMMITTED}/healthver/retrieval.jsonl"),
    ("climate-fever", "committed (unnamed_order=score)", f"{COMMITTED}/climate-fever/retrieval.jsonl"),
    ("climate-fever", "committed (unnamed_order=claim)", f"{COMMITTED}/claim-order/climate-fever/retrieval.jsonl"),
)
SETS = ("healthver", "climate-fever", "check-covid")
# the Wikipedia samples: (name, claims file, committed rows at c288e94, before unnamed_order existed)
WIKIPEDIA = (
    ("HoVer dev", "claimhop/data/claims_dev.jsonl", "docs/results/recall-20/dev-169.jsonl"),
    ("HotpotQA 200", "benchmarks/samples/hotpotqa-200-seed0.jsonl", "docs/results/recall-20/hotpotqa-200.jsonl"),
)
CASES = ("a", "b", "d", "c", "e")
CASE_NAMES = {
    "a": "(a) not a candidate",
    "b": "(b) candidate dropped by selection",
    "c": "(c) pushed down by passages of one document",
    "d": "(d) ranked lower by the claim search itself",
    "e": "(e) ordered below 5 by the selection score",
}
TOP_K = 21


@dataclass
class Claim:
    """One claim of a set as the model-free searches see it (its text is never written out)."""

    uid: str
    text: str
    gold: list[str]
    group: str = ""  # claims that share evidence (or a HotpotQA question) share a group: cross-validation folds
    claim_ranking: list[str] = field(default_factory=list)  # search_claim's titles (first_look)
    hybrid: list[str] = field(default_factory=list)  # the hybrid baseline's 50, re-run
    entities: list[str] = field(default_factory=list)  # as the graph finds them (early_gap)


def any_at(titles: list[str], gold: list[str], k: int) -> bool:
    """Any evidence document among the first k (the sets list alternatives: benchmarks.out_of_domain)."""
    return any(t in gold for t in titles[:k])


def all_at(titles: list[str], gold: list[str], k: int) -> bool:
    """Every gold title among the first k (HoVer and HotpotQA: claimhop.evaluation.metric)."""
    from claimhop.evaluation.metric import all_gold_in

    return all_gold_in(titles, gold, k)


def document_rank(title: str, titles: list[str], document_of: dict[str, str]) -> int | None:
    """`title`'s place when each document counts once, at the place of its first passage (None: not listed)."""
    if title not in titles:
        return None
    doc = document_of.get(title, title)
    seen: list[str] = []
    for t in titles:
        d = document_of.get(t, t)
        if d not in seen:
            seen.append(d)
        if d == doc:
            return len(seen)
    return None


def case_of(evidence: str, kept: list[str], claim_ranking: list[str], document_of: dict[str, str],
            claim_k: int = 21) -> str:
    """Where one evidence document the baseline ranks among its first 5 went in claimhop's 21 (module doc)."""
    if evidence not in kept:
        return "b" if evidence in claim_ranking[:claim_k] else "a"
    if evidence not in claim_ranking[:5]:
        return "d"
    doc_rank = document_rank(evidence, kept, document_of)
    if doc_rank is not None and doc_rank <= 5:
        return "c"
    return "e"


def names_nothing(claim: Claim, kept: list[str], ranking: list[str] | None = None) -> bool:
    """The graph's test (select_from), on the claim's own 21 and the 21 kept as the pool."""
    from claimhop.program.select.stage import names_nothing as graph_test

    ranking = claim.claim_ranking if ranking is None else ranking
    pool = {t: {"title": t} for t in [*ranking[:TOP_K], *kept]}
    return graph_test(pool, claim.entities, claim.text)


def in_claim_order(kept: list[str], claim_ranking: list[str]) -> list[str]:
    from claimhop.program.select.stage import in_claim_order as graph_order

    docs = [{"title": t, "rank": i} for i, t in enumerate(kept, start=1)]
    return [d["title"] for d in graph_order(docs, [{"title": t} for t in claim_ranking])]


def read_claims(path: Path) -> list[Claim]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Claim(r["uid"], r["claim"], list(r["supporting_titles"]),
                  str(r.get("group") or r.get("hpqa_id") or r["uid"])) for r in rows]


def searched(claims: list[Claim], corpus_path: str, cache: Path | None = None) -> dict[str, str]:
    """Fill each claim's own search, the hybrid baseline and its names; the passage -> document (file) map. With
    `cache`, a file of an earlier run with the same claims is read instead (searching is most of the run's time)."""
    if cache is not None and cache.is_file():
        saved = json.loads(cache.read_text(encoding="utf-8"))
        if [c.uid for c in claims] == [row["uid"] for row in saved["claims"]]:
            for claim, row in zip(claims, saved["claims"]):
                claim.claim_ranking, claim.hybrid, claim.entities = row["claim_ranking"], row["hybrid"], row["entities"]
            return saved["document_of"]
    document_of = _searched(claims, corpus_path)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        rows = [{"uid": c.uid, "claim_ranking": c.claim_ranking, "hybrid": c.hybrid, "entities": c.entities}
                for c in claims]
        write_text(cache, json.dumps({"claims": rows, "document_of": document_of}))
    return document_of


def _searched(claims: list[Claim], corpus_path: str) -> dict[str, str]:
    from claimhop.entities.ner import extract_entities, unique
    from claimhop.evaluation.systems import SINGLE_QUERY_DEPTH
    from claimhop.program import stages_for
    from state.context import Context

    stages = stages_for(Context(corpus_path=corpus_path))
    engine = stages.built.engine
    for claim in claims:
        claim.claim_ranking = [h.title for h in stages.search.first_look(claim.text)]
        claim.hybrid = [h.title for h in engine.search(claim.text, SINGLE_QUERY_DEPTH, "hybrid")]
    for claim, found in zip(claims, extract_entities([c.text for c in claims], with_spans=True)):
        claim.entities = unique(found)
    corpus = engine.engine.corpus if hasattr(engine, "engine") else engine.corpus
    return {title: corpus.source(i) or title for i, title in enumerate(corpus.titles)}


def listed(value) -> list[str]:
    """A row's list field (older rows kept lists as their Python text)."""
    return ast.literal_eval(value) if isinstance(value, str) else list(value or [])


def rows_of(path: Path) -> dict[str, dict[str, list[str]]]:
    """uid -> system -> titles, of a committed results file."""
    out: dict[str, dict[str, list[str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if "system" in row and "uid" in row:
                out.setdefault(row["uid"], {})[row["system"]] = listed(row["titles"])
    return out


def paired(before: dict[str, bool], after: dict[str, bool], uids: list[str] | None = None) -> tuple[int, int, float]:
    uids = list(after) if uids is None else uids
    gained = sum(after[u] and not before[u] for u in uids)
    lost = sum(before[u] and not after[u] for u in uids)
    return gained, lost, mcnemar_exact(gained, lost)


FLOORS = (13, 15, 17, 19, 21)  # unnamed_floor values replayed (10, claim_floor, is the default: off)
LEADS = (1, 2, 3, 5)  # claim_lead values tried on claims that name a document


def with_floor(kept: list[str], claim_ranking: list[str], floor: int) -> list[str]:
    """`unnamed_floor=floor` for a claim that names nothing, replayed exactly on its 21 recorded in score order
    (`unnamed_order=score`): the claim's first `floor` and the best-scored of the rest, which are the first of the
    recorded rest (the recorded floor, claim_floor's 10, is inside the new one), in the claim search's order."""
    floored = claim_ranking[:floor]
    rest = [t for t in kept if t not in floored][: max(0, TOP_K - len(floored))]
    chosen = [t for t in kept if t in set(floored) | set(rest)] + [t for t in floored if t not in kept]
    return in_claim_order(chosen, claim_ranking)


def with_lead(kept: list[str], claim_ranking: list[str], entities: list[str], lead: int, named_first: bool
              ) -> list[str]:
    """A claim that names a document, reordered: (the kept documents it names, in score order, when
    `named_first`), then the claim search's first `lead` kept documents, then the rest in score order."""
    from claimhop.entities.matching import is_about

    named = [t for t in kept if any(is_about(e, t) for e in entities)] if named_first else []
    first = [t for t in claim_ranking[:lead] if t in kept and t not in named]
    return named + first + [t for t in kept if t not in named and t not in first]


def rankings(claims: list[Claim], rows: dict[str, dict[str, list[str]]] | None, score_order: bool = True
             ) -> tuple[dict, set[str]]:
    """Per claim: hybrid, claimhop as recorded, the default replayed, each unnamed_floor and claim_lead replayed;
    the unnamed uids. With rows, the recorded hybrid ranking stands for the claim's own search (the run's engine);
    without rows (a set with no claimhop rows committed) only what needs no model: hybrid and unnamed_floor=21 for
    the claims that name nothing. `score_order`: the rows were recorded with unnamed_order=score (the floor's
    replay needs it)."""
    out: dict[str, dict] = {"hybrid": {}, "recorded": {}, "default": {}}
    out |= {f"unnamed_floor={f}": {} for f in FLOORS}
    out |= {f"claim_lead={n}{', named first' if first else ''}": {} for n in LEADS for first in (False, True)}
    unnamed = set()
    for claim in claims:
        kept = rows[claim.uid]["claimhop"][:TOP_K] if rows else []
        ranking = rows[claim.uid]["hybrid"][:TOP_K] if rows else claim.claim_ranking[:TOP_K]
        out["hybrid"][claim.uid] = rows[claim.uid]["hybrid"] if rows else claim.hybrid
        is_unnamed = names_nothing(claim, kept, ranking)
        if is_unnamed:
            unnamed.add(claim.uid)
        if not rows:
            out["unnamed_floor=21"][claim.uid] = ranking if is_unnamed else None
            continue
        default = in_claim_order(kept, ranking) if is_unnamed else kept
        out["recorded"][claim.uid], out["default"][claim.uid] = kept, default
        for floor in FLOORS:
            out[f"unnamed_floor={floor}"][claim.uid] = (with_floor(kept, ranking, floor) if is_unnamed and score_order
                                                        else default if not is_unnamed else None)
        for n in LEADS:
            for first in (False, True):
                out[f"claim_lead={n}{', named first' if first else ''}"][claim.uid] = (
                    default if is_unnamed else with_lead(kept, ranking, claim.entities, n, first))
    return out, unnamed


def analyse(claims: list[Claim], rows: dict[str, dict[str, list[str]]], document_of: dict[str, str],
            score_order: bool) -> dict:
    """The cases of one rows file, per claim and counted; recall of each ranking."""
    per_claim, counts = [], dict.fromkeys(CASES, 0)
    claims = [c for c in claims if c.uid in rows and c.gold]
    ranked, unnamed = rankings(claims, rows, score_order)
    for claim in claims:
        kept = rows[claim.uid]["claimhop"][:TOP_K]
        hybrid = rows[claim.uid]["hybrid"]
        first = [t for t in hybrid[:5] if t in claim.gold]
        if not first or any_at(kept, claim.gold, 5):
            continue
        cases = {t: case_of(t, kept, claim.claim_ranking, document_of) for t in first}
        case = cases[first[0]]  # the evidence the baseline ranks first
        counts[case] += 1
        per_claim.append({
            "uid": claim.uid, "named": claim.uid not in unnamed, "case": case,
            "evidence": [{"title": t, "hybrid": rank_in(t, hybrid), "claim_search": rank_in(t, claim.claim_ranking),
                          "claimhop": rank_in(t, kept), "claimhop_by_document": document_rank(t, kept, document_of),
                          "case": cases[t]} for t in first],
            "claimhop_first_5": kept[:5],
        })
    gained = [c.uid for c in claims if any_at(ranked["recorded"][c.uid], c.gold, 5)
              and not any_at(ranked["hybrid"][c.uid], c.gold, 5)]
    by_document = {name: {k: {c.uid: any_at(dedupe(ranked[name][c.uid], document_of),
                                            [document_of.get(g, g) for g in c.gold], k) for c in claims}
                          for k in (5, 21)} for name in ("hybrid", "recorded", "default")}
    return {"claims": len(claims), "unnamed": len(unnamed), "counts": counts, "per_claim": per_claim,
            "recorded_hybrid_same": sum(rows[c.uid]["hybrid"][:TOP_K] == c.hybrid[:TOP_K] for c in claims),
            "claim_search_same": sum(c.claim_ranking[:TOP_K] == rows[c.uid]["hybrid"][:TOP_K] for c in claims),
            "gained_at_5": gained, "hits": hits(claims, ranked, any_at), "unnamed_uids": sorted(unnamed),
            "by_document": by_document}


def dedupe(titles: list[str], document_of: dict[str, str]) -> list[str]:
    """The documents of a ranking, each once at the place of its first passage."""
    return list(dict.fromkeys(document_of.get(t, t) for t in titles))


def hits(claims: list[Claim], ranked: dict, metric) -> dict:
    """name -> k -> uid -> hit, for every ranking the claims have."""
    return {name: {k: {c.uid: metric(by_uid[c.uid], c.gold, k) for c in claims if by_uid.get(c.uid) is not None}
                   for k in (5, 21)} for name, by_uid in ranked.items() if by_uid}


def hybrid_recall(claims: list[Claim], document_of: dict[str, str]) -> str:
    """The re-run baseline's evidence recall @5 / @21, by passage (as committed) and by document."""
    by_passage = [np.mean([any_at(c.hybrid, c.gold, k) for c in claims]) for k in (5, 21)]
    by_document = [np.mean([any_at(dedupe(c.hybrid, document_of), [document_of.get(g, g) for g in c.gold], k)
                            for c in claims]) for k in (5, 21)]
    return (f"{by_passage[0]:.3f} / {by_passage[1]:.3f} by passage; "
            f"{by_document[0]:.3f} / {by_document[1]:.3f} by document")


def rank_in(title: str, titles: list[str]) -> int | None:
    return titles.index(title) + 1 if title in titles else None


def share(hit: dict[str, bool], uids: list[str] | None = None) -> str:
    values = [hit[u] for u in (hit if uids is None else uids)]
    return f"{np.mean(values):.3f}" if values else "-"


def case_table(results: list[tuple[str, str, dict]]) -> list[str]:
    lines = ["| set | rows | claims | name a document | hybrid @5 | claimhop @5 | lost at 5 | gained at 5 | "
             + " | ".join(CASE_NAMES[c].split(" ")[0] for c in CASES)
             + " | recorded hybrid = re-run | claim search = hybrid (first 21) |",
             "|---|---|---|---|---|---|---|---|" + "---|" * len(CASES) + "---|---|"]
    for name, label, out in results:
        lines.append(
            f"| {name} | {label} | {out['claims']} | {out['claims'] - out['unnamed']} | "
            f"{share(out['hits']['hybrid'][5])} | {share(out['hits']['recorded'][5])} | {len(out['per_claim'])} | "
            f"{len(out['gained_at_5'])} | " + " | ".join(str(out["counts"][c]) for c in CASES)
            + f" | {out['recorded_hybrid_same']}/{out['claims']} | {out['claim_search_same']}/{out['claims']} |")
    return lines


def rules_table(measured: list[tuple[str, str, dict, list[str], dict[str, str]]]) -> list[str]:
    """Each replayed rule against the default (replayed): claims gained / lost at 5 and at 21, per sample."""
    names = [m[0] for m in measured]
    lines = ["| rule | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for label in ("hybrid", "default"):
        lines.append(f"| {label}: evidence @5 / @21 | " + " | ".join(
            f"{share(h[label][5])} / {share(h[label][21])}" if h.get(label) else "-"
            for _, _, h, _, _ in measured) + " |")
    lines.append("| claims (naming no document) | " + " | ".join(
        f"{len(h['hybrid'][5])} ({len(u)})" for _, _, h, u, _ in measured) + " |")
    rules = [*(f"unnamed_floor={f}" for f in FLOORS),
             *(f"claim_lead={n}{', named first' if first else ''}" for n in LEADS for first in (False, True))]
    for rule in rules:
        cells = []
        for _, _, h, unnamed, _ in measured:
            new = h.get(rule)
            if not new or not new[5]:
                cells.append("-")
                continue
            base = h.get("default") or h["hybrid"]  # no claimhop rows: against hybrid, on the unnamed claims
            uids = list(new[5])
            (g5, l5, _), (g21, l21, _) = paired(base[5], new[5], uids), paired(base[21], new[21], uids)
            tag = "" if h.get("default") else " (vs hybrid, unnamed only)"
            cells.append(f"@5 +{g5} -{l5}, @21 +{g21} -{l21}{tag}")
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return lines


def cross_validated(measured: list[tuple[str, str, dict, list[str], dict[str, str]]], folds: int = 5
                    ) -> list[str]:
    """Grouped cross-validation over the samples with claimhop rows, pooled: in each fold the rule (the default or
    one replayed) with the most claims gained less lost at 5 and at 21 on the other folds is chosen, then counted on
    the fold's own claims against the default, so no claim is counted by a rule chosen on it."""
    import random

    units = [(name, uid, f"{name}:{groups[uid]}") for name, _, h, _, groups in measured if h.get("default")
             for uid in h["default"][5]]
    keys = sorted({key for _, _, key in units})
    random.Random(0).shuffle(keys)
    fold_of = {key: i % folds for i, key in enumerate(keys)}
    by_name = {name: h for name, _, h, _, _ in measured if h.get("default")}
    rules = ["default", *(r for r in next(iter(by_name.values())) if r.startswith(("unnamed_floor", "claim_lead")))]

    def net(rule: str, chosen: list[tuple[str, str, str]]) -> tuple[int, int, int, int]:
        """(gained @5, lost @5, gained @21, lost @21) against the default."""
        counts = [0, 0, 0, 0]
        for name, uid, _ in chosen:
            for i, k in enumerate((5, 21)):
                before, after = by_name[name]["default"][k][uid], by_name[name][rule][k][uid]
                counts[2 * i] += after and not before
                counts[2 * i + 1] += before and not after
        return counts[0], counts[1], counts[2], counts[3]

    lines = ["| fold | claims | rule chosen on the other folds (net gain there) | on the fold @5 gained / lost | "
             "@21 gained / lost |", "|---|---|---|---|---|"]
    total = [0, 0, 0, 0]
    per_sample: dict[str, list[int]] = {}
    for fold in range(folds):
        train = [u for u in units if fold_of[u[2]] != fold]
        test = [u for u in units if fold_of[u[2]] == fold]
        scores = {rule: net(rule, train) for rule in rules}
        best = max(rules, key=lambda r: (scores[r][0] - scores[r][1] + scores[r][2] - scores[r][3], r == "default"))
        g5, l5, g21, l21 = net(best, test)
        total = [a + b for a, b in zip(total, (g5, l5, g21, l21))]
        for name in by_name:
            counted = net(best, [u for u in test if u[0] == name])
            per_sample[name] = [a + b for a, b in zip(per_sample.get(name, [0, 0, 0, 0]), counted)]
        train_net = scores[best][0] - scores[best][1] + scores[best][2] - scores[best][3]
        lines.append(f"| {fold + 1} | {len(test)} | {best} ({train_net:+d}) | {g5} / {l5} | {g21} / {l21} |")
    lines.append(f"| all | {len(units)} | | {total[0]} / {total[1]} (exact McNemar p = "
                 f"{mcnemar_exact(total[0], total[1]):.2g}) | {total[2]} / {total[3]} |")
    lines += ["", "The same held-out counts by sample (@5 gained / lost, @21 gained / lost): " + "; ".join(
        f"{name} {v[0]} / {v[1]}, {v[2]} / {v[3]}" for name, v in per_sample.items()) + "."]
    return lines


def report(results: list[tuple[str, str, dict]], model_free: dict[str, dict],
           measured: list[tuple[str, str, dict, list[str], dict[str, str]]]) -> list[str]:
    lines = ["# Where hybrid's first-5 evidence goes in claimhop's ranking (issue 70)", "",
             "Written by `python -m benchmarks.lab.first_five` (no model call; the claim's own search and the hybrid "
             "baseline re-run on each set's folder). A claim is *lost at 5* when the hybrid baseline has evidence "
             "among its first 5 and claimhop's 21 have none among their first 5; it is counted once, by the evidence "
             "the baseline ranks first. Cases, the first that fits:", ""]
    lines += [f"- {CASE_NAMES[c]}" for c in CASES]
    lines += [""] + case_table(results)
    lines += ["", "Evidence recall of each ranking, and the current default (`unnamed_order=claim`) replayed on rows "
              "recorded before it; by document: any passage of an evidence document counts (the committed figure "
              "counts only the passage titled as the document, its first):", "",
              "| set | rows | hybrid @5 / @21 | claimhop as recorded @5 / @21 | default replayed @5 / @21 | "
              "replayed vs recorded @5 gained / lost | replayed vs hybrid @5 gained / lost | @21 gained / lost | "
              "by document @5: hybrid / recorded / default |", "|---|---|---|---|---|---|---|---|---|"]
    for name, label, out in results:
        r, doc = out["hits"], out["by_document"]
        g5, l5, _ = paired(r["recorded"][5], r["default"][5])
        h5, h21 = paired(r["hybrid"][5], r["default"][5]), paired(r["hybrid"][21], r["default"][21])
        lines.append(f"| {name} | {label} | {share(r['hybrid'][5])} / {share(r['hybrid'][21])} | "
                     f"{share(r['recorded'][5])} / {share(r['recorded'][21])} | "
                     f"{share(r['default'][5])} / {share(r['default'][21])} | "
                     f"{g5} / {l5} | {h5[0]} / {h5[1]} | {h21[0]} / {h21[1]} | "
                     f"{share(doc['hybrid'][5])} / {share(doc['recorded'][5])} / {share(doc['default'][5])} |")
    lines += ["", "## Rules replayed against the default (issue 70, item 2)", "",
              "`unnamed_floor=F`: a claim that names none of its documents always keeps its own search's first F "
              "(a tuning knob; default 0, i.e. claim_floor's 10). `claim_lead=N` (a tuning knob; default 0): a claim "
              "that names a document gets the claim search's first N kept documents first, then the rest in "
              "selection order (`named first`, replayed only: the kept documents it names before them). Claims "
              "gained / "
              "lost against the default replayed, paired; recall as each sample counts it (any evidence document "
              "out of domain, every gold title on HoVer and HotpotQA).", ""]
    lines += rules_table(measured)
    lines += ["", "Grouped 5-fold cross-validation of that choice over the four samples with claimhop rows pooled "
              "(folds by claim group: the sets' evidence groups, HoVer's HotpotQA question; seeded):", ""]
    lines += cross_validated(measured)
    lines += ["", "## Claim by claim", ""]
    for name, label, out in results:
        lines += [f"### {name}, {label}", ""]
        if not out["per_claim"]:
            lines += ["No claim lost at 5.", ""]
            continue
        lines += ["| claim | names a document | case | evidence: rank in hybrid / claim search / claimhop / claimhop by "
                  "document (case) | claimhop's first 5 |", "|---|---|---|---|---|"]
        for row in out["per_claim"]:
            ev = "; ".join(f"{e['title']}: {e['hybrid']} / {e['claim_search']} / {e['claimhop']} / "
                           f"{e['claimhop_by_document']} ({e['case']})" for e in row["evidence"])
            lines.append(f"| {row['uid']} | {'yes' if row['named'] else 'no'} | {row['case']} | {ev} | "
                         f"{', '.join(row['claimhop_first_5'])} |")
        lines.append("")
    lines += ["## The claim's own search against the hybrid baseline, re-run", "",
              "| sample | claims | claim search's first 21 = hybrid's first 21 | first 5 equal | name no document "
              "(pool: the claim's own 21, and the 21 kept where rows are committed) | hybrid (re-run) @5 / @21 |",
              "|---|---|---|---|---|---|"]
    for name, row in model_free.items():
        lines.append(f"| {name} | {row['claims']} | {row['same21']} | {row['same5']} | {row['unnamed']} | "
                     f"{row.get('hybrid', '-')} |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default="/work/ood", help="the sets' folders (benchmarks.claim_sets)")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--no-wikipedia", action="store_true", help="leave out HoVer dev and HotpotQA")
    parser.add_argument("--out", default=f"{COMMITTED}/first-five")
    parser.add_argument("--cache", help="a folder for the searches' results (NAME.json), read again by a later run "
                        "with the same claims")
    args = parser.parse_args()
    cache = Path(args.cache) if args.cache else None
    root, out = Path(args.root), Path(args.out)
    results, model_free, measured, records = [], {}, [], []
    for name in args.sets.split(","):
        claims = [c for c in read_claims(next((root / name).glob("sample-*.jsonl"))) if c.gold]
        document_of = searched(claims, str(root / name / "documents"), cache and cache / f"{name}.json")
        files = [(label, path) for set_name, label, path in ROWS if set_name == name]
        for label, path in files:
            found = analyse(claims, rows_of(Path(path)), document_of, "unnamed_order=score" in label)
            results.append((name, label, found))
            records += [{"set": name, "rows": label, **row} for row in found["per_claim"]]
        label, path = files[0] if files else ("none committed", None)  # recorded in score order
        rows = rows_of(Path(path)) if path else None
        ranked, unnamed = rankings(claims, rows)
        measured.append((name, label, hits(claims, ranked, any_at), sorted(unnamed), {c.uid: c.group for c in claims}))
        model_free[name] = {"claims": len(claims),
                            "same21": sum(c.claim_ranking[:TOP_K] == c.hybrid[:TOP_K] for c in claims),
                            "same5": sum(c.claim_ranking[:5] == c.hybrid[:5] for c in claims), "unnamed": len(unnamed),
                            "hybrid": hybrid_recall(claims, document_of)}
    if not args.no_wikipedia:
        for name, claims_file, rows_file in WIKIPEDIA:
            rows = rows_of(Path(rows_file))
            claims = [c for c in read_claims(Path(claims_file)) if c.uid in rows]
            searched(claims, "", cache and cache / f"{name}.json")
            ranked, unnamed = rankings(claims, rows)
            measured.append((name, "committed at c288e94 (before unnamed_order)", hits(claims, ranked, all_at),
                             sorted(unnamed), {c.uid: c.group for c in claims}))
            floor_held = sum(set(rows[c.uid]["hybrid"][:10]) <= set(rows[c.uid]["claimhop"]) for c in claims)
            print(f"{name}: the recorded hybrid's first 10 among the 21 kept for {floor_held} of {len(claims)}")
            model_free[name] = {"claims": len(claims),
                                "same21": sum(c.claim_ranking[:TOP_K] == rows[c.uid]["hybrid"][:TOP_K] for c in claims),
                                "same5": sum(c.claim_ranking[:5] == rows[c.uid]["hybrid"][:5] for c in claims),
                                "unnamed": len(unnamed)}
    lines = report(results, model_free, measured)
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "table.md", "\n".join(lines) + "\n")
    write_text(out / "lost-at-5.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
