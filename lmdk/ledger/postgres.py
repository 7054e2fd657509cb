"""The PostgreSQL ledger (``--ledger postgresql://USER@HOST:PORT/DB``): one database shared by every replica of
the app and every export, through psycopg 3.

A reservation locks its dataset's row (``SELECT … FOR UPDATE``) before it reads the cap and the spent ε, so two
exports of the same dataset take turns; the row is created first (``ON CONFLICT DO NOTHING`` waits for a
concurrent insert of the same dataset to commit). Read committed isolation suffices: the spent ε is read after the
lock is granted, so it includes every reservation committed before.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lmdk.errors import ParameterError
from lmdk.ledger.sql import SqlLedger, SqlTransaction

SCHEMA_LOCK = 0x6C6D646B  # "lmdk": the advisory lock under which the tables are created once
SCHEMA = """
CREATE TABLE IF NOT EXISTS lmdk_datasets (dataset TEXT PRIMARY KEY, cap DOUBLE PRECISION, period TEXT);
CREATE TABLE IF NOT EXISTS lmdk_exports (seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    time TEXT NOT NULL, dataset TEXT NOT NULL, entry TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL,
    time TEXT NOT NULL, epsilon DOUBLE PRECISION NOT NULL);
CREATE INDEX IF NOT EXISTS lmdk_charges_by_dataset ON lmdk_charges (dataset, time);
CREATE INDEX IF NOT EXISTS lmdk_charges_by_export ON lmdk_charges (export_id);
"""


def _psycopg():
    """The psycopg module, or a ParameterError saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise ParameterError("a postgresql:// ledger needs psycopg: pip install 'psycopg[binary]' "
                             "(requirements.txt pins it)") from None
    return psycopg


class PostgresLedger(SqlLedger):
    """A ledger in a PostgreSQL database (its tables created on first use)."""

    def __init__(self, url: str):
        """The ledger in the database at ``url`` (connected per transaction)."""
        self.url = url
        self.name = url.split("@")[-1] if "@" in url else url  # never print a password
        self._ready = False

    def _connect(self):
        """A connection, the tables created (once per process) under an advisory lock."""
        psycopg = _psycopg()
        try:
            conn = psycopg.connect(self.url, connect_timeout=10)
        except psycopg.Error as exc:
            raise ParameterError(f"--ledger postgresql://…{self.name}: cannot connect: "
                                 f"{str(exc).strip().splitlines()[0]}") from None
        if not self._ready:
            with conn.transaction(), conn.cursor() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                cur.execute(SCHEMA)
            self._ready = True
        return conn

    @contextmanager
    def _transaction(self, dataset: str | None = None) -> Iterator[SqlTransaction]:
        """One read-committed transaction; its statements lock the dataset's row before reading the budget."""
        with self._connect() as conn, conn.transaction(), conn.cursor() as cur:
            yield SqlTransaction(cur, "%s", lock_suffix=" FOR UPDATE")
