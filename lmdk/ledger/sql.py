"""What the SQLite and PostgreSQL ledgers share: the tables and the statements a reservation runs.

Every table is append-only, so releases and the app may run as a role that can only SELECT and INSERT:
``lmdk_caps`` (seq, dataset, cap, period, time): every cap set or lowered — the lowest binds, with the first period;
``lmdk_exports`` (seq, id, time, dataset, entry): one row per export, the entry as JSON without its charges;
``lmdk_charges`` (export_id, dataset, person, time, epsilon): what each user spent in it;
``lmdk_cancels`` (id, time): a reservation withdrawn because its export was refused (its rows stay, uncounted);
``lmdk_totals`` (dataset, person, n, total): each user's running total, one row appended per charge (its ``n``-th):
Σ ε of every charge row of the user in the dataset so far, cancelled ones included (:data:`TOTALS`; SQLite's rows
also carry the charge's time, the latest time so far and how many charges came late, so a day or month cap reads
two rows per user too: :mod:`lmdk.ledger.periods`; PostgreSQL sums a period's charges by its index on person).
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
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from datetime import UTC, datetime
from typing import TypeVar

from lmdk.errors import ParameterError
from lmdk.ledger.budget import Cap, Reservation, decide_batch, period_start, resolve_cap
from lmdk.ledger.entry import EVERY_USER, LedgerEntry

BATCH = 20_000
"""Users per reservation transaction: a population of millions reserves in many short transactions."""
RETRIES = 8
"""Attempts of a transaction the server aborted for a serialization failure or a deadlock."""
TABLES = ("lmdk_datasets", "lmdk_caps", "lmdk_exports", "lmdk_charges", "lmdk_cancels", "lmdk_totals")
"""The ledger's tables: a release role needs SELECT and INSERT on each, nothing more."""

TOTALS = "CREATE TABLE IF NOT EXISTS lmdk_totals (dataset TEXT NOT NULL, person TEXT NOT NULL, n BIGINT NOT NULL, " \
         "total {real} NOT NULL, PRIMARY KEY ({key})){without_rowid};"
"""The running totals: a lifetime-cap reservation reads one row per user (the last) instead of every charge of the
user, and appends one — still only INSERTs, so the release role's rights and the history stay append-only."""
SEED_TOTALS = ("INSERT INTO lmdk_totals (dataset, person, n, total) SELECT dataset, person, 1, SUM(epsilon) "
               "FROM lmdk_charges GROUP BY dataset, person")
"""A ledger from before the running totals: each user's total over the charges already stored (run once, by the
owner, with the table created and nothing else writing)."""
CANCELLED_LIMIT = 16
"""More cancelled exports than this in a dataset: its sums are read from the charges (the totals include cancelled
charges, each cancelled export is one probe per user to subtract)."""

DISTINCT_NAMES = """
WITH RECURSIVE names (name) AS (
    SELECT MIN(dataset) FROM lmdk_charges
    UNION ALL
    SELECT (SELECT MIN(c.dataset) FROM lmdk_charges c WHERE c.dataset > names.name) FROM names
    WHERE names.name IS NOT NULL)
SELECT name FROM names WHERE name IS NOT NULL"""
"""The distinct dataset names of the charges, one index probe each (a skip scan over the index on (dataset, …))."""

LATEST_SQLITE = """
WITH RECURSIVE probe (person, lo, hi) AS (
    SELECT j.value, CASE WHEN at.n IS NULL THEN 0 WHEN above.n IS NULL THEN ?2 ELSE ?2 + 1 END,
           CASE WHEN at.n IS NULL AND ?2 = 0 THEN ?3 + 1 WHEN at.n IS NULL THEN ?2 WHEN above.n IS NULL THEN ?2 + 1
                ELSE ?3 + 1 END
    FROM json_each(?4) j
    LEFT JOIN lmdk_totals at ON at.dataset = ?1 AND at.n = ?2 AND at.person = j.value
    LEFT JOIN lmdk_totals above ON above.dataset = ?1 AND above.n = ?2 + 1 AND above.person = j.value
    UNION ALL
    SELECT person, CASE WHEN EXISTS (SELECT 1 FROM lmdk_totals x WHERE x.dataset = ?1 AND x.n = (lo + hi) / 2
                                     AND x.person = probe.person) THEN (lo + hi) / 2 ELSE lo END,
                   CASE WHEN EXISTS (SELECT 1 FROM lmdk_totals x WHERE x.dataset = ?1 AND x.n = (lo + hi) / 2
                                     AND x.person = probe.person) THEN hi ELSE (lo + hi) / 2 END
    FROM probe WHERE hi > lo + 1)
SELECT t.person, t.n, t.total, t.high, t.late FROM probe CROSS JOIN lmdk_totals t
WHERE probe.hi = probe.lo + 1 AND t.dataset = ?1 AND t.n = probe.lo AND t.person = probe.person"""
"""Each user's last running total in SQLite (parameters: dataset, a guessed n, the dataset's highest n, the users),
whose totals are clustered by (dataset, n, person) so that a batch's new totals are appended side by side (few pages
written) instead of one page per user. A user's rows are numbered 1…n without gaps, so two probes (at the guess and
above it) find the last of a user at the guess — most users of a nation's daily release — and bisection (log₂ n
probes) the others: invariant, a row at ``lo`` (or ``lo`` = 0) and none at ``hi``."""
SAMPLE = 64
"""Users of a batch whose last n is found first by bisection: the most common of them is the batch's guess."""

T = TypeVar("T")


def by_level(row: tuple) -> tuple[int, str]:
    """A running-total row (person, n, …) in SQLite's key order, (n, person)."""
    return row[1], row[0]


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
        # (dataset, person): (n, total, high, late) of the last running-total row, read here
        self.latest: dict[tuple[str, str], tuple[int, float, str, int]] = {}

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
        names = self.stored_names(dataset) if names is None else names
        if users is not None and names == [dataset] and (since is None or self.dialect == "sqlite"):
            found = self.lifetime_spent(dataset, users, since)  # the running totals
            if found is not None:
                return found
        where, args = self.matching("c.dataset", names)
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

    def batch_users(self, users: Iterable[str]) -> tuple[str, str]:
        """The batch's users (and the legacy ``*``) as one JSON array parameter, and its row source in SQL."""
        return self.batch_json(sorted({*map(str, users), EVERY_USER}))

    def batch_json(self, wanted: list[str]) -> tuple[str, str]:
        """``wanted`` as one JSON array parameter, and its row source in SQL (rows ``j.value``)."""
        if self.dialect == "postgresql":
            return json.dumps(wanted), "json_array_elements_text(%s::json) AS j (value)"
        return json.dumps(wanted), "json_each(?) AS j"

    def read_latest(self, dataset: str, users: Iterable[str]) -> dict[str, tuple[int, float]]:
        """{user: (n, total)} of the last running-total row of each of ``users`` (and ``*``) that has one (one probe
        per user; remembered for :meth:`insert_charges` with SQLite's ``high`` and ``late``, (0, 0.0, "", 0) for a
        user without one)."""
        listed = sorted({*map(str, users), EVERY_USER})
        wanted, source = self.batch_json(listed)
        if self.dialect == "postgresql":
            self.cur.execute(f"SELECT j.value, t.n, t.total FROM {source} CROSS JOIN LATERAL (SELECT n, total "
                             "FROM lmdk_totals WHERE dataset = %s AND person = j.value ORDER BY n DESC LIMIT 1) t",
                             (wanted, dataset))
        else:
            self.cur.execute("SELECT MAX(n) FROM lmdk_totals WHERE dataset = ?", (dataset,))
            top = self.cur.fetchone()[0] or 0
            sample = json.dumps(listed[::max(1, len(listed) // SAMPLE)])
            self.cur.execute(LATEST_SQLITE, (dataset, top, top, sample))
            levels = Counter(int(row[1]) for row in self.cur.fetchall())
            guess = levels.most_common(1)[0][0] if levels else 0
            self.cur.execute(LATEST_SQLITE, (dataset, guess, top, wanted))
        rows = [(row[0], int(row[1]), float(row[2]), *(row[3:] or ("", 0))) for row in self.cur.fetchall()]
        self.latest.update({(dataset, person): (0, 0.0, "", 0) for person in listed})
        self.latest.update({(dataset, person): (n, total, high, int(late)) for person, n, total, high, late in rows})
        return {person: (n, total) for person, n, total, _, _ in rows}

    def lifetime_spent(self, dataset: str, users: Iterable[str], since: str | None = None) -> dict[str, float] | None:
        """Σ ε over the whole history (SQLite: at or after ``since``, :func:`lmdk.ledger.periods.period_spent`) of
        each of ``users`` (and ``*``) from the running totals, less their charges in cancelled exports (of the
        period); None in PostgreSQL when the dataset has more than :data:`CANCELLED_LIMIT` cancelled exports (the
        charges are then summed, by its index on person)."""
        sql, args = "SELECT e.id, e.time FROM lmdk_cancels k JOIN lmdk_exports e ON e.id = k.id WHERE e.dataset = ?", \
            [dataset]
        if since is not None:
            sql, args = sql + " AND e.time >= ?", [*args, since]
        self.cur.execute(self.q(sql), tuple(args))
        cancelled = self.cur.fetchall()
        if len(cancelled) > CANCELLED_LIMIT and self.dialect == "postgresql":
            return None
        users = list(users)
        spent = {person: total for person, (_, total) in self.read_latest(dataset, users).items()}
        if since is not None:
            from lmdk.ledger.periods import period_spent

            spent = period_spent(self.cur, dataset, since, {person: self.latest[(dataset, person)] for person in spent})
        wanted, source = self.batch_users(users) if cancelled else ("", "")
        for export_id, time in cancelled:  # its charges are in the totals but no longer count: one probe per user
            self.cur.execute(self.q(f"SELECT c.person, c.epsilon FROM {source} CROSS JOIN lmdk_charges c "
                                    "WHERE c.dataset = ? AND c.person = j.value AND c.time = ? AND c.export_id = ?"),
                             (wanted, dataset, time, export_id))
            for person, eps in self.cur.fetchall():
                spent[person] = spent[person] - float(eps)
        return spent

    def append_totals(self, dataset: str, ordered: list[tuple[str, float]], time: str
                      ) -> list[tuple[str, int, float, str, int]]:
        """The running-total rows (person, n, total, high, late) that record ``ordered`` [(user, ε)] charged at
        ``time`` after each user's last (``high``: the latest charge's time so far; ``late``: how many charges came
        before one already recorded)."""
        missing = [user for user, _ in ordered if (dataset, user) not in self.latest]
        if missing:
            self.read_latest(dataset, missing)
        rows = []
        for user, eps in ordered:
            n, total, high, late = self.latest[(dataset, user)]
            self.latest[(dataset, user)] = last = (n + 1, total + eps, max(high, time), late + (time < high))
            rows.append((user, *last))
        return rows

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
        """Record what each user spent in the export and each user's new running total, in the order of the person
        index (PostgreSQL: COPY; SQLite: executemany)."""
        columns = "lmdk_charges (export_id, dataset, person, time, epsilon)"
        ordered = sorted((str(user), float(eps)) for user, eps in charges.items())
        totals = self.append_totals(dataset, ordered, time)
        if self.dialect == "postgresql":  # COPY: the rows streamed in one statement, ε exactly (binary float8)
            with self.cur.copy(f"COPY {columns} FROM STDIN") as copy:
                for user, eps in ordered:
                    copy.write_row((export_id, dataset, user, time, eps))
            with self.cur.copy("COPY lmdk_totals (dataset, person, n, total) FROM STDIN") as copy:
                for user, n, total, _, _ in totals:
                    copy.write_row((dataset, user, n, total))
        else:
            self.cur.executemany(f"INSERT INTO {columns} VALUES (?, ?, ?, ?, ?)",
                                 [(export_id, dataset, user, time, eps) for user, eps in ordered])
            self.cur.executemany("INSERT INTO lmdk_totals (dataset, person, n, total, time, high, late) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 [(dataset, user, n, total, time, high, late)
                                  for user, n, total, high, late in sorted(totals, key=by_level)])

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

    def _transaction(self, dataset: str | None = None, *, read_only: bool = False,
                     session=None):  # pragma: no cover
        """A context manager yielding a SqlTransaction inside one transaction on ``session`` (None: a connection of
        its own; every backend overrides it)."""
        raise NotImplementedError

    def _session(self):  # pragma: no cover
        """A context manager yielding a connection for several transactions (every backend overrides it)."""
        raise NotImplementedError

    def retryable(self) -> tuple[type[BaseException], ...]:
        """The errors after which a transaction is run again (none by default)."""
        return ()

    def run(self, work: Callable[[SqlTransaction], T], *, read_only: bool = False, session=None) -> T:
        """``work`` in one transaction (on ``session``: a connection from :meth:`_session`), run again (up to
        ``RETRIES`` times, backing off) when the server aborts it for a serialization failure or a deadlock;
        ``work`` must have no effect outside the transaction."""
        retry = self.retryable()
        for attempt in range(RETRIES):
            try:
                with self._transaction(read_only=read_only, session=session) as tx:
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
        users = sorted(entry.charges.items())  # each batch one stretch of the person index: fewer pages touched
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

        with self._session() as session:  # one connection, one transaction per batch
            for start in range(0, len(users), BATCH):
                chunk = dict(users[start:start + BATCH])
                effective, spent, ok, refused = self.run(functools.partial(batch, chunk=chunk, first=start == 0),
                                                         session=session)
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
