"""What the SQLite and PostgreSQL ledgers share: the tables and the statements a reservation runs.

Every table is append-only, so releases and the app may run as a role that can only SELECT and INSERT:
``lmdk_caps`` (seq, dataset, cap, period, time): every cap set or lowered — the lowest binds, with the first period;
``lmdk_exports`` (seq, id, time, dataset, entry): one row per export, the entry as JSON without its charges;
``lmdk_charges`` (export_id, dataset, person, time, epsilon): what each user spent in it;
``lmdk_cancels`` (id, time): a reservation withdrawn because its export was refused (its rows stay, uncounted).
``lmdk_datasets`` (dataset, cap, period) holds the caps of ledgers from before, read and never written.
The schema is created once by :func:`lmdk.ledger.store.init_ledger` (``lmdk ledger init URL``), as the owner.

A reservation runs in batches of :data:`BATCH` users, one transaction each: the dataset's lock, its cap, the Σ ε
of the batch's users only (an index on (dataset, person, time)), the check of each user's cap and the batch's
charges. A backend supplies the connection, the parameter style, the dataset's lock and which errors are retried.
"""
from __future__ import annotations

import functools
import hashlib
import json
import time as clock
import uuid
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from datetime import UTC, datetime
from typing import TypeVar

from lmdk.errors import ParameterError
from lmdk.ledger.budget import Cap, Reservation, decide_batch, period_start, resolve_cap
from lmdk.ledger.entry import LedgerEntry

BATCH = 20_000
"""Users per reservation transaction: a population of millions reserves in many short transactions."""
RETRIES = 8
"""Attempts of a transaction the server aborted for a serialization failure or a deadlock."""
TABLES = ("lmdk_datasets", "lmdk_caps", "lmdk_exports", "lmdk_charges", "lmdk_cancels")
"""The ledger's tables: a release role needs SELECT and INSERT on each, nothing more."""

DISTINCT_NAMES = """
WITH RECURSIVE names (name) AS (
    SELECT MIN(dataset) FROM lmdk_charges
    UNION ALL
    SELECT (SELECT MIN(c.dataset) FROM lmdk_charges c WHERE c.dataset > names.name) FROM names
    WHERE names.name IS NOT NULL)
SELECT name FROM names WHERE name IS NOT NULL"""
"""The distinct dataset names of the charges, one index probe each (a skip scan over the index on (dataset, …))."""

T = TypeVar("T")


def lock_key(dataset: str) -> int:
    """The 64-bit key of a dataset's advisory lock: the first 8 bytes of a sha256 of its key, signed."""
    return int.from_bytes(hashlib.sha256(b"lmdk-dataset\0" + dataset.encode("utf-8")).digest()[:8], "big",
                          signed=True)


def stored_key(name: str) -> str:
    """A dataset name as stored, normalised as it is read (:func:`lmdk.data.ids.dataset_key`; a fingerprint as is)."""
    if name.startswith("sha256:"):
        return name
    from lmdk.data.ids import dataset_key

    return dataset_key(name)


def binding_cap(rows: Iterable[tuple]) -> Cap | None:
    """The cap in force from the stored (cap, period) rows, oldest first: the lowest cap and the first period."""
    found = [(float(cap), period or "none") for cap, period in rows if cap is not None]
    if not found:
        return None
    return Cap(min(cap for cap, _ in found), found[0][1])


class SqlTransaction:
    """The statements of a reservation on an open cursor (``p``: the placeholder, ``dialect``: "sqlite" or
    "postgresql")."""

    def __init__(self, cursor, p: str, dialect: str = "sqlite"):
        """Statements on ``cursor`` in one transaction."""
        self.cur, self.p, self.dialect = cursor, p, dialect

    def q(self, sql: str) -> str:
        """The statement with ``?`` placeholders in the backend's style."""
        return sql.replace("?", self.p)

    def lock(self, dataset: str) -> None:
        """Hold the dataset's lock until the transaction ends (PostgreSQL: a transaction-scoped advisory lock on a
        hash of its key; SQLite: the database's write lock, taken by BEGIN IMMEDIATE)."""
        if self.dialect == "postgresql":
            self.cur.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(dataset),))
            self.cur.fetchall()

    def stored_names(self, dataset: str) -> list[str]:
        """Every name the ledger stores for the dataset key ``dataset``, the key first: names an older lmdk wrote
        unnormalised (``Meters``, ``meters ``) count for the key they normalise to (:func:`stored_key`). One index
        probe per distinct dataset of the charges (a skip scan), so a reservation looks them up once."""
        if dataset.startswith("sha256:"):  # a content key is stored as is
            return [dataset]
        self.cur.execute(DISTINCT_NAMES)
        found = {name for (name,) in self.cur.fetchall()}
        self.cur.execute("SELECT dataset FROM lmdk_datasets UNION SELECT dataset FROM lmdk_caps")
        found.update(name for (name,) in self.cur.fetchall())
        return [dataset, *sorted(name for name in found if name != dataset and stored_key(name) == dataset)]

    def matching(self, column: str, names: list[str]) -> tuple[str, list]:
        """The condition ``column`` is one of ``names`` and its arguments (one name: ``=``, the index's plan)."""
        if len(names) == 1:
            return f"{column} = ?", list(names)
        if self.dialect == "postgresql":
            return f"{column} = ANY(?)", [list(names)]
        return f"{column} IN ({', '.join('?' * len(names))})", list(names)

    def stored_cap(self, dataset: str, names: list[str] | None = None) -> Cap | None:
        """The dataset's cap in force (None: none): the lowest stored, with the first period; read under the
        dataset's lock (taken here). Rows stored under another name of the key (``names``, by default
        :meth:`stored_names`) count: names are normalised on read."""
        self.lock(dataset)
        self.cur.execute("SELECT dataset, cap, period FROM lmdk_datasets WHERE cap IS NOT NULL")
        rows = [(cap, period) for name, cap, period in self.cur.fetchall() if stored_key(name) == dataset]
        where, args = self.matching("dataset", self.stored_names(dataset) if names is None else names)
        self.cur.execute(self.q(f"SELECT cap, period FROM lmdk_caps WHERE {where} ORDER BY seq"), tuple(args))
        return binding_cap(rows + self.cur.fetchall())

    def spent(self, dataset: str, since: str | None, users: Iterable[str] | None = None,
              names: list[str] | None = None) -> dict[str, float]:
        """Σ ε per user of the dataset at or after ``since`` (of ``users`` and the legacy ``*`` only, when given),
        reservations cancelled left out; charges stored under any of ``names`` (by default :meth:`stored_names`:
        every stored name of the key) count."""
        where, args = self.matching("c.dataset", self.stored_names(dataset) if names is None else names)
        sql = f"SELECT c.person, SUM(c.epsilon) FROM lmdk_charges c WHERE {where}"
        if users is not None:
            wanted = json.dumps(sorted({*map(str, users), "*"}))  # one parameter: the batch as a JSON array
            if self.dialect == "postgresql":  # a join on the batch: index probes per user, never a scan of the dataset
                sql, args = sql + " AND c.person IN (SELECT u FROM json_array_elements_text(?::json) AS u)", [*args,
                                                                                                            wanted]
            else:
                sql, args = sql + " AND c.person IN (SELECT value FROM json_each(?))", [*args, wanted]
        if since is not None:
            sql, args = sql + " AND c.time >= ?", [*args, since]
        self.cur.execute("SELECT EXISTS (SELECT 1 FROM lmdk_cancels)")
        if self.cur.fetchone()[0]:  # a ledger without cancellations skips the check per row
            sql += " AND NOT EXISTS (SELECT 1 FROM lmdk_cancels k WHERE k.id = c.export_id)"
        sql += " GROUP BY c.person"
        self.cur.execute(self.q(sql), tuple(args))
        return {person: float(total) for person, total in self.cur.fetchall()}

    def store_cap(self, dataset: str, cap: Cap) -> None:
        """Record a cap set or lowered for the dataset (an appended row)."""
        self.cur.execute(self.q("INSERT INTO lmdk_caps (dataset, cap, period, time) VALUES (?, ?, ?, ?)"),
                         (dataset, float(cap.cap), cap.period, datetime.now(UTC).isoformat(timespec="seconds")))

    def insert_export(self, entry: LedgerEntry) -> None:
        """Record the export's row (the entry without its charges)."""
        body = {f.name: getattr(entry, f.name) for f in fields(entry) if f.name != "charges"}  # not a deep copy
        self.cur.execute(self.q("INSERT INTO lmdk_exports (id, time, dataset, entry) VALUES (?, ?, ?, ?)"),
                         (entry.id, entry.time, entry.budget_key, json.dumps(body, ensure_ascii=False,
                                                                              sort_keys=True)))

    def insert_charges(self, export_id: str, dataset: str, time: str, charges: dict[str, float]) -> None:
        """Record what each user spent in the export, in the order of the person index (PostgreSQL: one INSERT of
        the batch as a JSON object {user: ε}, parsed by the server; SQLite: executemany)."""
        columns = "lmdk_charges (export_id, dataset, person, time, epsilon)"
        ordered = sorted((str(user), float(eps)) for user, eps in charges.items())
        if self.dialect == "postgresql":  # ε as repr() text, read back exactly by float8
            self.cur.execute(f"INSERT INTO {columns} SELECT %s, %s, j.key, %s, CAST(j.value AS DOUBLE PRECISION) "
                             "FROM json_each_text(%s::json) AS j",
                             (export_id, dataset, time, json.dumps(dict(ordered))))
        else:
            self.cur.executemany(f"INSERT INTO {columns} VALUES (?, ?, ?, ?, ?)",
                                 [(export_id, dataset, user, time, eps) for user, eps in ordered])

    def insert(self, entry: LedgerEntry) -> None:
        """Record the entry and its charges."""
        self.insert_export(entry)
        self.insert_charges(entry.id, entry.budget_key, entry.time, entry.user_charges())

    def cancel(self, reservation_id: str) -> None:
        """Withdraw a reservation: an appended cancellation (its charges no longer count)."""
        self.cur.execute(self.q("INSERT INTO lmdk_cancels (id, time) VALUES (?, ?) ON CONFLICT DO NOTHING"),
                         (reservation_id, datetime.now(UTC).isoformat(timespec="seconds")))

    def records(self):
        """(entries in the order recorded, cancelled ones left out; caps per dataset)."""
        live = "NOT EXISTS (SELECT 1 FROM lmdk_cancels k WHERE k.id = {})"
        self.cur.execute(f"SELECT e.id, e.entry FROM lmdk_exports e WHERE {live.format('e.id')} ORDER BY e.seq")
        exports = self.cur.fetchall()
        self.cur.execute(f"SELECT c.export_id, c.person, c.epsilon FROM lmdk_charges c "
                         f"WHERE {live.format('c.export_id')}")
        charges: dict[str, dict[str, float]] = {}
        for export_id, person, eps in self.cur.fetchall():
            charges.setdefault(export_id, {})[person] = float(eps)
        entries = []
        for export_id, body in exports:
            entry = LedgerEntry.from_dict(json.loads(body))
            spent = charges.get(export_id)
            if spent and len(spent) > entry.users:  # reserved in batches: its row describes the first batch
                entry = replace(entry, users=len(spent), epsilon=max(entry.epsilon, *spent.values()))
            entries.append(replace(entry, charges=spent or None))
        rows: dict[str, list[tuple]] = {}  # stored names normalised on read; the lowest cap binds
        self.cur.execute("SELECT dataset, cap, period FROM lmdk_datasets WHERE cap IS NOT NULL")
        legacy = self.cur.fetchall()
        self.cur.execute("SELECT dataset, cap, period FROM lmdk_caps ORDER BY seq")
        for dataset, cap, period in legacy + self.cur.fetchall():
            rows.setdefault(stored_key(dataset), []).append((cap, period))
        caps = {dataset: binding_cap(found) for dataset, found in rows.items()}
        return entries, {dataset: cap for dataset, cap in caps.items() if cap is not None}


class SqlLedger:
    """A ledger in a database: a backend subclass gives ``_transaction()`` (a context manager yielding a
    :class:`SqlTransaction` inside one transaction), ``retryable()``, ``init()`` and ``name``."""

    name = "ledger"

    def _transaction(self, dataset: str | None = None, *, read_only: bool = False):  # pragma: no cover
        """A context manager yielding a SqlTransaction inside one transaction (every backend overrides it)."""
        raise NotImplementedError

    def retryable(self) -> tuple[type[BaseException], ...]:
        """The errors after which a transaction is run again (none by default)."""
        return ()

    def run(self, work: Callable[[SqlTransaction], T], *, read_only: bool = False) -> T:
        """``work`` in one transaction, run again (up to ``RETRIES`` times, backing off) when the server aborts it
        for a serialization failure or a deadlock; ``work`` must have no effect outside the transaction."""
        retry = self.retryable()
        for attempt in range(RETRIES):
            try:
                with self._transaction(read_only=read_only) as tx:
                    return work(tx)
            except retry:
                if attempt == RETRIES - 1:
                    raise
                clock.sleep(min(0.5, 0.005 * 2 ** attempt) * (0.5 + uuid.uuid4().int % 1000 / 1000))
        raise AssertionError("unreachable")  # pragma: no cover

    def reserve(self, entry: LedgerEntry, cap: float | None, period: str | None,
                now: datetime | None = None) -> Reservation:
        """Check each user's Σ ε against the dataset's cap and record what fits, :data:`BATCH` users per transaction
        (the cap resolved as :func:`lmdk.ledger.budget.resolve_cap` does; see :mod:`lmdk.ledger.budget`)."""
        if not entry.charges:
            raise ParameterError("a reservation needs charges {user: ε} (at least one user)")
        dataset, moment = entry.budget_key, now or datetime.now(UTC)
        stamp, reservation_id = moment.isoformat(timespec="seconds"), uuid.uuid4().hex
        users = list(entry.charges.items())
        granted: dict[str, float] = {}
        withheld: dict[str, str] = {}
        before: dict[str, float] = {}
        state: dict = {"cap": None, "recorded": False}

        def batch(tx: SqlTransaction, *, chunk: dict[str, float], first: bool):
            tx.lock(dataset)
            # the first batch stores a cap given with the export; later ones obey the stored one (it may only
            # have gone down since)
            if "names" not in state:  # names an older lmdk stored for the key (``Meters``): looked up once
                state["names"] = tx.stored_names(dataset)
            effective, changed = resolve_cap(dataset, tx.stored_cap(dataset, state["names"]), cap if first else None,
                                             period if first else None)
            if changed and effective is not None:
                tx.store_cap(dataset, effective)
            since = period_start(effective.period, moment) if effective is not None else None
            spent = tx.spent(dataset, since, chunk, state["names"]) if effective is not None else {}
            # every user's cap checked over the batch at once; legacy "*" entries count against each user
            ok, refused, spent = decide_batch(dataset, spent, chunk, effective)
            if ok:
                if not state["recorded"]:
                    tx.insert_export(replace(entry, charges=None, epsilon=max(ok.values()), users=len(ok),
                                             id=reservation_id, time=stamp))  # the row holds no charges
                tx.insert_charges(reservation_id, dataset, stamp, ok)
            return effective, spent, ok, refused

        for start in range(0, len(users), BATCH):
            chunk = dict(users[start:start + BATCH])
            effective, spent, ok, refused = self.run(functools.partial(batch, chunk=chunk, first=start == 0))
            state["cap"] = effective
            state["recorded"] = state["recorded"] or bool(ok)
            granted.update(ok)
            withheld.update(refused)
            before.update(spent)
        return Reservation(granted, withheld, reservation_id if granted else "", state["cap"], before)

    def cancel(self, reservation_id: str) -> None:
        """Withdraw a reservation whose export was refused after it was reserved (an appended cancellation)."""
        if reservation_id:
            self.run(lambda tx: tx.cancel(reservation_id))

    def records(self):
        """Every entry (in the order recorded) and the caps per dataset, as a ``jsonl.Records``."""
        from lmdk.ledger.jsonl import Records

        entries, caps = self.run(lambda tx: tx.records(), read_only=True)
        return Records(entries, caps)

    def set_cap(self, dataset: str, cap: float, period: str | None) -> tuple[Cap | None, bool]:
        """Set or lower the dataset's cap under its lock (:func:`lmdk.ledger.budget.resolve_cap`): (the cap in force,
        whether it changed). ``lmdk ledger cap`` runs it as the owner."""
        def work(tx: SqlTransaction) -> tuple[Cap | None, bool]:
            effective, changed = resolve_cap(dataset, tx.stored_cap(dataset), cap, period)
            if changed and effective is not None:
                tx.store_cap(dataset, effective)
            return effective, changed

        return self.run(work)

    def add(self, source, name: str):
        """Import ``source`` (a ``jsonl.Records``) in one transaction, all or nothing: every cap line through
        ``resolve_cap``, entries not already here under their ids (:func:`lmdk.ledger.transfer.plan_import`)."""
        from lmdk.ledger.transfer import plan_import

        def work(tx: SqlTransaction):
            datasets = sorted({d for _, d, _ in source.cap_lines} | {e.budget_key for e in source.entries})
            for dataset in datasets:  # every dataset the import touches, locked in one order
                tx.lock(dataset)
            entries, caps = tx.records()
            tx.cur.execute("SELECT id FROM lmdk_exports")
            known: dict[str, LedgerEntry | None] = {row[0]: None for row in tx.cur.fetchall()}
            known.update({e.id: e for e in entries if e.id})
            plan = plan_import(source, name, caps.get, known)
            for dataset, cap in plan.caps:
                tx.store_cap(dataset, cap)
            for entry in plan.entries:
                tx.insert(entry)
            return plan.report

        return self.run(work)
