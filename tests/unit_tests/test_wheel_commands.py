"""Every `claimhop` command works from an installed wheel alone: built offline from the checkout, installed into a
folder of its own (`pip install --target`) and run from a folder outside the checkout, with that folder first on
the path so the checkout's editable install cannot shadow it. Each run reports where every module it imported
came from: claimhop, graph, nodes and state from the installed copy, everything else from the Python environment,
nothing from the checkout (benchmarks/, tests/, the source folders). No language model is loaded.

(The installed wheel running README's first command with the real model: tests/integration_tests/test_wheel_install.py.)"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from wheel_build import build_wheel, installed_names

from claimhop.cli.main import parser

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration  # builds and installs a wheel, and builds the real bundled index (~30 s)

# Runs `claimhop ARGS...` as the console script does, once per JSON argument list given, then writes each one's exit
# code and output, and where every module it imported came from, to the report file named by $PROBE_REPORT.
PROBE = """
import contextlib, io, json, os, sys
from claimhop.cli.main import main

runs = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code
    runs.append({"argv": argv, "code": code or 0, "stdout": out.getvalue(), "stderr": err.getvalue()})
modules = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())}
report = {"runs": runs, "modules": {k: v for k, v in modules.items() if v}, "prefixes": [sys.prefix, sys.base_prefix]}
with open(os.environ["PROBE_REPORT"], "w", encoding="utf-8") as handle:
    json.dump(report, handle)
"""


def subcommands(top: argparse.ArgumentParser) -> list[str]:
    action = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return list(action.choices)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel installed alone into its own folder (no dependencies: they come from the test environment)."""
    wheel = build_wheel(tmp_path_factory.mktemp("wheel"))
    target = tmp_path_factory.mktemp("installed")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(target),
                    str(wheel)], check=True, timeout=300)
    return target


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory) -> dict:
    """A working folder outside the checkout and an environment naming nothing of it: the installed folder first
    on the path, claimhop's and DSPy's caches and HOME in temporary folders, Hugging Face offline."""
    folder = tmp_path_factory.mktemp("elsewhere")
    home = tmp_path_factory.mktemp("home")
    return {"cwd": folder, "env": {"PATH": "/usr/bin:/bin", "HOME": str(home), "CLAIMHOP_HOME": str(home / "claimhop"),
                                   "DSPY_CACHEDIR": str(home / "dspy"), "HF_HUB_OFFLINE": "1"}}


def run_installed(installed: Path, elsewhere: dict, *commands: list[str], timeout: float = 300) -> list[dict]:
    """Run `commands` with the installed claimhop; each one's result. Fails when any module came from elsewhere."""
    report_file = elsewhere["cwd"] / "probe.json"
    env = {**elsewhere["env"], "PYTHONPATH": str(installed), "PROBE_REPORT": str(report_file)}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(commands))], cwd=elsewhere["cwd"], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(report_file.read_text(encoding="utf-8"))
    assert_modules_are_installed(report, installed)
    return report["runs"]


def assert_modules_are_installed(report: dict, installed: Path) -> None:
    modules = {name: Path(path).resolve() for name, path in report["modules"].items()}
    assert modules["claimhop"].is_relative_to(installed.resolve()), modules["claimhop"]
    ours = {name: path for name, path in modules.items()
            if name.split(".")[0] in installed_names() and not path.is_relative_to(installed.resolve())}
    assert not ours, f"claimhop's own modules from outside the installed wheel: {ours}"
    allowed = [installed.resolve(), *(Path(p).resolve() for p in report["prefixes"])]
    outside = {name: str(path) for name, path in modules.items()
               if not any(path.is_relative_to(folder) for folder in allowed)}
    assert not outside, f"modules from neither the wheel nor the Python environment: {outside}"
    checkout = {name: str(path) for name, path in modules.items()
                if path.is_relative_to(ROOT.resolve()) and not path.is_relative_to(Path(report["prefixes"][0]).resolve())}
    assert not checkout, f"modules from the checkout: {checkout}"


def test_the_console_script_runs_from_the_installed_folder(installed, elsewhere):
    script = installed / "bin" / "claimhop"
    done = subprocess.run([str(script), "--help"], cwd=elsewhere["cwd"], capture_output=True, text=True, timeout=120,
                          env={**elsewhere["env"], "PYTHONPATH": str(installed)})
    assert done.returncode == 0, done.stderr
    assert all(name in done.stdout for name in subcommands(parser()))


def test_every_subcommands_help_works_from_the_wheel(installed, elsewhere):
    names = subcommands(parser())
    runs = run_installed(installed, elsewhere, ["--help"], *([name, "--help"] for name in names))
    for run in runs:
        assert run["code"] == 0 and run["stdout"].startswith("usage: claimhop"), run
    assert [run["stdout"].split()[2] for run in runs[1:]] == names


def test_eval_reads_the_bundled_claims_and_corpus_from_the_wheel(installed, elsewhere):
    """A real run that needs no model: BM25 on three bundled dev claims over the bundled corpus, whose indexes are
    built from the shipped embeddings."""
    out = elsewhere["cwd"] / "rows" / "eval.jsonl"
    [run] = run_installed(installed, elsewhere, ["eval", "--systems", "bm25", "--limit", "3", "--out", str(out)])
    assert run["code"] == 0, run["stderr"][-3000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3 and {row["system"] for row in rows} == {"bm25"}
    assert all(len(row["titles"]) >= 21 and "recall@21" in row for row in rows)
    assert out.with_suffix(".md").is_file() and out.with_suffix(".png").is_file()


def test_commands_that_read_a_clones_files_say_so_outside_one_and_take_it_as_an_argument(installed, elsewhere):
    """README's table is made from a clone's committed rows: outside one it is a one-line error, and with
    `--root CLONE` the installed code makes it. train-verifier's default selection file is a clone's too: outside
    one it stops before making synthetic claims (model time)."""
    table, training, given = run_installed(installed, elsewhere, ["results-table", "--check"], ["train-verifier"],
                                           ["results-table", "--check", "--root", str(ROOT)])
    assert table["code"] == 2 and "no claimhop checkout at or above" in table["stderr"], table
    assert training["code"] == 2 and "--retrieved-from docs/results" in training["stderr"], training
    assert "synthetic claims" not in training["stdout"]
    assert given["code"] == 0 and "matches the committed rows" in given["stdout"], given


def test_the_probe_notices_a_module_from_the_checkout(installed, elsewhere):
    """The module check is not vacuous: the checkout's benchmarks package, imported on purpose, is caught."""
    env = {**elsewhere["env"], "PYTHONPATH": os.pathsep.join([str(installed), str(ROOT)])}
    report_file = elsewhere["cwd"] / "probe-checkout.json"
    subprocess.run([sys.executable, "-c", "import benchmarks\n" + PROBE, json.dumps([["--help"]])],
                   cwd=elsewhere["cwd"], env={**env, "PROBE_REPORT": str(report_file)}, check=True, timeout=120,
                   capture_output=True)
    with pytest.raises(AssertionError, match="benchmarks"):
        assert_modules_are_installed(json.loads(report_file.read_text(encoding="utf-8")), installed)
