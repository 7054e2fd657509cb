"""Composition of a ledger's entries: the total of every export (Σ ε and the tighter PLD total), per input and per
user of a dataset (the budget a cap bounds)."""
from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable

from lmdk.errors import ParameterError
from lmdk.ledger.entry import DELTA, EVERY_USER, LedgerEntry
from lmdk.ledger.text import finite_sum


def compose(entries: Iterable[LedgerEntry], delta: float = DELTA) -> dict:
    """Totals of the entries: ``releases``, ``epsilon_basic`` (Σ ε, pure DP), ``epsilon_pld`` at ``delta``
    (dp_accounting PLD, each export one pure ε-DP mechanism), ``delta``, ``epsilon_max`` and
    ``epsilon_by_fingerprint`` ({fingerprint: {releases, epsilon_basic, epsilon_pld}}: composition is per input).
    """
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 < delta < 1:
        raise ParameterError(f"delta must be a number in (0, 1), not {delta!r}")
    batch = list(entries)
    by_fingerprint: dict[str, list[float]] = {}
    for entry in batch:
        by_fingerprint.setdefault(entry.fingerprint, []).append(float(entry.epsilon))
    totals = _totals([float(e.epsilon) for e in batch], float(delta))
    return {**totals, "delta": float(delta),
            "epsilon_by_fingerprint": {fp: _totals(eps, float(delta)) for fp, eps in by_fingerprint.items()},
            "accounting": "each export is one pure ε-DP mechanism; epsilon_basic: sequential composition (δ = 0); "
                          "epsilon_pld: dp_accounting privacy-loss distributions at delta"}


def _totals(epsilons: list[float], delta: float) -> dict:
    """releases, epsilon_basic, epsilon_pld and epsilon_max of a list of ε."""
    basic = finite_sum(epsilons)
    counts = tuple(sorted(Counter(epsilons).items()))
    return {"releases": len(epsilons), "epsilon_basic": basic,
            "epsilon_pld": pld_epsilon(counts, delta) if epsilons else 0.0,
            "epsilon_max": max(epsilons, default=0.0)}


@functools.lru_cache(maxsize=256)
def pld_epsilon(counts: tuple[tuple[float, int], ...], delta: float) -> float:
    """ε at ``delta`` of composing ``count`` pure ε-DP mechanisms per (ε, count), by dp_accounting's PLD.

    The result is clamped to [max ε, Σ ε], both valid statements: (Σ ε, 0)-DP implies (Σ ε, δ)-DP, and an
    (ε′, δ) guarantee with ε′ < max ε also holds with the larger max ε (at δ > 0 the PLD of one release lies a hair
    below its ε). The pessimistic discretisation only ever rounds privacy losses up.
    """
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    basic = math.fsum(eps * k for eps, k in counts)
    releases = sum(k for _, k in counts)
    # Losses are rounded up to the grid: an error < releases × interval (interval: 0.1 % of the mean ε, at least
    # the library's 10⁻⁴), and none for the smallest ε (a whole number of intervals).
    target = min(1e-2, max(1e-4, 1e-3 * basic / releases))
    smallest = min(eps for eps, _ in counts)
    interval = smallest / math.ceil(smallest / target)
    parts = []
    for eps, k in counts:
        one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(eps, 0.0),
                                          value_discretization_interval=interval)
        parts.append(one.self_compose(k) if k > 1 else one)
    total = parts[0]
    for part in parts[1:]:
        total = total.compose(part)
    epsilon = float(total.get_epsilon_for_delta(delta))
    return min(basic, max(epsilon, max(eps for eps, _ in counts)))


def would_exceed(entries: Iterable[LedgerEntry], epsilon: float, cap: float | None) -> bool:
    """Whether one more export spending ``epsilon`` takes the sequential total Σ ε past ``cap`` (None: no cap)."""
    if cap is None:
        return False
    return finite_sum([float(e.epsilon) for e in entries] + [float(epsilon)]) > float(cap) * (1 + 1e-12)


def personal_spent(spent: dict[str, float], users) -> dict[str, float]:
    """What each of ``users`` spent, an entry from before per-user budgets (user ``*``: every user of its input spent
    its ε) counted against each of them: {user: spent[user] + spent["*"]} (users with nothing spent left out)."""
    every = float(spent.get(EVERY_USER, 0.0))
    out = {}
    for user in users:
        total = finite_sum([float(spent.get(user, 0.0)), every]) if user != EVERY_USER else every
        if user in spent or every:
            out[user] = total
    return out


def spent_by_user(entries: Iterable[LedgerEntry], dataset: str, since: str | None = None) -> dict[str, float]:
    """Σ ε per user of ``dataset`` over the entries at or after ``since`` (UTC ISO text; None: all)."""
    parts: dict[str, list[float]] = {}
    for entry in entries:
        if entry.budget_key == dataset and (since is None or entry.time >= since):
            for user, eps in entry.user_charges().items():
                parts.setdefault(user, []).append(float(eps))
    return {user: finite_sum(eps) for user, eps in parts.items()}


def by_user(entries: Iterable[LedgerEntry], dataset: str, delta: float = DELTA, cap=None,
            since: str | None = None) -> dict[str, dict]:
    """{user: {epsilon_basic, epsilon_pld, remaining}} of ``dataset``: every export of the user composed (each
    one pure ε-DP mechanism), and what the stored ``cap`` (a :class:`lmdk.ledger.budget.Cap`) leaves in the
    current period starting at ``since`` (None without a cap)."""
    batch = [e for e in entries if e.budget_key == dataset]
    parts: dict[str, list[float]] = {}
    for entry in batch:
        for user, eps in entry.user_charges().items():
            parts.setdefault(user, []).append(float(eps))
    legacy = parts.get(EVERY_USER, [])
    if legacy:  # an entry from before per-user budgets spent its ε for every user of the dataset
        for user in parts:
            if user != EVERY_USER:
                parts[user] = parts[user] + legacy
    current = personal_spent(spent_by_user(batch, dataset, since), parts) if cap is not None else {}
    out = {}
    for user in sorted(parts):
        totals = _totals(parts[user], float(delta))
        remaining = None if cap is None else max(0.0, round(float(cap.cap) - current.get(user, 0.0), 12))
        out[user] = {"releases": totals["releases"], "epsilon_basic": totals["epsilon_basic"],
                     "epsilon_pld": totals["epsilon_pld"], "remaining": remaining}
    return out
