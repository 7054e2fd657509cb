"""The planner's searches with common random numbers (skip, adaptive, any scheme through lmdk.schemes.release):
the unit noise is drawn once and reused at every ε (see :mod:`lmdk.plan`)."""
from __future__ import annotations

import math

import numpy as np

from lmdk.plan.model import Setup
from lmdk.plan.target import COARSE_POINTS, EPSILON_MAX, EPSILON_MIN, FINE_POINTS, SEARCH_SPAN


def cell_stat(s: Setup, released: np.ndarray) -> np.ndarray:
    """Per-row statistic of released values at the target's cells: MAE (metrics units) or the share within ±r."""
    x = s.x[s.cells]
    if s.mechanism == "planar_laplace":
        err = np.hypot(released[..., 0] - x[:, 0], released[..., 1] - x[:, 1])
    elif s.mechanism == "randomized_response":
        return 100.0 * (released != x).mean(axis=-1)
    else:
        err = np.abs(released - x)
    if s.target.probability is None:
        return err.mean(axis=-1)
    return (err <= s.target.error).mean(axis=-1)


def _skip_sources(mask: np.ndarray) -> np.ndarray:
    """Index of the release each timestamp shows under Skip: the last regular t' ≤ t, or −1 (the default)."""
    n = mask.size
    idx = np.where(~mask, np.arange(n), -1)
    return np.maximum.accumulate(idx)


def skip_evaluator(s: Setup, noise: np.ndarray):
    """Skip (§3.2: ε at regular events, the previous release republished at landmarks) at many ε at once."""
    from lmdk.mechanisms import perturb

    src = _skip_sources(s.mask)[s.cells]
    used, inverse = np.unique(src, return_inverse=True)
    fresh = used >= 0
    cols = used[fresh]
    x_used = s.xc[cols]
    noise_used = noise[:, cols]

    def evaluate(eps: np.ndarray) -> np.ndarray:
        out = np.empty((eps.size, noise.shape[0]))
        for i, e in enumerate(eps):  # one ε at a time keeps the memory at repetitions × |cells|
            vals = perturb(s.mechanism, x_used, np.asarray(e), noise_used, s.delta)
            if s.value_range is not None:
                vals = np.clip(vals, *s.value_range)
            if not fresh.all():
                default = np.broadcast_to(s.default, (noise.shape[0], 1) + s.default.shape).astype(vals.dtype)
                vals = np.concatenate([default, vals], axis=1)  # the −1 source is the first in ``used``
            out[i] = cell_stat(s, vals[:, inverse])
        return out

    return evaluate


def adaptive_evaluator(s: Setup, noise: np.ndarray):
    """Adaptive (§3.2, Figure 4) at many ε at once: one vectorised run with ε per row and the same noise."""
    from lmdk.schemes import run_adaptive

    reps = noise.shape[0]
    post = None
    if s.value_range is not None:
        low, high = s.value_range
        post = lambda noisy, budget: np.clip(noisy, low, high)  # noqa: E731 (the exports clamp into the range)

    def evaluate(eps: np.ndarray) -> np.ndarray:
        rows = eps.size * reps
        mask = np.broadcast_to(s.mask, (rows, s.mask.size))
        tiled = np.broadcast_to(noise, (eps.size,) + noise.shape).reshape((rows,) + noise.shape[1:])
        values, _, _ = run_adaptive(s.xc, mask, np.repeat(eps, reps), s.mechanism, s.delta, tiled, s.default, post)
        return cell_stat(s, values[:, s.cells]).reshape(eps.size, reps)

    return evaluate


def release_evaluator(s: Setup, scheme: str, seed: int, reps: int, dummies):
    """Any scheme of lmdk.schemes (baselines, dummies) through schemes.release with the same seed at every ε."""
    from lmdk.schemes import release

    def evaluate(eps: np.ndarray) -> np.ndarray:
        out = np.empty((eps.size, reps))
        for i, e in enumerate(eps):
            rel = release(s.x, s.mask, scheme, float(e), mechanism=s.mechanism, repetitions=reps,
                          rng=np.random.default_rng(seed), w=s.w, dummies=dummies, protects=s.protects)
            out[i] = cell_stat(s, rel.values[:, s.cells])
        return out

    return evaluate


def _excess(s: Setup, mean: np.ndarray) -> np.ndarray:
    """≤ 0 where the target is met (per ε: the mean over the repetitions)."""
    return mean - s.target.error if s.target.probability is None else s.target.probability - mean


def _crossing(s: Setup, eps: np.ndarray, stat: np.ndarray, k: int) -> tuple[float, float]:
    """(ε, stat) where the target is crossed between eps[k] (not met) and eps[k + 1] (met): interpolated in log ε,
    and in log MAE for MAE targets (a MAE falls like a power of ε)."""
    t = s.target
    if t.probability is None and stat[k] > 0 and stat[k + 1] > 0:
        a, b, goal = math.log(stat[k]), math.log(stat[k + 1]), math.log(t.error)
    else:
        a, b, goal = stat[k], stat[k + 1], (t.error if t.probability is None else t.probability)
    frac = (a - goal) / (a - b) if a != b else 1.0
    frac = min(max(frac, 0.0), 1.0)
    lo, hi = math.log(eps[k]), math.log(eps[k + 1])
    at = a + frac * (b - a)
    return math.exp(lo + frac * (hi - lo)), float(math.exp(at) if t.probability is None and a != stat[k] else at)


def search_epsilon(s: Setup, evaluate, wide: tuple[float, float], first: tuple[float, float] | None = None,
                   coarse: int = COARSE_POINTS, fine: int = FINE_POINTS) -> tuple[float | None, bool, float]:
    """(ε, any_epsilon, predicted): a log grid of ``coarse`` ε over ``first`` (default: ``wide``), extended over the
    rest of ``wide`` when the target lies beyond it, then ``fine`` points between the two that bracket the target
    (none: interpolate on the coarse grid). The answer is the last crossing: every larger ε of the grid meets it."""
    lo, hi = first or wide
    grid = np.geomspace(lo, hi, coarse)
    stats = evaluate(grid).mean(axis=-1)
    ex = _excess(s, stats)
    if ex[-1] > 0 and hi < wide[1]:  # not met at the top of the first grid: look higher
        more = np.geomspace(hi, wide[1], coarse)[1:]
        grid, stats = np.concatenate((grid, more)), np.concatenate((stats, evaluate(more).mean(axis=-1)))
        ex = _excess(s, stats)
    elif ex[0] <= 0 and lo > wide[0]:  # met at the bottom of the first grid: look lower
        less = np.geomspace(wide[0], lo, coarse)[:-1]
        grid, stats = np.concatenate((less, grid)), np.concatenate((evaluate(less).mean(axis=-1), stats))
        ex = _excess(s, stats)
    if ex[-1] > 0:
        best = int(np.argmin(ex))
        return None, False, float(stats[best])
    if ex[0] <= 0:
        return float(grid[0]), True, float(stats[0])
    j = int(np.flatnonzero(ex > 0).max())
    if fine > 2:
        inner = np.geomspace(grid[j], grid[j + 1], fine)[1:-1]
        grid = np.concatenate(([grid[j]], inner, [grid[j + 1]]))
        stats = np.concatenate(([stats[j]], evaluate(inner).mean(axis=-1), [stats[j + 1]]))
        ex = _excess(s, stats)
        j = int(np.flatnonzero(ex > 0).max())
    eps, predicted = _crossing(s, grid, stats, j)
    return eps, False, predicted


def epsilon_span(reference: float) -> tuple[float, float]:
    """The ε a search considers around ``reference``: ×/÷ SEARCH_SPAN within [EPSILON_MIN, EPSILON_MAX]."""
    return max(EPSILON_MIN, reference / SEARCH_SPAN), min(EPSILON_MAX, reference * SEARCH_SPAN)


def reference_epsilon(s: Setup, c: float) -> float:
    """A first guess of ε for a per-event budget ε/c (the unclamped closed form), centre of the search grid."""
    t = s.target
    if s.mechanism == "randomized_response":
        p = min(t.error / 100, 0.49)
        return c * math.log((1 - p) / p)
    scale = t.error / 2 if s.mechanism == "planar_laplace" else t.error
    if t.probability is not None:
        scale = t.error / max(math.log(1 / (1 - t.probability)), 1e-3)
    return s.delta * c / scale


def search_noise(s: Setup, reps: int, rng) -> np.ndarray:
    """The common random numbers of a search: ``reps`` rows of the mechanism's textbook unit noise over the series."""
    from lmdk.mechanisms import unit_noise

    return unit_noise(s.mechanism, (reps, s.mask.size), rng)

