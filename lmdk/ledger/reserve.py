"""Reserving an export's ε before any noise is drawn: where (the ledger), under which budget (dataset, cap,
period), for whom (one series or each user of a population) — the one reservation of the command line and the
app. A ``--seed`` demonstration is not a release and reserves nothing; a refusal afterwards cancels it."""
from __future__ import annotations

from dataclasses import dataclass

from lmdk.errors import ParameterError
from lmdk.ledger.budget import Reservation
from lmdk.ledger.entry import SINGLE_USER, LedgerEntry


@dataclass(frozen=True)
class Budget:
    """Where an export's ε is reserved: the ledger's URL (None: nowhere), the dataset whose per-user budget it
    spends (None: the input's fingerprint), the cap of that budget and the period the cap bounds."""

    url: str | None = None
    dataset: str | None = None
    cap: float | None = None
    period: str | None = None

    def check(self) -> None:
        """Refuse a dataset, cap or period without a ledger to keep the budget in."""
        given = [flag for flag, value in (("--cap", self.cap), ("--dataset", self.dataset),
                                          ("--period", self.period)) if value is not None]
        if given and not self.url:
            verb = "needs" if len(given) == 1 else "need"
            raise ParameterError(f"{' and '.join(given)} {verb} --ledger URL: the ledger keeps the budget "
                                 "(e.g. --ledger sqlite:///ledger.db)")

    def reserve(self, entry: LedgerEntry | None, charges: dict) -> Reservation | None:
        """Reserve each user's ε ({user: ε}) before any noise is drawn: the Reservation (``granted``, ``withheld``
        {user: reason}), or None without a ledger or for a demonstration (no ``entry``)."""
        self.check()
        if not self.url or entry is None:
            return None
        from lmdk.ledger.store import reserve_users

        return reserve_users(self.url, self.dataset, charges, self.cap, self.period, entry=entry)

    def reserve_single(self, entry: LedgerEntry | None) -> Reservation | None:
        """Reserve the ε of one series' export (one user, ``SINGLE_USER``): the Reservation, or None."""
        return self.reserve(entry, {SINGLE_USER: entry.epsilon} if entry is not None else {})

    def cancel(self, reservation: Reservation | None) -> None:
        """Withdraw a reservation whose export was then refused (a refusal charges nothing)."""
        if self.url and reservation is not None and reservation.id:
            from lmdk.ledger.store import cancel

            cancel(self.url, reservation)


def refused_line(reservation: Reservation) -> str:
    """The one line of an export the cap refused: the cap, the ε spent and the ε asked."""
    return "lmdk: refused: " + next(iter(reservation.withheld.values())) + "; nothing was released or charged"


def withheld_line(reservation: Reservation, what: str = "users") -> str:
    """How many users the cap withheld, with the first reason."""
    first = next(iter(reservation.withheld.values()))
    return (f"lmdk: withheld {len(reservation.withheld):,} {what} (nothing released or charged for them; the "
            f"summary's 'withheld' column says why), e.g. {first}")
