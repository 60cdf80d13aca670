"""LangGraph's custom authentication for the server's key (`langgraph.json`'s `auth`), a second lock behind the
middleware in claimhop.server.guard, which checks the same key the same way (claimhop.server.keys) in front of
every route. This one guards what LangGraph protects itself (its API, and with `enable_custom_route_auth`
claimhop's own routes), so the key still holds if the middleware were ever left out.

The key goes in an `X-Api-Key` header (what agent-chat-ui sends from its "API key" field, and what an MCP
client's `headers` setting can carry) or as `Authorization: Bearer KEY`. Without CLAIMHOP_SERVER_KEY everyone is
let in; the server then refuses to start on anything but loopback (claimhop.server.exposure)."""

from __future__ import annotations

import sys

from langgraph_sdk import Auth

from claimhop.server.exposure import refuse_open_exposure
from claimhop.server.keys import (
    KEY_ENV,
    MISSING,
    WRONG,
    expected_key,
    key_matches,
    open_path,
    sent_key,
)

__all__ = ["KEY_ENV", "auth", "authenticate"]
USER: Auth.types.MinimalUserDict = {"identity": "claimhop-user", "permissions": []}

auth = Auth()

if "langgraph_api.server" in sys.modules:  # a starting server loads this too: the same refusal, from here as well
    refuse_open_exposure()


@auth.authenticate
async def authenticate(path: str, headers: dict, authorization: str | None = None) -> Auth.types.MinimalUserDict:
    """Let the request in as the operator's user, or refuse it with 401 naming what is missing."""
    expected = expected_key()
    if not expected or open_path(path):
        return USER
    given = sent_key([*(headers or {}).items(), *([(b"authorization", authorization)] if authorization else [])])
    if not given:
        raise Auth.exceptions.HTTPException(status_code=401, detail=MISSING)
    if not key_matches(given, expected):
        raise Auth.exceptions.HTTPException(status_code=401, detail=WRONG)
    return USER
