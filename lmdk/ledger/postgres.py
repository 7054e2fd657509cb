"""The PostgreSQL ledger (``--ledger postgresql://USER@HOST:PORT/DB``): one database shared by every replica of
the app and every export, through psycopg 3.

Isolation is set by the code, never left to the server's or the URL's ``default_transaction_isolation``: each
reservation runs ``BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE`` and first takes its dataset's transaction-scoped
advisory lock (``pg_advisory_xact_lock`` on a hash of the dataset key, :func:`lmdk.ledger.sql.lock_key`), so two
exports of one dataset take turns; each statement after the lock sees every reservation committed before it. A
serialization failure or deadlock is retried (:meth:`lmdk.ledger.sql.SqlLedger.run`). Reads of the whole ledger run
at repeatable read, read only (one snapshot). Nothing is updated or deleted — a cap is an appended row, a
cancellation too — so releases and the app run as a role with SELECT and INSERT on the ledger's tables only; the
tables are created once by ``lmdk ledger init URL`` as the owner (:meth:`PostgresLedger.init`).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from lmdk.errors import LedgerUnavailable, ParameterError
from lmdk.ledger.redact import redact
from lmdk.ledger.sql import SEED_TOTALS, TOTALS, SqlLedger, SqlTransaction

SCHEMA_LOCK = 0x6C6D646B  # "lmdk": the advisory lock under which the tables are created once
SCHEMA = """
CREATE TABLE IF NOT EXISTS lmdk_datasets (dataset TEXT PRIMARY KEY, cap DOUBLE PRECISION, period TEXT);
CREATE TABLE IF NOT EXISTS lmdk_exports (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    time TEXT NOT NULL, dataset TEXT NOT NULL, entry TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL,
    time TEXT NOT NULL, epsilon DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_caps (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, dataset TEXT NOT NULL,
    cap DOUBLE PRECISION NOT NULL, period TEXT NOT NULL, time TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS lmdk_cancels (id TEXT PRIMARY KEY, time TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS lmdk_charges_by_person ON lmdk_charges (dataset, person, time) INCLUDE (epsilon, export_id);
CREATE INDEX IF NOT EXISTS lmdk_caps_by_dataset ON lmdk_caps (dataset);
""" + TOTALS.format(real="DOUBLE PRECISION", key="dataset, person, n", without_rowid="")
"""The tables (:mod:`lmdk.ledger.sql`), created by ``lmdk ledger init`` (a ledger from before gains the new ones)."""
SESSION = "SET LOCAL synchronous_commit TO on; SET LOCAL lock_timeout TO '60s'"
"""Set in every writing transaction: a reservation is durable when it commits, and waits at most 60 s for its
dataset's lock (as SQLite's ``TIMEOUT``), whatever the server's or the role's defaults."""


def check_url(url: str) -> None:
    """Refuse a PostgreSQL URL of the wrong shape before any connection (bad input, exit 2, not an unreachable
    ledger): libpq must parse it and every port must be a number from 1 to 65535. The message names the URL as
    :func:`lmdk.ledger.redact.redact` does — never its text, which may hold a password."""
    name = redact(url)
    fix = "give postgresql://USER@HOST:PORT/DB (the password from PGPASSWORD or PGPASSFILE, never in the URL)"
    if not url.startswith(("postgresql://", "postgres://")):
        raise ParameterError(f"ledger URL {name}: not a postgresql:// URL; {fix}")
    psycopg = _psycopg()  # a ParameterError saying how to install it when missing
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except psycopg.Error as exc:
        text = str(exc).strip().splitlines()
        raise ParameterError(f"ledger URL {name} is malformed "
                             f"({redact(url, text[0] if text else type(exc).__name__)}); {fix}") from None
    for port in str(params.get("port") or "").split(","):
        if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            raise ParameterError(f"ledger URL {name}: its port is not a number from 1 to 65535; {fix}")


def _psycopg():
    """The psycopg module, or a ParameterError saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise ParameterError("a postgresql:// ledger needs psycopg: pip install 'psycopg[binary]' "
                             "(requirements.txt pins it)") from None
    return psycopg


class PostgresLedger(SqlLedger):
    """A ledger in a PostgreSQL database (its tables created once by :meth:`init`)."""

    def __init__(self, url: str):
        """The ledger in the database at ``url`` (connected per transaction)."""
        check_url(url)  # a malformed URL is bad input (exit 2), found before any connection
        self.url = url
        self.name = redact(url)  # host, port and database: never a password

    def _connect(self):
        """A connection (the tables are created once by :meth:`init`, ``lmdk ledger init URL``)."""
        psycopg = _psycopg()
        try:
            return psycopg.connect(self.url, connect_timeout=10)
        except psycopg.Error as exc:
            text = str(exc).strip().splitlines()
            raise LedgerUnavailable(f"ledger {self.name} cannot be reached: "
                                    f"{redact(self.url, text[0] if text else type(exc).__name__)}") from None

    def init(self) -> None:
        """Create the ledger's tables once, as the database's owner, under an advisory lock (``lmdk ledger init``)."""
        with self._connect() as conn, conn.transaction(), conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            cur.execute("SELECT to_regclass('lmdk_charges') IS NOT NULL, to_regclass('lmdk_totals') IS NULL")
            charges, new_totals = cur.fetchone()
            cur.execute(SCHEMA)
            if charges and new_totals:  # a ledger from before: each user's total over its charges, no write between
                cur.execute("LOCK TABLE lmdk_charges IN SHARE MODE")
                cur.execute(SEED_TOTALS)

    def retryable(self) -> tuple[type[BaseException], ...]:
        """A serialization failure, a deadlock or a lock not granted in time: the transaction is run again."""
        errors = _psycopg().errors
        return errors.SerializationFailure, errors.DeadlockDetected, errors.LockNotAvailable

    @contextmanager
    def _session(self):
        """A connection for one or more transactions."""
        with self._connect() as conn:
            yield conn

    @contextmanager
    def _transaction(self, dataset: str | None = None, *, read_only: bool = False,
                     session=None) -> Iterator[SqlTransaction]:
        """One transaction on ``session`` (None: a connection of its own) at the isolation level the code sets —
        read committed, read-write (a reservation takes its dataset's advisory lock first); a read: repeatable read,
        read only — whatever the server's default."""
        psycopg = _psycopg()
        with ExitStack() as stack:
            conn = session if session is not None else stack.enter_context(self._connect())
            conn.isolation_level = (psycopg.IsolationLevel.REPEATABLE_READ if read_only
                                    else psycopg.IsolationLevel.READ_COMMITTED)
            conn.read_only = read_only
            with conn.transaction(), conn.cursor() as cur:
                if not read_only:
                    cur.execute(SESSION)
                yield SqlTransaction(cur, "%s", "postgresql")
