"""The SQLite ledger (``--ledger sqlite:///PATH``): one file, one transaction per export.

``BEGIN IMMEDIATE`` takes the database's write lock before the cap is read, so two exports never both see the
budget that only one of them may spend; the other waits (up to ``TIMEOUT`` seconds) and then sees the first's
reservation.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lmdk.errors import ParameterError
from lmdk.ledger.sql import SqlLedger, SqlTransaction

TIMEOUT = 60.0  # seconds an export waits for another's transaction

SCHEMA = """
CREATE TABLE IF NOT EXISTS lmdk_datasets (dataset TEXT PRIMARY KEY, cap REAL, period TEXT);
CREATE TABLE IF NOT EXISTS lmdk_exports (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    time TEXT NOT NULL, dataset TEXT NOT NULL, entry TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL,
    time TEXT NOT NULL, epsilon REAL NOT NULL);
CREATE INDEX IF NOT EXISTS lmdk_charges_by_dataset ON lmdk_charges (dataset, time);
CREATE INDEX IF NOT EXISTS lmdk_charges_by_export ON lmdk_charges (export_id);
"""


class SqliteLedger(SqlLedger):
    """A ledger in an SQLite file (created with its tables when missing)."""

    def __init__(self, path: str | Path):
        """The ledger in the SQLite file ``path`` (its folder must exist)."""
        self.path = Path(path)
        self.name = f"sqlite:///{path}"
        if not self.path.parent.is_dir():
            raise ParameterError(f"--ledger {self.name!r}: folder {str(self.path.parent)!r} does not exist")

    @contextmanager
    def _transaction(self, dataset: str | None = None) -> Iterator[SqlTransaction]:
        """One ``BEGIN IMMEDIATE`` transaction (the database's write lock), committed when the block ends."""
        try:
            conn = sqlite3.connect(self.path, timeout=TIMEOUT, isolation_level=None)
        except sqlite3.Error as exc:
            raise ParameterError(f"--ledger {self.name!r} cannot be opened: {exc}") from None
        try:
            conn.executescript(SCHEMA)
            cur = conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield SqlTransaction(cur, "?")
            except BaseException:
                conn.rollback()
                raise
            conn.commit()
        except sqlite3.DatabaseError as exc:
            raise ParameterError(f"--ledger {self.name!r}: {exc} (is it an lmdk ledger database?)") from None
        finally:
            conn.close()
