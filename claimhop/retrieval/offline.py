"""Offline switches for Hugging Face libraries and LiteLLM, set in code so no run ever reaches a model hub (or, with
a served model, LiteLLM's price list on GitHub: it tries at import and warns when it cannot)."""

import os

_FLAGS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}


def force_offline() -> None:
    """Set the offline flags before any Hugging Face import reads them."""
    for name, value in _FLAGS.items():
        os.environ.setdefault(name, value)


force_offline()
