"""`pip install .` as a user does it: a wheel built from the repository, installed into a clean virtual
environment, puts only claimhop's four top-level names into it and runs README's first command from a folder
outside the checkout, every claimhop module coming from that environment."""

from __future__ import annotations

import json
import re
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from wheel_build import build_wheel, installed_names

ROOT = Path(__file__).resolve().parents[2]
INSTALLED_NAMES = {"claimhop", "graph", "nodes", "state"}

pytestmark = pytest.mark.integration

# runs `claimhop check` as the console script does, then reports where every claimhop module came from
PROBE = """
import json, sys
from claimhop.cli.main import main
sys.argv = ["claimhop", "check", sys.argv[1]]
try:
    code = main()
except SystemExit as stop:
    code = stop.code
files = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())
         if name.split(".")[0] in {"claimhop", "graph", "nodes", "state"}}
print("MODULES " + json.dumps(files))
sys.exit(code or 0)
"""


def readme_claim() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r'claimhop check "([^"]+)"', readme).group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from a copy of the source, so no build folder is left in the checkout and none is reused."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_only_claimhops_four_top_level_names(wheel):
    assert set(installed_names()) == INSTALLED_NAMES
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist() if not name.split("/")[0].endswith(".dist-info")}
        assert tops == INSTALLED_NAMES
        assert "claimhop/data/corpus.jsonl.gz" in archive.namelist()
        assert "claimhop/server/static/index.html" in archive.namelist()


def test_an_installed_wheel_runs_readmes_first_command_from_its_own_files(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   timeout=600)
    packages = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    # claimhop's dependencies (torch, the model's wheels, ...) come from the test environment: installing them
    # again would download gigabytes. A plain path line adds that folder without running its .pth hooks, so the
    # checkout's editable install stays out.
    (packages / "zz_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([str(python), "-c", PROBE, readme_claim()], cwd=elsewhere, capture_output=True,
                            text=True, timeout=1200, env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                                                          "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(r"\b(SUPPORTED|CONTRADICTED|INSUFFICIENT_INFO)\b", result.stdout)
    modules = json.loads(result.stdout.split("MODULES ", 1)[1].splitlines()[0])
    assert {name.split(".")[0] for name in modules} == INSTALLED_NAMES
    outside = {name: path for name, path in modules.items() if not str(path).startswith(str(packages))}
    assert not outside, f"modules imported from outside the installed environment: {outside}"
