"""GET /claimhop/health: is the server up, which models it has loaded (and how often), what they served, and
its memory; for operators and the load benchmark."""

from __future__ import annotations

import os
import resource
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse

from lm.provider import local_engine_stats, model_loads


def rss_mib() -> float:
    """Resident memory of this process now (Linux /proc), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def peak_rss_mib() -> float:
    """The most resident memory this process has used so far, in MiB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


async def health(request: Request) -> JSONResponse:
    return JSONResponse({
        "status": "ok",
        "pid": os.getpid(),
        "rss_mib": rss_mib(),
        "peak_rss_mib": peak_rss_mib(),
        "model_loads": model_loads(),
        "local_model": local_engine_stats(),
    })
