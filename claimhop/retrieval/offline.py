"""Offline switches for Hugging Face libraries, set in code so no run ever reaches a model hub."""

import os

_FLAGS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def force_offline() -> None:
    """Set the offline flags before any Hugging Face import reads them."""
    for name, value in _FLAGS.items():
        os.environ.setdefault(name, value)


force_offline()
