"""Synthetic landmark sets (paper §4.1.2), value series and trajectories with tunable temporal correlation."""
from __future__ import annotations

import numpy as np

from lmdk.errors import ParameterError
from lmdk.rng import as_generator

DISTRIBUTIONS = ("skewed", "symmetric", "bimodal", "uniform")

SCALE_DIVISOR = 5.0
"""§4.1.2 sets the scale of each landmark distribution to n / a constant; we use n / 5.

The distributions are normal densities restricted to the timestamps 0..n−1: skewed is centred at
the start (a half-normal), symmetric in the middle, bimodal mixes the two mirrored skewed ones
(start and end), uniform gives every timestamp the same weight.
"""


def _check_n(n, name: str = "n") -> int:
    """Validate a positive integer length."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def _check_unit(value, name: str) -> float:
    """Validate a number in [0, 1]."""
    try:
        v = float(value)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name} must be a number in [0, 1], got {value!r}") from exc
    if not 0.0 <= v <= 1.0:
        raise ParameterError(f"{name} must lie in [0, 1], got {value!r}")
    return v


def landmark_log_weights(n: int, distribution: str = "uniform") -> np.ndarray:
    """Log of the (unnormalised) probability of each timestamp 0..n−1 under a §4.1.2 distribution."""
    n = _check_n(n)
    if distribution not in DISTRIBUTIONS:
        raise ParameterError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    t = np.arange(n, dtype=float)
    scale = n / SCALE_DIVISOR
    if distribution == "uniform":
        return np.zeros(n)
    if distribution == "skewed":
        return -0.5 * (t / scale) ** 2
    if distribution == "symmetric":
        return -0.5 * ((t - (n - 1) / 2) / scale) ** 2
    start, end = -0.5 * (t / scale) ** 2, -0.5 * ((n - 1 - t) / scale) ** 2
    return np.logaddexp(start, end)  # bimodal: two mirrored skewed halves


def landmark_probabilities(n: int, distribution: str = "uniform") -> np.ndarray:
    """Normalised selection probability of each timestamp for a single landmark draw."""
    logw = landmark_log_weights(n, distribution)
    w = np.exp(logw - logw.max())
    return w / w.sum()


def landmarks(n: int, fraction: float, distribution: str = "uniform", rng=None) -> np.ndarray:
    """Sorted unique landmark timestamps, exactly round(fraction·n), drawn without replacement (§4.1.2).

    Successive weighted sampling without replacement is done in one pass with Gumbel top-k keys
    (log-weight + Gumbel noise), which never under-flows even for timestamps far in the tails.
    """
    n = _check_n(n)
    k = int(round(_check_unit(fraction, "fraction") * n))
    logw = landmark_log_weights(n, distribution)
    keys = logw + as_generator(rng).gumbel(size=n)
    chosen = np.argpartition(-keys, k - 1)[:k] if 0 < k < n else np.arange(n)[: k]
    return np.sort(chosen).astype(np.int64)


def values(n: int, correlation: float = 0.9, rng=None, *, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    """Stationary Gaussian AR(1) series: x_t = ρ·x_{t−1} + √(1−ρ²)·σ·z_t, so corr(x_t, x_{t−1}) = ρ = correlation."""
    n = _check_n(n)
    rho = _check_unit(correlation, "correlation")
    if not np.isfinite(mean) or not np.isfinite(std) or std < 0:
        raise ParameterError("mean must be finite and std finite and ≥ 0")
    z = as_generator(rng).standard_normal(n)
    z[1:] *= np.sqrt(1.0 - rho**2)  # the first value is drawn from the stationary N(0, 1)
    from scipy.signal import lfilter  # here: scipy.signal imports scipy.stats (~1 s of a cold server start)
    return mean + std * lfilter([1.0], [1.0, -rho], z)


def turning_sigma(correlation: float) -> float:
    """Std of the turning angle for which E[cos(turn)] = correlation (∞ when correlation = 0)."""
    c = _check_unit(correlation, "correlation")
    return float(np.sqrt(-2.0 * np.log(c))) if c > 0 else float("inf")


def trajectory(
    n: int,
    rng=None,
    *,
    correlation: float = 0.9,
    step: float = 600.0,
    stop_rate: float = 0.02,
    mean_stop: float = 10.0,
) -> np.ndarray:
    """Correlated random walk in local metres (n, 2) starting at (0, 0), with stops (stay points).

    Heading turns by N(0, σ²) each step with σ chosen so that E[cos(turn)] = correlation (1 = straight
    line, 0 = uniformly random heading). Moving steps are Gamma(2, step/2) metres (mean ``step``; the
    T-drive taxi averages ≈ 623 m, §4.1.1). A two-state chain switches moving → stopped with
    probability ``stop_rate`` and stopped → moving with 1/mean_stop; stopped steps have length 0.
    Convert to degrees with :func:`lmdk.mechanisms.metres_to_latlon`.
    """
    n = _check_n(n)
    sigma = turning_sigma(correlation)
    if not np.isfinite(step) or step <= 0:
        raise ParameterError(f"step must be a positive number of metres, got {step!r}")
    p_stop = _check_unit(stop_rate, "stop_rate")
    if not np.isfinite(mean_stop) or mean_stop < 1:
        raise ParameterError(f"mean_stop must be ≥ 1 timestamp, got {mean_stop!r}")
    gen = as_generator(rng)
    turns = gen.uniform(-np.pi, np.pi, n) if np.isinf(sigma) else gen.normal(0.0, sigma, n)
    heading = gen.uniform(0.0, 2 * np.pi) + np.cumsum(turns)
    lengths = gen.gamma(2.0, step / 2.0, n)
    moving = _two_state_chain(n, p_stop, 1.0 / mean_stop, gen)
    lengths[0] = 0.0
    lengths *= moving
    steps = np.stack((lengths * np.cos(heading), lengths * np.sin(heading)), axis=-1)
    return np.cumsum(steps, axis=0)


def _two_state_chain(n: int, p_leave_moving: float, p_leave_stopped: float, gen) -> np.ndarray:
    """Boolean 'moving' indicator of a two-state Markov chain starting in 'moving' (run-length sampling)."""
    out = np.empty(n, dtype=bool)
    t, moving = 0, True
    while t < n:
        p = p_leave_moving if moving else p_leave_stopped
        run = n - t if p == 0 else int(gen.geometric(p)) if p < 1 else 1
        out[t : t + run] = moving
        t += run
        moving = not moving
    return out
