"""Open a ledger by its URL and reserve per-user budgets in it: the one entry point the commands and the app use.

``sqlite:///PATH`` (SQLite, the embedded default), ``postgresql://…`` (a server shared by several replicas) or a
plain path (JSON Lines). Every backend checks the dataset's cap and records the reservation in one step
(:mod:`lmdk.ledger.budget`), before any noise is drawn.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from lmdk.errors import ParameterError
from lmdk.ledger.budget import Reservation, period_start
from lmdk.ledger.compose import by_user, compose
from lmdk.ledger.entry import DELTA, LedgerEntry
from lmdk.ledger.redact import guarded, redact

SCHEMES = ("sqlite:///", "postgresql://", "postgres://")


def open_ledger(url: str):
    """The backend of ``url``: a :class:`~lmdk.ledger.sqlite.SqliteLedger`, a
    :class:`~lmdk.ledger.postgres.PostgresLedger` or a :class:`~lmdk.ledger.jsonl.JsonLinesLedger`."""
    text = str(url)
    if text.startswith("sqlite:///"):
        from lmdk.ledger.sqlite import SqliteLedger

        path = text[len("sqlite:///"):]
        if not path:
            raise ParameterError("--ledger sqlite:/// needs a file: sqlite:///ledger.db (relative) or "
                                 "sqlite:////srv/lmdk/ledger.db (absolute)")
        return SqliteLedger(path)
    if text.startswith(("postgresql://", "postgres://")):
        from lmdk.ledger.postgres import PostgresLedger

        return PostgresLedger(text)
    if "://" in text:
        raise ParameterError(f"--ledger {text.split('://')[0]}://…: give sqlite:///PATH, postgresql://… or a plain "
                             "path (a JSON Lines file)")
    from lmdk.ledger.jsonl import JsonLinesLedger

    return JsonLinesLedger(text)


def is_database(url: str) -> bool:
    """Whether ``url`` names a database (else a JSON Lines file)."""
    return str(url).startswith(SCHEMES)


def reserve_users(url: str, dataset: str | None, charges: dict, cap: float | None = None, period: str | None = None,
                  *, entry: LedgerEntry, now: datetime | None = None) -> Reservation:
    """Check ``charges`` ({user: ε}) against the cap of ``dataset`` (None: ``entry.fingerprint``) and record what
    fits, in one transaction; unpack as ``granted, withheld``. ``cap``/``period`` (``--cap``/``--period``) are
    stored with the dataset when none is; a stored cap binds with or without them. ``entry`` describes the export
    (policy, relation, tool); its ε and users are set from what is granted."""
    asked = {str(user): float(eps) for user, eps in charges.items()}
    if not asked:
        raise ParameterError("nothing to reserve: no user")
    if dataset is not None:  # one key per dataset: the library refuses what --dataset refuses
        from lmdk.data.ids import dataset_name

        dataset = dataset_name(dataset, "dataset")
    template = replace(entry, dataset=dataset, charges=asked, epsilon=max(asked.values()), users=len(asked))
    with guarded(url):
        return open_ledger(url).reserve(template, cap, period, now)


def would_refuse(url: str, dataset: str, charges: dict, now: datetime | None = None) -> dict[str, str]:
    """{user: reason} of the users whose charge would pass the stored cap of ``dataset`` now (a read, no
    reservation: what a front end shows before it offers an export; :func:`reserve_users` decides)."""
    from lmdk.data.ids import dataset_key
    from lmdk.ledger.budget import decide
    from lmdk.ledger.compose import personal_spent, spent_by_user

    found = records(url)
    dataset = dataset_key(dataset) if not dataset.startswith("sha256:") else dataset
    cap = found.caps.get(dataset)
    if cap is None:
        return {}
    since = period_start(cap.period, now or datetime.now(UTC))
    spent = personal_spent(spent_by_user(found.entries, dataset, since), charges)
    _, withheld = decide(dataset, spent, charges, cap)
    return withheld


def cancel(url: str, reservation: Reservation | str) -> None:
    """Withdraw a reservation whose export was then refused (Theorem 2, bad input): a refusal charges nothing."""
    key = reservation if isinstance(reservation, str) else reservation.id
    with guarded(url):
        open_ledger(url).cancel(key)


def charge(url: str, entry: LedgerEntry, what: str) -> None:
    """Record ``entry`` — ε that stays spent, e.g. the private selection of an export then refused — in the ledger
    at ``url`` (``what`` names it in messages); an unreachable ledger is a LedgerUnavailable, never a driver's
    exception or the connection string."""
    from lmdk.ledger.jsonl import Records

    with guarded(url):
        open_ledger(url).add(Records(entries=[entry]), what)


def records(url: str):
    """Every entry and cap of the ledger at ``url`` (a ``lmdk.ledger.jsonl.Records``)."""
    with guarded(url):
        return open_ledger(url).records()


def summary(url: str, *, dataset: str | None = None, users: bool = False, delta: float = DELTA,
            now: datetime | None = None) -> dict:
    """What ``lmdk ledger URL`` prints: :func:`~lmdk.ledger.compose.compose` of the entries (of ``dataset`` only
    when given), and with ``users`` ``by_user`` ({user: epsilon_basic, epsilon_pld, remaining}) of that dataset."""
    found = records(url)
    entries = found.entries
    if dataset is not None:
        from lmdk.data.ids import dataset_key

        dataset = dataset if dataset.startswith("sha256:") else dataset_key(dataset)
        entries = [e for e in entries if e.budget_key == dataset]
    out = compose(entries, delta=delta)
    if dataset is not None:
        out["dataset"] = dataset
    if users:
        keys = sorted({e.budget_key for e in entries})
        if len(keys) > 1:
            raise ParameterError(f"--by user: this ledger holds {len(keys)} datasets ({', '.join(keys[:5])}"
                                 f"{', …' if len(keys) > 5 else ''}); name one with --dataset NAME")
        key = dataset if dataset is not None else (keys[0] if keys else None)
        cap = found.caps.get(key) if key is not None else None
        since = period_start(cap.period, now or datetime.now(UTC)) if cap is not None else None
        out["by_user"] = by_user(entries, key, delta, cap, since) if key is not None else {}
        out["dataset"] = key
        out["cap"] = None if cap is None else {"epsilon": cap.cap, "period": cap.period}
    return out


def import_jsonl(path: str, into: str):
    """Copy every entry and cap of the JSON Lines ledger ``path`` into the ledger at ``into``, all or nothing and
    idempotent (:mod:`lmdk.ledger.transfer`): entries already there are not imported twice, and a cap line that
    would raise a stored cap or change its period refuses the whole import, naming the line. The exact counts
    (an ``ImportReport``)."""
    from lmdk.ledger.jsonl import read_records

    source = read_records(path)
    with guarded(into):
        return open_ledger(into).add(source, f"{path}")


def init_ledger(url: str) -> str:
    """Create the ledger at ``url`` once (``lmdk ledger init URL``, as the database's owner): PostgreSQL's tables,
    the SQLite file and its tables, or the JSON Lines file. Running it again changes nothing. The ledger's name as
    messages give it (:func:`lmdk.ledger.redact.redact`)."""
    with guarded(url):
        open_ledger(url).init()
    return redact(url)


def set_cap(url: str, dataset: str, cap: float, period: str | None = None):
    """Set or lower the cap of ``dataset`` (``lmdk ledger cap URL --dataset NAME --cap EPS [--period P]``, as the
    owner) through :func:`lmdk.ledger.budget.resolve_cap`: a cap only goes down and keeps its period. (the cap in
    force, whether it changed, the dataset's key)."""
    from lmdk.data.ids import dataset_name
    from lmdk.ledger.budget import check_cap

    if cap is None:
        raise ParameterError("lmdk ledger cap needs --cap EPS (the most ε one user of --dataset may spend)")
    if dataset is None:
        raise ParameterError("lmdk ledger cap needs --dataset NAME (the budget the cap bounds)")
    check_cap(cap, period)
    key = dataset if str(dataset).startswith("sha256:") else dataset_name(dataset)
    with guarded(url):
        effective, changed = open_ledger(url).set_cap(key, float(cap), period)
    return effective, changed, key
