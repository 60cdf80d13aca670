"""README's Results table is what the committed rows in docs/results give (claimhop.evaluation.readme_results),
and `claimhop results-table --check` catches a figure typed by hand. The alterations are made on a copy of README,
never on the real one."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import astuple
from pathlib import Path

import pytest

from claimhop.cli.main import main
from claimhop.evaluation import readme_results

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / readme_results.README


@pytest.fixture(scope="module")
def table() -> list[readme_results.Row]:
    return readme_results.rows(ROOT)


@pytest.fixture
def readme_copy(tmp_path):
    copy = tmp_path / "README.md"
    shutil.copyfile(README, copy)
    return copy


def test_readme_results_table_is_what_the_committed_rows_give(table):
    found = readme_results.differences(README, ROOT, table=table)
    assert not found, ("README's Results table disagrees with docs/results; run `claimhop results-table`:\n"
                       + "\n".join(found))


def test_every_run_the_table_shows_names_its_commit(table):
    assert not readme_results.unrecorded_runs(table), "add the new run's fingerprint and commit to readme_results.RUNS"


def test_every_row_links_files_that_exist(table):
    for row in table:
        for target in re.findall(r"\]\(([^)#]+)", row.recorded + row.details):
            assert (ROOT / target).is_file(), f"{row.measure}: {target}"


def _altered(figure: str) -> str:
    """The same figure with its first digit changed, as a hand edit would."""
    at = next(i for i, ch in enumerate(figure) if ch.isdigit())
    return figure[:at] + str((int(figure[at]) + 1) % 10) + figure[at + 1:]


def test_check_names_the_row_whose_figure_was_altered(table, readme_copy, capsys):
    original = README.read_bytes()
    row = table[0]
    text = readme_copy.read_text(encoding="utf-8")
    assert text.count(f"| {row.figure} |") == 1
    readme_copy.write_text(text.replace(f"| {row.figure} |", f"| {_altered(row.figure)} |"), encoding="utf-8")

    found = readme_results.differences(readme_copy, ROOT, table=table)
    assert len(found) == 1 and found[0].startswith(f"row differs: {row.measure}")
    assert _altered(row.figure) in found[0] and row.figure in found[0]

    root = ["--root", str(ROOT)]
    assert main(["results-table", "--check", *root, "--readme", str(readme_copy)]) == 1
    assert row.measure in capsys.readouterr().err

    assert main(["results-table", *root, "--readme", str(readme_copy)]) == 0  # regenerates the copy
    assert readme_copy.read_text(encoding="utf-8") == text
    assert main(["results-table", "--check", *root, "--readme", str(readme_copy)]) == 0
    assert README.read_bytes() == original


def test_check_names_a_row_typed_by_hand_and_a_row_left_out(table, readme_copy):
    text = readme_copy.read_text(encoding="utf-8")
    dropped = readme_results._line(astuple(table[-1]))
    added = "| recall@21, claims nobody ran | **0.999** | - | - | - |"
    readme_copy.write_text(text.replace(dropped, added), encoding="utf-8")
    found = readme_results.differences(readme_copy, ROOT, table=table)
    assert f"missing row: {table[-1].measure}" in found
    assert "row not from the rows: recall@21, claims nobody ran" in found


def test_a_readme_without_the_markers_is_an_error(readme_copy, capsys):
    readme_copy.write_text(readme_copy.read_text(encoding="utf-8").replace(readme_results.MARKERS[0], ""),
                           encoding="utf-8")
    assert main(["results-table", "--check", "--root", str(ROOT), "--readme", str(readme_copy)]) == 2
    assert "<!-- results:start -->" in capsys.readouterr().err


def test_the_checkout_is_found_from_a_folder_inside_it_and_nowhere_else(tmp_path):
    assert readme_results.find_checkout(ROOT / "docs" / "results") == ROOT
    with pytest.raises(readme_results.NotACheckout, match="no claimhop checkout at or above"):
        readme_results.find_checkout(tmp_path)


def test_outside_a_checkout_the_command_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["results-table", "--check"]) == 2
    assert "no claimhop checkout at or above" in capsys.readouterr().err
    assert main(["results-table", "--check", "--root", str(tmp_path)]) == 2
    assert "is not a claimhop checkout" in capsys.readouterr().err


@pytest.mark.parametrize(("p", "shown"), [(0.136, "0.14"), (0.0215, "0.02"), (0.125, "0.12"), (1.0, "1.00"),
                                          (3.73e-9, "4e-9"), (8.88e-16, "9e-16"), (0.00117, "1e-3")])
def test_p_values_print_as_the_table_prints_them(p, shown):
    assert readme_results.p_value(p) == shown


ROWS_READ = ("recall-70/dev-169.jsonl", "recall-70/dev-169-previous.jsonl", "recall-70/hotpotqa-200.jsonl",
             "recall-70/hotpotqa-200-previous.jsonl", "verifier/dev-169.jsonl",
             "speed/compact-json/sample-40/new.jsonl", "speed/compact-json/sample-40/pretty-json.jsonl")


@pytest.fixture
def checkout_copy(tmp_path) -> Path:
    """README and the committed rows its table is computed from, copied into a checkout of their own."""
    shutil.copyfile(README, tmp_path / "README.md")
    for name in ROWS_READ:
        target = tmp_path / readme_results.RESULTS / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / readme_results.RESULTS / name, target)
    return tmp_path


def _changed_row(path: Path, system: str, change) -> None:
    """`change` applied to the first row of `system` it changes (returns True), the file rewritten."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        row = json.loads(line) if line.strip() else None
        if row and row.get("system") == system and change(row):
            lines[i] = json.dumps(row)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return
    raise AssertionError(f"no {system} row to change in {path}")


def _missed(row: dict) -> bool:
    if row.get("recall@21") != 1.0:
        return False
    row["recall@21"] = 0.0
    row["titles"] = [t for t in row["titles"] if t not in row["gold"]]
    return True


def _wrong(row: dict) -> bool:
    row["verdict"] = "SUPPORTED" if row["verdict"] != "SUPPORTED" else "INSUFFICIENT_INFO"
    return True


@pytest.mark.parametrize(("rows_file", "system", "change", "measure"), [
    ("recall-70/dev-169.jsonl", "claimhop", _missed, "recall@21 (every gold title among the 21)"),
    ("verifier/dev-169.jsonl", "passages@retrieved", _wrong, "verdict macro-F1 per verifier"),
])
def test_check_fails_when_a_committed_row_changes(checkout_copy, capsys, rows_file, system, change, measure):
    root = ["--root", str(checkout_copy), "--readme", str(checkout_copy / "README.md")]
    assert main(["results-table", "--check", *root]) == 0  # the copy agrees before the change
    _changed_row(checkout_copy / readme_results.RESULTS / rows_file, system, change)
    assert main(["results-table", "--check", *root]) == 1
    assert measure in capsys.readouterr().err
