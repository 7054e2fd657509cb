"""Figures 8 and 9 of papers/000 (§4.2.2) as tidy DataFrames, computed by the core.

Columns of both: distribution, landmark_pct, correlation, quantity, statistic, value — one row
per combination, each value the mean over ``repetitions`` independent landmark draws.
Figure 8: quantity "temporal_distance", statistic "mean" (correlation "none").
Figure 9: quantities "overall", "own", "bound" of lmdk.tpl.temporal.landmark_temporal_privacy_loss, each as
statistic "max" and "mean" over t, under Uniform budgets ε/(|L|+1) (thesis, Uniform scheme);
correlation "none" (identical rows, L ≡ 0) is the paper's no-correlation reference line.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk import synthetic
from lmdk.errors import ParameterError
from lmdk.rng import as_generator
from lmdk.tpl.temporal import CORRELATION, landmark_temporal_privacy_loss, temporal_distance, transition_matrix

PERCENTAGES = tuple(range(0, 101, 10))
COLUMNS = ["distribution", "landmark_pct", "correlation", "quantity", "statistic", "value"]


def _check(n, percentages, distributions, repetitions) -> tuple[int, list[int], list[str], int]:
    """Validate the shared arguments of figure8 / figure9."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n (series length) must be a positive integer, got {n!r}")
    pcts = [int(p) for p in percentages]
    if any(p < 0 or p > 100 for p in pcts):
        raise ParameterError(f"landmark percentages must lie in 0..100, got {pcts}")
    dists = list(distributions)
    unknown = [d for d in dists if d not in synthetic.DISTRIBUTIONS]
    if unknown:
        raise ParameterError(f"unknown distribution(s) {unknown}; choose from {synthetic.DISTRIBUTIONS}")
    if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
        raise ParameterError(f"repetitions must be a positive integer, got {repetitions!r}")
    return int(n), pcts, dists, int(repetitions)


def _draws(n, pcts, dists, repetitions, rng):
    """Yield (distribution, pct, [landmark sets]) with one shared Generator, in a fixed order."""
    gen = as_generator(rng)
    for dist in dists:
        for pct in pcts:
            yield dist, pct, [synthetic.landmarks(n, pct / 100, dist, gen) for _ in range(repetitions)]


def figure8(n: int = 100, percentages=PERCENTAGES, distributions=synthetic.DISTRIBUTIONS,
            repetitions: int = 20, rng=None) -> pd.DataFrame:
    """Average temporal distance of regular events from the landmarks (Figure 8), per distribution and %."""
    n, pcts, dists, reps = _check(n, percentages, distributions, repetitions)
    rows = []
    for dist, pct, sets in _draws(n, pcts, dists, reps, rng):
        means = [temporal_distance(n, lm).mean for lm in sets]
        value = float(np.mean(means)) if not np.all(np.isnan(means)) else float("nan")
        rows.append((dist, pct, "none", "temporal_distance", "mean", value))
    return pd.DataFrame(rows, columns=COLUMNS)


def figure9(n: int = 100, percentages=PERCENTAGES, distributions=synthetic.DISTRIBUTIONS,
            correlations=("moderate", "strong"), epsilon: float = 1.0, repetitions: int = 20,
            rng=None) -> pd.DataFrame:
    """Landmark temporal privacy loss (Figure 9): overall/own/bound as max and mean over t, Uniform budgets."""
    n, pcts, dists, reps = _check(n, percentages, distributions, repetitions)
    eps = float(epsilon)
    if not np.isfinite(eps) or eps <= 0:
        raise ParameterError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    names = ["none", *[c for c in correlations if c != "none"]]
    bad = [c for c in names if c != "none" and c not in CORRELATION]
    if bad:
        raise ParameterError(f"unknown correlation(s) {bad}; choose from {tuple(CORRELATION)} or 'none'")
    matrices = {c: transition_matrix(np.inf if c == "none" else CORRELATION[c]) for c in names}
    rows = []
    for dist, pct, sets in _draws(n, pcts, dists, reps, rng):
        mask = np.zeros((reps, n), dtype=bool)
        for r, lm in enumerate(sets):
            mask[r, lm] = True
        budgets = np.repeat((eps / (mask.sum(axis=1) + 1.0))[:, None], n, axis=1)  # Uniform: ε/(|L|+1)
        for corr, P in matrices.items():
            loss = landmark_temporal_privacy_loss(budgets, mask, P)
            for quantity in ("overall", "own", "bound"):
                values = getattr(loss, quantity)
                rows.append((dist, pct, corr, quantity, "max", float(values.max(axis=1).mean())))
                rows.append((dist, pct, corr, quantity, "mean", float(values.mean(axis=1).mean())))
    return pd.DataFrame(rows, columns=COLUMNS)
