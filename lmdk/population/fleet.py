"""A synthetic fleet of meters: every user's quiet hours are its landmarks, placed by one of §4.1.2's
four landmark distributions (drawn per user) with a per-user landmark share.

Regular hours are a stationary AR(1) series (``lmdk.synthetic.values``' model) folded above ``QUIET``; the
landmark hours sit below it, so the policy rule ``below:QUIET`` (``FLEET_RULE``) finds exactly the landmarks
that were placed. All users are drawn at once on a (users, events) array from one seed.
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
FLEET_RULE = f"below:{QUIET:g}"
MAX_USERS, MAX_EVENTS, MAX_CELLS = 2_000, 5_000, 1_000_000
"""Bounds of a fleet drawn in the dashboard (a shared server); larger populations are the CLI's."""


@dataclass(frozen=True)
class Fleet:
    """The long table (user, timestamp, value) and, per user, its landmark distribution and share."""

    table: pd.DataFrame
    distributions: np.ndarray
    shares: np.ndarray


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
    """``users`` hourly meters of ``events`` hours each; see the module docstring."""
    _check(users, events, share_range, correlation)
    gen = as_generator(rng)
    kinds = gen.integers(len(DISTRIBUTIONS), size=users)
    shares = gen.uniform(*share_range, size=users)
    counts = np.rint(shares * events).astype(np.int64)
    logw = np.stack([landmark_log_weights(events, d) for d in DISTRIBUTIONS])[kinds]
    keys = logw + gen.gumbel(size=(users, events))  # Gumbel top-k: weighted draws without replacement (§4.1.2)
    ranks = np.argsort(np.argsort(-keys, axis=1, kind="stable"), axis=1, kind="stable")
    landmark = ranks < counts[:, None]
    z = gen.standard_normal((users, events))
    z[:, 1:] *= np.sqrt(1.0 - correlation**2)
    from scipy.signal import lfilter  # here: scipy.signal imports scipy.stats (~1 s of a cold server start)
    regular = 2 * QUIET + 0.4 * np.abs(lfilter([1.0], [1.0, -correlation], z, axis=1))  # kWh, ≥ 2·QUIET
    quiet = gen.uniform(0.0, 0.9 * QUIET, size=(users, events))
    values = np.round(np.where(landmark, quiet, regular), 4)
    times = pd.date_range(start, periods=events, freq="h")
    table = pd.DataFrame({"user": np.repeat(np.arange(users), events), "timestamp": np.tile(times, users),
                          "value": values.reshape(-1)})
    return Fleet(table, np.asarray(DISTRIBUTIONS)[kinds], counts / events)
