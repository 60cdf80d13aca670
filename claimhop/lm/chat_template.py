"""The bundled Qwen model's chat template (ChatML) as text: what llama.cpp's chat endpoint builds from a message
list, for the paths that take raw text (the embeddings pass, a kept prompt state's prefix)."""

from __future__ import annotations


def chatml(messages: list[dict]) -> str:
    """The bundled Qwen model's chat template as text, ending where the assistant's reply starts (what llama.cpp's
    chat endpoint builds from the same messages; the embeddings endpoint takes raw text)."""
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return f"{turns}<|im_start|>assistant\n"
