"""Run settings: the issue's defaults, environment fallback, and clear errors for bad values."""

import pytest

from state.context import Context


def test_defaults_are_the_documented_numbers():
    ctx = Context()
    assert (ctx.phase1_k, ctx.phase2_k, ctx.bridge_k, ctx.tuning.loop_queries, ctx.loop_k) == (18, 18, 5, 3, 5)
    assert (ctx.max_iterations, ctx.top_k, ctx.max_sub_questions, ctx.tuning.max_gap_queries) == (2, 21, 3, 3)
    assert ctx.model == "local"


def test_environment_fills_settings_left_at_default(monkeypatch):
    monkeypatch.setenv("CLAIMHOP_MAX_ITERATIONS", "1")
    monkeypatch.setenv("CLAIMHOP_MODEL", "openai/gpt-4o-mini")
    assert Context().max_iterations == 1
    assert Context().model == "openai/gpt-4o-mini"
    assert Context(max_iterations=0).max_iterations == 0
    # A setting given explicitly wins even when it equals the default (`--set max_iterations=2`).
    assert Context.from_any({"max_iterations": 2, "model": "local"}).max_iterations == 2
    assert Context.from_any({"model": "local"}).model == "local"


@pytest.mark.parametrize(
    "settings, name",
    [({"top_k": 0}, "top_k"), ({"max_iterations": 99}, "max_iterations"), ({"phase1_k": "many"}, "phase1_k"),
     ({"retrieval_mode": "magic"}, "retrieval_mode"), ({"use_optimized_program": "yes"}, "use_optimized_program"),
     ({"top_k": 2.5}, "top_k")],
)
def test_bad_values_name_the_setting(settings, name):
    with pytest.raises(ValueError, match=name):
        Context(**settings)


def test_unknown_setting_from_a_mapping_is_named():
    with pytest.raises(ValueError, match="max_hops"):
        Context.from_any({"max_hops": 3})


def test_bad_environment_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("CLAIMHOP_TOP_K", "lots")
    with pytest.raises(ValueError, match="CLAIMHOP_TOP_K"):
        Context()


def test_settings_page_lists_every_setting_as_the_code_defines_it():
    from pathlib import Path

    from state.context import settings_table

    page = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text(encoding="utf-8")
    assert settings_table() in page, "docs/settings.md's table is stale: paste state.context.settings_table()"


def test_the_knobs_behind_the_defaults_are_taken_flat_or_as_tuning_and_named_when_wrong():
    """A benchmark's `--set fact_evidence=3` and Studio's `tuning` field reach the same knob; a bad one is named."""
    import pytest

    assert Context(fact_evidence=3).tuning.fact_evidence == Context(tuning={"fact_evidence": 3}).tuning.fact_evidence == 3
    assert Context.from_any({"tuning": {"chain_weight": 0}, "top_k": 5}).value("chain_weight") == 0.0
    assert Context.from_any({"tuning": None}).tuning.fact_evidence == 2
    with pytest.raises(ValueError, match="tuning: setting fact_evidence"):
        Context.from_any({"tuning": {"fact_evidence": "many"}})
    with pytest.raises(ValueError, match="tuning: unknown tuning setting"):
        Context.from_any({"tuning": {"fact_evidnce": 3}})
    with pytest.raises(ValueError, match="setting tuning must be a mapping"):
        Context.from_any({"tuning": [1]})
    from dataclasses import fields

    assert len([f for f in fields(Context) if f.name != "tuning"]) <= 30  # settings a user can read
