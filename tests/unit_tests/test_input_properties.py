"""Property-based checks of every input boundary that takes a claim or settings: any value gets a usable
result or a ValueError that names the problem, never another exception from deep inside."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given, settings
from hypothesis import strategies as st

from claimhop.server.webapp import problem_with
from state.context import MAX_CLAIM_CHARS, Context
from state.tuning import TUNING_NAMES, Tuning
from state.validation import message_text, validate_claim

SETTING_NAMES = [f.name for f in fields(Context)] + list(TUNING_NAMES)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=2500), JSON_VALUES))
def test_a_claim_is_cleaned_or_refused_by_name(value):
    try:
        claim = validate_claim(value)
    except ValueError as err:
        assert "claim" in str(err)
        return
    assert claim and claim == claim.strip() and len(claim) <= MAX_CLAIM_CHARS
    assert all(ch.isprintable() for ch in claim)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(SETTING_NAMES) | st.text(max_size=8), JSON_VALUES, max_size=4))
def test_settings_are_valid_or_refused_naming_the_setting(value):
    try:
        ctx = Context.from_any(value)
    except ValueError as err:
        message = str(err)
        assert any(name in message for name in value) or "unknown setting" in message
        return
    own = Context()  # a value given as null counts as not given: the environment or the default fills it
    for name in value:
        if name == "tuning":  # a knob given both flat and in `tuning` takes the flat value
            assert all(same(ctx.tuning.value(k), own.tuning.value(k) if v is None else v)
                       for k, v in (value[name] or {}).items() if k not in value or value[k] is None)
            continue
        nested = value.get("tuning") if isinstance(value.get("tuning"), dict) else {}
        if value[name] is None and nested.get(name) is not None:
            continue  # a null flat knob leaves the one in `tuning` (checked above)
        assert same(ctx.value(name), own.value(name) if value[name] is None else value[name])


def same(kept, given) -> bool:
    """An accepted value is kept as given: a number equal to it (2.0 for an integer setting becomes 2), of the
    setting's own kind (a bool is never taken for a number, nor a number for a bool)."""
    return kept == given and isinstance(kept, bool) == isinstance(given, bool)


NUMERIC = [(owner, f) for owner in (Context, Tuning) for f in fields(owner)
           if str(f.type) in {"int", "float"} and f.metadata.get("min") is not None]


@settings(max_examples=300)
@given(st.sampled_from(NUMERIC), st.data())
def test_a_number_in_range_is_kept_as_given(setting, data):
    """The numeric cases the test above rarely reaches (random numbers are mostly out of range): an in-range
    number, int or float, is kept equal to what was given, or refused naming the setting (a fraction for an
    integer setting)."""
    owner, f = setting
    low, high = f.metadata["min"], f.metadata["max"]
    number = data.draw(st.integers(int(low), int(high)) if str(f.type) == "int" and data.draw(st.booleans())
                       else st.floats(low, high))
    given_as = {f.name: number}
    try:
        ctx = Context.from_any(given_as)
    except ValueError as err:
        assert f.name in str(err) and str(f.type) == "int" and not float(number).is_integer()
        return
    kept = ctx.value(f.name)
    assert same(kept, number) and type(kept).__name__ == str(f.type)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["input", "context", "assistant_id"]),
                       JSON_VALUES | st.fixed_dictionaries({"claim": JSON_VALUES}) |
                       st.fixed_dictionaries({"messages": JSON_VALUES}) |
                       st.fixed_dictionaries({"messages": st.lists(st.fixed_dictionaries(
                           {"role": st.sampled_from(["human", "user", "ai"]), "content": JSON_VALUES}), max_size=2)}),
                       max_size=3))
def test_the_server_check_answers_every_run_body_without_raising(body):
    reason = problem_with(body)
    assert reason is None or (isinstance(reason, str) and reason)


@given(JSON_VALUES)
def test_message_content_of_any_shape_reads_as_text(content):
    assert isinstance(message_text(content), str)
