"""A synthetic fleet of meters whose users declare their landmarks: each user's quiet hours are a calendar rule
the generator draws before any reading (``Fleet.rules``), and the readings are made quiet exactly there.

Each user gets one of §4.1.2's four landmark distributions (skewed, symmetric, bimodal, uniform), here over the 24
hours of the day, and a landmark share: ``round(share · 24)`` hours of the day are its quiet hours — the most
likely hours under its distribution (skewed: from midnight on; symmetric: around noon; bimodal: both ends of the
day; uniform: spread evenly) — declared as ``calendar:daily@…`` windows. The set is fixed before the values are
drawn and never depends on them, so releasing a user under its own rule is Theorem 2 as stated (a declared set,
not a rule that reads the values). Regular hours are a stationary AR(1) series (``lmdk.synthetic.values``' model)
folded above ``QUIET``; quiet hours read below it. All users are drawn at once on a (users, events) array from one
seed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError
from lmdk.rng import as_generator
from lmdk.synthetic import DISTRIBUTIONS, landmark_log_weights

QUIET = 0.1
"""kWh: a quiet hour (a landmark) reads below this; a regular hour at least twice as much."""
FLEET_RULE = "declared"
"""The Population page's rule for the synthetic users: each user released under the calendar rule it declared
(``Fleet.rules``, per-user policies). Typed in the page's box, any other rule applies to every user instead."""
HOURS_PER_DAY = 24
MAX_USERS, MAX_EVENTS, MAX_CELLS = 2_000, 5_000, 1_000_000
"""Bounds of a fleet drawn in the dashboard (a shared server); larger populations are the CLI's."""


@dataclass(frozen=True)
class Fleet:
    """The long table (user, timestamp, value) and, per user (users 0…N−1): its landmark distribution, its landmark
    share (landmarks ÷ events) and the calendar rule it declared (its quiet hours: exactly its landmarks)."""

    table: pd.DataFrame
    distributions: np.ndarray
    shares: np.ndarray
    rules: tuple[str, ...] = ()

    def declared(self) -> dict[str, str]:
        """{user id as text: the calendar rule that user declared} (the per-user policies of the Population page)."""
        return {str(user): rule for user, rule in enumerate(self.rules)}


def quiet_hours(distribution: str, hours: int) -> np.ndarray:
    """The ``hours`` hours of the day (0–23, sorted) a user of ``distribution`` declares quiet: the most likely
    under §4.1.2's distribution over one day (ties: the earlier hour), evenly spread for uniform."""
    if distribution not in DISTRIBUTIONS:
        raise ParameterError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    if isinstance(hours, bool) or not 0 <= int(hours) <= HOURS_PER_DAY:
        raise ParameterError(f"hours must be a whole number from 0 to {HOURS_PER_DAY}, got {hours!r}")
    hours = int(hours)
    if distribution == "uniform":
        return np.unique((np.arange(hours) * HOURS_PER_DAY) // max(hours, 1)).astype(np.int64)
    order = np.argsort(-landmark_log_weights(HOURS_PER_DAY, distribution), kind="stable")
    return np.sort(order[:hours]).astype(np.int64)


def declared_rule(hours) -> str:
    """The ``calendar:`` rule that declares the given hours of the day (consecutive hours joined into one window),
    or ``none`` for no hour."""
    chosen = sorted({int(h) for h in hours})
    if not chosen:
        return "none"
    windows, first = [], chosen[0]
    for previous, hour in zip(chosen, [*chosen[1:], None], strict=True):
        if hour != previous + 1:
            windows.append(f"daily@{first:02d}:00-{previous + 1:02d}:00")
            first = hour if hour is not None else first
    return "calendar:" + "+".join(windows)


def _check(users: int, events: int, share_range: tuple[float, float], correlation: float) -> None:
    for name, value, top in (("users", users, MAX_USERS), ("events", events, MAX_EVENTS)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= top:
            raise ParameterError(f"{name} must be an integer from 1 to {top:,}, got {value!r}")
    if users * events > MAX_CELLS:
        raise ParameterError(f"users × events = {users * events:,} is over {MAX_CELLS:,}; use fewer users or "
                             "events here, or `lmdk population` for larger fleets")
    low, high = share_range
    if not 0.0 <= low <= high <= 1.0:
        raise ParameterError(f"share_range must satisfy 0 ≤ low ≤ high ≤ 1, got {share_range!r}")
    if not 0.0 <= correlation < 1.0:
        raise ParameterError(f"correlation must lie in [0, 1), got {correlation!r}")


def synthetic_fleet(users: int, events: int, share_range: tuple[float, float] = (0.05, 0.6), *,
                    correlation: float = 0.9, rng=None, start: str = "2024-01-01") -> Fleet:
    """``users`` hourly meters of ``events`` hours each, their quiet hours declared; see the module docstring."""
    _check(users, events, share_range, correlation)
    gen = as_generator(rng)
    kinds = gen.integers(len(DISTRIBUTIONS), size=users)
    hours = np.rint(gen.uniform(*share_range, size=users) * HOURS_PER_DAY).astype(np.int64)
    pairs = set(zip(kinds.tolist(), hours.tolist(), strict=True))
    by_kind = {(k, h): quiet_hours(DISTRIBUTIONS[k], h) for k, h in pairs}
    declared = np.zeros((users, HOURS_PER_DAY), dtype=bool)
    rules = []
    for user, key in enumerate(zip(kinds.tolist(), hours.tolist(), strict=True)):
        declared[user, by_kind[key]] = True
        rules.append(declared_rule(by_kind[key]))
    times = pd.date_range(start, periods=events, freq="h")
    landmark = declared[:, times.hour.to_numpy()]  # the declared rule on each hour's wall clock (naive times)
    z = gen.standard_normal((users, events))
    z[:, 1:] *= np.sqrt(1.0 - correlation**2)
    from scipy.signal import lfilter  # here: scipy.signal imports scipy.stats (~1 s of a cold server start)
    regular = 2 * QUIET + 0.4 * np.abs(lfilter([1.0], [1.0, -correlation], z, axis=1))  # kWh, ≥ 2·QUIET
    quiet = gen.uniform(0.0, 0.9 * QUIET, size=(users, events))
    values = np.round(np.where(landmark, quiet, regular), 4)
    table = pd.DataFrame({"user": np.repeat(np.arange(users), events), "timestamp": np.tile(times, users),
                          "value": values.reshape(-1)})
    return Fleet(table, np.asarray(DISTRIBUTIONS)[kinds], landmark.mean(axis=1), tuple(rules))
