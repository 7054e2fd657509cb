"""The planner's inputs and closed forms: the setup a relation calibrates (Δ, public range, sampler) and the error
of a fixed per-event budget ε/c (event, user, w-event, uniform; paper §3.2)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from lmdk.errors import ParameterError
from lmdk.plan.target import EPSILON_MAX, EPSILON_MIN, Target
from lmdk.relation import Calibration, Relation


@dataclass(frozen=True)
class Setup:
    x: np.ndarray  # the original series ((n,), (n,) 0/1 or (n, 2) metres)
    xc: np.ndarray  # clamped into the public range (values), else x
    mask: np.ndarray  # (n,) landmarks
    cells: np.ndarray  # (n,) the events the target measures
    mechanism: str
    delta: float
    value_range: tuple[float, float] | None
    protects: Relation  # what ε protects (the real sampler's calibration)
    calibration: Calibration  # its calibration for ``mechanism``
    target: Target
    w: int
    default: np.ndarray


def setup(series, landmarks, target, mechanism, protects, w) -> Setup:
    """The planner's inputs, validated; Δ, the public range and the sampler come from ``protects`` (a Relation)."""
    from lmdk.privacy import landmark_mask
    from lmdk.schemes import prepare_series

    x = prepare_series(series, mechanism)
    n = x.shape[0]
    mask = landmark_mask(landmarks, n)
    if mask.ndim != 1:
        raise ParameterError("landmarks: give one landmark set (indices or an (n,) mask) to plan for")
    target = Target.from_dict(target) if isinstance(target, dict) else target
    if not isinstance(target, Target):
        raise ParameterError("target must be a lmdk.plan.Target or its dict, e.g. Target(error=0.5)")
    if target.probability is not None and mechanism == "randomized_response":
        raise ParameterError("a within-±x target applies to values and locations; for contact bits give the mean "
                             "error (% wrong reports), which is the flip probability")
    cells = {"all": np.ones(n, bool), "landmarks": mask, "regular": ~mask}[target.at]
    if not cells.any():
        raise ParameterError(f"target at {target.at!r}: this series has no such events (|L| = {int(mask.sum())} of "
                             f"{n}); measure at 'all' or change the landmarks")
    calibration = protects.calibration(mechanism)
    delta = float(calibration.sensitivity)
    value_range = calibration.value_range if mechanism == "laplace" else None
    xc = np.clip(x, *value_range) if value_range is not None else x
    default = np.zeros(x.shape[1:], dtype=x.dtype)
    if value_range is not None:
        default = np.clip(default, *value_range)
    if w is None:
        w = n
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or not 1 <= w <= n:
        raise ParameterError(f"w (w-event window length) must be an integer in 1..n={n}, got {w!r}")
    return Setup(x, xc, mask, cells, mechanism, delta, value_range, protects, calibration, target, int(w), default)


def share(scheme: str, s: Setup) -> float:
    """c of the fixed per-event budget ε/c of a data-independent scheme (paper §3.2)."""
    n, k = s.mask.size, int(s.mask.sum())
    return {"event": 1.0, "user": float(n), "w-event": float(s.w),
            "uniform": float(k + (k < n))}[scheme]


# ----------------------------------------------------------------------------- closed forms
def _laplace_mae(x: np.ndarray, b, value_range) -> np.ndarray:
    """E|o − x| of the clamped Laplace release (mean over x) for each scale b; unclamped: b."""
    from lmdk.metrics import laplace_expected_error

    b = np.atleast_1d(np.asarray(b, dtype=float))
    if value_range is None:
        return b
    return laplace_expected_error(x[None, :], b[:, None], value_range).mean(axis=1)


def _laplace_within(x: np.ndarray, b, r: float, value_range) -> np.ndarray:
    """P(|o − x| ≤ r) of the clamped Laplace release (mean over x) for each scale b."""
    b = np.atleast_1d(np.asarray(b, dtype=float))
    bb = b[:, None]
    if value_range is None:
        return np.broadcast_to(1 - np.exp(-r / bb), (b.size, x.size)).mean(axis=1)
    low, high = value_range
    tail = 0.5 * np.exp(-r / bb)
    inside = (x >= low) & (x <= high)
    sides = (x + r < high).astype(float) + (x - r > low)
    p_in = 1 - tail * sides
    # outside the range: released from the nearest end c; missing means landing beyond x ± r on the far side
    c = np.clip(x, low, high)
    gap = np.abs(x - c)
    far = np.where(x < low, high - c, c - low)  # room on the side away from x
    beyond = r - gap  # how far past the end the release may go and still be within r
    p_out = np.where(beyond < 0, 0.0, np.where(beyond >= far, 1.0, 1 - 0.5 * np.exp(-np.maximum(beyond, 0) / bb)))
    return np.where(inside, p_in, p_out).mean(axis=1)


def _closed_stat(s: Setup, budget) -> np.ndarray:
    """The target's statistic (MAE, or the share within ±error) at per-event budgets ``budget`` (array)."""
    e = np.atleast_1d(np.asarray(budget, dtype=float))
    x = s.x[s.cells]
    t = s.target
    if s.mechanism == "laplace":
        b = s.delta / e
        if t.probability is None:
            return _laplace_mae(x, b, s.value_range)
        return _laplace_within(x, b, t.error, s.value_range)
    if s.mechanism == "planar_laplace":
        b = s.delta / e
        if t.probability is None:
            return 2 * b
        return 1 - (1 + t.error / b) * np.exp(-t.error / b)
    return 100 * expit(-e)  # randomized response: % wrong reports


def solve_closed(s: Setup, c: float) -> tuple[float | None, bool, float]:
    """(ε, any_epsilon, predicted) of a fixed per-event budget ε/c; ε None when no ε meets the target."""
    t = s.target
    lo_e, hi_e = EPSILON_MIN / c, EPSILON_MAX / c

    def excess(e):  # ≤ 0: met
        stat = float(_closed_stat(s, e)[0])
        return stat - t.error if t.probability is None else t.probability - stat

    if s.mechanism == "laplace" and s.value_range is None and t.probability is None:
        eps = s.delta * c / t.error  # E|Lap(Δ/ε_t)| = Δ/ε_t (§2.1.1): ε = Δ·c/x
        return (eps, False, t.error) if eps <= EPSILON_MAX else (None, False, float(_closed_stat(s, hi_e)[0]))
    if s.mechanism == "randomized_response":
        p = t.error / 100
        if p >= 0.5:
            return EPSILON_MIN, True, float(_closed_stat(s, lo_e)[0])
        eps = c * math.log((1 - p) / p)  # flip probability 1/(e^{ε_t} + 1) = p
        return (eps, False, t.error) if eps <= EPSILON_MAX else (None, False, float(_closed_stat(s, hi_e)[0]))
    if excess(lo_e) <= 0:
        return EPSILON_MIN, True, float(_closed_stat(s, lo_e)[0])
    if excess(hi_e) > 0:
        return None, False, float(_closed_stat(s, hi_e)[0])
    root = brentq(lambda u: excess(math.exp(u)), math.log(lo_e), math.log(hi_e), xtol=1e-12, rtol=1e-12)
    e = math.exp(root)
    return e * c, False, float(_closed_stat(s, e)[0])

