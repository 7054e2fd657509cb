"""Reserving a population run's ε in the ledger before any noise is drawn: every user's key (one key per person,
:mod:`lmdk.data.ids`), each user's ε (the policy's, or with a policy table their own), the users the cap withholds
named as the data names them — the one reservation of ``lmdk population``."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lmdk.ledger import Reservation
    from lmdk.ledger.reserve import Budget


def reserve_run(budget: Budget, policy, source, input_path: str, assignment=None, policies: str | None = None
                ) -> tuple[Reservation | None, dict[str, str] | None]:
    """(the Reservation, {user as the data names them: reason} of the users the cap withholds): every user of
    ``source`` reserved under the dataset ``budget`` names (required with a ledger) before any noise is drawn.
    (None, None) without a ledger, for a demonstration (``policy.seed``), or when a policy table withholds all."""
    from lmdk.data.ids import key_map
    from lmdk.ledger.entry import population_entry
    from lmdk.population.users import user_ids

    budget.check("lmdk population")
    if not budget.url or policy.seed is not None:
        return None, None
    users = user_ids(source)
    keys = key_map(users, "the user column")
    entry = population_entry(policy, policy.mechanism_for(source.kind), input_path)
    if assignment is None:
        charges: dict[str, float] = {}
        for key in keys.values():
            charges[key] = charges.get(key, 0.0) + entry.epsilon
    else:
        from lmdk.policies.assign import charges as assigned

        charges = assigned(assignment, users)
        entry = replace(entry, scheme="per user", landmarks=f"per-user policies ({policies})")
        if not charges:
            return None, None
    reservation = budget.reserve(entry, charges)
    if reservation is None:
        return None, None
    withheld = {str(user): reservation.withheld[key] for user, key in keys.items() if key in reservation.withheld}
    return reservation, withheld


def keep_selection(budget: Budget, reservation: Reservation | None, policy, source, input_path: str,
                   assignment=None) -> None:
    """A run Theorem 2 refused after the users' private landmark selections ran: each released user's ε_sel (their
    policy's ``landmark_epsilon``) stays charged — the selection read the data —, the rest is withdrawn."""
    if reservation is None:
        return
    from lmdk.data.ids import key_map
    from lmdk.ledger.entry import population_entry
    from lmdk.population.users import user_ids

    users = user_ids(source)
    spent: dict[str, float] = {}
    for user, key in key_map(users, "the user column").items():
        chosen = policy if assignment is None else assignment.of(user)
        if isinstance(chosen, str):  # a policy table withheld this user: nothing ran
            continue
        pol = chosen if assignment is None else assignment.variants[chosen]
        spent[key] = spent.get(key, 0.0) + float(pol.landmark_epsilon or 0.0)
    entry = population_entry(policy, policy.mechanism_for(source.kind), input_path)
    budget.keep_spent(reservation, entry, spent)
