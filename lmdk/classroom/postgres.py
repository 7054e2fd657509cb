"""The PostgreSQL class store (``LMDK_CLASS_URL=postgresql://USER@HOST:PORT/DB``): one database shared by every
replica of the app, through psycopg 3 (the ledger's driver, URL checks and redaction).

One connection per store (per process), in autocommit for polls (each statement its own snapshot, prepared after a
few runs); each write is a read-committed transaction whose first statement updates the class's row, so the row
lock orders a class's writes across replicas (:mod:`lmdk.classroom.sql`). A connection the server dropped is
replaced at the next call.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lmdk.classroom.sql import SqlClassStore, schema
from lmdk.errors import ClassStoreUnavailable, ParameterError
from lmdk.ledger.postgres import check_url
from lmdk.ledger.redact import redact

SCHEMA = schema("DOUBLE PRECISION", "BIGINT")
SCHEMA_LOCK = 0x6C6D646B636C  # "lmdkcl": the advisory lock under which the tables are created once
SESSION = "SET LOCAL lock_timeout TO '30s'; SET LOCAL synchronous_commit TO on"
"""Set in every write: it waits at most 30 s for a class's row (as SQLite's busy timeout) and is durable when it
commits, whatever the server's or the role's defaults."""


class PostgresClassStore(SqlClassStore):
    """Live classes in a PostgreSQL database (tables created when missing); one connection, thread-safe."""

    placeholder = "%s"

    def __init__(self, url: str):
        """The store in the database at ``url`` (connected now; the tables created if the role may)."""
        super().__init__()
        try:
            check_url(url)
        except ParameterError as exc:
            raise ParameterError(str(exc).replace("ledger URL", "LMDK_CLASS_URL", 1)) from None
        import psycopg

        self.psycopg = psycopg
        self.url = url
        self.name = redact(url)  # host, port and database: never a password
        self.conn: Any = None
        with self.lock, self.translated():
            conn = self.connection()
            with conn.transaction(), conn.cursor() as cur:
                cur.execute("SELECT to_regclass('lmdk_class_answers') IS NOT NULL")
                row = cur.fetchone()
                if not (row and row[0]):
                    cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                    cur.execute(SCHEMA)

    def connection(self):
        """The open connection (a new one when there is none or the server dropped it)."""
        if self.conn is None or self.conn.closed or self.conn.broken:
            self.conn = self.psycopg.connect(self.url, autocommit=True, connect_timeout=10)
            self.conn.isolation_level = self.psycopg.IsolationLevel.READ_COMMITTED
            self.conn.read_only = False
        return self.conn

    @contextmanager
    def translated(self) -> Iterator[None]:
        """psycopg's errors as the store's: unreachable, dropped or locked past the timeout →
        ClassStoreUnavailable, the message redacted (:func:`lmdk.ledger.redact.redact`)."""
        try:
            yield
        except self.psycopg.Error as exc:
            text = str(exc).strip().splitlines()
            if self.conn is not None and self.conn.broken:
                self.conn.close()
            raise ClassStoreUnavailable(f"class store {self.name} cannot be reached: "
                                        f"{redact(self.url, text[0] if text else type(exc).__name__)}") from None

    @contextmanager
    def write(self) -> Iterator:
        """A cursor inside one read-committed transaction, committed when the block ends (rolled back on error)."""
        with self.lock, self.translated():
            conn = self.connection()
            with conn.transaction(), conn.cursor() as cur:
                cur.execute(SESSION)
                yield cur

    @contextmanager
    def read(self) -> Iterator:
        """A cursor for one autocommitted statement."""
        with self.lock, self.translated():
            with self.connection().cursor() as cur:
                yield cur

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            if self.conn is not None:
                self.conn.close()
                self.conn = None
