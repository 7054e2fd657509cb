"""The baselines with one series per repetition: the audit's correlated chains (``lmdk.audit.rows``), which differ
from trial to trial.

BD, BA and FAST run every row at once from one Generator, each row reading its own values where ``schemes.release``
reads the one series: rows all equal to x give exactly ``schemes.release(x, …, repetitions=rows, rng)`` (tested).
PeGaSus groups a series by its own values (a wavelet matrix per series), so each row runs on its own, from a Generator
of its own (as ``lmdk.population.batch`` does for the landmark schemes): slower, and each row equal to
``schemes.release(row, …, repetitions=1, rng=its Generator)``.
"""
from __future__ import annotations

import numpy as np

from lmdk.errors import ParameterError

ROW_BY_ROW = ("pegasus",)
"""Baselines that run one row at a time (their structure is built from the series' values)."""


def row_generators(gen: np.random.Generator, rows: int) -> list[np.random.Generator]:
    """One Generator per row, spawned from 63 bits of ``gen`` (``lmdk.audit.rows``' per-row path)."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(int(gen.integers(0, 2**63))).spawn(rows)]


def release_rows(x, scheme: str, epsilon: float, calibration, *, rng, w=None, dummies=None,
                 mechanism: str = "laplace") -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Row r of ``x`` (reps, n) released as repetition r of baseline ``scheme`` (module docstring); returns (values,
    budgets, published, Δ), each array (reps, n). ``calibration``: a :class:`lmdk.relation.Calibration`."""
    from lmdk import release_common as common
    from lmdk.baselines import check_calibration, run_algorithm
    from lmdk.baselines._noise import Noise
    from lmdk.rng import as_generator

    delta, value_range = check_calibration(scheme, mechanism, dummies, calibration)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or not x.size or not np.all(np.isfinite(x)):
        raise ParameterError("x must be finite values, one series per row (reps, n)")
    reps, n = x.shape
    eps = common.total_epsilon(epsilon)
    window = common.window_length(w, n, "w-event") if scheme in ("bd", "ba") else None
    base = common.default_value(None, x[0], mechanism)  # the public start value, as baseline_engine takes it
    if value_range is not None:
        x, base = np.clip(x, *value_range), np.clip(base, *value_range)
    gen = as_generator(rng)
    if scheme not in ROW_BY_ROW:
        noise = Noise(gen, reps, n, delta, value_range)
        values, budgets, published = run_algorithm(scheme, np.ascontiguousarray(x.T), eps, window, noise, base)
        return values, budgets, published, delta
    parts = [run_algorithm(scheme, row, eps, window, Noise(g, 1, n, delta, value_range), base)
             for row, g in zip(x, row_generators(gen, reps), strict=True)]
    values, budgets, published = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    return values, budgets, published, delta
