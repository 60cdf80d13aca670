"""How a settings dataclass reads its values: given explicitly, else CLAIMHOP_<NAME> in the environment, else the
default; every value checked against its type and range, with the setting's name in the error."""

from __future__ import annotations

import math
import os
from dataclasses import Field, field, fields
from typing import Any, get_args, get_type_hints

ENV_PREFIX = "CLAIMHOP_"


def setting(default: Any, description: str, low: float | None = None, high: float | None = None,
            group: str = "") -> Any:
    """A field with what Studio's form and docs/settings.md show: one sentence, its range and its group."""
    return field(default=default, metadata={"description": description, "min": low, "max": high, "group": group})


def fill(obj: Any, given: dict[str, Any]) -> None:
    """Set every field of dataclass `obj` from `given`, the environment or its default, checked. A value given as
    None counts as not given (a form's empty field, JSON's null): the environment or the default fills it."""
    for f in fields(obj):
        if f.metadata.get("nested"):
            continue
        env = os.environ.get(ENV_PREFIX + f.name.upper())
        if given.get(f.name) is not None:
            value = given[f.name]
        elif env is not None:
            value = coerce(f.name, env, f.type)
        else:
            value = f.default
        setattr(obj, f.name, check(type(obj), f, value))


def coerce(name: str, raw: str, type_name: Any) -> Any:
    text = str(type_name)
    try:
        if text == "int":
            return int(raw)
        if text == "float":
            return float(raw)
        if text == "bool":
            if raw.strip().lower() in {"1", "true", "yes", "on"}:
                return True
            if raw.strip().lower() in {"0", "false", "no", "off"}:
                return False
            raise ValueError
    except ValueError:
        raise ValueError(f"environment variable {ENV_PREFIX}{name.upper()}={raw!r} is not a valid {text}") from None
    return raw


def check(owner: type, f: Field, value: Any) -> Any:
    """Reject wrong types and out-of-range numbers with a message naming the setting."""
    kind = str(f.type)
    low, high = f.metadata.get("min"), f.metadata.get("max")
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"setting {f.name} must be true or false, got {value!r}")
        return value
    if kind in {"int", "float"}:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind == "int" and not float(value).is_integer()):
            raise ValueError(f"setting {f.name} must be a{'n integer' if kind == 'int' else ' number'}, got {value!r}")
        value = int(value) if kind == "int" else float(value)
        if not math.isfinite(value):
            raise ValueError(f"setting {f.name} must be a finite number, got {value!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"setting {f.name}={value} is out of range [{low}, {high}]")
        return value
    if not isinstance(value, str):
        raise ValueError(f"setting {f.name} must be a string, got {type(value).__name__}")  # noqa: TRY004 - one error type for bad input
    if kind.startswith(("typing.Literal", "Literal")):
        allowed = get_args(get_type_hints(owner)[f.name])
        if value not in allowed:
            raise ValueError(f"setting {f.name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def table(cls: type, groups: tuple[str, ...] = ("",)) -> str:
    """A markdown table of the dataclass's settings, group by group (docs/settings.md holds it; a test checks)."""
    rows = ["| setting | default | range | meaning |", "|---|---|---|---|"]
    for group in groups:
        if group:
            rows.append(f"| **{group}** | | | |")
        for f in fields(cls):
            if f.metadata.get("group", "") != group or f.metadata.get("nested"):
                continue
            low, high = f.metadata.get("min"), f.metadata.get("max")
            span = f"{low:g}–{high:g}" if low is not None and high is not None else ""
            rows.append(f"| `{f.name}` | `{f.default!r}` | {span} | {f.metadata['description']} |")
    return "\n".join(rows)
