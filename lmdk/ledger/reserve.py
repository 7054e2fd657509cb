"""Reserving an export's ε before any noise is drawn: where (the ledger), under which budget (dataset, cap,
period), for whom (one series or each user of a population) — the one reservation of the command line and the
app. A ``--seed`` demonstration is not a release and reserves nothing; a refusal afterwards cancels it."""
from __future__ import annotations

import sys
from dataclasses import dataclass, replace

from lmdk.errors import LmdkError, ParameterError, ReservationKept
from lmdk.ledger.budget import Reservation
from lmdk.ledger.entry import SINGLE_USER, LedgerEntry


@dataclass(frozen=True)
class Budget:
    """Where an export's ε is reserved: the ledger's URL (None: nowhere), the dataset whose per-user budget it
    spends (None: the input's fingerprint), the cap of that budget and the period the cap bounds."""

    url: str | None = None
    dataset: str | None = None  # normalised on construction (lmdk.data.ids.dataset_name: one key per dataset)
    cap: float | None = None
    period: str | None = None

    def __post_init__(self) -> None:
        """Check and normalise the dataset's name (NFKC, case-folded; a-z, 0-9, '-', '_', '.'), naming --dataset."""
        if self.dataset is not None:
            from lmdk.data.ids import dataset_name

            object.__setattr__(self, "dataset", dataset_name(self.dataset))

    def check(self, command: str | None = None) -> None:
        """Refuse a dataset, cap or period without a ledger to keep the budget in, and a ledger URL of the wrong
        shape (a malformed postgresql:// URL: bad input, exit 2, before any connection); with ``command`` (a
        population or aggregate run, many users) refuse a ledger without --dataset: the officer names the dataset."""
        given = [flag for flag, value in (("--cap", self.cap), ("--dataset", self.dataset),
                                          ("--period", self.period)) if value is not None]
        if given and not self.url:
            verb = "needs" if len(given) == 1 else "need"
            raise ParameterError(f"{' and '.join(given)} {verb} --ledger URL: the ledger keeps the budget "
                                 "(e.g. --ledger sqlite:///ledger.db)")
        if self.url:
            from lmdk.ledger.store import open_ledger

            open_ledger(self.url)  # connects to nothing: only the URL's shape is checked
        if command is not None and self.url and self.dataset is None:
            raise ParameterError(f"{command} --ledger needs --dataset NAME: name the dataset whose per-user budgets "
                                 "the run spends (e.g. --dataset meters-2026), so each day's file adds to the same "
                                 "budgets")

    def reserve(self, entry: LedgerEntry | None, charges: dict) -> Reservation | None:
        """Reserve each user's ε ({user: ε}) before any noise is drawn: the Reservation (``granted``, ``withheld``
        {user: reason}), or None without a ledger or for a demonstration (no ``entry``)."""
        self.check()
        if not self.url or entry is None:
            return None
        from lmdk.ledger.store import reserve_users

        return reserve_users(self.url, self.dataset, charges, self.cap, self.period, entry=entry)

    def reserve_single(self, entry: LedgerEntry | None, user=None) -> Reservation | None:
        """Reserve the ε of one series' export for ``user`` (``--user``: that person's budget in the dataset, the key
        rule of :mod:`lmdk.data.ids`; None: one anonymous user, ``SINGLE_USER``): the Reservation, or None."""
        key = single_user_key(user)
        self.check()
        return self.reserve(entry, {key: entry.epsilon} if entry is not None else {})

    def cancel(self, reservation: Reservation | None) -> None:
        """Withdraw a reservation whose export was then refused (a refusal charges nothing); when the ledger cannot
        withdraw it, a ReservationKept saying the reservation stays charged (:func:`kept`)."""
        if self.url and reservation is not None and reservation.id:
            from lmdk.ledger.store import cancel

            stopped = sys.exception()  # the error that stopped the export, when one did
            try:
                cancel(self.url, reservation)
            except LmdkError as exc:
                raise kept(self.url, self.dataset, reservation, exc, stopped) from None

    def keep_spent(self, reservation: Reservation | None, entry: LedgerEntry | None, spent: dict[str, float]
                   ) -> None:
        """Withdraw a reservation whose export was refused after part of it ran — a private landmark selection
        reads the data, so its ε_sel is spent whatever follows — charging ``spent`` ({user: ε_sel}) instead. The
        charge is recorded before the reservation is withdrawn, so the ledger never holds less than was spent."""
        if not (self.url and reservation is not None and reservation.id and entry is not None):
            return
        spent_now = {str(user): float(eps) for user, eps in spent.items() if user in reservation.granted and eps > 0}
        if spent_now:
            import uuid

            from lmdk.ledger.entry import now_utc
            from lmdk.ledger.store import charge

            selection = replace(entry, dataset=self.dataset, charges=spent_now, epsilon=max(spent_now.values()),
                                users=len(spent_now), scheme="private landmark selection", landmark_epsilon=0.0,
                                landmark_count=None, id=uuid.uuid4().hex, time=now_utc(),
                                tool=f"{entry.tool} (refused by Theorem 2 after the private landmark selection ran)")
            try:  # guarded: an unreachable ledger is a LedgerUnavailable, never a driver's exception
                charge(self.url, selection, "the refused export's selection")
            except LmdkError as exc:  # the whole reservation stays charged (it holds at least ε_sel): say so
                raise kept(self.url, self.dataset, reservation, exc) from None
        self.cancel(reservation)


def kept(url: str, dataset: str | None, reservation: Reservation, exc: Exception,
         stopped: BaseException | None = None) -> ReservationKept:
    """The error of a reservation the ledger could not withdraw after its export was refused or stopped (``exc``,
    the ledger's error): nothing was released, but the reservation stays charged — its id, ε and users named, so the
    privacy officer knows ε was reserved for an export that did not happen. When an error stopped the export
    (``stopped``), the message starts with it."""
    from lmdk.ledger.redact import redact

    reason = f"{redact(url, str(stopped))}; " if isinstance(stopped, LmdkError) else ""
    users = len(reservation.granted)
    eps = max(reservation.granted.values(), default=0.0)
    budget = f"dataset {dataset!r}" if dataset else "the input's content key"
    return ReservationKept(
        f"{reason}nothing was released, but the ledger could not withdraw the reservation ({exc}): reservation "
        f"{reservation.id} of ε = {eps:g} for {users:,} user{'s' if users != 1 else ''} of {budget} stays charged "
        f"in ledger {redact(url)}. lmdk has no command to withdraw it: tell the privacy officer that this ε was "
        "reserved for an export that did not happen")


def reserve_release(budget: Budget, series, policy, *, landmarks: str | None = None,
                    landmark_epsilon: float | None = None, user=None) -> Reservation | None:
    """Reserve one ``lmdk release`` (or app) export of ``series`` under ``policy`` for ``user`` (None: the series
    is one anonymous user) before any noise is drawn: the Reservation (``withheld`` non-empty: refused), or None
    without a ledger or for a demonstration (``policy.seed``)."""
    budget.check()
    if user is not None and not budget.url:
        raise ParameterError("--user needs --ledger URL: the person's budget is kept in the ledger (e.g. --ledger "
                             "sqlite:///ledger.db --dataset meters-2026 --user 7)")
    single_user_key(user)  # a refused id is refused before anything else happens
    if not budget.url or getattr(policy, "seed", None) is not None:
        return None
    from lmdk.ledger.entry import release_entry

    return budget.reserve_single(release_entry(series, policy, landmarks, landmark_epsilon), user)


def single_user_key(user) -> str:
    """The ledger's key of a single series' person: ``user``'s key (``lmdk release --user``, the app's person), or
    ``SINGLE_USER`` ("series") without one."""
    if user is None:
        return SINGLE_USER
    from lmdk.data.ids import user_key

    return user_key(user, "--user")


def refuse_seeded(budget: Budget, seed: int | None, origin: str) -> None:
    """Seeds are for demonstrations only: refuse a ``seed`` (``origin`` says where it came from: "--seed", a policy
    file's or a RunConfig's 'seed') together with a ledger or a cap — seeded noise is reproducible, so it is
    neither a release nor charged, and a spent budget must not be talked past with one."""
    if seed is None or not (budget.url or budget.cap is not None):
        return
    flags = " and ".join(flag for flag, value in (("--ledger", budget.url), ("--cap", budget.cap)) if value)
    raise ParameterError(f"{origin} (seed {seed}) with {flags}: a seed makes the noise reproducible — a "
                         "demonstration, which the ledger neither records nor charges. Leave the seed out to export "
                         "under the ledger's budget (fresh, unrecorded entropy), or leave out --ledger/--cap for a "
                         "demonstration")


def violation_line(scheme: str, selection_epsilon: float | None, ledger: str | None, users: str = "") -> str:
    """The one line of an export Theorem 2 refused — nothing computed from the data (no |L|, no MAE, no count):
    the scheme, and what a private selection that already ran (``selection_epsilon``) spent; ``users`` e.g.
    " for some users"."""
    line = (f"lmdk: refused: scheme {scheme!r} violates the landmark-privacy policy{users}; nothing was released. "
            "Choose a scheme that satisfies it (adaptive, skip, uniform, user) or pass --allow-violation")
    if selection_epsilon:
        where = ("was charged to the ledger" if ledger else "is spent (no --ledger records it)")
        line += (f". The private landmark selection had already read the data: its ε_sel = {selection_epsilon:g} "
                 f"per user {where}")
    return line


def refused_line(reservation: Reservation) -> str:
    """The one line of an export the cap refused: the cap, the ε spent and the ε asked."""
    return "lmdk: refused: " + next(iter(reservation.withheld.values())) + "; nothing was released or charged"


def withheld_line(reservation: Reservation, what: str = "users", summary: bool = True) -> str:
    """How many users the cap withheld, with the first reason (``summary``: a summary file with every reason was
    written; without one the message names none)."""
    first = next(iter(reservation.withheld.values()))
    where = "; the summary's 'withheld' column says why" if summary else ""
    return (f"lmdk: withheld {len(reservation.withheld):,} {what} (nothing released or charged for them{where}), "
            f"e.g. {first}")
