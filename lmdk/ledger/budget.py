"""Per-user budgets: a cap on the total ε per (dataset, user), optionally per UTC calendar period, checked and
reserved in one step by every ledger backend (``lmdk.ledger.jsonl``, ``lmdk.ledger.sqlite``,
``lmdk.ledger.postgres``).

The check is sequential composition (Σ ε ≤ cap, a pure ε-DP bound per person), the same the app's cap and
``would_exceed`` use. A backend opens a transaction that holds the dataset's lock, then calls :func:`reserve_in`
with an object offering ``stored_cap``, ``spent``, ``store_cap`` and ``insert``; nothing is drawn before it commits,
and a crash after it leaves the reservation spent.
"""
from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Protocol

import numpy as np

from lmdk.errors import ParameterError
from lmdk.ledger.entry import EVERY_USER, LedgerEntry
from lmdk.ledger.text import finite_sum

PERIODS = ("none", "day", "month")
"""``--period``: the cap bounds the whole history, or each UTC calendar day or month of release time."""
TOLERANCE = 1e-12  # relative, as ``would_exceed``: a cap reached exactly by sums of binary fractions still passes


@dataclass(frozen=True)
class Cap:
    """The stored cap of a dataset: the most ε one user may spend, per ``period``."""

    cap: float
    period: str = "none"

    def label(self, dataset: str) -> str:
        """E.g. "cap ε = 2 per user of dataset 'meters-2026' per UTC day"."""
        per = "" if self.period == "none" else f" per UTC {self.period}"
        return f"cap ε = {self.cap:g} per user of dataset {dataset!r}{per}"


@dataclass(frozen=True)
class Reservation:
    """What a reservation granted ({user: ε}, recorded as spent) and withheld ({user: reason}); ``id`` names the
    recorded entry ("" when nothing was granted), ``cap`` the cap in force (None: none)."""

    granted: dict[str, float]
    withheld: dict[str, str]
    id: str = ""
    cap: Cap | None = None
    spent: dict[str, float] = field(default_factory=dict)  # ε spent in the period before this export, per user

    def __iter__(self) -> Iterator[dict]:
        """``granted, withheld = reserve_users(...)``."""
        return iter((self.granted, self.withheld))


class Transaction(Protocol):
    """What a backend offers inside the transaction that holds the dataset's lock."""

    def stored_cap(self, dataset: str) -> Cap | None: ...  # noqa: D102 (a protocol: see the module docstring)

    def spent(self, dataset: str, since: str | None) -> dict[str, float]: ...  # noqa: D102

    def store_cap(self, dataset: str, cap: Cap) -> None: ...  # noqa: D102

    def insert(self, entry: LedgerEntry) -> None: ...  # noqa: D102


def check_cap(cap: float | None, period: str | None, *, line: bool = False) -> None:
    """Refuse a cap that is not a finite number > 0 or an unknown period, naming the flag (``line``: the field of
    a ledger file's cap line)."""
    names = ("the cap line's 'cap'", "its 'period'") if line else ("--cap", "--period")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or not math.isfinite(cap)
                            or cap <= 0):
        raise ParameterError(f"{names[0]} must be a finite number > 0 (the most ε one user may spend), not {cap!r}")
    if period is not None and period not in PERIODS:
        raise ParameterError(f"{names[1]} must be one of {', '.join(PERIODS)}, not {period!r}")


def period_start(period: str, now: datetime) -> str | None:
    """The UTC start of ``now``'s calendar period as the entries' ISO text (None: the whole history)."""
    now = now.astimezone(UTC)
    if period == "day":
        start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    elif period == "month":
        start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    else:
        return None
    return start.isoformat(timespec="seconds")


def resolve_cap(dataset: str, stored: Cap | None, cap: float | None, period: str | None, *,
                line: str | None = None) -> tuple[Cap | None, bool]:
    """(the cap in force, whether to store it): a stored cap binds every later export; a given one is stored when
    none is, may lower a stored one, and may neither raise it nor change its period (the budget was promised).
    ``line`` names an imported cap line (e.g. "ledger 'caps.jsonl' line 2"): the refusal is then worded for that
    line, not for the --cap and --period flags."""
    check_cap(cap, period, line=line is not None)
    wanted = None if cap is None else Cap(float(cap), period or (stored.period if stored is not None else "none"))
    new_period = period if wanted is None else wanted.period
    if stored is not None and new_period is not None and new_period != stored.period:
        raise ParameterError(_refused(dataset, stored, line, f"--period {new_period}",
                                      f"period {new_period!r}", "its period cannot change"))
    if wanted is None:
        return stored, False
    if stored is None:
        return wanted, True
    if wanted.cap > stored.cap * (1 + TOLERANCE):
        raise ParameterError(_refused(dataset, stored, line, f"--cap {wanted.cap:g}", f"cap ε = {wanted.cap:g}",
                                      "a cap can be lowered, never raised"))
    return wanted, wanted.cap < stored.cap


def _refused(dataset: str, stored: Cap, line: str | None, flag: str, field: str, rule: str) -> str:
    """Why a cap change is refused: worded for the flag (``flag``, e.g. "--cap 1000") or, for an imported cap line
    (``line``), for that line's ``field``."""
    if line is None:
        return (f"{flag}: dataset {dataset!r} has {stored.label(dataset)} stored in the ledger; {rule} (choose a new "
                "--dataset for a new budget)")
    return (f"{line}: a cap line for dataset {dataset!r} gives {field}, but the ledger has {stored.label(dataset)}; "
            f"{rule}")


def refusal(dataset: str, cap: Cap, spent: float, asked: float) -> str:
    """The reason one user's export is refused: the cap, the ε spent and the ε asked."""
    return f"{cap.label(dataset)}: ε spent {spent:.6g}, ε asked {asked:.6g} (total {spent + asked:.6g})"


def decide(dataset: str, spent: dict[str, float], charges: dict[str, float], cap: Cap | None
           ) -> tuple[dict[str, float], dict[str, str]]:
    """(granted, withheld) of ``charges`` against ``cap`` given what each user ``spent`` in the period."""
    if cap is None:
        return dict(charges), {}
    granted, withheld = {}, {}
    for user, eps in charges.items():
        before = spent.get(user, 0.0)
        if finite_sum([before, eps]) > cap.cap * (1 + TOLERANCE):
            withheld[user] = refusal(dataset, cap, before, eps)
        else:
            granted[user] = eps
    return granted, withheld


def decide_batch(dataset: str, spent: dict[str, float], charges: dict[str, float], cap: Cap | None
                 ) -> tuple[dict[str, float], dict[str, str], dict[str, float]]:
    """(granted, withheld, ε each user spent before) of ``charges`` against ``cap``, from the stored sums ``spent``
    ({user: Σ ε}, the legacy ``*`` counted against every user): :func:`decide` after
    :func:`lmdk.ledger.compose.personal_spent`, computed as arrays over the batch with one finiteness check."""
    users = list(charges)
    if cap is None:
        return dict(charges), {}, dict.fromkeys(users, 0.0)
    get = spent.get
    before = np.fromiter((get(user, 0.0) for user in users), dtype=float, count=len(users))
    every = float(get(EVERY_USER, 0.0))
    if every:  # an entry from before per-user budgets spent its ε for every user of the dataset
        before = before + every
        if EVERY_USER in charges:
            before[users.index(EVERY_USER)] = every
    asked = np.fromiter(charges.values(), dtype=float, count=len(users))
    with np.errstate(over="ignore", invalid="ignore"):
        totals = before + asked
    if not np.isfinite(totals).all():
        bad = int(np.flatnonzero(~np.isfinite(totals))[0])
        finite_sum([before[bad], asked[bad]])  # refused: that user's total is not a finite number
    fits = totals <= cap.cap * (1 + TOLERANCE)
    spent_before = dict(zip(users, before.tolist(), strict=True))
    if fits.all():  # the common case: every user of the batch fits
        return dict(charges), {}, spent_before
    granted, withheld = {}, {}
    for user, eps, ok, was in zip(users, charges.values(), fits.tolist(), before.tolist(), strict=True):
        if ok:
            granted[user] = eps
        else:
            withheld[user] = refusal(dataset, cap, was, eps)
    return granted, withheld, spent_before


def reserve_in(tx: Transaction, entry: LedgerEntry, cap: float | None, period: str | None,
               now: datetime | None = None) -> Reservation:
    """Check ``entry.charges`` against the dataset's cap and record the granted part, inside ``tx``."""
    if not entry.charges:
        raise ParameterError("a reservation needs charges {user: ε} (at least one user)")
    dataset = entry.budget_key
    moment = now or datetime.now(UTC)
    effective, changed = resolve_cap(dataset, tx.stored_cap(dataset), cap, period)
    if changed and effective is not None:
        tx.store_cap(dataset, effective)
    spent = tx.spent(dataset, period_start(effective.period, moment)) if effective is not None else {}
    # legacy "*" entries count against every user of the dataset
    granted, withheld, asked = decide_batch(dataset, spent, entry.charges, effective)
    if not granted:
        return Reservation({}, withheld, "", effective, asked)
    recorded = replace(entry, charges=granted, epsilon=max(granted.values()), users=len(granted),
                       id=uuid.uuid4().hex, time=moment.isoformat(timespec="seconds"))
    tx.insert(recorded)
    return Reservation(granted, withheld, recorded.id, effective, asked)
