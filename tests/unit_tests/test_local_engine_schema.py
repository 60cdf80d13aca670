"""The local engine bounds what the grammar allows, so a small model cannot loop until its output is cut off."""

from claimhop.lm.local_engine import MAX_ITEMS, MAX_STRING, _openai_response_format


def test_lists_and_strings_are_capped_and_enums_left_alone():
    dspy_format = {"type": "json_schema", "name": "Out", "strict": True, "schema": {
        "type": "object", "properties": {
            "queries": {"type": "array", "items": {"type": "string"}},
            "verdict": {"type": "string", "enum": ["SUPPORTED", "CONTRADICTED"]},
            "statements": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}}}},
        }}}
    schema = _openai_response_format(dspy_format)["json_schema"]["schema"]
    props = schema["properties"]
    assert props["queries"]["maxItems"] == MAX_ITEMS and props["queries"]["items"]["maxLength"] == MAX_STRING
    assert "maxLength" not in props["verdict"]
    assert props["statements"]["items"]["properties"]["text"]["maxLength"] == MAX_STRING


def test_openai_shape_is_passed_through_bounded():
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "array", "maxItems": 2}}}
    assert _openai_response_format(fmt)["json_schema"]["schema"]["maxItems"] == 2
