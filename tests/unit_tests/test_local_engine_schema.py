"""The local engine bounds what the grammar allows, so a small model cannot loop until its output is cut off."""

from claimhop.lm.local_engine import MAX_STRING, _openai_response_format
from claimhop.signatures import MAX_REPLY_ITEMS


def test_lists_and_strings_are_capped_and_enums_left_alone():
    dspy_format = {"type": "json_schema", "name": "Out", "strict": True, "schema": {
        "type": "object", "properties": {
            "queries": {"type": "array", "items": {"type": "string"}},
            "verdict": {"type": "string", "enum": ["SUPPORTED", "CONTRADICTED"]},
            "statements": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}}}},
        }}}
    schema = _openai_response_format(dspy_format)["json_schema"]["schema"]
    props = schema["properties"]
    assert props["queries"]["maxItems"] == MAX_REPLY_ITEMS and props["queries"]["items"]["maxLength"] == MAX_STRING
    assert "maxLength" not in props["verdict"]
    assert props["statements"]["items"]["properties"]["text"]["maxLength"] == MAX_STRING


def test_openai_shape_is_passed_through_bounded():
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "array", "maxItems": 2}}}
    assert _openai_response_format(fmt)["json_schema"]["schema"]["maxItems"] == 2


def test_a_served_model_gets_the_same_list_cap_as_the_grammar(monkeypatch):
    """One cap: the grammar stops a local reply's lists at MAX_REPLY_ITEMS, and the program keeps no more of a
    served model's reply, which no grammar bounds (the fake engine, like a served model, sends no grammar)."""
    from fakes import fake_lm

    import claimhop.program.runtime
    from claimhop.program.plan.stage import Plan
    from state.context import Context

    facts, names = [f"Fact number {i} is true." for i in range(8)], [f"Name {i}" for i in range(8)]
    lm, _ = fake_lm({"facts": {"facts": facts, "entities": names}})
    monkeypatch.setattr(claimhop.program.runtime, "get_lm", lambda model: lm)
    result = Plan(Context())(claim="A claim with many facts and names.")
    assert result.facts == facts[:MAX_REPLY_ITEMS] and result.gap["entities"] == names[:MAX_REPLY_ITEMS]


def gap_analysis_format() -> dict:
    """The JSON schema DSPy sends for the gap analysis (claimhop.signatures.GapAnalysis)."""
    from dspy.adapters.json_adapter import _get_structured_outputs_response_format

    from claimhop.signatures import GapAnalysis

    schema = _get_structured_outputs_response_format(GapAnalysis).model_json_schema()
    return {"type": "json_schema", "name": "GapAnalysis", "strict": True, "schema": schema}


def test_a_reply_budget_shares_max_tokens_out_among_the_strings():
    """reply_budget: the longest reply the grammar allows fits max_tokens at CHARS_PER_TOKEN, so it is seldom cut
    off mid-JSON (the gap analysis copied long 'title: sentence' entries into three lists and ran into the 320-token
    cap); off, each string may take MAX_STRING characters."""
    from claimhop.lm.local_engine import CHARS_PER_TOKEN, string_slots

    free = _openai_response_format(gap_analysis_format())["json_schema"]["schema"]
    budgeted = _openai_response_format(gap_analysis_format(), max_tokens=320)["json_schema"]["schema"]
    lists = ("missing", "entities", "queries")
    assert all(free["properties"][name]["items"]["maxLength"] == MAX_STRING for name in lists)
    caps = {budgeted["properties"][name]["items"]["maxLength"] for name in lists}
    assert len(caps) == 1 and 40 <= caps.pop() < MAX_STRING
    longest = sum(budgeted["properties"][name]["maxItems"] * (budgeted["properties"][name]["items"]["maxLength"] + 4)
                  for name in lists)
    assert string_slots(budgeted) == 3 * MAX_REPLY_ITEMS and longest <= 320 * CHARS_PER_TOKEN
    assert budgeted["properties"]["complete"] == free["properties"]["complete"]  # only strings change


def test_a_schemas_own_string_cap_stands_unless_a_budget_is_tighter():
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {
        "type": "object", "properties": {"note": {"type": "string", "maxLength": 400}}}}}
    assert _openai_response_format(fmt)["json_schema"]["schema"]["properties"]["note"]["maxLength"] == 400
    assert _openai_response_format(fmt, max_tokens=20)["json_schema"]["schema"]["properties"]["note"]["maxLength"] == 72
