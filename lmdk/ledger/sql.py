"""What the SQLite and PostgreSQL ledgers share: three tables and the statements a reservation runs.

``lmdk_datasets`` (dataset, cap, period): one row per dataset, the row a reservation locks; ``lmdk_exports``
(seq, id, time, dataset, entry): one row per export, the entry as JSON without its charges; ``lmdk_charges``
(export_id, dataset, person, time, epsilon): what each user spent in it. A backend supplies the connection, the
parameter style, the DDL and how to take the dataset's lock.
"""
from __future__ import annotations

import json
import math
import uuid
from dataclasses import asdict, replace
from datetime import datetime

from lmdk.ledger.budget import Cap, Reservation, reserve_in
from lmdk.ledger.entry import LedgerEntry


class SqlTransaction:
    """The statements of :func:`lmdk.ledger.budget.reserve_in` on an open cursor (``p``: the placeholder)."""

    def __init__(self, cursor, p: str, lock_suffix: str = ""):
        """Statements on ``cursor``; ``lock_suffix`` locks the dataset's row (PostgreSQL: FOR UPDATE)."""
        self.cur, self.p, self.lock_suffix = cursor, p, lock_suffix

    def q(self, sql: str) -> str:
        """The statement with ``?`` placeholders in the backend's style."""
        return sql.replace("?", self.p)

    def lock(self, dataset: str) -> None:
        """Create the dataset's row if missing and lock it (SQLite: the write lock of BEGIN IMMEDIATE)."""
        self.cur.execute(self.q("INSERT INTO lmdk_datasets (dataset) VALUES (?) ON CONFLICT DO NOTHING"), (dataset,))
        self.cur.execute(self.q("SELECT dataset FROM lmdk_datasets WHERE dataset = ?" + self.lock_suffix), (dataset,))
        self.cur.fetchall()

    def stored_cap(self, dataset: str) -> Cap | None:
        """The dataset's stored cap (None: none)."""
        self.lock(dataset)
        self.cur.execute(self.q("SELECT cap, period FROM lmdk_datasets WHERE dataset = ?"), (dataset,))
        row = self.cur.fetchone()
        return Cap(float(row[0]), row[1] or "none") if row and row[0] is not None else None

    def spent(self, dataset: str, since: str | None) -> dict[str, float]:
        """Σ ε per user of the dataset at or after ``since``."""
        sql, args = "SELECT person, epsilon FROM lmdk_charges WHERE dataset = ?", [dataset]
        if since is not None:
            sql, args = sql + " AND time >= ?", [dataset, since]
        self.cur.execute(self.q(sql), tuple(args))
        parts: dict[str, list[float]] = {}
        for person, eps in self.cur.fetchall():
            parts.setdefault(person, []).append(float(eps))
        return {person: math.fsum(eps) for person, eps in parts.items()}

    def store_cap(self, dataset: str, cap: Cap) -> None:
        """Store (or lower) the dataset's cap."""
        self.cur.execute(self.q("UPDATE lmdk_datasets SET cap = ?, period = ? WHERE dataset = ?"),
                         (cap.cap, cap.period, dataset))

    def insert(self, entry: LedgerEntry) -> None:
        """Record the entry and its charges."""
        body = {k: v for k, v in asdict(entry).items() if k != "charges"}
        self.cur.execute(self.q("INSERT INTO lmdk_exports (id, time, dataset, entry) VALUES (?, ?, ?, ?)"),
                         (entry.id, entry.time, entry.budget_key, json.dumps(body, ensure_ascii=False,
                                                                              sort_keys=True)))
        self.cur.executemany(self.q("INSERT INTO lmdk_charges (export_id, dataset, person, time, epsilon) "
                                    "VALUES (?, ?, ?, ?, ?)"),
                             [(entry.id, entry.budget_key, user, entry.time, float(eps))
                              for user, eps in entry.user_charges().items()])

    def cancel(self, reservation_id: str) -> None:
        """Delete a reservation and its charges."""
        self.cur.execute(self.q("DELETE FROM lmdk_charges WHERE export_id = ?"), (reservation_id,))
        self.cur.execute(self.q("DELETE FROM lmdk_exports WHERE id = ?"), (reservation_id,))

    def records(self):
        """(entries in the order recorded, caps per dataset)."""
        self.cur.execute("SELECT id, entry FROM lmdk_exports ORDER BY seq")
        exports = self.cur.fetchall()
        self.cur.execute("SELECT export_id, person, epsilon FROM lmdk_charges")
        charges: dict[str, dict[str, float]] = {}
        for export_id, person, eps in self.cur.fetchall():
            charges.setdefault(export_id, {})[person] = float(eps)
        entries = []
        for export_id, body in exports:
            entry = LedgerEntry.from_dict(json.loads(body))
            entries.append(replace(entry, charges=charges.get(export_id) or None))
        self.cur.execute("SELECT dataset, cap, period FROM lmdk_datasets WHERE cap IS NOT NULL")
        caps = {d: Cap(float(c), p or "none") for d, c, p in self.cur.fetchall()}
        return entries, caps


class SqlLedger:
    """A ledger in a database: a backend subclass gives ``_transaction()`` (a context manager yielding a
    :class:`SqlTransaction` inside one locked transaction) and ``name``."""

    name = "ledger"

    def _transaction(self, dataset: str | None = None):  # pragma: no cover - every backend overrides it
        """A context manager yielding a SqlTransaction inside one locked transaction."""
        raise NotImplementedError

    def reserve(self, entry: LedgerEntry, cap: float | None, period: str | None,
                now: datetime | None = None) -> Reservation:
        """Check and reserve in one transaction (see :func:`lmdk.ledger.budget.reserve_in`)."""
        with self._transaction(entry.budget_key) as tx:
            return reserve_in(tx, entry, cap, period, now)

    def cancel(self, reservation_id: str) -> None:
        """Withdraw a reservation whose export was refused after it was reserved."""
        if reservation_id:
            with self._transaction() as tx:
                tx.cancel(reservation_id)

    def records(self):
        """Every entry (in the order recorded) and the caps per dataset, as a ``jsonl.Records``."""
        from lmdk.ledger.jsonl import Records

        with self._transaction() as tx:
            entries, caps = tx.records()
        return Records(entries, caps)

    def add(self, entries: list[LedgerEntry], caps: dict[str, Cap]) -> None:
        """Insert entries (each under its id, or a new one) and caps, all in one transaction (an import)."""
        with self._transaction() as tx:
            for dataset, cap in caps.items():
                tx.lock(dataset)
                tx.store_cap(dataset, cap)
            for entry in entries:
                tx.lock(entry.budget_key)
                tx.insert(entry if entry.id else replace(entry, id=uuid.uuid4().hex))
