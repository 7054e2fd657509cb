"""No secret leaves the process: a ledger's URL as the messages name it (host, port and database only), and the
database's own exceptions turned into the errors the command line and the app show.

A ``postgresql://`` URL may carry a password in its user-info (``user:secret@host``) or its query
(``?password=secret``), and libpq echoes a malformed connection string in its errors. :func:`redact` is the one
function every message, log line and record goes through: the CLI, the app (``ui/ledger.py``, ``ui/policies.py``)
and the stores. The documented way to give the password is ``PGPASSWORD`` or ``PGPASSFILE``, never the URL.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, unquote, urlsplit

from lmdk.errors import LedgerUnavailable, LmdkError, ParameterError

SCHEMES = ("postgresql://", "postgres://")
INIT_HINT = "run 'lmdk ledger init URL' once, as the database's owner"


def _server_name(url: str) -> str:
    """``postgresql://HOST:PORT/DB`` of a PostgreSQL URL (user, password and options dropped)."""
    try:
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        host = parts.hostname or (query.get("host") or [""])[0] or "localhost"
        port = parts.port or (query.get("port") or ["5432"])[0]
        database = unquote(parts.path.lstrip("/")) or (query.get("dbname") or [""])[0] or "(default database)"
    except ValueError:
        return "postgresql://(a malformed URL)"
    if any(ch in f"{host}{port}{database}" for ch in "@?&= ") or not all(p.isdigit() for p in str(port).split(",")):
        return "postgresql://(a malformed URL)"
    return f"postgresql://{host}:{port}/{database}"


def _secrets(url: str) -> list[str]:
    """Every text of ``url`` that may hold a password: the URL itself, its user-info, its query values."""
    found = [url]
    try:
        parts = urlsplit(url)
        if "@" in parts.netloc:
            userinfo = parts.netloc.rsplit("@", 1)[0]
            found += [userinfo, unquote(userinfo)]
            if ":" in userinfo:
                secret = userinfo.split(":", 1)[1]
                found += [secret, unquote(secret)]
        for values in parse_qs(parts.query).values():
            found += values
        if parts.query:
            found.append(parts.query)
    except ValueError:
        pass
    return sorted({s for s in found if s}, key=len, reverse=True)


def redact(url: str | None, text: str | None = None) -> str:
    """A ledger URL as messages name it (a PostgreSQL server: ``postgresql://HOST:PORT/DB``; a file: its path);
    with ``text``, that text with the URL and every secret in it replaced by that name ("***" for a password)."""
    raw = "" if url is None else str(url)
    name = _server_name(raw) if raw.startswith(SCHEMES) else raw
    if text is None:
        return name
    out = str(text)
    if raw.startswith(SCHEMES):
        pieces = out.replace(raw, name).split(name)  # the server's name stays whole (a query value may be "1")
        for secret in _secrets(raw):
            pieces = [piece.replace(secret, "***") for piece in pieces]
        out = name.join(pieces)
    return out


@contextmanager
def guarded(url: str) -> Iterator[None]:
    """Run a ledger operation; a database's exception leaves it as an lmdk error naming only the server: a ledger
    that cannot be reached or is not ready as :class:`~lmdk.errors.LedgerUnavailable` (exit 5), bad input as a
    ParameterError (exit 2). Never a traceback, never the connection string."""
    name = redact(url)
    try:
        yield
    except LmdkError as exc:
        scrubbed = redact(url, str(exc))
        if scrubbed == str(exc):
            raise
        raise type(exc)(scrubbed) from None
    except Exception as exc:  # noqa: BLE001 — only the database drivers' errors are translated, the rest re-raised
        translated = _translated(exc, url, name)
        if translated is None:
            raise
        raise translated from None


def _first_line(exc: BaseException, url: str) -> str:
    """The exception's first line, secrets removed."""
    text = str(exc).strip().splitlines()
    return redact(url, text[0] if text else type(exc).__name__)


def _translated(exc: Exception, url: str, name: str) -> LmdkError | None:
    """The lmdk error of a database driver's exception (None: not a driver's)."""
    import sqlite3

    if isinstance(exc, sqlite3.Error):
        if isinstance(exc, sqlite3.OperationalError):
            return LedgerUnavailable(f"ledger {name} cannot be reached: {_first_line(exc, url)}")
        if isinstance(exc, sqlite3.IntegrityError):
            return ParameterError(f"ledger {name}: {_first_line(exc, url)} (a duplicate or malformed record)")
        if isinstance(exc, sqlite3.DatabaseError):
            return ParameterError(f"ledger {name}: {_first_line(exc, url)} (is it an lmdk ledger database?)")
        return LedgerUnavailable(f"ledger {name} cannot be used: {_first_line(exc, url)}")
    psycopg = sys.modules.get("psycopg")
    if psycopg is None or not isinstance(exc, psycopg.Error):
        return None
    errors = psycopg.errors
    if isinstance(exc, (errors.UndefinedTable, errors.UndefinedColumn)):
        return LedgerUnavailable(f"ledger {name} has no lmdk tables: {INIT_HINT}")
    if isinstance(exc, errors.InsufficientPrivilege):
        return LedgerUnavailable(f"ledger {name}: the role may not do this ({_first_line(exc, url)}); caps and "
                                 "the schema are changed as the database's owner")
    if isinstance(exc, psycopg.IntegrityError):
        return ParameterError(f"ledger {name}: {_first_line(exc, url)} (a duplicate or malformed record)")
    if isinstance(exc, psycopg.DataError):
        return ParameterError(f"ledger {name}: {_first_line(exc, url)}")
    return LedgerUnavailable(f"ledger {name} cannot be reached: {_first_line(exc, url)}")
