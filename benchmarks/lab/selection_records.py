"""Selection's inputs recorded on every set, and selection rules replayed on them with no model call (issue 70).

`record` runs each claim of the five sets benchmarks.every_set measures up to selection (recall-only), with a DSPy
cache that an earlier run of the same settings filled so the model's calls are replayed, and keeps per claim what
selection is given, as the graph had it: the candidates with the steps that found them, the claim's and the
looked-up names, and the claim's own ranking. `replay` runs the product's selection stage (stages_for(ctx).select)
on them under other settings; under the recorded settings it must give the recorded selection, which it checks.
`held_out` chooses among rules by leave one set out (the question is whether a choice travels) and writes the table.

    DSPY_CACHEDIR=/work/fb-dspy-cache python -m benchmarks.lab.selection_records --root /work/ood \
        --records /work/specificity --set claim_feedback=20 --set unnamed_floor=21

Wikipedia sets count every gold article among the first k, the others any evidence document (the passage titled as
it), as benchmarks.every_set does.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from benchmarks.every_set import EvalSet, eval_sets, gold_found, paired
from claimhop.evaluation.data import load_claims
from claimhop.evaluation.runner import json_objects

KEPT = ("doc_id", "title", "retrieval_score", "found_by", "source")
SETS = "hover-dev,hotpotqa-200,healthver,climate-fever,check-covid"
KS = (5, 21)
Found = dict[int, dict[str, bool]]  # k -> claim -> gold among the first k


def settings_of(items: list[str]) -> dict[str, Any]:
    """name=value run settings, values read as JSON where they look like it."""
    settings: dict[str, Any] = {}
    for item in items:
        name, _, value = item.partition("=")
        if not value:
            raise SystemExit(f"--set {item!r}: expected name=value")
        try:
            settings[name.strip()] = json.loads(value)
        except json.JSONDecodeError:  # a word: planner=two_calls
            settings[name.strip()] = value
    return settings


def sets_of(root: Path, names: list[str], extra: list[str]) -> list[EvalSet]:
    """The named sets of benchmarks.every_set, then each `extra` set, NAME=CLAIMS@FOLDER (a sample to choose on, on
    a folder already indexed: a second Climate-FEVER sample on the first's documents, say)."""
    items = [item for item in eval_sets(root) if item.name in names]
    for spec in extra:
        name, _, rest = spec.partition("=")
        claims, _, folder = rest.partition("@")
        if not name or not claims:
            raise SystemExit(f"--extra {spec!r}: expected NAME=CLAIMS@FOLDER")
        items.append(EvalSet(name, claims, folder or None, False))
    return items


def record(items: list[EvalSet], records: Path, settings: dict[str, Any]) -> None:
    """One record per claim not yet in RECORDS/SET.jsonl (resumable), for each set."""
    from claimhop.program import stages_for
    from claimhop.program.runtime import get_lm
    from graph.runs import run_graph
    from state.context import Context

    records.mkdir(parents=True, exist_ok=True)
    for item in items:
        ctx = Context.from_any({**settings, "corpus_path": item.corpus or ""})
        get_lm(ctx.model), stages_for(ctx).built.engine
        out = records / f"{item.name}.jsonl"
        done = {row["uid"] for row in json_objects(out) if "uid" in row} if out.is_file() else set()
        claims = [c for c in load_claims(Path(item.claims)) if c["uid"] not in done]
        with out.open("a") as sink:
            for claim in tqdm(claims, desc=f"record {item.name}", unit="claim"):
                state = run_graph(claim["claim"], ctx, recall_only=True)
                row = {
                    "uid": claim["uid"], "gold": claim["supporting_titles"], "claim": claim["claim"],
                    "claim_entities": state.get("claim_entities", []), "looked_up": state.get("looked_up", []),
                    "candidates": [{k: c[k] for k in KEPT if k in c} for c in state.get("candidates", {}).values()],
                    "claim_ranking": [{k: c[k] for k in KEPT if k in c} for c in state.get("claim_ranking", [])],
                    "selected": [d["title"] for d in state.get("selected", [])],
                }
                sink.write(json.dumps(row, ensure_ascii=False) + "\n")
                sink.flush()


def records_of(records: Path, item: EvalSet) -> list[dict]:
    """The set's selection records (RECORDS/NAME.jsonl), or a clear exit when there are none."""
    rows = [row for row in json_objects(records / f"{item.name}.jsonl") if "uid" in row]
    if not rows:
        raise SystemExit(f"no records in {records / item.name}.jsonl: make them with `python -m "
                         "benchmarks.lab.selection_records` first")
    return rows


def selected_from(stages: Any, row: dict) -> tuple[list[dict], list[dict]]:
    """The product's selection stage run again on one record: the documents it keeps, best first, and the claim's
    own ranking as selection saw it (both with the documents' texts, read back from the engine)."""
    ids = [c["doc_id"] for c in [*row["candidates"], *row["claim_ranking"]]]
    texts = {h.doc_id: h.text for h in stages.built.engine.documents(list(dict.fromkeys(ids)))}
    candidates = {c["title"]: {**c, "text": texts[c["doc_id"]]} for c in row["candidates"]}
    ranking = [{**c, "text": texts[c["doc_id"]]} for c in row["claim_ranking"]]
    selected = stages.select(candidates=candidates, claim_entities=row["claim_entities"], looked_up=row["looked_up"],
                             claim_ranking=ranking, claim=row["claim"]).selected
    return selected, ranking


def replay(records: Path, item: EvalSet, recorded: dict[str, Any], rules: dict[str, dict[str, Any]],
           checked: bool = False) -> dict[str, Found]:
    """Per rule (settings over the `recorded` ones), the claims with their gold among the first 5 and 21 when
    selection runs again on RECORDS/NAME.jsonl. A rule of no settings must give the recorded selection; `checked`
    replays one first (and leaves it out), so rules that all change settings still check that the records are of
    the `recorded` settings and today's code."""
    if checked:
        replay(records, item, recorded, {"the records' own settings": {}})
    from claimhop.program import stages_for
    from state.context import Context

    rows = records_of(records, item)
    out: dict[str, Found] = {}
    for label, rule in rules.items():
        stages = stages_for(Context.from_any({**recorded, **rule, "corpus_path": item.corpus or ""}))
        found: Found = {k: {} for k in KS}
        for row in rows:
            titles = [d["title"] for d in selected_from(stages, row)[0]]
            if not rule and titles != row["selected"]:
                raise SystemExit(f"{records / item.name}.jsonl: the replay differs from the recorded selection on "
                                 f"{row['uid']}: the records are of other settings or code")
            for k in KS:
                found[k][row["uid"]] = gold_found(item, titles, row["gold"], k)
        out[label] = found
    return out


def hybrid_found(rows_dir: Path, item: EvalSet, records: Path) -> Found:
    """The hybrid search's claims with gold among the first k: from an every_set run's rows (its hybrid system), or
    for a set that run did not have, the claim searched as one hybrid query now (what that system does)."""
    rows = records_of(records, item)
    done = rows_dir / item.name / "eval.jsonl"
    if done.is_file():
        titles = {r["uid"]: r["titles"] for r in json_objects(done) if r.get("system") == "hybrid"}
    else:
        from claimhop.evaluation.systems import make_systems

        search = make_systems(["hybrid"], {"corpus_path": item.corpus or ""})["hybrid"]  # `claimhop eval`'s own
        titles = {row["uid"]: search(row["claim"])["titles"] for row in rows}
    return {k: {row["uid"]: gold_found(item, titles[row["uid"]], row["gold"], k) for row in rows} for k in KS}


def held_out(found: dict[str, dict[str, Found]], hybrid: dict[str, Found], today: str, heading: list[str],
             pooled_sets: set[str], choose_only: frozenset[str] = frozenset()) -> str:
    """Leave one set out: for each set, the rule with the most claims gained less lost against `today` at 5 and 21
    on the other sets (ties to today), counted on the held-out set against today and hybrid; the `pooled_sets`
    (the out-of-domain samples) pooled; then every rule on every set, replayed (not held out). `choose_only` sets
    (samples to choose on) are marked as such."""
    names = list(found)
    rules = list(found[names[0]])

    def worth(rule: str, sets: list[str]) -> int:
        total = 0
        for name in sets:
            for k in KS:
                gained, lost, _ = paired(found[name][rule][k], found[name][today][k])
                total += gained - lost
        return total

    def pair(a: dict[str, bool], b: dict[str, bool]) -> str:
        return "{} / {} (p = {:.2g})".format(*paired(a, b))

    lines = [*heading, "", ("| held-out set (claims) | rule chosen on the others | hybrid @5 / @21 | today @5 / @21 | "
                            "chosen @5 / @21 | chosen vs today @5: gained / lost (p) | @21 | chosen vs hybrid @5 | @21 |"),
             "|---|---|---|---|---|---|---|---|---|"]
    pooled: dict[str, Found] = {side: {k: {} for k in KS} for side in ("chosen", "today", "hybrid")}
    for name in names:
        chosen = max(rules, key=lambda r: (worth(r, [n for n in names if n != name]), r == today))
        n = len(found[name][today][5])

        def share(by_claim: dict[str, bool], size: int = n) -> str:
            return f"{sum(by_claim.values()) / size:.3f}"

        sides = {"chosen": found[name][chosen], "today": found[name][today], "hybrid": hybrid[name]}
        label = f"{name} ({n}{', to choose on' if name in choose_only else ''})"
        cells = [label, chosen, *(" / ".join(share(sides[s][k]) for k in KS) for s in ("hybrid", "today", "chosen")),
                 *(pair(sides["chosen"][k], sides[other][k]) for other in ("today", "hybrid") for k in KS)]
        lines.append("| " + " | ".join(cells) + " |")
        if name in pooled_sets:
            for side, by_k in sides.items():
                for k in KS:
                    pooled[side][k].update({f"{name}/{u}": v for u, v in by_k[k].items()})
    if pooled["chosen"][5]:
        lines.append("| out-of-domain samples pooled | | | | | " + " | ".join(
            pair(pooled["chosen"][k], pooled[other][k]) for other in ("today", "hybrid") for k in KS) + " |")
    lines += ["", "Every rule on every set (replayed, not held out): claims with the gold among the first 5 / 21.", "",
              "| rule | " + " | ".join(names) + " |", "|---|" + "---|" * len(names),
              "| hybrid | " + " | ".join(f"{sum(hybrid[n][5].values())} / {sum(hybrid[n][21].values())}" for n in names) + " |"]
    for rule in rules:
        lines.append(f"| {rule} | " + " | ".join(
            f"{sum(found[n][rule][5].values())} / {sum(found[n][rule][21].values())}" for n in names) + " |")
    return "\n".join(lines) + "\n"


def held_out_main(argv: list[str] | None, doc: str, module: str, title: str,
                  found_for: Callable[[Path, EvalSet, dict[str, Any]], dict[str, Found]], today: str,
                  replayed_as: str | None = None, own_args: str = "") -> None:
    """The command line of a lab tool that replays rules on one records folder (`found_for(records, set, recorded
    settings)`: per rule, the claims found) and prints the held-out table; `replayed_as` says what was replayed when
    it is not the records' own settings, `own_args` the tool's own options, shown in its command."""
    from benchmarks.lab import show_table

    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--records", type=Path, required=True, help="benchmarks.lab.selection_records' folder")
    parser.add_argument("--rows", type=Path, required=True, help="an every_set run's folder: the hybrid baseline")
    parser.add_argument("--sets", default=SETS)
    parser.add_argument("--set", action="append", default=[], help="name=value settings the records were made with")
    parser.add_argument("--extra", action="append", default=[], metavar="NAME=CLAIMS@FOLDER",
                        help="a further sample to choose on (its rows are shown, never pooled with the samples)")
    parser.add_argument("--out", type=Path, help="folder for README.md (printed either way)")
    args = parser.parse_args(argv)
    recorded = settings_of(args.set)
    items = sets_of(args.root, args.sets.split(","), args.extra)
    found = {item.name: found_for(args.records, item, recorded) for item in items}
    hybrid = {item.name: hybrid_found(args.rows, item, args.records) for item in items}
    what = replayed_as or f"records of {', '.join(f'{k}={v}' for k, v in recorded.items()) or 'the defaults'}"
    heading = [f"# {title} (issue 70)", "",
               (f"`python -m benchmarks.lab.{module}{own_args} --records {args.records} --rows {args.rows}"
                f"{''.join(f' --set {item}' for item in args.set)}{''.join(f' --extra {spec}' for spec in args.extra)}` "
                f"({what}; no model call). Each set held out in turn, the rule chosen on the other sets: the most "
                "claims gained less lost against today's selection at 5 and 21, ties to today.")]
    choose_only = frozenset(spec.partition("=")[0] for spec in args.extra)
    pooled = {item.name for item in items if not item.every_gold and item.name not in choose_only}
    show_table(held_out(found, hybrid, today, heading, pooled, choose_only), args.out, "README.md")


def rules_main(argv: list[str] | None, doc: str, module: str, title: str, rules: dict[str, dict[str, Any]],
               today: str) -> None:
    """held_out_main for rules that are settings, replayed by `replay`."""
    held_out_main(argv, doc, module, title, lambda records, item, recorded: replay(records, item, recorded, rules),
                  today)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/work/ood"), help="folders made by benchmarks.claim_sets")
    parser.add_argument("--records", type=Path, required=True, help="folder for SET.jsonl records")
    parser.add_argument("--sets", default=SETS)
    parser.add_argument("--set", action="append", default=[], help="name=value run settings")
    parser.add_argument("--extra", action="append", default=[], metavar="NAME=CLAIMS@FOLDER",
                        help="a further sample to record, on a folder already indexed")
    args = parser.parse_args(argv)
    record(sets_of(args.root, args.sets.split(","), args.extra), args.records, settings_of(args.set))


if __name__ == "__main__":
    main()
