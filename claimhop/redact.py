"""A database URL as messages may show it: no password, wherever the URL carries one. libpq takes a password in
the userinfo (`postgresql://user:PASSWORD@host/db`) and as a query parameter (`?password=...`, also
`sslpassword=` for a client key's passphrase), so dropping the userinfo alone still prints the second kind.

An error as a server's clients may see it (`client_message`): also without the operator's paths, hosts and user
names; the server's log keeps the whole of it."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SECRET_PARAMETERS = frozenset({"password", "sslpassword"})
HIDDEN = "***"


def shown_url(url: str) -> str:
    """`url` with its userinfo dropped and every password parameter's value replaced by ***; any other text as
    given."""
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL after all (an unbalanced '[' in a host): show nothing of what follows the scheme
        return url.partition("://")[0] + "://" + HIDDEN
    host = parts.netloc.rpartition("@")[2]
    query = urlencode([(name, HIDDEN if name.lower() in SECRET_PARAMETERS else value)
                       for name, value in parse_qsl(parts.query, keep_blank_values=True)], safe="*")
    return urlunsplit((parts.scheme, host, parts.path, query, parts.fragment))


# What an error shown to a server's clients must not carry (`client_message`): the operator's files and folders (an
# install's site-packages, a home folder and with it a user name, /work/...), database addresses, user names and
# hosts. Each pattern's match is replaced; what is left still says what went wrong.
_DATABASE_URL = re.compile(r"\b(postgres(?:ql)?(?:\+\w+)?)://[^\s'\"<>)\]]*", re.IGNORECASE)
_USERINFO = re.compile(r"\b([a-z][a-z0-9+.-]*://)[^\s/@'\"<>]+@", re.IGNORECASE)
_LIBPQ_WORDS = re.compile(r"\b(host|hostaddr|user|password|dbname|port)\s*=\s*('[^']*'|\"[^\"]*\"|\S+)",
                          re.IGNORECASE)
_LIBPQ_QUOTED = re.compile(r"\b(server at|host|user|role|database)\s+\"[^\"]*\"", re.IGNORECASE)
# an IPv4 address, but loopback's and "every interface" (no secret, and often what a client itself named)
_IPV4 = re.compile(r"(?<![\w.])(?!127\.|0\.0\.0\.0)(?:\d{1,3}\.){3}\d{1,3}(?![\w.])")
_POSIX_PATH = re.compile(r"(?<![\w.:/\\~-])~?/(?:[^\s/'\"<>:,;()\[\]]+/)+([^\s/'\"<>:,;()\[\]]*)")
_WINDOWS_PATH = re.compile(r"(?<![\w])[A-Za-z]:\\(?:[^\s\\'\"<>:,;()\[\]]+\\)+([^\s\\'\"<>:,;()\[\]]*)")
MORE_IN_LOG = " (the server's log has the details)"


def client_message(text: str) -> str:
    """An error message as a server's client may read it: file and folder paths cut to the file's name
    (`.../connection.py`), database URLs, libpq's `host=`/`user=` words and quoted server, host and user names, the
    userinfo of any URL and IPv4 addresses replaced by ***. Text with none of them comes back unchanged."""
    shown = _DATABASE_URL.sub(lambda m: f"{m.group(1)}://{HIDDEN}{_trailing(m.group(0))}", text)
    shown = _USERINFO.sub(lambda m: f"{m.group(1)}{HIDDEN}@", shown)
    shown = _LIBPQ_WORDS.sub(lambda m: f"{m.group(1)}={HIDDEN}", shown)
    shown = _LIBPQ_QUOTED.sub(lambda m: f"{m.group(1)} {HIDDEN}", shown)
    shown = _IPV4.sub(HIDDEN, shown)
    shown = _POSIX_PATH.sub(lambda m: f".../{m.group(1)}", shown)
    return _WINDOWS_PATH.sub(lambda m: f"...\\{m.group(1)}", shown)


def _trailing(url: str) -> str:
    """The punctuation a sentence put right after a URL (`... at postgresql://h/db: refused`), kept."""
    return url[len(url.rstrip(".,;:!?")):]
