"""A copy of the shipped GGUF keeping only its first k transformer blocks: llama.cpp loads it as a k-layer model whose
last-token embedding is the state after block k (through the final norm), read at about k/28 of a full pass.

The passage verifier reads a middle layer this way (claimhop.program.verify.reading): made once at first use from the
hash-checked model file, written atomically, and checked by a hash of its tensors (the bytes the reader sees), so a
different gguf-py layout still verifies while a wrong or torn file never loads. The pattern is gguf-py's own
`gguf_new_metadata.py`: copy every field, drop `blk.{i}.*` for i >= k, set `<arch>.block_count = k`."""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path

from claimhop.atomic import atomic_path, write_text
from claimhop.lm.weights import (
    QWEN_CODER_1_5B,
    ModelWeightsError,
    ShippedGGUF,
    gguf_path,
)

BLOCK = re.compile(r"^blk\.(\d+)\.")
_MAKING = threading.Lock()  # one cut made at a time in a process (the CLI makes it in the background too)


def block_of(tensor_name: str) -> int | None:
    """The transformer block a tensor belongs to, or None for the embeddings, final norm and output layer."""
    found = BLOCK.match(tensor_name)
    return int(found.group(1)) if found else None


def block_count(path: Path) -> int:
    """How many transformer blocks the GGUF at `path` has (its `<arch>.block_count`)."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    arch = reader.fields["general.architecture"].contents()
    return int(reader.fields[f"{arch}.block_count"].contents())


def tensor_digest(reader, blocks: int | None = None) -> str:
    """sha256 over every tensor's name, type, shape and bytes in a GGUFReader's file, in file order (what llama.cpp
    computes with); with `blocks`, over the tensors a cut to that many blocks keeps."""
    digest = hashlib.sha256()
    for tensor in reader.tensors:
        index = block_of(tensor.name)
        if blocks is not None and index is not None and index >= blocks:
            continue
        digest.update(f"{tensor.name}:{int(tensor.tensor_type)}:{list(tensor.shape)}\n".encode())
        digest.update(memoryview(tensor.data).cast("B"))
    return digest.hexdigest()


def write_cut(reader, target: Path, blocks: int, requantize: dict[int, int] | None = None) -> None:
    """Write the GGUF `reader` reads with its first `blocks` transformer blocks only (atomically: a crash leaves no
    file). `requantize` ({GGML type: GGML type}, e.g. Q4_K -> Q4_0) re-quantises the blocks' weights of those types
    with gguf-py's reference quantisers: a file whose kernels llama.cpp may run faster (benchmarks.lab.quant_files)."""
    import gguf

    arch = reader.fields["general.architecture"].contents()
    total = int(reader.fields[f"{arch}.block_count"].contents())
    if not 1 <= blocks <= total:
        raise ValueError(f"a cut model keeps 1 to {total} blocks, not {blocks}")
    kept = [t for t in reader.tensors if (block_of(t.name) is None or block_of(t.name) < blocks)]
    with atomic_path(target, suffix=".gguf") as tmp:
        writer = gguf.GGUFWriter(str(tmp), arch=arch, endianess=reader.endianess)
        for field in reader.fields.values():
            if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
                continue  # the writer writes these itself
            kind = field.types[0]
            sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
            value = blocks if field.name == f"{arch}.block_count" else field.contents()
            writer.add_key_value(field.name, value, kind, sub_type=sub)
        written = [converted(tensor, requantize or {}) for tensor in kept]
        for tensor, (data, kind) in zip(kept, written):
            writer.add_tensor_info(tensor.name, data.shape, data.dtype, data.nbytes, kind)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        for data, _ in written:
            writer.write_tensor_data(data)
        writer.close()


def converted(tensor, requantize: dict[int, int]):
    """(bytes, GGML type) of a block weight as `requantize` maps its type, else the tensor as it is; the embeddings
    and output layer are never re-quantised (llama.cpp's own Q4_0 files keep them finer too)."""
    import gguf
    from gguf.quants import dequantize, quantize

    source = gguf.GGMLQuantizationType(int(tensor.tensor_type))
    target = requantize.get(source)
    if target is None or block_of(tensor.name) is None:
        return tensor.data, tensor.tensor_type
    weights = dequantize(tensor.data, source).reshape([int(n) for n in reversed(tensor.shape)])
    target = gguf.GGMLQuantizationType(int(target))
    return quantize(weights.astype("float32"), target), target


def cut_path(blocks: int, model: ShippedGGUF = QWEN_CODER_1_5B) -> Path:
    """The model cut to its first `blocks` blocks: made on first use (a few seconds) next to the assembled model,
    reused after; its tensors are checked against the source's on making, and their hash is kept beside it."""
    source = gguf_path(model)
    target = source.with_name(f"{model.name}-first{blocks}.gguf")
    marker = target.with_suffix(".verified")
    with _MAKING:
        if target.is_file() and marker.is_file() and marker.read_text().strip().startswith(f"{model.sha256}:"):
            return target
        return _make_cut(source, target, marker, blocks, model)


def _make_cut(source: Path, target: Path, marker: Path, blocks: int, model: ShippedGGUF) -> Path:
    import gguf

    reader = gguf.GGUFReader(str(source))  # parsing the tokenizer's fields takes ~12 s: read once
    write_cut(reader, target, blocks)
    expected = tensor_digest(reader, blocks)
    found = tensor_digest(gguf.GGUFReader(str(target)))
    if found != expected:
        target.unlink(missing_ok=True)
        raise ModelWeightsError(f"{target.name}: its tensors do not match the first {blocks} blocks of {model.name}")
    write_text(marker, f"{model.sha256}:{found}")
    return target
