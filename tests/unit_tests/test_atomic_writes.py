"""Every file claimhop writes goes to a temporary file first and is renamed into place, so a crash or Ctrl-C leaves
either the old file or the new one, never half of one. The audit below finds every write in the code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from claimhop.atomic import atomic_dir, atomic_path, write_json

ROOT = Path(__file__).resolve().parents[2]
WRITE_METHODS = {"write_text", "write_bytes", "savefig", "write_index", "save", "dump"}
# Writes that are not whole files, each safe for its own reason:
NOT_WHOLE_FILES = {
    ("claimhop/atomic.py", "atomic_path"), ("claimhop/atomic.py", "atomic_dir"), ("claimhop/atomic.py", "write_text"),
    ("claimhop/evaluation/runner.py", "append_row"),  # append-only results: one fsynced line per row; a torn last line is repaired first
    ("benchmarks/load.py", "on_row"),  # the same, for the load benchmark's rows
    ("benchmarks/lab/throughput.py", "start_server"),  # the model server's log stream, in the run's temporary folder
    ("benchmarks/lab/throughput.py", "run_workers"),  # the workers' log streams, in the run's temporary folder
    ("benchmarks/launch.py", "dev_server"),  # the test server's log stream
    ("benchmarks/launch.py", "server_folder"),  # a test server's config, in its own new temporary folder
    ("claimhop/retrieval/entity_graph.py", "_write_tables"),  # scratch CSVs in a temporary folder, deleted after loading
    ("claimhop/retrieval/collection.py", "_fill_version"),  # a version's files, in the atomic_dir _write_version opens
}


def is_write(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
        return isinstance(mode, ast.Constant) and any(c in str(mode.value) for c in "wax+")
    return isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS


def inside_atomic_block(chain: list[ast.AST]) -> bool:
    for node in chain:
        if isinstance(node, ast.With):
            for item in node.items:
                expr = item.context_expr
                if isinstance(expr, ast.Call) and getattr(expr.func, "id", None) in {"atomic_path", "atomic_dir"}:
                    return True
    return False


def writes_outside_atomic_blocks(rel: str, node: ast.AST, chain: list[ast.AST]) -> list[str]:
    found = []
    if isinstance(node, ast.Call) and is_write(node):
        function = next((n.name for n in reversed(chain) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), "")
        if not inside_atomic_block(chain) and (rel, function) not in NOT_WHOLE_FILES:
            found.append(f"{rel}:{node.lineno} in {function or 'module'}")
    for child in ast.iter_child_nodes(node):
        found += writes_outside_atomic_blocks(rel, child, [*chain, node])
    return found


def unguarded_writes() -> list[str]:
    found = []
    skip = {".venv", "tests", "build", ".git"}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if not skip & set(rel.parts):
            found += writes_outside_atomic_blocks(rel.as_posix(), ast.parse(path.read_text(encoding="utf-8")), [])
    return found


def test_every_file_write_in_the_code_is_atomic():
    assert unguarded_writes() == []


def test_the_audit_notices_a_plain_write():
    sample = ast.parse("def f(p):\n    open(p, 'w').write('x')\n    p.write_text('y')\n")
    calls = [n for n in ast.walk(sample) if isinstance(n, ast.Call) and is_write(n)]
    assert len(calls) == 2 and not inside_atomic_block([sample])


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "results.json"
    write_json(target, {"version": 1})
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text('{"version": 2, "half')
        raise RuntimeError("crash mid-write")
    assert target.read_text().startswith('{\n  "version": 1')
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_a_failed_folder_write_leaves_the_old_folder(tmp_path):
    target = tmp_path / "bm25"
    with atomic_dir(target) as tmp:
        (tmp / "params.json").write_text("old")
    with pytest.raises(RuntimeError), atomic_dir(target) as tmp:
        (tmp / "params.json").write_text("new, half")
        raise RuntimeError("crash mid-write")
    assert (target / "params.json").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["bm25"]
