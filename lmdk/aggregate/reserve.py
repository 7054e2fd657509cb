"""Reserving an aggregate release's ε in the ledger (:mod:`lmdk.ledger.reserve`) before any noise is drawn: every
user's ε, the users the cap withholds left out of the statistic."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lmdk.aggregate.release import AggregateOptions
    from lmdk.ledger import LedgerEntry, Reservation
    from lmdk.ledger.reserve import Budget


def aggregate_entry(input_path: str, options: AggregateOptions) -> LedgerEntry:
    """The ledger entry of one aggregate release of the file or folder ``input_path``, known before any noise."""
    from lmdk import ledger
    from lmdk.release_common import sampler_for

    if options.statistic == "count":
        sensitivity, within = float(options.max_per_user), f"0 to {options.max_per_user} per bin"
    else:
        from lmdk.relation import aggregate_sensitivity

        assert options.value_range is not None  # AggregateOptions.check refused a sum or mean without one
        low, high = options.value_range
        # one user's contribution to the sum (before a mean's ÷ N): absent counts 0
        sensitivity = aggregate_sensitivity("sum", 1, low, high)
        within = f"anywhere in [{low:g}, {high:g}] or absent (0)"
    return ledger.LedgerEntry(
        fingerprint=ledger.fingerprint_path(input_path), epsilon=float(options.epsilon), scheme=options.scheme,
        mechanism="laplace", landmarks=options.landmarks, w=options.w, sensitivity=sensitivity,
        relation=f"one user's readings at L ∪ {{t}}, each {within} (the {options.statistic} per {options.bin})",
        sampler=sampler_for("laplace"), tool="lmdk aggregate", dummies=options.dummy_spec())


def reserve_aggregate(budget: Budget, source, input_path: str, options: AggregateOptions
                      ) -> tuple[object, Reservation | None]:
    """(the source to build from, the Reservation): every user's ε reserved before any noise is drawn, the users
    the cap withholds left out of the statistic. Without a ledger: (source, None)."""
    budget.check("lmdk aggregate")
    if not budget.url:
        return source, None
    from lmdk.data.ids import key_map
    from lmdk.population.input import open_source
    from lmdk.population.users import user_ids, without_users

    src = open_source(source)
    keys = key_map(user_ids(src), "the user column")  # one key per person: 7 and 7.0 are one user
    # a person's ids of one key (7, 7.0) are one user of the statistic (one reading per bin): charged ε once
    charges = dict.fromkeys(keys.values(), float(options.epsilon))
    reservation = budget.reserve(aggregate_entry(input_path, options), charges)
    assert reservation is not None  # a ledger and an entry: reserved
    if not reservation.withheld:
        return source, reservation
    return without_users(src, [user for user, key in keys.items() if key in reservation.withheld]), reservation
