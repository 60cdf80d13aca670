"""claimhop's wheel as `pip install .` builds it, offline: from a copy holding only what the build reads
(pyproject.toml, README.md and the packages pyproject installs), so a wheel that works shows those are enough,
with the build tools of the running environment (no build isolation, no index)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def installed_names() -> tuple[str, ...]:
    """The top-level import names pyproject.toml installs (its `packages.find` include patterns)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["packages"]["find"]["include"]
    return tuple(sorted({pattern.rstrip("*").rstrip(".") for pattern in patterns}))


def build_wheel(folder: Path) -> Path:
    """Build the wheel in `folder` (its source copy in folder/source); its path."""
    source = folder / "source"
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for name in installed_names():
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(folder), str(source)], check=True, timeout=600)
    return next(folder.glob("claimhop-*.whl"))
