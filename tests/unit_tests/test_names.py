"""Every name the code uses is defined and every import used (ruff's pyflakes rules, F): a module moved or a constant
renamed must not leave a NameError on a path the other tests happen not to take."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_undefined_or_unused_name_in_the_packages_and_benchmarks():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "F", "--no-cache",
                           "--output-format", "concise", "claimhop", "graph", "nodes", "state", "benchmarks"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
