"""What a client may write through the server, route by route: an allow-list of the write routes claimhop serves
and, for each, of the fields its body may carry, checked before anything runs.

A run (and a cron or an assistant, which start runs later) may carry a claim that passes claimhop's input checks and
settings that pass the client policy (claimhop/program/client_policy.py), never a `webhook` (an address the server
would call) or a `langsmith_tracer` (a project the operator's LangSmith key would write to). A client may write into
a thread's state only what it could send as a run's input (`claim`, `messages`), never as one of the graph's nodes
(`as_node`, a thread created with `supersteps`), and a command may only update that way (no `goto` to a node, no
`resume`: claimhop never waits for an answer). The store is never read by the graph, so its items are data only;
their bodies still pass the key, the size limit and the field list. Any other write route is refused."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from claimhop.program.client_policy import client_settings_problem
from state.context import Context
from state.validation import message_text, validate_claim

Check = Callable[[Any], "str | None"]

RUN_FIELDS = frozenset({
    "assistant_id", "input", "command", "config", "context", "metadata", "stream_mode", "stream_subgraphs",
    "stream_resumable", "feedback_keys", "interrupt_before", "interrupt_after", "checkpoint", "checkpoint_id",
    "checkpoint_during", "multitask_strategy", "if_not_exists", "on_disconnect", "on_completion", "after_seconds",
    "durability", "cancel_on_disconnect",
    "schedule", "timezone", "end_time", "enabled", "on_run_completed",  # crons
})
NEVER_FROM_CLIENTS = {
    "webhook": "a webhook is an address the server would call; this server calls no address a client names",
    "langsmith_tracer": "traces go where the server's operator sends them, not to a project a client names",
}
CONFIG_FIELDS = frozenset({"configurable", "tags", "recursion_limit", "metadata"})
ASSISTANT_FIELDS = frozenset({"assistant_id", "graph_id", "config", "context", "metadata", "if_exists", "name",
                              "description"})
STATE_FIELDS = frozenset({"values", "checkpoint", "checkpoint_id", "as_node"})
STATE_VALUES = frozenset({"claim", "messages"})  # what a client could send as a run's input
THREAD_FIELDS = frozenset({"thread_id", "metadata", "if_exists", "ttl", "supersteps"})
STORE_FIELDS = frozenset({"namespace", "key", "value", "index", "ttl"})
AS_NODE = "as_node: a client cannot write a thread's state as one of the graph's nodes"


def given(body: dict[str, Any]) -> dict[str, Any]:
    """The fields a client set (SDKs send unset fields as null or leave them out)."""
    return {str(name): value for name, value in body.items() if value is not None}


def fields_problem(body: dict[str, Any], allowed: frozenset[str], what: str) -> str | None:
    """The first field of a body this route does not take, named."""
    for name in given(body):
        if name in NEVER_FROM_CLIENTS:
            return f"{name}: {NEVER_FROM_CLIENTS[name]}"
        if name not in allowed:
            return f"{name}: not a field this server takes in {what}"
    return None


def settings_problem(body: dict[str, Any]) -> str | None:
    """Settings may come as `context` or as `config.configurable` (LangGraph copies one into the other)."""
    config = body.get("config")
    if config is not None and not isinstance(config, dict):
        return None  # not ours to judge: LangGraph's own schema refuses it
    if isinstance(config, dict) and (problem := fields_problem(config, CONFIG_FIELDS, "config")):
        return problem
    configurable = config.get("configurable") if isinstance(config, dict) else None
    for settings in (body.get("context"), configurable):
        if settings is None:
            continue
        problem = client_settings_problem(settings)  # the client's own settings, not the operator's environment
        if problem:
            return problem
        Context.from_any(settings)
    return None


def input_problem(payload: Any) -> str | None:
    """A run's input: claimhop's input shape, with a claim that passes its checks."""
    if payload is None:  # resuming or continuing a thread without new input, or an assistant
        return None
    if not isinstance(payload, dict):
        return "input must be an object with 'claim' or 'messages'"
    if payload.get("claim") not in (None, ""):
        validate_claim(payload["claim"])
    elif payload.get("messages"):
        if not isinstance(payload["messages"], list):
            return "input.messages must be a list of messages"
        human = [m for m in payload["messages"] if isinstance(m, dict) and m.get("role", m.get("type")) in {"human", "user"}]
        if human:
            validate_claim(message_text(human[-1].get("content")))
    else:
        validate_claim(payload.get("claim", ""))
    return None


def values_problem(values: Any) -> str | None:
    """State written by a client (a thread state update, a command's update): only what a run's input may be."""
    if values is None:
        return None
    for update in values if isinstance(values, list) else [values]:
        if not isinstance(update, dict):
            return "state values must be an object with 'claim' or 'messages'"
        other = sorted(str(name) for name in update if name not in STATE_VALUES)
        if other:
            return (f"{', '.join(other)}: a client may write only claim and messages into a thread's state; "
                    "the graph's nodes write the rest")
        problem = input_problem(update)
        if problem:
            return problem
    return None


def command_problem(command: Any) -> str | None:
    """A command may update the state as an input would; it may not send the graph to a node or answer a wait."""
    if command is None or not isinstance(command, dict):
        return None
    if given(command).get("goto") is not None:
        return "command.goto: a client cannot send the graph to a node; a run starts at the beginning"
    if given(command).get("resume") is not None:
        return "command.resume: claimhop never waits for an answer, so there is nothing to resume"
    return values_problem(command.get("update"))


def run_problem(body: Any) -> str | None:
    """The reason a run, cron or batch of runs cannot start, or None."""
    if isinstance(body, list):  # /runs/batch sends a list of runs
        return next((reason for item in body if (reason := run_problem(item))), None)
    if not isinstance(body, dict):
        return None
    try:
        return (fields_problem(body, RUN_FIELDS, "a run") or settings_problem(body)
                or command_problem(body.get("command")) or input_problem(body.get("input")))
    except ValueError as err:
        return str(err)


def assistant_problem(body: Any) -> str | None:
    """An assistant keeps settings for later runs: the same settings rules as a run's."""
    if not isinstance(body, dict):
        return None
    try:
        return fields_problem(body, ASSISTANT_FIELDS, "an assistant") or settings_problem(body)
    except ValueError as err:
        return str(err)


def state_problem(body: Any) -> str | None:
    """POST /threads/{id}/state: a client's own input only, never as a node."""
    if not isinstance(body, dict):
        return None
    if given(body).get("as_node") is not None:
        return AS_NODE
    try:
        return fields_problem(body, STATE_FIELDS, "a thread state update") or values_problem(body.get("values"))
    except ValueError as err:
        return str(err)


def thread_problem(body: Any) -> str | None:
    """POST /threads: a new thread, without state written as the graph's nodes (`supersteps`)."""
    if not isinstance(body, dict):
        return None
    if given(body).get("supersteps"):
        return "supersteps: " + AS_NODE.partition(": ")[2]
    return fields_problem(body, THREAD_FIELDS, "a new thread")


def store_problem(body: Any) -> str | None:
    """PUT /store/items: data only (the graph never reads the store)."""
    return fields_problem(body, STORE_FIELDS, "a store item") if isinstance(body, dict) else None


def no_check(body: Any) -> str | None:
    """Searches, counts, cancels, deletes and MCP messages: the key and the size limit are their checks."""
    return None


UUID = r"[^/]+"
WRITE_ROUTES: list[tuple[frozenset[str], re.Pattern[str], Check]] = [
    (frozenset({m}), re.compile(p), check) for m, p, check in [
        ("POST", rf"/(threads/{UUID}/)?runs(/stream|/wait)?", run_problem),
        ("POST", r"/runs/batch", run_problem),
        ("POST", rf"/(threads/{UUID}/)?runs/crons", run_problem),
        ("PATCH", rf"/runs/crons/{UUID}", run_problem),
        ("POST", r"/assistants", assistant_problem),
        ("PATCH", rf"/assistants/{UUID}", assistant_problem),
        ("POST", rf"/threads/{UUID}/state", state_problem),
        ("POST", r"/threads", thread_problem),
        ("PUT", r"/store/items", store_problem),
        ("POST", r"/threads/(search|count|prune)", no_check),
        ("POST", rf"/threads/{UUID}/(history|copy|state/checkpoint)", no_check),
        ("PATCH", rf"/threads/{UUID}", no_check),
        ("POST", rf"/(runs|threads/{UUID}/runs/{UUID})/cancel", no_check),
        ("POST", r"/runs/crons/(search|count)", no_check),
        ("POST", r"/assistants/(search|count)", no_check),
        ("POST", rf"/assistants/{UUID}/(latest|versions)", no_check),
        ("POST", r"/store/(items/search|namespaces)", no_check),
        ("POST", r"/mcp", no_check),  # the tool checks its claim and settings, and its run passes run_problem
        ("DELETE", rf"/(threads|assistants|runs/crons)/{UUID}|/threads/{UUID}/runs/{UUID}|/store/items|/mcp",
         no_check),
    ]
]


def write_check(method: str, path: str) -> Check | None:
    """How a write to this route is checked, or None when the server takes no writes there."""
    for methods, pattern, check in WRITE_ROUTES:
        if method in methods and pattern.fullmatch(path):
            return check
    return None


def problem_with(body: dict[str, Any]) -> str | None:
    """The reason a run request cannot succeed, or None (the run routes' check, kept under its old name)."""
    return run_problem(body)
