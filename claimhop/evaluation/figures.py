"""Plots are written the way every other file is: to a temporary file, then renamed into place."""

from __future__ import annotations

from pathlib import Path

from claimhop.atomic import atomic_path


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend (no screen on these machines)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig, path: Path, dpi: int = 110) -> Path:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format="png")
    pyplot().close(fig)
    return path
