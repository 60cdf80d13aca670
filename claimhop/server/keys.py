"""The server's key, read and compared one way everywhere (the middleware in front of every route and LangGraph's
custom auth): both sides are bytes (the expected key encoded as UTF-8, the sent one exactly as it came off the
wire), both stripped of surrounding ASCII whitespace, compared in constant time. So a key with non-ASCII letters
works, and a key pasted with a trailing newline matches whichever side carried it."""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable

KEY_ENV = "CLAIMHOP_SERVER_KEY"
MISSING = "this server needs its key: send it in an X-Api-Key header (or Authorization: Bearer KEY)"
WRONG = "wrong server key"


def open_path(path: str) -> bool:
    """Liveness and the chat page's static files need no key: no data (the page asks for the key itself)."""
    return path == "/ok" or path == "/ui" or path.startswith("/ui/")


def normalised(key: bytes | str) -> bytes:
    """The form both sides are compared in: UTF-8 bytes without surrounding ASCII whitespace."""
    raw = key.encode("utf-8") if isinstance(key, str) else key
    return raw.strip()


def expected_key() -> bytes:
    """The operator's key (CLAIMHOP_SERVER_KEY), normalised; empty when unset or only whitespace."""
    return normalised(os.environ.get(KEY_ENV, ""))


def header_bytes(value: bytes | str) -> bytes:
    """A header as it came off the wire: servers hand headers on as bytes, or as str decoded as Latin-1."""
    if isinstance(value, bytes):
        return value
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8")


def sent_key(headers: Iterable[tuple[bytes | str, bytes | str]]) -> bytes:
    """The key a request carries, as raw bytes: X-Api-Key, else an `Authorization: Bearer KEY` token."""
    given, bearer = b"", b""
    for name, value in headers:
        name, value = header_bytes(name).lower(), header_bytes(value)
        if name == b"x-api-key" and not given:
            given = value
        elif name == b"authorization" and value[:7].lower() == b"bearer " and not bearer:
            bearer = value[7:]
    return normalised(given or bearer)


def key_matches(sent: bytes | str, expected: bytes | str) -> bool:
    """True when the sent key is the expected one (never for an empty key), in constant time."""
    want, got = normalised(expected), normalised(sent)
    return bool(want) and hmac.compare_digest(got, want)
