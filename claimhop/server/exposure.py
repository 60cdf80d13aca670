"""An exposed server is never open by accident: a LangGraph server listening beyond loopback without
CLAIMHOP_SERVER_KEY refuses to start, in one line naming the address and the variable (CLAIMHOP_ALLOW_OPEN=1 is the
explicit way out, for an operator whose own proxy checks every request).

Where the server listens is read from the sockets this process listens on (psutil: TCP sockets in LISTEN), however
they were opened: `langgraph dev --host`, `uvicorn --host`, `UVICORN_HOST`, `gunicorn -b`, a socket handed over by a
supervisor. A server loads its app before it listens (uvicorn binds after the app's startup), so the check runs when
the app is loaded and again, from a watcher thread, while the process runs (its first hour); and the middleware in
front of every route (claimhop.server.guard) asks too, so no request is answered in between. What the process says about
itself still counts as well: `--host H` on its command line and the URL `langgraph dev` announces in
LANGGRAPH_API_URL (with `--tunnel` the public tunnel's URL: the socket is on loopback, the server is not). Where the
sockets cannot be read (psutil missing or refused) a server that names no host is taken as exposed, as before."""

from __future__ import annotations

import ipaddress
import os
import sys
import threading
import time
from urllib.parse import urlsplit

from claimhop.server.keys import KEY_ENV, expected_key

ALLOW_OPEN_ENV = "CLAIMHOP_ALLOW_OPEN"
UNKNOWN = "an address this process does not show"
WATCH_EVERY_S = 0.05  # how often the watcher looks for the server's listening sockets until it sees them
WATCH_FOR_S = 3600.0  # how long it keeps looking (a server that loads its graphs first may take minutes to listen)
# How often it looks once the process listens: a server may open its own socket after another part of the process
# opened one on loopback (the in-process model's listener), so seeing one socket does not end the watch.
SETTLED_EVERY_S = 0.5
_WATCHING = threading.Lock()  # held by the one watcher a process starts
_STOP = threading.Event()  # set to end the watcher (tests end theirs)
_CLEARED = False  # set once the process was seen listening on loopback only: nothing more to check


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


def listening_addresses() -> list[str] | None:
    """The addresses this process's TCP sockets listen on ([] before it listens), or None when they cannot be read
    (psutil missing, or the system refuses)."""
    try:
        import psutil
    except ImportError:
        return None
    try:
        process = psutil.Process()
        connections = getattr(process, "net_connections", None) or process.connections  # psutil < 6: connections
        return sorted({c.laddr.ip for c in connections(kind="inet") if c.status == psutil.CONN_LISTEN and c.laddr})
    except (psutil.Error, OSError):
        return None


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and localhost: only this machine reaches them. 0.0.0.0 and ::
    mean every interface."""
    name = host.strip().strip("[]").rstrip(".").lower().partition("%")[0]
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def exposure_problem(env: dict[str, str], argv: list[str], key: bytes,
                     listening: list[str] | None = None) -> str | None:
    """The one-line reason this server must not serve, or None (loopback, a key, or an explicit opt-out).

    `listening` is what `listening_addresses` read: the addresses the process listens on (any beyond loopback
    refuses, whatever the command line or LANGGRAPH_API_URL say), [] when it does not listen yet (the command line
    and LANGGRAPH_API_URL decide for now), None when they cannot be read (then a server naming no host counts as
    exposed)."""
    if key or env.get(ALLOW_OPEN_ENV, "").strip() == "1":
        return None
    hosts = bind_hosts(env, argv)
    exposed = [h for h in [*(listening or []), *hosts] if not is_loopback(h)]
    if not exposed and listening is None and not hosts:
        exposed = [UNKNOWN]
    if not exposed:
        return None
    return (f"claimhop: refusing to serve on {exposed[0]} without a key: set {KEY_ENV} (every request must then "
            f"send it), or {ALLOW_OPEN_ENV}=1 if a proxy of your own checks every request")


def keyed_or_opted_out() -> bool:
    """A key is set, or the operator's explicit opt-out: the server may listen anywhere."""
    return bool(expected_key()) or os.environ.get(ALLOW_OPEN_ENV, "").strip() == "1"


def serving_cleared() -> bool:
    """Whether nothing is left to check: the process was seen listening on loopback only, or it has a key or the
    operator's opt-out (no system call, so the middleware asks this on the event loop)."""
    return _CLEARED or keyed_or_opted_out()


def serving_problem() -> str | None:
    """For the middleware, on each request until the process was seen listening on loopback only: why this request
    must not be answered (the server listens beyond loopback without a key), or None."""
    global _CLEARED
    if serving_cleared():
        return None
    listening = listening_addresses()
    problem = exposure_problem(dict(os.environ), list(sys.argv), b"", listening or [])
    if problem is None and listening:
        _CLEARED = True
    return problem


def stop(problem: str) -> None:
    print(problem, file=sys.stderr, flush=True)
    os._exit(2)  # a SystemExit raised while uvicorn imports the app would come back as a traceback


def watch_until_listening(every: float = WATCH_EVERY_S, limit: float = WATCH_FOR_S,
                          done: threading.Event = _STOP) -> None:
    """Look at this process's sockets for `limit` seconds (often until it first listens, then every
    SETTLED_EVERY_S), and stop it as soon as one is beyond loopback without a key; `done` ends the watch early."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        listening = listening_addresses()
        if listening is None:
            return  # the sockets cannot be read: the check at load decided from the command line
        problem = listening and exposure_problem(dict(os.environ), list(sys.argv), expected_key(), listening)
        if problem and not done.is_set():
            stop(problem)
            return
        if done.wait(max(every, SETTLED_EVERY_S) if listening else every):
            return


def refuse_open_exposure() -> None:
    """Called as the server loads claimhop's app: exit with the one-line reason when it must not start, from what
    the process shows now; until it listens, a watcher thread looks again (one per process)."""
    if keyed_or_opted_out():
        return
    listening = listening_addresses()
    problem = exposure_problem(dict(os.environ), list(sys.argv), b"", listening)
    if problem:
        stop(problem)
        return
    if listening is not None and _WATCHING.acquire(blocking=False):
        threading.Thread(target=watch_until_listening, kwargs={"done": _STOP}, name="claimhop-bind-check",
                         daemon=True).start()
