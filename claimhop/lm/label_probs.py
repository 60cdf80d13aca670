"""Classification by the local model with the answer constrained to a fixed set of labels and each label's
probability read from the model's own token distribution, so there is no free text to parse and the
confidence is the model's, not a number it was asked to write. A model behind an OpenAI-compatible server
(Ollama, vLLM, llama.cpp's server, a hosted API) is asked the same way through the server's `logprobs`, without
the grammar, which such servers do not share (`classify_served`).

llama.cpp reports the top tokens at each generated position before its grammar masks them; the first position
decides the label, so each top token that starts a label adds its probability to that label, and the sums are
normalised over the labels.
"""

from __future__ import annotations

import logging
import math
from contextvars import ContextVar

from claimhop.lm.usage import LEDGER
from claimhop.signatures import instructions

# the top tokens read at the label's position: the most OpenAI's `top_logprobs` allows, so a served model is asked
# the same as the local one; set with the facts verifier (9b03c4d), not tuned
TOP_TOKENS = 20


class LabelError(ValueError):
    """The model's reply is not one of the labels (after the grammar, only a broken model does this)."""


def label_distribution(top_tokens: list[dict], labels: tuple[str, ...], chosen: str | None = None) -> dict[str, float]:
    """P(label) from one position's top tokens [{"token", "logprob"}]: a token starts a label when, without case
    or surrounding space, it is a prefix of it. When no token starts a label, everything goes to `chosen` (the
    label the grammar produced), or is spread evenly without one."""
    mass = dict.fromkeys(labels, 0.0)
    for item in top_tokens:
        token = (item.get("token") or "").strip().lower()
        for label in labels:
            if token and label.lower().startswith(token):
                mass[label] += math.exp(float(item["logprob"]))
    total = sum(mass.values())
    if total <= 0:
        return {label: float(label == chosen) if chosen in labels else 1.0 / len(labels) for label in labels}
    return {label: value / total for label, value in mass.items()}


def label_started_by(reply: str, labels: tuple[str, ...]) -> str:
    """The one label that `reply` (the label's first token, or the whole label) starts; LabelError otherwise."""
    text = reply.strip().lower()
    started = [label for label in labels if text and label.lower().startswith(text)]
    if len(started) != 1:
        raise LabelError(f"reply {reply[:40]!r} is not one of {', '.join(labels)}")
    return started[0]


def grammar_for(labels: tuple[str, ...]) -> str:
    assert len({label[:1].lower() for label in labels}) == len(labels), "labels must start with different letters"
    return "root ::= " + " | ".join(f'"{label}"' for label in labels)


def classify_local(engine, signature: type, user: str, labels: tuple[str, ...]) -> tuple[str, dict[str, float]]:
    """One constrained call on the in-process llama.cpp engine, the signature's instruction as the system message:
    (label, probability of each label)."""
    system = instructions(signature)
    LEDGER.asked()  # straight to the engine, never through DSPy's cache
    # One generated token: the labels start with different letters, so under the grammar the first token
    # decides the label (the rest is forced), and the probabilities are read at that position anyway. The
    # forced tokens would cost a decoding step each (about 0.08 s on 2 cores) and change nothing.
    reply = engine.chat({
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "grammar": grammar_for(labels), "max_tokens": 1, "temperature": 0.0,
        "logprobs": True, "top_logprobs": TOP_TOKENS,
    })
    choice = reply["choices"][0]
    label = label_started_by((choice.get("message", {}).get("content") or ""), labels)
    positions = (choice.get("logprobs") or {}).get("content") or []
    if not positions:
        return label, {name: float(name == label) for name in labels}
    return label, label_distribution(positions[0].get("top_logprobs") or [], labels, chosen=label)


_ONE_TOKEN = ContextVar("one_token_call", default=False)


class _OneTokenStop(logging.Filter):
    """Drops DSPy's "response was truncated" warning for the one-token call: it stops at its length on purpose,
    and DSPy names its default max_tokens (512), not the call's, so every served verdict warned of a truncation
    that never happened."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_ONE_TOKEN.get() and "truncated" in record.getMessage())


logging.getLogger("dspy.clients.lm").addFilter(_OneTokenStop())


class NoLogprobs(RuntimeError):
    """The model's server returned no token probabilities (it does not offer `logprobs`)."""


def classify_served(lm, signature: type, user: str, labels: tuple[str, ...],
                    shots: list[tuple[str, str]] = ()) -> tuple[str, dict[str, float]]:
    """One call on a served model (a dspy.LM over LiteLLM): one token, its top tokens' log-probabilities read
    as in `classify_local`. Without a grammar the model may start with something else; only tokens that start
    a label count, renormalised. `shots`: worked examples (user message, label) sent before the question, as
    turns of the chat (an optimised predictor's demos). NoLogprobs when the server gives none; LabelError when no
    top token starts a label."""
    system = instructions(signature)
    LEDGER.asked()
    examples = [turn for question, label in shots
                for turn in ({"role": "user", "content": question}, {"role": "assistant", "content": label})]
    messages = [{"role": "system", "content": system}, *examples, {"role": "user", "content": user}]
    flag = _ONE_TOKEN.set(True)
    try:
        response = lm.forward(messages=messages, max_tokens=1, temperature=0.0, logprobs=True,
                              top_logprobs=TOP_TOKENS)
    finally:
        _ONE_TOKEN.reset(flag)
    choice = (response.model_dump() if hasattr(response, "model_dump") else dict(response))["choices"][0]
    positions = (choice.get("logprobs") or {}).get("content") or []
    if not positions:
        raise NoLogprobs(f"{lm.model} returned no logprobs")
    top = positions[0].get("top_logprobs") or []
    if not any(label.lower().startswith((item.get("token") or "").strip().lower())
               for item in top if (item.get("token") or "").strip() for label in labels):
        raise LabelError(f"{lm.model} started its reply with none of {', '.join(labels)}")
    probs = label_distribution(top, labels)
    return max(probs, key=probs.get), probs
