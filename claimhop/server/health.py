"""GET /claimhop/health: is the server up, which models it has loaded (and how often), what they served, and
its memory; for operators and the load benchmark."""

from __future__ import annotations

import os

from starlette.requests import Request
from starlette.responses import JSONResponse

from claimhop.lm.provider import describe_model, local_engine_stats, model_loads
from claimhop.server.process_memory import memory_mib
from state.context import Context


async def health(request: Request) -> JSONResponse:
    rss, peak = memory_mib()
    return JSONResponse({
        "status": "ok",
        "default_model": describe_model(Context().model),  # CLAIMHOP_MODEL, else the bundled local model
        "pid": os.getpid(),
        "rss_mib": rss,
        "peak_rss_mib": peak,
        "model_loads": model_loads(),
        "local_model": local_engine_stats(),
    })
