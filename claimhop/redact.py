"""A database URL as messages may show it: no password, wherever the URL carries one. libpq takes a password in
the userinfo (`postgresql://user:PASSWORD@host/db`) and as a query parameter (`?password=...`, also
`sslpassword=` for a client key's passphrase), so dropping the userinfo alone still prints the second kind."""

from __future__ import annotations

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
