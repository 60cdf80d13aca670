"""Unit tests never load the real model (the integration tests do): a test that reaches it without a fake fails
at once instead of silently running the 1.5B model for minutes."""

from __future__ import annotations

import pytest


class RealModelInUnitTest(BaseException):
    """A BaseException, so that no `except Exception` on the way (a fact recorded as unjudged, a step's fallback)
    can swallow it and let the test pass."""


@pytest.fixture(autouse=True)
def no_real_model(monkeypatch):
    import claimhop.lm.provider

    def refuse():
        raise RealModelInUnitTest("a unit test reached the real local model: give it a fake LM (tests/fakes.py) "
                                  "or pin a setting that avoids it")

    monkeypatch.setattr(claimhop.lm.provider, "_local_lm", refuse)
