"""The installed packages stand alone, and `state/` sits below all of claimhop.

A wheel installs claimhop, graph, nodes and state and nothing else of the checkout, so none of them may import
benchmarks/, tests/ (or a helper the tests put on the path) or another checkout folder, nor climb from its own
file past its package to the checkout's files (README.md, docs/, langgraph.json); a tool that needs the checkout
takes it as an argument (`claimhop results-table --root`) or lives in benchmarks/.

`state/` (the settings and their knobs, the graph's state, the node table) is the lowest layer (LAYERS in
test_house.py): it imports nothing of claimhop, and any of claimhop may import it. Imports inside functions count,
and so does importlib.import_module("...") with a literal name. (tests/unit_tests/test_wheel_commands.py
runs every command from an installed wheel.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from wheel_build import installed_names

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = installed_names()
# claimhop's packages below state: none, state is the lowest layer
BELOW_STATE: set[str] = set()
# claimhop's packages above state, and its root modules (atomic writes, the cache folder, sentences, signatures):
# all of them, so any may import it
ABOVE_STATE = {"claimhop", "claimhop.data", "claimhop.lm", "claimhop.retrieval", "claimhop.entities",
               "claimhop.program", "claimhop.evaluation", "claimhop.server", "claimhop.cli"}
# Files that climb past their package from __file__, each for a reason that holds in an installed wheel too:
CLIMBS = {
    "claimhop/program/fingerprint.py": "the folder holding the installed packages, to hash their code (code_digest)",
}


def checkout_only_names() -> set[str]:
    """Top-level names importable in a checkout (or under pytest) that a wheel does not install: the checkout's
    folders, and every module the tests put on the path (tests/conftest.py and pytest add tests/ and its folders)."""
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
    return (folders | {p.stem for p in (ROOT / "tests").rglob("*.py")}) - set(INSTALLED)


def installed_files() -> dict[str, Path]:
    """Every installed module by dotted name."""
    found = {}
    for top in INSTALLED:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, tree: ast.AST) -> list[tuple[str, int]]:
    """(dotted name, line) of everything the module imports, anywhere in it: `from a import b` gives a and a.b;
    relative imports resolved; importlib.import_module / __import__ with a literal name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found += [(base, node.lineno), *((f"{base}.{alias.name}", node.lineno) for alias in node.names)]
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ast.unparse(node.func) in {"importlib.import_module", "import_module", "__import__"}):
            found.append((node.args[0].value, node.lineno))
    return found


def package_of(dotted: str) -> str:
    """claimhop.retrieval.corpus -> claimhop.retrieval; claimhop.atomic -> claimhop; state.context -> state."""
    parts = dotted.split(".")
    if parts[0] != "claimhop" or len(parts) == 1:
        return parts[0]
    return f"claimhop.{parts[1]}" if (ROOT / "claimhop" / parts[1]).is_dir() else "claimhop"


FILES = installed_files()
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in FILES.items()}
IMPORTS = {name: imported(name, FILES[name], tree) for name, tree in TREES.items()}


def project_imports(name: str) -> set[str]:
    """The packages of the installed modules `name` imports (not itself)."""
    def known(dotted: str) -> str | None:
        while dotted and dotted not in FILES:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    return {package_of(m) for m in (known(d) for d, _ in IMPORTS[name]) if m and m != name}


def where(name: str, line: int) -> str:
    return f"{FILES[name].relative_to(ROOT)}:{line}"


def test_the_installed_packages_are_claimhop_graph_nodes_and_state():
    assert INSTALLED == ("claimhop", "graph", "nodes", "state")


def test_no_installed_module_imports_benchmarks_tests_or_another_checkout_folder():
    forbidden = checkout_only_names()
    assert {"benchmarks", "tests", "scripts", "fakes", "small_corpus", "conftest"} <= forbidden
    found = [f"{where(name, line)} imports {dotted}" for name, found in IMPORTS.items() for dotted, line in found
             if dotted.split(".")[0] in forbidden]
    assert not found, "a wheel does not install these:\n" + "\n".join(found)


def levels_up(node: ast.AST) -> int | None:
    """How many folders above the file an expression built from __file__ names (0: the file itself, 1: its
    folder); None for an expression not built from __file__."""
    if isinstance(node, ast.Name):
        return 0 if node.id == "__file__" else None
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        below = levels_up(node.value)
        return None if below is None else below + 1
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents"
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
        below = levels_up(node.value.value)
        return None if below is None else below + node.slice.value + 1
    if isinstance(node, ast.Call):
        func = ast.unparse(node.func)
        if func in {"Path", "pathlib.Path", "os.path.abspath", "os.path.realpath"} and node.args:
            return levels_up(node.args[0])
        if func == "os.path.dirname" and node.args:
            below = levels_up(node.args[0])
            return None if below is None else below + 1
        if isinstance(node.func, ast.Attribute) and node.func.attr in {"resolve", "absolute"}:
            return levels_up(node.func.value)
    return None


def climbs_out(rel: str, tree: ast.AST) -> list[int]:
    """The lines where a path from __file__ reaches above the file's top-level package (rel: its path in it)."""
    highest = len(Path(rel).parts) - 1  # claimhop/server/webapp.py: 1 is claimhop/server, 2 is claimhop
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.expr) and (levels_up(node) or 0) > highest})


def test_no_installed_module_climbs_from_its_file_out_of_its_package():
    found = [f"{FILES[name].relative_to(ROOT)}:{line}" for name, tree in TREES.items()
             if (rel := FILES[name].relative_to(ROOT).as_posix()) not in CLIMBS for line in climbs_out(rel, tree)]
    assert not found, ("these reach the checkout's files from the installed code (take the path as an argument, "
                       "or use importlib.resources for packaged data):\n" + "\n".join(found))


@pytest.mark.parametrize(("source", "climbs"), [
    ("ROOT = Path(__file__).resolve().parents[2]", True),
    ("ROOT = Path(__file__).parent.parent.parent / 'README.md'", True),
    ("HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))", True),
    ("HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))", False),
    ("FRONTEND = Path(__file__).resolve().parent / 'static'", False),
    ("DATA = Path(__file__).resolve().parents[1] / 'data'", False),
])
def test_the_climb_check_sees_each_way_of_writing_it(source, climbs):
    assert bool(climbs_out("claimhop/server/module.py", ast.parse(source))) == climbs


def test_the_climbs_allowed_still_exist_and_still_climb():
    """An entry that no longer climbs (or a file that moved) is taken out, so the list stays the real exceptions."""
    for rel in CLIMBS:
        assert climbs_out(rel, ast.parse((ROOT / rel).read_text(encoding="utf-8"))), rel


def test_state_imports_only_the_claimhop_below_it():
    found = {name: sorted(targets - BELOW_STATE - {"state"}) for name in FILES if package_of(name) == "state"
             if (targets := project_imports(name)) - BELOW_STATE - {"state"}}
    assert not found, f"state is the lowest layer, below these (graph, nodes and all of claimhop): {found}"
    assert any("state" in project_imports(name) for name in FILES if package_of(name) == "state"), \
        "the scan no longer sees state's imports of its own modules"
    assert "state" in project_imports("claimhop.retrieval.fusion"), \
        "the scan no longer sees claimhop.retrieval's import of the fusion defaults (state.tuning)"


def test_of_claimhop_only_what_sits_above_state_imports_it():
    importers = {name: package_of(name) for name in FILES
                 if package_of(name).startswith("claimhop") and "state" in project_imports(name)}
    below = {name: package for name, package in importers.items() if package not in ABOVE_STATE}
    assert not below, f"claimhop below state (or in no layer yet) imports state: {below}"
    assert importers, "the scan no longer sees claimhop's imports of state"


def test_the_claimhop_below_state_imports_neither_state_graph_nor_nodes():
    found = {name: sorted(project_imports(name) & {"state", "graph", "nodes"}) for name in FILES
             if package_of(name) in BELOW_STATE and project_imports(name) & {"state", "graph", "nodes"}}
    assert not found, found


def test_the_layers_named_here_are_claimhops_packages():
    """A claimhop package added or renamed must be placed: below state or above it."""
    packages = {package_of(name) for name in FILES if name.startswith("claimhop")}
    assert packages <= BELOW_STATE | ABOVE_STATE, packages - BELOW_STATE - ABOVE_STATE
