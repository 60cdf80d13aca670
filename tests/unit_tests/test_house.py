"""The house rules a contributor can break without noticing: imports form layers (no loop between files or
packages, no package importing one above it: `state` at the bottom, the console commands at the top, the only
thing above the graph), `nodes/` holds only the graph's node functions, and every DSPy signature lives in the one
program module. Imports inside functions count too. README and each docs page stay under 200 lines, and every
relative link of the docs resolves to a file and heading."""

from __future__ import annotations

import ast
import graphlib
import itertools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP = ("claimhop", "graph", "nodes", "state")
# Lowest first: a package may import its own layer's packages and those below, never one above.
LAYERS = [
    {"state"},  # the graph's state, the run settings and their knobs, the node table: it imports no claimhop
    {"claimhop", "claimhop.data"},  # atomic writes, the cache folder, sentences, every signature; bundled data
    {"claimhop.lm"},
    {"claimhop.retrieval"},
    {"claimhop.entities"},
    {"claimhop.program"},  # the stage modules, the client policy, the verdict fingerprint
    {"claimhop.evaluation", "claimhop.server"},
    {"nodes"},
    {"graph"},
    {"claimhop.cli"},  # the console commands: the one entry point above the graph
]


def modules() -> dict[str, Path]:
    found = {}
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `name` imports, anywhere in the file."""
    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        out |= {m for m in map(resolve, targets) if m and m != name}
    return out


def package_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "claimhop":
        return parts[0]
    return ".".join(parts[:2]) if len(parts) > 2 or (len(parts) == 2 and (ROOT / "claimhop" / parts[1]).is_dir()) else "claimhop"


GRAPH = {name: imports(name, path, modules()) for name, path in modules().items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    try:
        graphlib.TopologicalSorter(edges).prepare()  # static_order() is lazy and would never raise
        return None
    except graphlib.CycleError as err:
        return err.args[1]


def test_no_import_loop_between_files():
    assert cycle(GRAPH) is None


def test_no_import_loop_between_packages_and_none_upwards():
    edges: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        for target in targets:
            if package_of(module) != package_of(target):
                edges.setdefault(package_of(module), set()).add(package_of(target))
    assert cycle(edges) is None
    layer = {package: i for i, packages in enumerate(LAYERS) for package in packages}
    assert set(edges) | {t for ts in edges.values() for t in ts} <= set(layer), "a new package needs a layer here"
    upward = [(a, b) for a, targets in edges.items() for b in targets if layer[b] > layer[a]]
    assert not upward, f"imports from a lower layer up into a higher one: {upward}"


def test_state_imports_nothing_from_claimhop():
    """state is the bottom layer: the settings' knobs (the fusion defaults too) and the node table are its own."""
    found = {m: sorted(t for t in targets if t.split(".")[0] != "state") for m, targets in GRAPH.items()
             if m.split(".")[0] == "state" and any(t.split(".")[0] != "state" for t in targets)}
    assert not found, found
    assert any(m.startswith("claimhop.retrieval") and "state.tuning" in targets for m, targets in GRAPH.items()), \
        "the scan no longer sees claimhop.retrieval's import of the fusion defaults from state.tuning"


def test_nothing_under_claimhop_but_the_console_commands_imports_the_graph():
    """The graph sits above all of claimhop but its console commands, which hand the graph's runs to the evaluation
    (`make_systems(claimhop=...)`, `optimize(program=...)`); the server and the CLI read the node table from state."""
    importers = {m: sorted(t for t in targets if t.split(".")[0] == "graph") for m, targets in GRAPH.items()
                 if m.split(".")[0] == "claimhop" and any(t.split(".")[0] == "graph" for t in targets)}
    assert {package_of(m) for m in importers} <= {"claimhop.cli"}, importers
    assert importers, "the scan no longer sees the console commands' imports of the graph"


def test_only_the_graph_imports_nodes():
    importers = {m for m, targets in GRAPH.items() for t in targets if t.split(".")[0] == "nodes"}
    assert {package_of(m) for m in importers} <= {"graph", "nodes"}, importers
    assert {m for m in importers if package_of(m) == "nodes"} <= {"nodes"}, "a node imports another node"


NODE_FILES = sorted(p for p in (ROOT / "nodes").glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("path", NODE_FILES, ids=lambda p: p.stem)
def test_a_node_module_holds_one_node_function(path):
    from graph.builder import NODES

    tree = ast.parse(path.read_text(encoding="utf-8"))
    public = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
    assert [n.name for n in public] == [path.stem], "everything but the node belongs in claimhop/"
    node = public[0]
    assert ast.get_docstring(node), "a node says in its docstring what it does"
    params = node.args.args
    assert ast.unparse(params[0].annotation) == "State"
    if len(params) > 1:
        assert ast.unparse(params[1].annotation) == "Runtime[Context]"
    assert path.stem in NODES, "every node module is a node of the graph"


def test_every_dspy_signature_is_in_the_signatures_module():
    """claimhop's signatures, that is: the peer systems in evaluation/baselines are other programs."""
    outside = []
    for name, path in modules().items():
        if name.startswith("claimhop.evaluation.baselines"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any("Signature" in ast.unparse(b) for b in node.bases):
                if name != "claimhop.signatures":
                    outside.append(f"{name}.{node.name}")
    assert not outside


PROMPT_WORDS = ("Answer with one word", "Answer yes or no", "You check", "You judge", "You answer")


def prompts_in(tree: ast.AST) -> list[str]:
    """String literals (not docstrings) that read like an instruction to the model."""
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(n)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and any(word in node.value for word in PROMPT_WORDS)]


def test_no_prompt_is_written_outside_the_signatures():
    """A system message or instruction the model reads is a signature's docstring (claimhop.signatures), never a
    raw string elsewhere (the label-probability reader takes a signature). The peers in evaluation/baselines are
    other programs."""
    outside = [f"{name}: {text[:60]!r}" for name, path in modules().items()
               if name != "claimhop.signatures" and not name.startswith("claimhop.evaluation.baselines")
               for text in prompts_in(ast.parse(path.read_text(encoding="utf-8")))]
    assert not outside


def test_a_prompt_written_as_a_raw_string_is_caught():
    assert prompts_in(ast.parse('SYSTEM = ("You check a fact. "\n "Answer with one word: yes or no.")'))
    assert not prompts_in(ast.parse('def f():\n    """You check nothing here; Answer yes or no."""'))


MAX_NODE_LINES = 30


@pytest.mark.parametrize("path", NODE_FILES, ids=lambda p: p.stem)
def test_a_node_is_a_short_adapter(path):
    """A node reads the state and settings, calls one module or step, and returns the update and its events; what
    it calls lives in claimhop/ (the program's modules, the steps)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == path.stem)
    assert node.end_lineno - node.lineno + 1 <= MAX_NODE_LINES


STAGES = {"search", "plan", "early_gap", "bridge", "gap", "links", "select", "verify", "explain", "follow_up"}


def test_each_stage_is_a_module_of_the_program_with_its_own_forward():
    """Every stage is a DSPy module the program builds from the run's settings, whatever module a setting picks,
    and its `forward` (the stage's whole algorithm) is its own, not DSPy's."""
    import dspy

    from claimhop.program import Stages
    from claimhop.program.choices import BRIDGES, PLANNERS, VERIFIERS
    from state.context import Context

    for planner, bridge_pick, verifier in itertools.product(PLANNERS, BRIDGES, VERIFIERS):
        program = Stages(Context(planner=planner, bridge_pick=bridge_pick, verifier=verifier))
        stages = {name: module for name, module in vars(program).items() if isinstance(module, dspy.Module)
                  and not isinstance(module, dspy.Predict)}
        assert set(stages) == STAGES
        for name, module in stages.items():
            own = [cls for cls in type(module).__mro__ if "forward" in cls.__dict__]
            assert own and own[0].__module__.startswith("claimhop.program."), f"{name} has no forward of its own"


STAGE_FOLDERS = ("plan", "search", "bridge", "select", "verify")


def test_a_stage_is_a_folder_and_its_default_does_not_reach_into_its_alternatives():
    """A reader of a default stage finds it whole in one folder (claimhop/program/<stage>/, its module stage.py) and
    sees the default only: the alternatives sit in the folder's alternatives/, chosen in one table (choices.py)."""
    for stage in STAGE_FOLDERS:
        assert (ROOT / "claimhop" / "program" / stage / "stage.py").is_file(), f"{stage} is not a folder"
        folder = f"claimhop.program.{stage}"
        alternatives = f"{folder}.alternatives"
        for module, targets in GRAPH.items():
            reached = {t for t in targets if t.startswith(alternatives)}
            if not reached or module.startswith(alternatives) or not module.startswith("claimhop.program"):
                continue
            assert module == "claimhop.program.choices", f"{module} imports an alternative: {sorted(reached)}"
    assert not (ROOT / "claimhop" / "steps").exists()
    assert not (ROOT / "claimhop" / "verification").exists(), "the verify stage's parts live in its folder"


@pytest.mark.parametrize("path", NODE_FILES, ids=lambda p: p.stem)
def test_a_node_reaches_its_stage_in_one_hop(path):
    """A node imports the program (its stages), the shared plumbing, and at most its own stage's module."""
    name = f"nodes.{path.stem}"
    program = {t for t in GRAPH[name] if t.startswith("claimhop.program")}
    stage_files = program - {"claimhop.program", "claimhop.program.runtime", "claimhop.program.found"}
    assert len(stage_files) <= 1, f"{name} reaches into {sorted(stage_files)}"


KNOB_PACKAGES = ("claimhop/program", "claimhop/retrieval", "claimhop/entities", "state", "nodes",
                 "graph")


def test_every_module_level_number_says_what_it_is():
    """No hidden knobs: a number at a module's top level that a run reads carries one sentence (a comment on its line
    or the line above) saying what it is and what it measured; the tunable ones are knobs in state/tuning.py."""
    silent = []
    for package in KNOB_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for node in ast.parse("\n".join(lines)).body:
                target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
                value = getattr(node, "value", None)
                if not (isinstance(target, ast.Name) and target.id.lstrip("_").isupper() and isinstance(value, ast.Constant)
                        and type(value.value) in (int, float)):
                    continue
                above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                if "#" not in lines[node.lineno - 1] and not above.startswith("#"):
                    silent.append(f"{path.relative_to(ROOT)}: {target.id}")
    assert not silent, f"numbers without a sentence: {silent}"


def test_no_two_test_files_share_a_name():
    """pytest imports test files by their base name (no packages here): two alike stop the whole run at collection."""
    tests = Path(__file__).resolve().parents[1]
    names = [path.name for path in tests.rglob("test_*.py") if ".venv" not in path.parts]
    assert sorted({name for name in names if names.count(name) > 1}) == []


VERDICT_PARTS = {"decide", "judged", "quoted_facts", "nothing_to_go_on", "decide_three", "FAILED"}


def test_a_verdict_is_assembled_only_in_the_verify_stage():
    """A measurement (eval-verify, train-verifier, the benchmarks) calls the verify stage a run builds, never a
    copy assembled from its parts: outside claimhop/program/verify/, nothing imports the parts that make a verdict."""
    stage = ("claimhop.program.verify.stage", "claimhop.program.verify.head")
    outside = []
    for path in [*ROOT.joinpath("claimhop").rglob("*.py"), *ROOT.joinpath("benchmarks").rglob("*.py"),
                 *ROOT.joinpath("graph").rglob("*.py"), *ROOT.joinpath("nodes").rglob("*.py")]:
        if path.is_relative_to(ROOT / "claimhop" / "program" / "verify"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in stage:
                outside += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names if a.name in VERDICT_PARTS]
    assert not outside, f"a verdict assembled outside the stage: {outside}"


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # what a user reads; logs live under docs/results
PAGE_LINES = 200
LINK = re.compile(r"\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)", re.MULTILINE)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_user_page_stays_short(page):
    lines = len(page.read_text(encoding="utf-8").splitlines())
    assert lines < PAGE_LINES, f"{page.name}: {lines} lines; move experiment logs beside their rows in docs/results/"


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings (outside code), and its explicit <a id>s."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6}\s+(.*)$", text, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found | set(re.findall(r'<a id="([^"]+)"', text))


def test_every_relative_link_of_the_docs_resolves():
    pages = [*PAGES, *sorted((ROOT / "docs" / "results").rglob("*.md")), ROOT / "benchmarks" / "lab" / "README.md"]
    broken = []
    for page in pages:
        text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
        for match in LINK.finditer(text):
            target = match.group(1) or match.group(2)
            if re.match(r"[a-z]+:", target) or target.startswith("<"):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists() or (anchor and dest.suffix == ".md" and anchor not in anchors(dest)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, "\n".join(broken)
