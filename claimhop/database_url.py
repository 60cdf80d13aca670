"""A PostgreSQL URL taken apart as libpq reads it, so a password can leave it and be put back: a Ray batch ships
its database URLs to every worker without their password (a `runtime_env` is readable by anyone who can list the
cluster's actors), and a worker takes the password from its own node (`claimhop.cli.distributed.adopt_env`).

libpq takes a password in the userinfo (`postgresql://user:PASSWORD@host/db`) and as a query parameter
(`?password=`, and `sslpassword=` for a client key's passphrase); host, port, database and user may come in
either place too (`postgresql://postgres:@/db?host=/run/postgresql`). Only URLs are taken apart; a libpq
`key=value` string loses its password words and is otherwise kept as given."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from claimhop.redact import SECRET_PARAMETERS

_URL = re.compile(r"(?P<scheme>postgres(?:ql)?://)(?:(?P<userinfo>[^@/?#]*)@)?(?P<hosts>[^/?#]*)"
                  r"(?P<path>[^?#]*)(?:\?(?P<query>[^#]*))?(?P<fragment>#.*)?", re.IGNORECASE | re.DOTALL)
_PASSWORD_WORDS = re.compile(r"\b(?:ssl)?password\s*=\s*(?:'(?:[^'\\]|\\.)*'|\S+)\s*", re.IGNORECASE)
DEFAULT_PORT = "5432"  # libpq's port when neither the URL nor PGPORT names one


def _parameters(query: str | None) -> list[tuple[str, str, str]]:
    """The query's parameters as (name lower-cased and decoded, value decoded, the text as given)."""
    found = []
    for text in (query or "").split("&"):
        if text:
            name, _, value = text.partition("=")
            found.append((unquote(name).lower(), unquote(value), text))
    return found


def without_password(value: str) -> str:
    """`value` with its password taken out (userinfo and `password` / `sslpassword` parameters), every other
    character as given; a value that is not a database URL as it is (less any libpq password words)."""
    match = _URL.fullmatch(value.strip())
    if match is None:
        return _PASSWORD_WORDS.sub("", value).strip() if "=" in value and "://" not in value else value
    user = (match["userinfo"] or "").partition(":")[0]
    kept = [text for name, _, text in _parameters(match["query"]) if name not in SECRET_PARAMETERS]
    return (match["scheme"] + (f"{user}@" if user else "") + match["hosts"] + match["path"]
            + (f"?{'&'.join(kept)}" if kept else "") + (match["fragment"] or ""))


def password_of(url: str) -> str:
    """The password a URL carries (decoded), '' when it has none."""
    match = _URL.fullmatch(url.strip())
    if match is None:
        return ""
    userinfo = match["userinfo"] or ""
    if ":" in userinfo and userinfo.partition(":")[2]:
        return unquote(userinfo.partition(":")[2])
    return next((value for name, value, _ in _parameters(match["query"]) if name == "password"), "")


def database_of(url: str) -> tuple | None:
    """What a URL connects to, as libpq resolves it from the URL alone: (each host with its port, database, user);
    None for a value that is not a database URL."""
    match = _URL.fullmatch(url.strip())
    if match is None:
        return None
    given = {name: value for name, value, _ in _parameters(match["query"])}
    hosts = unquote(match["hosts"]) or given.get("host", "")
    port = given.get("port", DEFAULT_PORT)
    pairs = tuple(_host_port(host, port) for host in hosts.split(","))
    user = unquote((match["userinfo"] or "").partition(":")[0]) or given.get("user", "")
    return pairs, unquote(match["path"].lstrip("/")) or given.get("dbname", ""), user


def _host_port(host: str, port: str) -> tuple[str, str]:
    """'HOST[:PORT]' (an IPv6 address in brackets) as (host lower-cased, port or the given default)."""
    if host.startswith("["):
        address, _, rest = host[1:].partition("]")
        return address.lower(), rest.lstrip(":") or port
    name, _, own = host.partition(":")
    return name.lower(), own or port


def with_password(url: str, password: str) -> str:
    """`url` (without a password) carrying `password`: in the userinfo when it names a user, else as the
    `password` parameter."""
    match = _URL.fullmatch(url.strip())
    if match is None or not password:
        return url
    secret = quote(password, safe="")
    user = (match["userinfo"] or "").partition(":")[0]
    if user:
        return match["scheme"] + f"{user}:{secret}@" + url.strip()[match.start("hosts"):]
    text = url.strip()
    joiner = "?" if match["query"] is None else ("&" if match["query"] else "")
    end = match.start("fragment") if match["fragment"] else len(text)
    return text[:end] + f"{joiner}password={secret}" + text[end:]
