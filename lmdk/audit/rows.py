"""``lmdk.schemes.release`` with one series per repetition: the audit's correlated chains differ from trial to trial.

For the schemes and samplers ``schemes.release`` itself implements (no dummies), this follows its code path step by
step with one Generator — same budgets, same calibration, same draws in the same order — only ``x`` has a row per
repetition (rows all equal to x give exactly ``schemes.release(x, …, repetitions, rng)``; tested). The baselines go
through ``lmdk.baselines.rows``, which does the same for them. Anything else
(dummy landmarks, snapping for locations, schemes added later) goes through ``lmdk.population.batch``, which is
byte-identical per row to ``schemes.release`` with a Generator per row (slower: each row draws on its own).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.baselines import BASELINES
from lmdk.rng import as_generator

FAST = ("event", "user", "w-event", "uniform", "skip", "adaptive")


@dataclass(frozen=True)
class RowsRelease:
    """What the audit reads of a release: values, budgets, published, mechanism and Δ."""

    values: np.ndarray
    budgets: np.ndarray
    published: np.ndarray
    mechanism: str
    sensitivity: float


def _batch(x, mask, scheme, epsilon, mechanism, gen, w, calibration, dummies) -> RowsRelease:
    """The per-row Generator path (lmdk.population.batch)."""
    from lmdk.baselines.rows import row_generators
    from lmdk.population.batch import release_batch

    reps, n = x.shape[:2]
    generators = row_generators(gen, reps)
    rel = release_batch(x, np.broadcast_to(mask, (reps, n)).copy(), np.full(reps, n), scheme, epsilon,
                        mechanism=mechanism, generators=generators, w=w, dummies=dummies, **calibration.options())
    return RowsRelease(rel.values, rel.budgets, rel.published, mechanism, rel.sensitivity)


def release_rows(x, landmarks, scheme: str, epsilon: float, *, mechanism: str, rng, calibration, w=None,
                 dummies=None) -> RowsRelease:
    """Release row r of ``x`` ((reps, n) or (reps, n, 2)) as repetition r of ``scheme`` (see the module docstring);
    ``calibration``: a relation's :class:`lmdk.relation.Calibration` (``Relation.calibration(mechanism)``)."""
    from lmdk import schemes
    from lmdk.mechanisms import perturb, unit_noise, validate_sensitivity
    from lmdk.privacy import landmark_mask

    x = np.asarray(x)
    reps, n = x.shape[:2]
    gen = as_generator(rng)
    mask = landmark_mask(landmarks, n)
    sampler = calibration.sampler
    if scheme in BASELINES:  # BD, BA, FAST, PeGaSus: lmdk.baselines.rows (the population batch refuses them)
        from lmdk.baselines.rows import release_rows as baseline_rows

        values, budgets, published, delta = baseline_rows(x, scheme, epsilon, calibration, rng=gen, w=w,
                                                          dummies=dummies, mechanism=mechanism)
        return RowsRelease(values, budgets, published, mechanism, delta)
    if dummies is not None or scheme not in FAST or (sampler == "snapping" and mechanism != "randomized_response"):
        return _batch(x, mask, scheme, epsilon, mechanism, gen, w, calibration, dummies)
    eps = schemes.total_epsilon(epsilon)
    delta = validate_sensitivity(calibration.sensitivity)
    window = schemes.window_length(w, n, scheme)
    base = schemes.default_value(None, x[0], mechanism)
    mask = np.broadcast_to(mask, (reps, n))
    discrete = schemes.discrete_range(calibration.value_range, mechanism) if sampler == "discrete" else None
    noise = draw = None
    if discrete is not None:
        x, base = np.clip(x, *discrete), np.clip(base, *discrete)
    elif sampler in ("snapping", "discrete"):
        from lmdk import snapping

        noise = snapping.unit_noise(mechanism, (reps, n), gen)
    else:
        noise = unit_noise(mechanism, (reps, n), gen)
    lockstep = schemes.draw_noise(gen, reps, n) if discrete is not None else None  # as lmdk.schemes.release draws
    if scheme == "adaptive":
        if lockstep is not None:
            draw = schemes.discrete_step(lockstep, delta, discrete)
        values, budgets, published = schemes.run_adaptive(x, mask, eps, mechanism, delta, noise, base, None, draw=draw)
    else:
        budgets = schemes.allocate_mask(scheme, mask, eps, window)
        published = budgets > 0
        if noise is not None:
            values = perturb(mechanism, x, np.where(published, budgets, 1.0), noise, delta)
        else:  # the discrete sampler draws at the budgets
            values = schemes.lockstep_cells(x, budgets, published, delta, discrete, lockstep)
        if not published.all():
            values = schemes.forward_fill(values, published, base)
    return RowsRelease(values, budgets, published, mechanism, delta)
