"""`claimhop index FOLDER` at scale: the time and peak memory of indexing a folder of N files, then of the update
after M of them changed (and one more with nothing changed).

    .venv/bin/python -m benchmarks.lab.index_folder --files 10000 --changed 100

The files are real: each is one Wikipedia intro paragraph of the bundled corpus written as a Markdown file
(`# Title`, then the paragraph), in 100 sub-folders. The changed files get one sentence appended. Each phase runs
in its own process (as `claimhop index` would), so each peak is its own; the encoder is the default bundled
int8 ONNX MiniLM unless --encoder names another. Rows go to --out (JSON) and a table is printed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from claimhop.atomic import write_json, write_text


def write_folder(folder: Path, count: int) -> None:
    """`count` Markdown files from the bundled corpus's first `count` documents."""
    from claimhop.retrieval.corpus import BUNDLED_CORPUS, iter_documents

    for number, (title, text) in enumerate(iter_documents(BUNDLED_CORPUS)):
        if number == count:
            break
        write_text(folder / f"part-{number % 100:02d}" / f"doc-{number:06d}.md", f"# {title}\n\n{text}\n")


def change_files(folder: Path, count: int) -> None:
    """Append a sentence to `count` files spread over the folder."""
    files = sorted(folder.rglob("*.md"))
    for path in files[:: max(1, len(files) // count)][:count]:
        write_text(path, path.read_text(encoding="utf-8") + "\nThis paragraph was revised for the benchmark.\n")


def phase(folder: Path, index_dir: Path, encoder: str | None) -> dict:
    """One `claimhop index` run in this process: its report, wall time and peak resident memory."""
    from claimhop.retrieval.collection import update_collection
    from claimhop.server.process_memory import peak_rss_mib

    started, cpu = time.perf_counter(), time.process_time()
    report = update_collection(folder, index_dir, encoder=encoder)
    return {**report, "wall_seconds": round(time.perf_counter() - started, 1),
            "cpu_seconds": round(time.process_time() - cpu, 1), "peak_rss_mib": round(peak_rss_mib())}


def run_phase(name: str, folder: Path, index_dir: Path, encoder: str | None) -> dict:
    command = [sys.executable, "-m", "benchmarks.lab.index_folder", "--phase", str(folder), str(index_dir)]
    if encoder:
        command += ["--encoder", encoder]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:  # say why, not only that the phase failed
        raise SystemExit(f"{name} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{name}: {row['wall_seconds']} s ({row['cpu_seconds']} s of CPU), peak {row['peak_rss_mib']} MiB, files {row['files']}, "
          f"{row['embedded']} embedded", flush=True)
    return {"phase": name, **row}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--encoder", help="as `claimhop index --encoder` (default: the bundled ONNX MiniLM)")
    parser.add_argument("--out", default="docs/results/index-folder/rows.json")
    parser.add_argument("--phase", nargs=2, metavar=("FOLDER", "INDEX_DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(Path(args.phase[0]), Path(args.phase[1]), args.encoder)))
        return
    with tempfile.TemporaryDirectory(prefix="claimhop-index-folder-") as tmp:
        folder, index_dir = Path(tmp) / "docs", Path(tmp) / "index"
        write_folder(folder, args.files)
        rows = [run_phase(f"first index, {args.files:,} files", folder, index_dir, args.encoder)]
        change_files(folder, args.changed)
        rows.append(run_phase(f"update, {args.changed} files changed", folder, index_dir, args.encoder))
        rows.append(run_phase("update, nothing changed", folder, index_dir, args.encoder))
    import os
    import platform

    machine = {"cpus": os.cpu_count(), "processor": _cpu_name(), "python": platform.python_version()}
    write_json(args.out, {"command": " ".join(sys.argv), "machine": machine, "rows": rows})
    print("\n| phase | wall s | CPU s | peak RSS MiB | files added / changed / unchanged | passages embedded |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        f = r["files"]
        print(f"| {r['phase']} | {r['wall_seconds']} | {r['cpu_seconds']} | {r['peak_rss_mib']} | {f['added']} / {f['changed']} / "
              f"{f['unchanged']} | {r['embedded']:,} of {r['passages']:,} |")


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


if __name__ == "__main__":
    main()
