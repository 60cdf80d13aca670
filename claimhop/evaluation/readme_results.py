"""README's Results table, computed from the committed result rows instead of typed by hand.

The table was typed by hand, and some of its rows went on quoting runs from before the defaults they described.
Here every row names the committed files it reads (under docs/results/), computes its figures with the
functions the reports and the speed benchmarks themselves use (claimhop.evaluation.report, .run_summary and
.verify_eval), and says which run the rows record: their fingerprint, and the commit it was measured at (RUNS; a
run missing from it is shown as such, and the unit test fails on it). The verdict row reports the verifier that
is the default now (`Context().verifier`).

`claimhop results-table` writes the table into README.md between MARKERS; `claimhop results-table --check`
and tests/unit_tests/test_readme_results.py fail, naming the rows, when README disagrees with the rows.
The rows and README are a checkout's, not the installed package's: every function takes the checkout's folder
(`find_checkout` finds the one holding a folder), and outside a checkout it is a NotACheckout error.
"""

from __future__ import annotations

import statistics
from dataclasses import astuple, dataclass
from pathlib import Path

from claimhop.evaluation.metric import label_of
from claimhop.evaluation.report import (
    all_gold,
    macro_f1,
    paired,
    summarize,
    verdict_right,
)
from claimhop.evaluation.run_summary import figures
from claimhop.evaluation.runner import rows_in

README = Path("README.md")  # both relative to the checkout
RESULTS = Path("docs/results")
MARKERS = ("<!-- results:start -->", "<!-- results:end -->")
HEADER = ("measure", "claimhop, current defaults", "compared with", "rows (file, run, commit)", "details")

# The commit each recorded run (the rows' fingerprint) was measured at, as docs/recall.md (and its log),
# docs/verification.md and docs/speed.md give it. A new run's fingerprint must be added here; until then the table
# says it is unknown.
RUNS = {
    "afc4d5ba8b4c384b-recall": "c288e94",     # recall-20: claimhop, frozen worktree, DSPy caches replayed
    "d699dcbf931e7497-recall": "36fab17",     # recall-70: claim_lead=1 + named_words=capitalised (benchmarks.every_set)
    "fdb2bdc5e6c1b2f1-recall": "1cdb780",     # recall-70: claim_feedback=20 + unnamed_floor=21 (benchmarks.every_set)
    "973fcbce19bf0b17-recall": "e64ebd3",     # recall-70: the defaults before them, the same DSPy cache
    "58873e0be4e7ea2f": "b2a37c7",            # the passage verifier after 28 blocks (eval-verify, 40-claim speed)
    "e797d577686b0cd9": "b2a37c7",            # passages_dspy
    "3aa8f63466af2a42": "5035bf7",            # majority, single, facts on retrieved documents
    "01c4392e2f9fe574": "ec36dd5",            # qa on retrieved documents
    "12dbca3fccce6f0e": "6bc8868",            # qa on gold documents
    "90bdf8edeee405d2": "129285c",            # majority, single on gold documents
    "90bdf8edeee405d2-crossfit": "129285c",   # facts on gold documents, thresholds cross-fitted on the same rows
    "c020ec25e6e242e5": "8e5d4b8",            # the speed sample at the facts verifier's defaults
    "574c2a9079ae1013": "258af9a",            # the speed sample, the verifier's pass on its own instance
    "8daa05da760447fc": "258af9a",            # the same, the pass on the chat instance (CLAIMHOP_LLM_SHARED_READER=1)
    "b7f6a36b277830b0": "9bc432f",            # the passage verifier read after 21 blocks (eval-verify rows, replayed)
    "1cacd21ac3cbfb2a": "9bc432f",            # the speed sample (19 claims), the verifier read after 21 blocks
    "c5762b122a461772": "9bc432f",            # the same run, the 28-block head (CLAIMHOP_VERIFIER_HEAD)
    "1c8852457f219ae6": "ba4149e",            # the passage verifier reading 3,000 characters (eval-verify, replayed)
    "e795296128ef7a2a": "19350ec",            # the speed sample (40 claims), reading 3,000 characters
    "2127dfa055adaf7b": "19350ec",            # the same run, the 2,400-character head (CLAIMHOP_VERIFIER_HEAD)
    "799bbdd56a630377": "ed687af",            # the speed sample (40 claims), compact JSON replies
    "069ec58f550b9954": "ed687af",            # the same run, pretty-printed JSON (CLAIMHOP_LLM_COMPACT_JSON=0)
    "8e5dfeb04e3a2f75": "cd9caa0",            # the head trained on synthetic, three-document, retrieved synthetic, dev
}

PEERS = {"hybrid": "hybrid", "bm25": "bm25", "hovermultihop": "langProBe's HoverMultiHop"}
VERIFIERS = {"passages": "passages", "facts": "facts", "qa": "qa",
             "passages_yes": "the yes/no readout of the same state", "passages_dspy": "the DSPy-compiled question",
             "passages_synthetic_dev": "the same verifier trained on synthetic + dev claims only (before)",
             "passages_budget2400": "the same verifier reading 2,400 characters",
             "passages_block28": "the same verifier read after all 28 blocks, 2,400 characters",
             "single": "one verdict call", "majority": "majority"}


@dataclass(frozen=True)
class Row:
    measure: str
    figure: str
    compared: str
    recorded: str
    details: str


class NotACheckout(FileNotFoundError):
    """The folder holds no claimhop checkout: the table is made from a clone's committed rows, never from a wheel."""


def is_checkout(folder: Path) -> bool:
    return (folder / README).is_file() and (folder / RESULTS).is_dir()


def checkout(root: Path) -> Path:
    """`root` when it is a claimhop checkout (README.md and docs/results/), else a NotACheckout naming it."""
    if not is_checkout(root):
        raise NotACheckout(f"{root} is not a claimhop checkout (no {README} beside {RESULTS}/): README's Results "
                           "table is made from a clone's committed rows; run inside a clone or pass --root CLONE")
    return root


def find_checkout(start: Path) -> Path:
    """The claimhop checkout holding `start`: it or the nearest folder above it, as git finds its repository."""
    start = start.resolve()
    found = next((folder for folder in (start, *start.parents) if is_checkout(folder)), None)
    if found is None:
        raise NotACheckout(f"no claimhop checkout at or above {start} (a folder with {README} and {RESULTS}/): "
                           "README's Results table is made from a clone's committed rows; run inside a clone or "
                           "pass --root CLONE")
    return found


def p_value(p: float) -> str:
    """An exact McNemar p as the table prints it: two decimals, or one significant digit below 0.01."""
    if p >= 0.01:
        return f"{p:.2f}"
    mantissa, exponent = f"{p:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _link(path: Path) -> str:
    return f"[{path.relative_to(RESULTS).as_posix()}]({path.as_posix()})"


def _run(fingerprint: str) -> str:
    commit = RUNS.get(fingerprint)
    return f"commit {commit}" if commit else f"run {fingerprint}, commit not recorded in readme_results.RUNS"


def _rows(root: Path, path: Path, system: str | None = None) -> list[dict]:
    rows = rows_in(root / path)
    if not rows:
        raise ValueError(f"no result rows in {root / path}")
    return [r for r in rows if system is None or r["system"] == system]


def _fingerprints(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["fingerprint"] for r in rows))


def _by_uid(rows: list[dict], system: str) -> dict[str, dict]:
    return {r["uid"]: r for r in rows if r["system"] == system}


def recall_row(root: Path, measure: str, rows_file: Path, previous_file: Path, details: str) -> Row:
    """recall@21 of claimhop's rows in a `claimhop eval --recall-only` file, against the previous defaults' rows
    and against each peer of the same run, claim by claim."""
    rows = _rows(root, rows_file)
    summary = summarize(rows)
    ours = summary["claimhop"]["groups"]
    overall = ours["all"]
    hits = round(overall["recall@21"] * overall["n"])
    hops = sorted((g for g in ours if g != "all"), key=lambda g: int(g.split("-")[0]))
    per_hop = ", ".join(f"{g} {round(ours[g]['recall@21'] * ours[g]['n'])}/{ours[g]['n']}" for g in hops) \
        if len(hops) > 1 else ""
    figure = (f"**{overall['recall@21']:.3f}** ({hits}/{overall['n']}, 95% CI {overall['ci95'][0]:.2f}-"
              f"{overall['ci95'][1]:.2f}{'; ' + per_hop if per_hop else ''})")
    claimhop = _by_uid(rows, "claimhop")
    previous_rows = _rows(root, previous_file, "claimhop")
    previous = _by_uid(previous_rows, "claimhop")
    gained, lost, p = paired(claimhop, previous, all_gold)
    before = summarize(previous_rows)["claimhop"]["groups"]["all"]["recall@21"]
    compared = [f"previous defaults {before:.3f} ({gained} gained, {lost} lost, p = {p_value(p)})"]
    for system, name in PEERS.items():
        if system in summary:
            only_ours, only_theirs, p = paired(claimhop, _by_uid(rows, system), all_gold)
            compared.append(f"{name} {summary[system]['groups']['all']['recall@21']:.3f} ({only_ours} only claimhop, "
                            f"{only_theirs} only it, p = {p_value(p)})")
    recorded = (f"{_link(rows_file)} (claimhop rows: {', '.join(_run(f) for f in _fingerprints(claimhop.values()))}; "
                f"peers in the same file); previous: {_link(previous_file)}")
    return Row(measure.format(n=overall["n"]), figure, "; ".join(compared), recorded, details)


def default_verifier() -> str:
    from state.context import Context

    return Context().verifier


def verdict_row(root: Path, rows_file: Path, details: str) -> Row:
    """Macro-F1 of every verifier on the documents claimhop retrieved and on gold documents, from one
    `claimhop eval-verify` file; the default verifier's figure, each other verifier paired with it."""
    from claimhop.evaluation.verify_eval import bootstrap_ci, expected_calibration_error

    rows = _rows(root, rows_file)
    default = default_verifier()

    def pairs(group: list[dict]) -> list[tuple[str, str]]:
        return [(r["label"], label_of(r["verdict"])) for r in group]

    def f1(system: str, hops: int | None = None) -> float:
        group = [r for r in rows if r["system"] == system and (hops is None or r["num_hops"] == hops)]
        if not group:
            raise ValueError(f"{root / rows_file} has no {system} rows")
        return 100 * (macro_f1(pairs(group)) or 0.0)

    ours = [r for r in rows if r["system"] == f"{default}@retrieved"]
    if not ours:
        raise ValueError(f"{root / rows_file} has no rows of the default verifier ({default}@retrieved)")
    low, high = bootstrap_ci(pairs(ours))
    hop_counts = sorted({r["num_hops"] for r in ours})
    by_hop = ", ".join(f"{h}-hop {f1(f'{default}@retrieved', h):.1f}"
                       + (f" on {n}" if (n := sum(r['num_hops'] == h for r in ours)) < 20 else "") for h in hop_counts)
    held_out = (", every claim judged by a head that never saw it"
                if all(r.get("cross_fitted") for r in ours) else "")
    figure = (f"**{VERIFIERS.get(default, default)} (default) {f1(f'{default}@retrieved'):.1f}** (95% CI "
              f"{100 * low:.0f}-{100 * high:.0f}; {by_hop}; gold {f1(f'{default}@gold'):.1f}; ECE "
              f"{expected_calibration_error(ours)[0]:.3f}){held_out}")
    systems = {r["system"].split("@")[0] for r in rows}
    others = [s for s in VERIFIERS if s in systems and s != default] + sorted(systems - set(VERIFIERS) - {default})
    mine = _by_uid(rows, f"{default}@retrieved")
    compared = []
    for system in others:
        only_ours, only_theirs, p = paired(mine, _by_uid(rows, f"{system}@retrieved"), verdict_right)
        gold = f"gold {f1(f'{system}@gold'):.1f}; " if any(r["system"] == f"{system}@gold" for r in rows) else ""
        compared.append(f"{VERIFIERS.get(system, system)} {f1(f'{system}@retrieved'):.1f} ({gold}{only_ours} vs "
                        f"{only_theirs}, p = {p_value(p)})")
    ours_commit = _run(ours[0]["fingerprint"])
    rest = [c for c in dict.fromkeys(_run(f) for f in _fingerprints(rows)) if c != ours_commit]
    recorded = (f"{_link(rows_file)} ({default}: {ours_commit}"
                + (f"; the others' recorded runs: {', '.join(c.removeprefix('commit ') for c in rest)}" if rest else "")
                + ")")
    return Row(f"verdict macro-F1 per verifier, all {len(ours)} dev claims, on the documents claimhop retrieved (and "
               "on gold documents)", figure, "paired on retrieved documents (claims only the default gets right vs "
               "only the other, exact McNemar p): " + "; ".join(compared), recorded, details)


def speed_row(root: Path, rows_file: Path, earlier_file: Path, earlier_name: str, details: str,
              machine: str = "idle 2-core machine") -> Row:
    """Seconds a claim of the whole graph on the seeded 40-claim dev sample, with the speed benchmarks' figures."""
    rows = _rows(root, rows_file, "claimhop")
    earlier = _rows(root, earlier_file, "claimhop")
    if {r["uid"] for r in rows} != {r["uid"] for r in earlier}:
        raise ValueError(f"{rows_file} and {earlier_file} are not runs of the same claims")
    now, then = figures(rows), figures(earlier)
    verify = [r["steps"]["verify"]["seconds"] for r in rows if "verify" in r.get("steps", {})]
    step = f"; the verify step {statistics.median(verify):.1f} s of it" if verify else ""
    figure = (f"**median {now['median_s']:.1f} s** (p90 {now['p90_s']:.1f} s{step}); {now['calls']:.1f} model "
              f"calls, {now['prompt_tokens'] + now['output_tokens']:,.0f} tokens")
    compared = (f"{earlier_name} {then['median_s']:.1f} s (p90 {then['p90_s']:.1f} s, {then['calls']:.1f} calls, "
                f"{then['prompt_tokens'] + then['output_tokens']:,.0f} tokens; "
                f"{', '.join(_run(f) for f in _fingerprints(earlier))})")
    recorded = (f"{_link(rows_file)} ({', '.join(_run(f) for f in _fingerprints(rows))}, empty DSPy cache); "
                f"{_link(earlier_file)}")
    return Row(f"seconds per claim, {now['claims']} claims of the seeded 40-claim dev sample, {machine}", figure, compared,
               recorded, details)


def rows(root: Path) -> list[Row]:
    """Every row of README's Results table, from the committed files under `root`/docs/results."""
    root = checkout(root)
    recall = RESULTS / "recall-70"
    return [
        recall_row(root, "recall@21 (every gold title among the 21), all {n} HoVer dev claims (the claims reported "
                   "on)", recall / "dev-169.jsonl", recall / "dev-169-previous.jsonl",
                   "[recall](docs/recall.md#where-recall-stands-commit-b22f139-benchmarksevery_set)"),
        recall_row(root, "recall@21, {n} HotpotQA questions (where retrieval choices are made)",
                   recall / "hotpotqa-200.jsonl", recall / "hotpotqa-200-previous.jsonl", "[recall](docs/recall.md)"),
        verdict_row(root, RESULTS / "verifier" / "dev-169.jsonl",
                    "[verification](docs/verification.md#how-well-it-does-all-169-dev-claims-commit-cd9caa0)"),
        speed_row(root, RESULTS / "speed" / "compact-json" / "sample-40" / "new.jsonl",
                  RESULTS / "speed" / "compact-json" / "sample-40" / "pretty-json.jsonl",
                  "replies as pretty-printed JSON (before), same run", "[speed](docs/results/speed/log.md#"
                  "compact-json-replies-the-plan-writes-063x-the-tokens-issue-58-item-2-commits-93be198-and-61f3bf1)",
                  "idle 2-core AMD EPYC (AVX2 only), slower than the Xeon of earlier rows"),
    ]


def unrecorded_runs(table: list[Row]) -> list[str]:
    """The rows that show a run whose commit RUNS does not name."""
    return [row.measure for row in table if "not recorded" in row.recorded]


def _line(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def render(table: list[Row]) -> str:
    """The Markdown table and the line saying how it is made, as it stands between README's markers."""
    lines = [_line(HEADER), "|" + "---|" * len(HEADER), *(_line(astuple(row)) for row in table), "",
             "Generated from the committed rows each row names by `claimhop results-table` "
             "(`claimhop/evaluation/readme_results.py`); `claimhop results-table --check` fails when they disagree."]
    return "\n".join(lines)


def _between_markers(text: str, readme: Path) -> tuple[str, str, str]:
    start, end = MARKERS
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise ValueError(f"{readme} needs exactly one {start} ... {end} pair around the Results table")
    head, rest = text.split(start)
    body, tail = rest.split(end)
    return head, body, tail


def spliced(text: str, table: str, readme: Path) -> str:
    head, _, tail = _between_markers(text, readme)
    return f"{head}{MARKERS[0]}\n{table}\n{MARKERS[1]}{tail}"


def _table_rows(block: str) -> dict[str, str]:
    """measure -> the whole table line, for the table lines of a block (header and rule left out)."""
    out = {}
    for line in block.splitlines():
        if line.startswith("|") and not line.startswith("|---") and line != _line(HEADER):
            out[line.split(" | ")[0].removeprefix("| ").strip()] = line
    return out


def differences(readme: Path, root: Path, table: list[Row] | None = None) -> list[str]:
    """What README's table has that the rows do not give, one line per row (empty when they agree); `table`:
    rows already computed from `root`."""
    text = readme.read_text(encoding="utf-8")
    _, block, _ = _between_markers(text, readme)
    expected = render(rows(root) if table is None else table)
    if block.strip() == expected.strip():
        return []
    have, want = _table_rows(block), _table_rows(expected)
    found = []
    for measure, line in want.items():
        if measure not in have:
            found.append(f"missing row: {measure}")
        elif have[measure] != line:
            cells = [c.strip() for c in have[measure].strip("|").split(" | ")]
            wanted = [c.strip() for c in line.strip("|").split(" | ")]
            changed = [f"{name}: README has {a!r}, the rows give {b!r}"
                       for name, a, b in zip(HEADER, cells, wanted) if a != b]
            found.append(f"row differs: {measure}\n    " + "\n    ".join(changed or ["(cell count)"]))
    found += [f"row not from the rows: {measure}" for measure in have if measure not in want]
    return found or ["the text around the table differs (header, or the line under it)"]


def write(readme: Path, root: Path) -> bool:
    """Regenerate README's table between the markers; True when the file changed."""
    from claimhop.atomic import write_text

    text = readme.read_text(encoding="utf-8")
    new = spliced(text, render(rows(root)), readme)
    if new != text:
        write_text(readme, new)
    return new != text
