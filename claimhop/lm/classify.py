"""One classification by whichever model a run uses: the local model with its reply constrained to the labels
and their probabilities read from its tokens, a served model through its logprobs, and a served model without
logprobs asked through DSPy (its label then counts as certain). The facts verifier's NLI, the QA verifier's
options and the re-ranker's yes/no all go through here."""

from __future__ import annotations

from collections.abc import Callable

from claimhop.lm.label_probs import (
    LabelError,
    NoLogprobs,
    classify_local,
    classify_served,
)
from claimhop.lm.provider import LOCAL, get_lm, local_engine


def classify(model: str, signature: type, user: str, labels: tuple[str, ...],
             ask_dspy: Callable[[], str]) -> dict[str, float]:
    """P(each label), the signature's instruction as the system message. `ask_dspy` asks a model without logprobs through DSPy and returns its label; a reply that
    is none of the labels raises LabelError."""
    if (model or LOCAL) == LOCAL:
        return classify_local(local_engine(), signature, user, labels)[1]
    try:
        return classify_served(get_lm(model), signature, user, labels)[1]
    except NoLogprobs:
        label = ask_dspy()
    if label not in labels:
        raise LabelError(f"reply {str(label)[:40]!r} is not one of {', '.join(labels)}")
    return {name: float(name == label) for name in labels}
