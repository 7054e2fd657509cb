"""The SQLite ledger (``--ledger sqlite:///PATH``): one file, one transaction per export (per batch of users).

``BEGIN IMMEDIATE`` takes the database's write lock before the cap is read, so two exports never both see the
budget that only one of them may spend; the other waits (up to ``TIMEOUT`` seconds) and then sees the first's
reservation.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from lmdk.errors import LedgerUnavailable, ParameterError
from lmdk.ledger.sql import SEED_TOTALS, TOTALS, SqlLedger, SqlTransaction

TIMEOUT = 60.0  # seconds an export waits for another's transaction
CACHE_KIB = -262144  # the page cache of a connection: 256 MiB (a batch's index pages stay in memory)

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS lmdk_datasets (dataset TEXT PRIMARY KEY, cap REAL, period TEXT);
CREATE TABLE IF NOT EXISTS lmdk_exports (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    time TEXT NOT NULL, dataset TEXT NOT NULL, entry TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL,
    time TEXT NOT NULL, epsilon REAL NOT NULL, PRIMARY KEY (dataset, person, time, export_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lmdk_caps (seq INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL,
    cap REAL NOT NULL, period TEXT NOT NULL, time TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_cancels (id TEXT PRIMARY KEY, time TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS lmdk_caps_by_dataset ON lmdk_caps (dataset);
""" + TOTALS.format(real="REAL", without_rowid=" WITHOUT ROWID")
"""The tables (:mod:`lmdk.ledger.sql`); a file from before gains the new ones on its next transaction (its running
totals summed from its charges). A new file's charges are one B-tree ordered by (dataset, person, time): a
reservation reads only its batch's users, and writes one tree (journaled ahead, WAL)."""

UPGRADE = ("CREATE INDEX IF NOT EXISTS lmdk_charges_by_person "
           "ON lmdk_charges (dataset, person, time, epsilon, export_id);")
"""A file from before (its charges a table with rowids): the index a reservation's sums read."""


class SqliteLedger(SqlLedger):
    """A ledger in an SQLite file (created with its tables when missing)."""

    def __init__(self, path: str | Path):
        """The ledger in the SQLite file ``path`` (its folder must exist)."""
        self.path = Path(path)
        self.name = f"sqlite:///{path}"
        if not self.path.parent.is_dir():
            raise ParameterError(f"--ledger {self.name!r}: folder {str(self.path.parent)!r} does not exist")

    def init(self) -> None:
        """Create the file and its tables (``lmdk ledger init``; a reservation also creates them when missing)."""
        with self._transaction():
            pass

    @contextmanager
    def _session(self) -> Iterator[sqlite3.Connection]:
        """A connection for one or more transactions, the tables created first when the file lacks them."""
        try:
            conn = sqlite3.connect(self.path, timeout=TIMEOUT, isolation_level=None)
        except sqlite3.Error as exc:
            raise LedgerUnavailable(f"ledger {self.name!r} cannot be opened: {exc}") from None
        try:
            with mapped(self.name):
                if not exists(conn, "lmdk_totals"):
                    create_tables(conn)
                conn.execute(f"PRAGMA cache_size = {CACHE_KIB}")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _transaction(self, dataset: str | None = None, *, read_only: bool = False,
                     session: sqlite3.Connection | None = None) -> Iterator[SqlTransaction]:
        """One ``BEGIN IMMEDIATE`` transaction (the database's write lock; a read: ``BEGIN``, a snapshot) on
        ``session`` (None: a connection of its own), committed when the block ends."""
        with ExitStack() as stack:
            conn = session if session is not None else stack.enter_context(self._session())
            with mapped(self.name):
                cur = conn.cursor()
                cur.execute("BEGIN" if read_only else "BEGIN IMMEDIATE")
                try:
                    yield SqlTransaction(cur, "?", "sqlite")
                except BaseException:
                    conn.rollback()
                    raise
                conn.commit()


@contextmanager
def mapped(name: str) -> Iterator[None]:
    """SQLite's errors as lmdk's: locked past ``TIMEOUT``, read-only or a full disk is an unreachable ledger, not the
    input's fault; a file that is no database is bad input."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise LedgerUnavailable(f"ledger {name!r} cannot be reached: {exc}") from None
    except sqlite3.DatabaseError as exc:
        raise ParameterError(f"--ledger {name!r}: {exc} (is it an lmdk ledger database?)") from None

def exists(conn: sqlite3.Connection, table: str) -> bool:
    """Whether the file has ``table``."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def create_tables(conn: sqlite3.Connection) -> None:
    """Create the missing tables under the write lock, once: a file from before gains the running totals of the
    charges it holds (and, with charges in a rowid table, the index a reservation's sums read)."""
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    try:
        if not exists(conn, "lmdk_totals"):  # another process may have created them while this one waited
            charges, rowid_charges = exists(conn, "lmdk_charges"), not exists(conn, "lmdk_cancels")
            for statement in SCHEMA.split(";"):
                if statement.strip() and not statement.strip().startswith("PRAGMA"):
                    conn.execute(statement)
            if charges and rowid_charges:
                conn.execute(UPGRADE)
            if charges:
                conn.execute(SEED_TOTALS)
        conn.execute("COMMIT")
    except BaseException:
        conn.rollback()
        raise
