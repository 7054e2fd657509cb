"""The SQLite class store (the default: one file under :func:`lmdk.classroom.store.data_dir`).

Write-ahead logging lets polls read while a write goes on; ``BEGIN IMMEDIATE`` takes the file's write lock before
a class's row is read, so writers from several threads, processes or app replicas on one machine take turns (each
waits up to :data:`TIMEOUT` seconds). ``synchronous = NORMAL`` in WAL mode: a power cut may lose the last answers,
never corrupt the file — a lesson's predictions are not worth an fsync each.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lmdk.classroom.sql import SqlClassStore, schema
from lmdk.errors import ClassStoreUnavailable, ParameterError

TIMEOUT = 30.0
"""Seconds a write waits for another's transaction (SQLite's busy timeout)."""
SCHEMA = schema("REAL", "INTEGER")


class SqliteClassStore(SqlClassStore):
    """Live classes in an SQLite file (created with its tables when missing); one connection, thread-safe."""

    def __init__(self, path: str | Path):
        """The store in the file ``path`` (its folder must exist)."""
        super().__init__()
        self.path = Path(path)
        self.name = f"sqlite:///{path}"
        if not self.path.parent.is_dir():
            raise ParameterError(f"LMDK_CLASS_URL {self.name!r}: folder {str(self.path.parent)!r} does not exist; "
                                 "give sqlite:////absolute/path/classes.db or postgresql://USER@HOST:PORT/DB")
        try:
            self.conn = sqlite3.connect(self.path, timeout=TIMEOUT, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise ClassStoreUnavailable(f"class store {self.name!r} cannot be opened: {exc}") from None
        self.cur = self.conn.cursor()
        try:
            with self.translated():
                self.cur.execute(f"PRAGMA busy_timeout = {int(TIMEOUT * 1000)}")
                self.cur.execute("PRAGMA journal_mode = WAL")
                self.cur.execute("PRAGMA synchronous = NORMAL")
                with self.write() as cur:
                    for statement in filter(str.strip, SCHEMA.split(";")):
                        cur.execute(statement)
        except BaseException:
            self.conn.close()
            raise

    @contextmanager
    def translated(self) -> Iterator[None]:
        """SQLite's errors as the store's: locked or unwritable → ClassStoreUnavailable; not a database →
        ParameterError naming LMDK_CLASS_URL."""
        try:
            yield
        except sqlite3.OperationalError as exc:  # locked past TIMEOUT, read-only, disk full: not the input's fault
            raise ClassStoreUnavailable(f"class store {self.name!r} cannot be reached: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise ParameterError(f"LMDK_CLASS_URL {self.name!r}: {exc} (is it an lmdk class database?)") from None

    @contextmanager
    def write(self) -> Iterator[sqlite3.Cursor]:
        """The cursor inside one ``BEGIN IMMEDIATE`` transaction, committed when the block ends (rolled back on
        any error)."""
        with self.lock, self.translated():
            self.cur.execute("BEGIN IMMEDIATE")
            try:
                yield self.cur
            except BaseException:
                self.conn.rollback()
                raise
            self.conn.commit()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Cursor]:
        """The cursor for one statement (its own snapshot)."""
        with self.lock, self.translated():
            yield self.cur

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.conn.close()
