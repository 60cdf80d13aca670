"""The server's key: with CLAIMHOP_SERVER_KEY set, every request but the chat page's own files needs it.

LangGraph's custom authentication (`langgraph.json`'s `auth`) runs this handler before the API and, with
`enable_custom_route_auth`, before claimhop's own routes (/mcp, /claimhop/health, /claimhop/nodes). The key goes
in an `X-Api-Key` header (what agent-chat-ui sends from its "API key" field, and what an MCP client's `headers`
setting can carry) or as `Authorization: Bearer KEY`. Without the variable everyone is let in: the server binds
to 127.0.0.1 by default, and the docs say to set a key before binding beyond it.
"""

from __future__ import annotations

import hmac
import os

from langgraph_sdk import Auth

KEY_ENV = "CLAIMHOP_SERVER_KEY"
OPEN_PATHS = ("/ui", "/ok")  # the chat page's static files (no data; the page asks for the key) and liveness

auth = Auth()


def key_of(headers: dict, authorization: str | None) -> str:
    """The key a request carries: X-Api-Key, else a Bearer token."""
    given = headers.get(b"x-api-key") or headers.get("x-api-key") or b""
    if isinstance(given, bytes):
        given = given.decode("latin-1")
    if not given and authorization and authorization.lower().startswith("bearer "):
        given = authorization[7:]
    return given.strip()


@auth.authenticate
async def authenticate(path: str, headers: dict, authorization: str | None) -> Auth.types.MinimalUserDict:
    """Let the request in as the operator's user, or refuse it with 401 naming what is missing."""
    expected = os.environ.get(KEY_ENV, "")
    if not expected or path == "/ui" or path.startswith("/ui/") or path == "/ok":
        return {"identity": "claimhop-user", "permissions": []}
    given = key_of(headers, authorization)
    if not given:
        raise Auth.exceptions.HTTPException(status_code=401, detail="this server needs its key: send it in an "
                                            "X-Api-Key header (or Authorization: Bearer KEY)")
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise Auth.exceptions.HTTPException(status_code=401, detail="wrong server key")
    return {"identity": "claimhop-user", "permissions": []}
