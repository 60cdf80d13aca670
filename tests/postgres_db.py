"""A database of its own for a test, on the session's PostgreSQL (the `postgres_server` fixture)."""

from __future__ import annotations


def new_database(server, name: str) -> str:
    """A fresh, empty database `name` on the session's server, as a postgresql:// URL."""
    server.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE);")
    server.psql(f"CREATE DATABASE {name};")
    return server.get_uri(name)
