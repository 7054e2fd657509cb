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
from lmdk.ledger.sql import SqlLedger, SqlTransaction

TIMEOUT = 60.0  # seconds an export waits for another's transaction
CACHE_KIB = -262144  # the page cache of a connection: 256 MiB (a batch's index pages stay in memory)

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS lmdk_datasets (dataset TEXT PRIMARY KEY, cap REAL, period TEXT);
CREATE TABLE IF NOT EXISTS lmdk_exports (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    time TEXT NOT NULL, dataset TEXT NOT NULL, entry TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL,
    time TEXT NOT NULL, epsilon REAL NOT NULL, PRIMARY KEY (dataset, time, export_id, person)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lmdk_caps (seq INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL,
    cap REAL NOT NULL, period TEXT NOT NULL, time TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_cancels (id TEXT PRIMARY KEY, time TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS lmdk_caps_by_dataset ON lmdk_caps (dataset);
CREATE TABLE IF NOT EXISTS lmdk_totals (dataset TEXT NOT NULL, person TEXT NOT NULL, n BIGINT NOT NULL,
    total REAL NOT NULL, time TEXT NOT NULL DEFAULT '', high TEXT NOT NULL DEFAULT '',
    late INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (dataset, n, person)) WITHOUT ROWID;
"""
"""The tables (:mod:`lmdk.ledger.sql`). Both large ones are clustered so that a batch's rows land side by side: the
charges by (dataset, time, export, person) — an export's rows appended together, a period's sums one range — and the
running totals by (dataset, n, person), each user's last found by bisection over n
(:data:`lmdk.ledger.sql.LATEST_SQLITE`), and a day's or month's spend by a second bisection over each row's ``time``,
``high`` and ``late`` (:mod:`lmdk.ledger.periods`). A batch of 20,000 users so writes a few hundred pages to the
write-ahead log instead of one page per user (≈ 100 MB per batch with the tables clustered by person)."""

FORMAT = 3
"""``PRAGMA user_version`` of a file in this layout (3: totals carry their charge's time); a file from before is
rebuilt into it once (:func:`migrate`)."""
REBUILD_TOTALS = """
INSERT INTO lmdk_totals (dataset, person, n, total, time, high, late)
SELECT dataset, person, ROW_NUMBER() OVER w, SUM(epsilon) OVER w, time, time, 0 FROM lmdk_charges
WINDOW w AS (PARTITION BY dataset, person ORDER BY time, export_id ROWS UNBOUNDED PRECEDING)
ORDER BY dataset, 3, person"""
"""Every user's running totals summed again from its charges in time order (a file from before: the totals it
held carry no times; the charges, cancelled ones included, are what they summed)."""


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
                if conn.execute("PRAGMA user_version").fetchone()[0] < FORMAT:
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
    """Create the missing tables under the write lock, once, and bring a file from before into this layout: its
    charges (and running totals, else summed from its charges) copied, row for row, into the clustered tables."""
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] < FORMAT:  # another process may have done it meanwhile
            old = [table for table in ("lmdk_charges", "lmdk_totals") if exists(conn, table)]
            for table in old:
                conn.execute(f"ALTER TABLE {table} RENAME TO {table}_before")
            conn.execute("DROP INDEX IF EXISTS lmdk_charges_by_person")
            for statement in SCHEMA.split(";"):
                if statement.strip() and not statement.strip().startswith("PRAGMA"):
                    conn.execute(statement)
            migrate(conn, old)
            conn.execute(f"PRAGMA user_version = {FORMAT}")
        conn.execute("COMMIT")
    except BaseException:
        conn.rollback()
        raise


def migrate(conn: sqlite3.Connection, old: list[str]) -> None:
    """Copy the charges of ``old`` (tables renamed ``…_before``) into the new layout, sum the running totals again
    from them (:data:`REBUILD_TOTALS`: the same last totals, now with times) and drop the old copies (in the
    transaction of :func:`create_tables`: all or nothing)."""
    if "lmdk_charges" in old:
        conn.execute("INSERT INTO lmdk_charges (export_id, dataset, person, time, epsilon) SELECT export_id, dataset, "
                     "person, time, epsilon FROM lmdk_charges_before ORDER BY dataset, time, export_id, person")
        conn.execute("DROP TABLE lmdk_charges_before")
        conn.execute(REBUILD_TOTALS)
    if "lmdk_totals" in old:
        conn.execute("DROP TABLE lmdk_totals_before")
