"""README's Results table is what the committed rows in docs/results give (claimhop.evaluation.readme_results),
and `claimhop results-table --check` catches a figure typed by hand. The alterations are made on a copy of README,
never on the real one."""

from __future__ import annotations

import re
import shutil
from dataclasses import astuple

import pytest

from claimhop.cli.main import main
from claimhop.evaluation import readme_results


@pytest.fixture(scope="module")
def table() -> list[readme_results.Row]:
    return readme_results.rows()


@pytest.fixture
def readme_copy(tmp_path):
    copy = tmp_path / "README.md"
    shutil.copyfile(readme_results.README, copy)
    return copy


def test_readme_results_table_is_what_the_committed_rows_give(table):
    found = readme_results.differences(readme_results.README, table=table)
    assert not found, ("README's Results table disagrees with docs/results; run `claimhop results-table`:\n"
                       + "\n".join(found))


def test_every_run_the_table_shows_names_its_commit(table):
    assert not readme_results.unrecorded_runs(table), "add the new run's fingerprint and commit to readme_results.RUNS"


def test_every_row_links_files_that_exist(table):
    for row in table:
        for target in re.findall(r"\]\(([^)#]+)", row.recorded + row.details):
            assert (readme_results.ROOT / target).is_file(), f"{row.measure}: {target}"


def _altered(figure: str) -> str:
    """The same figure with its first digit changed, as a hand edit would."""
    at = next(i for i, ch in enumerate(figure) if ch.isdigit())
    return figure[:at] + str((int(figure[at]) + 1) % 10) + figure[at + 1:]


def test_check_names_the_row_whose_figure_was_altered(table, readme_copy, capsys):
    original = readme_results.README.read_bytes()
    row = table[0]
    text = readme_copy.read_text(encoding="utf-8")
    assert text.count(f"| {row.figure} |") == 1
    readme_copy.write_text(text.replace(f"| {row.figure} |", f"| {_altered(row.figure)} |"), encoding="utf-8")

    found = readme_results.differences(readme_copy, table=table)
    assert len(found) == 1 and found[0].startswith(f"row differs: {row.measure}")
    assert _altered(row.figure) in found[0] and row.figure in found[0]

    assert main(["results-table", "--check", "--readme", str(readme_copy)]) == 1
    assert row.measure in capsys.readouterr().err

    assert main(["results-table", "--readme", str(readme_copy)]) == 0  # regenerates the copy
    assert readme_copy.read_text(encoding="utf-8") == text
    assert main(["results-table", "--check", "--readme", str(readme_copy)]) == 0
    assert readme_results.README.read_bytes() == original


def test_check_names_a_row_typed_by_hand_and_a_row_left_out(table, readme_copy):
    text = readme_copy.read_text(encoding="utf-8")
    dropped = readme_results._line(astuple(table[-1]))
    added = "| recall@21, claims nobody ran | **0.999** | - | - | - |"
    readme_copy.write_text(text.replace(dropped, added), encoding="utf-8")
    found = readme_results.differences(readme_copy, table=table)
    assert f"missing row: {table[-1].measure}" in found
    assert "row not from the rows: recall@21, claims nobody ran" in found


def test_a_readme_without_the_markers_is_an_error(readme_copy, capsys):
    readme_copy.write_text(readme_copy.read_text(encoding="utf-8").replace(readme_results.MARKERS[0], ""),
                           encoding="utf-8")
    assert main(["results-table", "--check", "--readme", str(readme_copy)]) == 2
    assert "<!-- results:start -->" in capsys.readouterr().err


@pytest.mark.parametrize(("p", "shown"), [(0.136, "0.14"), (0.0215, "0.02"), (0.125, "0.12"), (1.0, "1.00"),
                                          (3.73e-9, "4e-9"), (8.88e-16, "9e-16"), (0.00117, "1e-3")])
def test_p_values_print_as_the_table_prints_them(p, shown):
    assert readme_results.p_value(p) == shown
