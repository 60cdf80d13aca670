"""Decided experiments: each module answered one question about claimhop; README.md here lists the question, the
answer, the result page and the commit that ran it. Kept runnable (python -m benchmarks.lab.NAME --help), not
maintained: the product may have moved on since."""

from pathlib import Path


def show_table(text: str, out: Path | None, name: str) -> None:
    """Print a lab tool's table and, with --out, keep it as OUT/NAME (written atomically)."""
    from claimhop.atomic import write_text

    print(text)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / name, text)
