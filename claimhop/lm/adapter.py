"""The DSPy adapter for a model whose engine enforces the reply's JSON schema with a grammar (the local model).

DSPy's JSONAdapter writes the reply's structure into the prompt three times: a template of the JSON object with
each field's JSON schema, a sentence on the structure, and a reminder after the input of the fields' order and
Python types. A model that cannot write anything but that JSON object does not need to read them. It still
reads each field's name, type and description, and the task. On the plan's prompt this drops the prompt from
~450 to ~300 tokens, about 2 s of prompt processing on 2 cores. That matters in a fresh process: in a long-lived
one, llama.cpp's prompt cache already holds the system message.
"""

from __future__ import annotations

import json
import textwrap

import dspy
from dspy.adapters.utils import serialize_for_json


class SchemaBoundJSONAdapter(dspy.JSONAdapter):
    """JSONAdapter's prompt without the reply structure that the engine's grammar enforces anyway. `compact`: the
    worked examples' replies are shown as the grammar then makes the model write them, with no whitespace (an
    example laid out otherwise invites the layout the grammar forbids)."""

    def __init__(self, compact: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.compact = compact

    def format_field_with_value(self, fields_with_values: dict, role: str = "user") -> str:
        if role == "user" or not self.compact:
            return super().format_field_with_value(fields_with_values, role)
        reply = {field.name: value for field, value in fields_with_values.items()}
        return json.dumps(serialize_for_json(reply), separators=(",", ":"), ensure_ascii=False)

    def format_field_structure(self, signature: type[dspy.Signature]) -> str:
        keys = ", ".join(f'"{name}"' for name in signature.output_fields)
        return f"The inputs come in [[ ## name ## ]] sections. Reply with one JSON object with the keys {keys}."

    def format_task_description(self, signature: type[dspy.Signature]) -> str:
        return "Task: " + " ".join(textwrap.dedent(signature.instructions).split())

    def user_message_output_requirements(self, signature: type[dspy.Signature]) -> str | None:
        return None


def adapter_for(model: str) -> dspy.JSONAdapter:
    """The lean adapter for the local model (its engine turns the JSON schema into a grammar), DSPy's own
    JSONAdapter for any other model, which may only be asked to follow the schema."""
    from claimhop.lm.local_engine import EngineOptions
    from claimhop.lm.provider import LOCAL

    if (model or LOCAL).strip() != LOCAL:
        return dspy.JSONAdapter()
    return SchemaBoundJSONAdapter(compact=bool(EngineOptions.from_env().compact_json))
