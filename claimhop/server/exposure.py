"""An exposed server is never open by accident: a LangGraph server bound beyond loopback without
CLAIMHOP_SERVER_KEY refuses to start, in one line naming the variable (CLAIMHOP_ALLOW_OPEN=1 is the explicit way
out, for an operator whose own proxy checks every request).

Where the server binds is read from what the process can see, all of it: `langgraph dev` puts the URL it serves
at in LANGGRAPH_API_URL before it starts uvicorn (its reload workers inherit it; with `--tunnel` it is the public
tunnel's URL), and `langgraph dev --host H` or `uvicorn ... --host H` leave the host in the command line. A server
that shows neither (a container image's entry point) is taken as exposed: that is where containers bind."""

from __future__ import annotations

import ipaddress
import os
import sys
from urllib.parse import urlsplit

from claimhop.server.keys import KEY_ENV, expected_key

ALLOW_OPEN_ENV = "CLAIMHOP_ALLOW_OPEN"
UNKNOWN = "an address this process does not show"


def argv_host(argv: list[str]) -> str | None:
    """The value of `--host H` or `--host=H` on a command line, the last one given."""
    host = None
    for i, arg in enumerate(argv):
        if arg == "--host" and i + 1 < len(argv):
            host = argv[i + 1]
        elif arg.startswith("--host="):
            host = arg.partition("=")[2]
    return host


def bind_hosts(env: dict[str, str], argv: list[str]) -> list[str]:
    """Every host this process says it serves on (may be empty when it says nothing)."""
    hosts = []
    if (host := argv_host(argv)) is not None:
        hosts.append(host)
    if url := env.get("LANGGRAPH_API_URL", "").strip():
        hosts.append(urlsplit(url).hostname or url)
    return hosts


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost: only this machine reaches them. 0.0.0.0 and :: mean every interface."""
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def exposure_problem(env: dict[str, str], argv: list[str], key: bytes) -> str | None:
    """The one-line reason this server must not start, or None (loopback, a key, or an explicit opt-out)."""
    if key or env.get(ALLOW_OPEN_ENV, "").strip() == "1":
        return None
    hosts = bind_hosts(env, argv)
    exposed = [h for h in hosts if not is_loopback(h)] or ([] if hosts else [UNKNOWN])
    if not exposed:
        return None
    return (f"claimhop: refusing to serve on {exposed[0]} without a key: set {KEY_ENV} (every request must then "
            f"send it), or {ALLOW_OPEN_ENV}=1 if a proxy of your own checks every request")


def refuse_open_exposure() -> None:
    """Called as the server loads claimhop's app: exit with the one-line reason when it must not start."""
    problem = exposure_problem(dict(os.environ), list(sys.argv), expected_key())
    if problem:
        print(problem, file=sys.stderr, flush=True)
        os._exit(2)  # a SystemExit raised while uvicorn imports the app would come back as a traceback
