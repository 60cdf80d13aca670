"""The DSPy adapter for a model whose engine enforces the reply's JSON schema with a grammar (the local model).

DSPy's JSONAdapter writes the reply's structure into the prompt three times: a template of the JSON object with
each field's JSON schema, a sentence on the structure, and a reminder after the input of the fields' order and
Python types. A model that cannot write anything but that JSON object does not need to read them. It still
reads each field's name, type and description, and the task. On the plan's prompt this drops the prompt from
~450 to ~300 tokens, about 2 s of prompt processing on 2 cores. That matters in a fresh process: in a long-lived
one, llama.cpp's prompt cache already holds the system message.
"""

from __future__ import annotations

import textwrap

import dspy


class SchemaBoundJSONAdapter(dspy.JSONAdapter):
    """JSONAdapter's prompt without the reply structure that the engine's grammar enforces anyway."""

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
    from claimhop.lm.provider import LOCAL

    return SchemaBoundJSONAdapter() if (model or LOCAL).strip() == LOCAL else dspy.JSONAdapter()
