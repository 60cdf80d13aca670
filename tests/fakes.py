"""A fake LM engine for tests about routing and wiring (not about the model): it answers each DSPy signature
with a canned JSON object chosen by the output fields the request's schema asks for."""

from __future__ import annotations

import json

import dspy
from dspy.lm15 import response_from_openai_chat


class SchemaFakeEngine:
    supports_response_schema = True
    supported_params = frozenset({"temperature", "max_tokens", "response_format"})

    def __init__(self, answers: dict[str, dict]):
        """`answers` maps one output field name that identifies a signature (e.g. "sub_questions") to its reply:
        a dict (sent as JSON), a raw string, an exception to raise, or a callable returning one of these."""
        self.answers = answers
        self.calls: list[str] = []

    def complete(self, request):
        fmt = request.config.response_format or {}
        schema = fmt.get("schema") or fmt.get("json_schema", {}).get("schema") or {}
        fields = set(schema.get("properties", {}))
        for key, reply in self.answers.items():
            if key in fields:
                self.calls.append(key)
                if callable(reply):  # a scripted fault: may sleep, raise, or answer differently per call
                    reply = reply()
                if isinstance(reply, Exception):
                    raise reply
                content = reply if isinstance(reply, str) else json.dumps(reply)
                body = {"choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": content}}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                return response_from_openai_chat(body, model=request.model)
        raise AssertionError(f"fake LM has no answer for fields {sorted(fields)}")

    def close(self):
        pass


def fake_lm(answers: dict[str, dict]) -> tuple[dspy.LM, SchemaFakeEngine]:
    engine = SchemaFakeEngine(answers)
    return dspy.LM("fake/schema-fake", engine=engine, cache=False, num_retries=0), engine



class ServedFakeEngine(SchemaFakeEngine):
    """A model behind an OpenAI-compatible server: a label-probability call (one token with logprobs, as
    claimhop.lm.label_probs.classify_served makes it) gets the first token's `top` logprobs back, or a reply without
    any when `top` is None (a server without logprobs); DSPy calls are answered as SchemaFakeEngine answers them."""

    supported_params = frozenset({*SchemaFakeEngine.supported_params, "logprobs", "top_logprobs"})

    def __init__(self, top: list[dict] | None, answers: dict[str, dict] | None = None):
        super().__init__(answers or {})
        self.top = top
        self.logprob_requests: list[dict] = []

    def complete(self, request):
        if request.config.logprobs is None:
            return super().complete(request)
        self.logprob_requests.append({"messages": request_messages(request),
                                      "max_tokens": request.config.max_tokens, "top_logprobs": request.config.logprobs})
        first = max(self.top, key=lambda item: item["logprob"])["token"] if self.top else "SUP"
        top = [{**item, "bytes": None} for item in self.top or []]
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": first}}
        if self.top:
            choice["logprobs"] = {"content": [{"token": first, "logprob": 0.0, "bytes": None, "top_logprobs": top}]}
        body = {"choices": [choice], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        return response_from_openai_chat(body, model=request.model)


def request_messages(request) -> list[dict]:
    """The chat a request sends, as {role, content}: the system message, then each turn's text."""
    system = [{"role": "system", "content": request.system}] if request.system else []
    return system + [{"role": m.role, "content": "".join(getattr(part, "text", "") for part in m.parts)}
                     for m in request.messages]


def served_fake_lm(top: list[dict] | None, answers: dict[str, dict] | None = None
                   ) -> tuple[dspy.LM, ServedFakeEngine]:
    engine = ServedFakeEngine(top, answers)
    return dspy.LM("openai/served-fake", engine=engine, cache=False, num_retries=0), engine
