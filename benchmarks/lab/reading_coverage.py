"""Does the passage verifier read the whole chain? Coverage of the gold passages by the passages read, per hop count.

The passage verifier (claimhop.program.verify.reading) reads the claim with passages of the selected documents, in
chain order, each clipped to PASSAGE_CAP characters, within RULE_BUDGET characters; it cannot support what it
does not read. From recorded selections (the claimhop rows of a recall run: the 21 titles selected per item) and
the bundled corpus, this measures, per dataset and per num_hops, the share of items whose passages read hold every
gold title, among items whose gold titles were all selected and over all items, at several budgets, with the mean
characters and passages read. It then compares reading rules (shorter caps, first sentences only, deeper link
following, selection order, dropping passages that name nothing of the claim, clipping the passage that overruns
the budget instead of skipping it, a short lead for passages off the chain) at fixed budgets.

Rules are chosen on the HotpotQA questions' selections only (all 2-hop: HotpotQA has no 3-hop question, so a
tighter budget stands in for the third passage a 3-hop claim must fit); the dev claims' rows are reported, never
chosen on. Two guards against a rule that reads a gold title but cuts its fact: the share of a gold passage's text
kept (both datasets) and, for HotpotQA questions whose answer is not yes/no, whether the answer is in the text read.
No model call; a few seconds of CPU.

    python -m benchmarks.lab.reading_coverage --out docs/results/verifier/reading-coverage          # tables, plot
    python -m benchmarks.lab.reading_coverage --out docs/results/verifier/reading-coverage --grid   # and the choice
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from claimhop.atomic import atomic_path, write_text
from claimhop.data import bundled
from claimhop.entities.matching import mentions
from claimhop.entities.ner import name_spans
from claimhop.program.verify import reading as shipped
from claimhop.program.verify.reading import PASSAGE_CAP, RULE_BUDGET
from claimhop.retrieval.corpus import documents_by_title, load_corpus
from claimhop.retrieval.titles import base_title, normalize_title
from claimhop.sentences import split_sentences

HOTPOTQA_ROWS = Path("docs/results/recall-20/hotpotqa-200.jsonl")
DEV_ROWS = Path("docs/results/dev-169-selection/eval.jsonl")
HOTPOTQA_QUESTIONS = bundled("hotpotqa_questions_dev.jsonl.gz")
DEV_CLAIMS = bundled("claims_dev.jsonl")
SYSTEM = "claimhop"
SELECTED = 21
BUDGETS = [2000, 2400, 3000, 3600, 4200]
RULE_BUDGETS = [1600, 2400]  # 1,600 on 2-hop HotpotQA stands in for 2,400 on a 3-hop claim (2/3 each)


@dataclass(frozen=True)
class Rule:
    """How the passages read are chosen and ordered from the selected documents."""

    name: str
    order: str = "chain"  # "chain" (named by the claim, then linked, then the rest) or "selection"
    fold: bool = False  # names match across accents and possessives ("Gisele" names "Gisèle", "Swint's" "Swint")
    one_per_base: bool = False  # of named documents sharing a base title, only the claim's pick stays named
    depth: int = 1  # link hops followed from the named documents (1: what their texts name; 2: and what those name)
    cap: int = PASSAGE_CAP  # characters of one passage, cut at a sentence end
    sentences: int | None = None  # or: at most this many first sentences of each passage
    rest_cap: int | None = None  # a lower cap for documents off the chain (neither named nor linked)
    drop_unnamed: bool = False  # leave out documents off the chain whose text names nothing the claim names
    fit: str = "skip"  # a passage that overruns the budget: "skip" it (a shorter one after may fit), or "clip" it
    min_clip: int = 200  # "clip": only when at least this many characters of passage still fit
    note: str = field(default="", compare=False)


CURRENT = Rule("current (chain, cap 1000)", note="claimhop.program.verify.reading today")
RECOMMENDED = Rule("fold + one per base + cap 600 + lead 300", fold=True, one_per_base=True, cap=600,
                   rest_cap=300, note="chosen on HotpotQA by the grid (reading-coverage-grid.md)")
RULES = [
    CURRENT,
    Rule("selection order", order="selection", note="the selection's rank, no chain"),
    Rule("cap 700", cap=700),
    Rule("cap 600", cap=600),
    Rule("first 3 sentences", sentences=3),
    Rule("first 2 sentences", sentences=2),
    Rule("chain depth 2", depth=2, note="claim names A, A names B, B names C"),
    Rule("fold accents and possessives", fold=True),
    Rule("fold + one per base", fold=True, one_per_base=True),
    Rule("drop off-chain naming nothing", drop_unnamed=True),
    Rule("clip the overrun", fit="clip", note="the passage that would overrun is cut to what fits"),
    Rule("off-chain lead 300", rest_cap=300, note="chain documents up to the cap, the rest their first ~300 chars"),
    Rule("cap 600 + off-chain lead 300", cap=600, rest_cap=300),
    Rule("fold + cap 600 + lead 300", fold=True, cap=600, rest_cap=300),
    RECOMMENDED,
    Rule("fold + one per base + cap 600 + lead 300 + clip", fold=True, one_per_base=True, cap=600, rest_cap=300,
         fit="clip"),
    Rule("fold + one per base + cap 700 + lead 300", fold=True, one_per_base=True, cap=700, rest_cap=300),
    Rule("fold + one per base + cap 600 + lead 200", fold=True, one_per_base=True, cap=600, rest_cap=200,
         note="more titles, fewer answers read"),
]


@lru_cache(maxsize=None)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(split_sentences(text))


@lru_cache(maxsize=None)
def _normalized(text: str, fold: bool = False) -> str:
    """normalize_title; with `fold`, also without accents and possessive 's (as a claim writes a name)."""
    return shipped.folded(text) if fold else normalize_title(text)


def clipped(text: str, limit: int, sentences: int | None = None) -> str:
    """The passage's first sentences, as many as fit in `limit` characters (and at most `sentences` of them), at
    least one (cut to the limit); as claimhop.program.verify.reading.clipped when `sentences` is None."""
    if len(text) <= limit and sentences is None:
        return text
    kept, length = [], 0
    for sentence in _sentences(text):
        if length + len(sentence) + 1 > limit or (sentences is not None and len(kept) >= sentences):
            break
        kept.append(sentence)
        length += len(sentence) + 1
    return " ".join(kept) or text[:limit]


def chain_groups(claim: str, documents: list[dict], depth: int = 1, fold: bool = False,
                 one_per_base: bool = False) -> tuple[list[dict], list[dict], list[dict]]:
    """(named by the claim, linked from them within `depth` hops, the rest), each in selection order: depth 1 is
    claimhop.program.verify.reading.chain_groups; with depth 2 the documents the linked ones name come next (claim
    names A, A names B, B names C), and so on."""
    rule = shipped.ReadingRule("grid", fold=fold, one_per_base=one_per_base)
    named, linked, rest = shipped.chain_groups(claim, documents, rule)
    name = (lambda title: _normalized(title, True)) if fold else (lambda title: title)
    seen = {d["title"] for d in [*named, *linked]}
    frontier = linked
    for _ in range(depth - 1):
        text = " ".join(_normalized(d["text"], fold) for d in frontier)
        step = [d for d in documents if d["title"] not in seen and mentions(name(base_title(d["title"])), text)]
        if not step:
            break
        seen |= {d["title"] for d in step}
        linked, frontier = [*linked, *step], step
    return named, linked, [d for d in rest if d["title"] not in seen]


def names_something(claim: str, named: list[dict], doc: dict) -> bool:
    """The document's text names a capitalised name of the claim or the title of a document the claim names."""
    text = _normalized(doc["text"])
    names = [*name_spans(claim), *(base_title(d["title"]) for d in named)]
    return any(mentions(name, text) for name in names)


_GROUPS: dict[tuple, tuple[list[dict], list[dict], list[dict]]] = {}


def passages_read(documents: list[dict], budget: int = RULE_BUDGET, claim: str | None = None,
                  rule: Rule = CURRENT) -> list[dict]:
    """The passages read under `rule`, in the order shown; CURRENT gives what claimhop reads today."""
    if rule.order == "chain" and claim:
        key = (claim, tuple(d["title"] for d in documents), rule.depth, rule.fold, rule.one_per_base)
        if key not in _GROUPS:  # the same claim's groups serve every cap, lead, fit and budget
            _GROUPS[key] = chain_groups(claim, documents, rule.depth, rule.fold, rule.one_per_base)
        named, linked, rest = _GROUPS[key]
        if rule.drop_unnamed:
            rest = [d for d in rest if names_something(claim, named, d)]
        ordered = [(d, False) for d in [*named, *linked]] + [(d, True) for d in rest]
    else:
        ordered = [(d, False) for d in documents]
    chosen, used = [], 0
    for doc, off_chain in ordered:
        cap = min(rule.cap, rule.rest_cap) if off_chain and rule.rest_cap else rule.cap
        text = clipped(doc["text"], cap, rule.sentences)
        size = len(doc["title"]) + len(text) + 4
        if chosen and used + size > budget:
            room = budget - used - len(doc["title"]) - 4
            if rule.fit != "clip" or room < rule.min_clip:
                continue
            text = clipped(text, room)
            if len(text) > room:  # not even one sentence fits: text[:room] would cut mid-sentence
                continue
            size = len(doc["title"]) + len(text) + 4
        chosen.append({"title": doc["title"], "text": text, "full": len(doc["text"])})
        used += size
    return chosen


def load_items(corpus) -> dict[str, list[dict]]:
    """Per dataset, the items: uid, claim (or question), num_hops, gold titles, selected documents (and answer)."""
    items = {}
    for name, rows_path, source in (("hotpotqa", HOTPOTQA_ROWS, HOTPOTQA_QUESTIONS), ("dev", DEV_ROWS, DEV_CLAIMS)):
        opener = gzip.open if str(source).endswith(".gz") else open
        with opener(source, "rt", encoding="utf-8") as handle:
            texts = {r["uid"]: r for r in map(json.loads, handle) if r}
        rows = [json.loads(line) for line in rows_path.open(encoding="utf-8") if line.strip()]
        rows = [r for r in rows if r["system"] == SYSTEM]
        fingerprints = {r["fingerprint"] for r in rows}
        assert len(fingerprints) == 1, f"{rows_path}: one claimhop run expected, found {fingerprints}"
        items[name] = [{
            "uid": r["uid"], "num_hops": r["num_hops"], "gold": r["gold"],
            "claim": texts[r["uid"]].get("claim") or texts[r["uid"]]["question"],
            "answer": texts[r["uid"]].get("answer"), "type": texts[r["uid"]].get("type"),
            "documents": documents_by_title(corpus, r["titles"][:SELECTED]),
        } for r in rows]
    return items


def measure(item: dict, budget: int, rule: Rule) -> dict:
    read = passages_read(item["documents"], budget, item["claim"], rule)
    gold = {normalize_title(t) for t in item["gold"]}
    selected = {normalize_title(d["title"]) for d in item["documents"]}
    titles = {normalize_title(p["title"]) for p in read}
    kept = [len(p["text"]) / p["full"] for p in read if normalize_title(p["title"]) in gold and p["full"]]
    answer = item["answer"]
    answer_read = None
    if answer and answer.lower() not in ("yes", "no"):
        answer_read = normalize_title(answer) in normalize_title(" ".join(p["text"] for p in read))
    return {
        "eligible": gold <= selected, "full": gold <= titles,
        "full_and_answer": gold <= titles and answer_read is not False,
        "chars": sum(len(p["title"]) + len(p["text"]) + 4 for p in read), "passages": len(read),
        "gold_kept": statistics.mean(kept) if kept else None, "answer_read": answer_read,
    }


def summarize(dataset: str, rule: Rule, budget: int, hops: str, measured: list[dict]) -> dict:
    eligible = [m for m in measured if m["eligible"]]
    kept = [m["gold_kept"] for m in measured if m["gold_kept"] is not None]
    answers = [m["answer_read"] for m in measured if m["answer_read"] is not None]
    return {
        "dataset": dataset, "rule": rule.name, "budget": budget, "num_hops": hops, "n": len(measured),
        "n_eligible": len(eligible),
        "coverage_eligible": sum(m["full"] for m in eligible) / max(1, len(eligible)),
        "coverage_all": sum(m["full"] for m in measured) / max(1, len(measured)),
        "coverage_with_answer": sum(m["full_and_answer"] for m in eligible) / max(1, len(eligible)),
        "mean_chars": statistics.mean(m["chars"] for m in measured),
        "mean_passages": statistics.mean(m["passages"] for m in measured),
        "gold_text_kept": statistics.mean(kept) if kept else None,
        "answer_read": sum(answers) / len(answers) if answers else None,
        "rule_settings": {k: v for k, v in asdict(rule).items() if k not in ("name", "note")},
    }


def hop_groups(items: list[dict]) -> list[tuple[str, list[int]]]:
    by_hops = defaultdict(list)
    for i, item in enumerate(items):
        by_hops[str(item["num_hops"])].append(i)
    return [("all", list(range(len(items)))), *sorted(by_hops.items())]


def run(items: dict[str, list[dict]], rules: list[Rule], budgets: dict[str, list[int]]) -> list[dict]:
    summaries = []
    for dataset, group in items.items():
        for rule in rules:
            for budget in budgets[rule.name]:
                measured = [measure(item, budget, rule) for item in group]
                for hops, index in hop_groups(group):
                    summaries.append(summarize(dataset, rule, budget, hops, [measured[i] for i in index]))
                if dataset == "hotpotqa":  # bridge questions: the second passage is reached through the first
                    for kind in ("bridge", "comparison"):
                        chosen = [m for m, it in zip(measured, group) if it["type"] == kind]
                        if chosen:
                            summaries.append(summarize(dataset, rule, budget, kind, chosen))
    return summaries


GRID_BUDGETS = (1600, 2400)  # 1,600: the 2-hop stand-in for a 3-hop claim at 2,400


def grid(hotpotqa: list[dict]) -> tuple[list[dict], Rule]:
    """Every combination of cap, off-chain lead, fit, depth and fold on the HotpotQA questions only, and the pick:
    the highest mean, at 1,600 and 2,400 characters, of the share of questions (gold all selected) whose passages
    read hold every gold passage and, when the answer is not yes/no, the answer too (so a rule cannot win by reading
    the gold titles and cutting the fact); ties go to the rule listed first (the simpler)."""
    import itertools

    rows = []
    for cap, rest_cap, fold, depth, fit in itertools.product([1000, 800, 700, 600], [None, 500, 400, 300, 200],
                                                             [False, True], [1, 2], ["skip", "clip"]):
        if rest_cap and rest_cap >= cap:
            continue
        rule = Rule(f"cap {cap}, lead {rest_cap or '-'}, fold {'yes' if fold else 'no'}, depth {depth}, {fit}",
                    cap=cap, rest_cap=rest_cap, fold=fold, one_per_base=fold, depth=depth, fit=fit)
        row = {"rule": rule}
        for budget in GRID_BUDGETS:
            s = summarize("hotpotqa", rule, budget, "all", [measure(item, budget, rule) for item in hotpotqa])
            row[budget] = s
        rows.append(row)
    base = rows[0]  # cap 1000, no lead, no fold, depth 1, skip: the current rule
    assert base["rule"] == replace(CURRENT, name=base["rule"].name)
    best = max(rows, key=lambda r: sum(r[b]["coverage_with_answer"] for b in GRID_BUDGETS))
    return rows, best["rule"]


def grid_table(rows: list[dict], best: Rule, top: int = 15) -> str:
    base = rows[0]
    ranked = sorted(rows, key=lambda r: -sum(r[b]["coverage_with_answer"] for b in GRID_BUDGETS))
    lines = ["# Reading rules on the HotpotQA questions' selections (the choice; no dev claim read)\n",
             (grid.__doc__ or "").split("\n\n")[0].replace("\n    ", " ") + "\n",
             f"Current rule (first row of the grid): gold and answer read {base[1600]['coverage_with_answer']:.3f} / "
             f"{base[2400]['coverage_with_answer']:.3f} (1,600 / 2,400 characters). Picked: **{best.name}**. "
             f"Top {top} of {len(rows)} rules, and the current one.\n",
             "| rule | gold+answer 1600 | gold 1600 | answer 1600 | gold+answer 2400 | gold 2400 | answer 2400 | "
             "gold kept 2400 | passages 2400 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in [*ranked[:top], *([base] if base not in ranked[:top] else [])]:
        lines.append(f"| {r['rule'].name} | {r[1600]['coverage_with_answer']:.3f} | "
                     f"{r[1600]['coverage_eligible']:.3f} | {r[1600]['answer_read']:.3f} | "
                     f"{r[2400]['coverage_with_answer']:.3f} | {r[2400]['coverage_eligible']:.3f} | "
                     f"{r[2400]['answer_read']:.3f} | {r[2400]['gold_text_kept']:.2f} | {r[2400]['mean_passages']:.1f} |")
    return "\n".join(lines) + "\n"


def cell(s: dict | None) -> str:
    return "-" if s is None else f"{s['coverage_eligible']:.2f}"


def tables(summaries: list[dict], rules: list[Rule], items: dict[str, list[dict]], recommended: Rule) -> str:
    find = {(s["dataset"], s["rule"], s["budget"], s["num_hops"]): s for s in summaries}
    out = []
    hop_keys = {d: [h for h, _ in hop_groups(g)] for d, g in items.items()}
    for rule in (CURRENT, recommended):
        out.append(f"### Coverage per hop and budget: {rule.name}\n")
        out.append("Share of items whose passages read hold every gold passage, among items whose gold passages were "
                   "all selected (and over all items); mean characters and passages read.\n")
        out.append("| dataset | hops | n (gold all selected) | budget | coverage (selected) | coverage (all) | "
                   "mean chars | mean passages | gold kept |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for dataset in items:
            for hops in hop_keys[dataset]:
                for budget in BUDGETS:
                    s = find[(dataset, rule.name, budget, hops)]
                    out.append(f"| {dataset} | {hops} | {s['n']} ({s['n_eligible']}) | {budget} | "
                               f"{s['coverage_eligible']:.3f} | {s['coverage_all']:.3f} | {s['mean_chars']:.0f} | "
                               f"{s['mean_passages']:.1f} | {s['gold_text_kept']:.2f} |")
        out.append("")
    for budget in RULE_BUDGETS:
        out.append(f"\n### Reading rules at {budget} characters\n")
        out.append("Coverage among items whose gold passages were all selected. HotpotQA (all 2-hop) is where rules "
                   "are chosen; dev is reported only. gold kept: mean share of a gold passage's text read; answer "
                   "read: HotpotQA questions (answer not yes/no) whose answer is in the text read.\n")
        out.append("| rule | HotpotQA all | gold+answer | bridge | comparison | gold kept | answer read | chars | passages | "
                   "dev 2-hop | dev 3-hop | dev 4-hop | dev all | dev gold kept | dev chars |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for rule in rules:
            h = find.get(("hotpotqa", rule.name, budget, "all"))
            if h is None:
                continue
            d = find[("dev", rule.name, budget, "all")]
            out.append(
                f"| {rule.name} | {cell(h)} | {h['coverage_with_answer']:.2f} | {cell(find.get(('hotpotqa', rule.name, budget, 'bridge')))} | "
                f"{cell(find.get(('hotpotqa', rule.name, budget, 'comparison')))} | {h['gold_text_kept']:.2f} | "
                f"{h['answer_read']:.2f} | {h['mean_chars']:.0f} | {h['mean_passages']:.1f} | "
                f"{cell(find.get(('dev', rule.name, budget, '2')))} | {cell(find.get(('dev', rule.name, budget, '3')))} "
                f"| {cell(find.get(('dev', rule.name, budget, '4')))} | {cell(d)} | {d['gold_text_kept']:.2f} | "
                f"{d['mean_chars']:.0f} |")
    notes = [f"- **{r.name}**: {r.note}" for r in rules if r.note]
    return "\n".join(out) + "\n\nRules:\n" + "\n".join(notes) + "\n"


def plot(summaries: list[dict], rules: list[Rule], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    find = {(s["dataset"], s["rule"], s["budget"], s["num_hops"]): s for s in summaries}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, rule in zip(axes, rules):
        for dataset, hops, style in (("hotpotqa", "all", "k-"), ("dev", "2", "b--"), ("dev", "3", "r--")):
            points = [(b, find[(dataset, rule.name, b, hops)]["coverage_eligible"]) for b in BUDGETS
                      if (dataset, rule.name, b, hops) in find]
            if points:
                label = "HotpotQA (2-hop, choice)" if dataset == "hotpotqa" else f"dev {hops}-hop (report only)"
                ax.plot(*zip(*points), style, marker="o", label=label)
        ax.axvline(RULE_BUDGET, color="gray", linestyle=":")
        ax.set_title(rule.name, fontsize=10)
        ax.set_xlabel("characters of passages read (budget)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("every gold passage read (gold all selected)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    with atomic_path(path, suffix=".tmp.png") as tmp:
        fig.savefig(tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/results/verifier/reading-coverage"),
                        help="path stem: writes <stem>.jsonl, <stem>.md and <stem>.png")
    parser.add_argument("--grid", action="store_true",
                        help="also run the HotpotQA grid that picks RECOMMENDED (<stem>-grid.md; ~2 CPU-minutes)")
    args = parser.parse_args()
    items = load_items(load_corpus())
    recommended = RECOMMENDED
    for item in [*items["hotpotqa"], *items["dev"]]:  # CURRENT is what claimhop reads today, passage for passage
        ours = [(p["title"], p["text"]) for p in passages_read(item["documents"], RULE_BUDGET, item["claim"])]
        theirs = [(p["title"], p["text"]) for p in shipped.passages_read(item["documents"], item["claim"],
                                                                        shipped.READINGS["chain-order-1"])]
        assert ours == theirs, f"{item['uid']}: the benchmark's current rule differs from the shipped reading"
    budgets = {r.name: sorted(set(RULE_BUDGETS) | (set(BUDGETS) if r in (CURRENT, recommended) else set()))
               for r in RULES}
    summaries = run(items, RULES, budgets)
    counts = {d: f"{len(g)} items" for d, g in items.items()}
    hops = {d: dict(sorted(defaultdict(int, {h: sum(1 for i in g if i["num_hops"] == h)
                                             for h in {i["num_hops"] for i in g}}).items())) for d, g in items.items()}
    header = (f"# Reading coverage: the passages read against the gold passages\n\n"
              f"Recorded selections ({SYSTEM} rows, first {SELECTED} titles): HotpotQA {HOTPOTQA_ROWS} "
              f"({counts['hotpotqa']}, hops {hops['hotpotqa']}), dev {DEV_ROWS} ({counts['dev']}, hops "
              f"{hops['dev']}). HotpotQA has no 3-hop question. No model call.\n\n"
              f"    python -m benchmarks.lab.reading_coverage --out {args.out}\n\n")
    text = header + tables(summaries, RULES, items, recommended)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.grid:
        rows, best = grid(items["hotpotqa"])
        picked = replace(best, name=RECOMMENDED.name, note=RECOMMENDED.note)
        assert picked == RECOMMENDED, f"the grid picks {best.name}; RECOMMENDED should be that rule"
        write_text(Path(f"{args.out}-grid.md"), grid_table(rows, best))
    with atomic_path(args.out.with_suffix(".jsonl")) as tmp:
        tmp.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in summaries), encoding="utf-8")
    write_text(args.out.with_suffix(".md"), text)
    plot(summaries, [CURRENT, recommended], args.out.with_suffix(".png"))
    print(text)


if __name__ == "__main__":
    main()
