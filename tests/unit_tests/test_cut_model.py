"""A model cut to its first k blocks (claimhop.lm.cut_model), on a small GGUF written here: the later blocks' tensors
are gone, `<arch>.block_count` says k, every other field and tensor is kept byte for byte, and a torn or altered copy
is never reused."""

from __future__ import annotations

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from claimhop.lm import cut_model  # noqa: E402
from claimhop.lm.weights import ShippedGGUF  # noqa: E402


def tiny_gguf(path, blocks: int = 4) -> None:
    writer = gguf.GGUFWriter(str(path), arch="qwen2")
    writer.add_block_count(blocks)
    writer.add_context_length(64)
    writer.add_token_list(["a", "b", "Yes", "No"])
    writer.add_tensor("token_embd.weight", np.arange(16, dtype=np.float32).reshape(4, 4))
    for i in range(blocks):
        writer.add_tensor(f"blk.{i}.attn_q.weight", np.full((4, 4), i, dtype=np.float32))
    writer.add_tensor("output_norm.weight", np.ones(4, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_a_cut_keeps_the_first_blocks_and_everything_outside_them(tmp_path):
    source, target = tmp_path / "m.gguf", tmp_path / "m-first2.gguf"
    tiny_gguf(source)
    reader = gguf.GGUFReader(str(source))
    cut_model.write_cut(reader, target, 2)
    cut = gguf.GGUFReader(str(target))
    assert cut_model.block_count(target) == 2
    assert [t.name for t in cut.tensors] == ["token_embd.weight", "blk.0.attn_q.weight", "blk.1.attn_q.weight",
                                             "output_norm.weight"]
    assert cut.fields["tokenizer.ggml.tokens"].contents() == ["a", "b", "Yes", "No"]
    assert cut_model.tensor_digest(cut) == cut_model.tensor_digest(reader, 2)
    assert cut_model.tensor_digest(cut) != cut_model.tensor_digest(reader)
    with pytest.raises(ValueError, match="1 to 4 blocks"):
        cut_model.write_cut(reader, tmp_path / "bad.gguf", 5)


def test_the_cut_is_made_once_and_checked(tmp_path, monkeypatch):
    source = tmp_path / "m.gguf"
    tiny_gguf(source)
    model = ShippedGGUF(name="m", module_prefix="none", parts=1, size=source.stat().st_size, sha256="f" * 64)
    monkeypatch.setattr(cut_model, "gguf_path", lambda m: source)
    made = cut_model.cut_path(3, model)
    assert made.name == "m-first3.gguf" and cut_model.block_count(made) == 3
    stamp = made.stat().st_mtime_ns
    assert cut_model.cut_path(3, model) == made and made.stat().st_mtime_ns == stamp  # reused, not rewritten
    made.with_suffix(".verified").unlink()  # a copy whose check never finished is made again
    assert cut_model.cut_path(3, model) == made and made.with_suffix(".verified").is_file()


def test_a_cut_that_does_not_match_its_source_is_refused(tmp_path, monkeypatch):
    source = tmp_path / "m.gguf"
    tiny_gguf(source)
    model = ShippedGGUF(name="m", module_prefix="none", parts=1, size=source.stat().st_size, sha256="f" * 64)
    monkeypatch.setattr(cut_model, "gguf_path", lambda m: source)
    real_write = cut_model.write_cut

    def corrupt(reader, target, blocks):
        real_write(reader, target, blocks)
        offset = gguf.GGUFReader(str(target)).tensors[-1].data_offset
        data = bytearray(target.read_bytes())
        data[offset] ^= 0xFF  # a flipped byte in the last tensor
        target.write_bytes(bytes(data))

    monkeypatch.setattr(cut_model, "write_cut", corrupt)
    with pytest.raises(cut_model.ModelWeightsError, match="do not match"):
        cut_model.cut_path(2, model)
    assert not (tmp_path / "m-first2.gguf").exists()



def test_requantised_copy_changes_block_weights_only_and_keeps_their_values(tmp_path):
    source, target = tmp_path / "m.gguf", tmp_path / "m-q4_0.gguf"
    writer = gguf.GGUFWriter(str(source), arch="qwen2")
    writer.add_block_count(2)
    weights = np.random.default_rng(0).normal(size=(4, 64)).astype(np.float32)
    writer.add_tensor("token_embd.weight", weights)
    for i in range(2):
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weights * (i + 1))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    kind = gguf.GGMLQuantizationType
    cut_model.write_cut(gguf.GGUFReader(str(source)), target, 2, {kind.F32: kind.Q4_0})
    copy = {t.name: t for t in gguf.GGUFReader(str(target)).tensors}
    assert copy["token_embd.weight"].tensor_type == kind.F32  # the embeddings are never re-quantised
    for i in range(2):
        tensor = copy[f"blk.{i}.ffn_up.weight"]
        assert tensor.tensor_type == kind.Q4_0
        back = gguf.quants.dequantize(tensor.data, kind.Q4_0).reshape(4, 64)
        assert np.abs(back - weights * (i + 1)).max() < 0.25 * (i + 1) * np.abs(weights).max()
        assert np.corrcoef(back.ravel(), weights.ravel())[0, 1] > 0.98
