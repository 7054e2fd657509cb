"""Utility of a release: mean absolute error per repetition with a 95 % confidence interval (paper §4.2.1, Fig. 7)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import stdtrit

from lmdk.errors import ParameterError
from lmdk.mechanisms import MECHANISMS, great_circle_metres

UNITS = {"laplace": "value units", "planar_laplace": "metres", "randomized_response": "% wrong reports"}


@dataclass(frozen=True)
class MAE:
    """Mean absolute error of each repetition, their mean and a 95 % t-interval of that mean."""

    per_repetition: np.ndarray
    mean: float
    ci_low: float
    ci_high: float
    unit: str

    @property
    def ci(self) -> tuple[float, float]:
        """The 95 % confidence interval (low, high); NaN with a single repetition."""
        return (self.ci_low, self.ci_high)


def mean_ci95(per_repetition) -> tuple[float, float, float]:
    """(mean, low, high): Student-t 95 % interval of the mean; zero width if all equal, NaN for one value."""
    x = np.asarray(per_repetition, dtype=float).ravel()
    if x.size == 0:
        raise ParameterError("per_repetition is empty; need at least one repetition")
    mean = float(x.mean())
    if x.size == 1:
        return mean, float("nan"), float("nan")
    # stdtrit is Student's t quantile (= scipy.stats.t.ppf), without importing scipy.stats (~1 s of a cold start)
    half = float(stdtrit(x.size - 1, 0.975) * x.std(ddof=1) / np.sqrt(x.size))
    return mean, mean - half, mean + half


def _as_reps(values: np.ndarray, series: np.ndarray) -> np.ndarray:
    """Add a repetition axis to a single release and check the shapes agree."""
    if values.shape == series.shape:
        values = values[None]
    if values.shape[1:] != series.shape:
        raise ParameterError(
            f"values of shape {values.shape} do not match series of shape {series.shape}; "
            "pass (repetitions, *series.shape) or series.shape"
        )
    return values


def mae(series, values, mechanism: str = "laplace", *, degrees: bool = False) -> MAE:
    """MAE of ``values`` ((reps, n), (reps, n, 2) or one release) against the original ``series``.

    laplace: mean |o_t − x_t| in the series' units; planar_laplace: mean distance in metres (planar
    for local metres, great-circle when ``degrees=True`` and points are (lat, lon)); randomized_response:
    percentage of reports that differ from the truth (Fig. 7a).
    """
    if mechanism not in MECHANISMS:
        raise ParameterError(f"mechanism must be one of {MECHANISMS}, got {mechanism!r}")
    try:
        x = np.asarray(series, dtype=float)
        o = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError("series and values must be numeric arrays") from exc
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(o))):
        raise ParameterError("series and values must not contain NaN or infinity")
    if mechanism == "planar_laplace" and (x.ndim != 2 or x.shape[1] != 2):
        raise ParameterError(f"series for planar_laplace must have shape (n, 2), got {x.shape}")
    if mechanism != "planar_laplace" and x.ndim != 1:
        raise ParameterError(f"series for {mechanism} must have shape (n,), got {x.shape}")
    if x.shape[0] == 0:
        raise ParameterError("series is empty")
    o = _as_reps(o, x)
    if mechanism == "laplace":
        per_rep = np.abs(o - x).mean(axis=1)
    elif mechanism == "randomized_response":
        per_rep = 100.0 * (o != x).mean(axis=1)
    elif degrees:
        per_rep = great_circle_metres(x[:, 0], x[:, 1], o[..., 0], o[..., 1]).mean(axis=1)
    else:
        per_rep = np.hypot(o[..., 0] - x[:, 0], o[..., 1] - x[:, 1]).mean(axis=1)
    mean, low, high = mean_ci95(per_rep)
    low = max(low, 0.0) if np.isfinite(low) else low  # an error is never negative: neither is its lower bound
    per_rep.flags.writeable = False
    return MAE(per_repetition=per_rep, mean=mean, ci_low=low, ci_high=high, unit=UNITS[mechanism])


def laplace_expected_error(x, scale, value_range: tuple[float, float] | None = None) -> np.ndarray:
    """E|o − x| of the Laplace release o of x at scale b (broadcasting x and b), elementwise; unclamped: b.

    With the public range [l, h] the exports clamp the input and the output (``lmdk.relation``): for x inside,
    E|clip(x + Z) − x| = b·(1 − ½e^−(h−x)/b − ½e^−(x−l)/b) (integrate |z|·e^−|z|/b/2b up to each end, the mass
    beyond an end released at it); a value outside is released from the nearer end, |x − end| plus the error
    there, E|clip(end + Z) − end| = ½b(1 − e^−(h−l)/b). The exact discrete sampler's 2^k grid adds at most
    1/1024 of b (``lmdk.discrete_laplace``).
    """
    b = np.asarray(scale, dtype=float)
    x = np.asarray(x, dtype=float)
    if value_range is None:
        return np.broadcast_to(b, np.broadcast_shapes(x.shape, b.shape)).copy()
    low, high = value_range
    inside = np.clip(x, low, high)
    # in place after the first (broadcasting) step: a population summary calls this on (users, n) cells per scheme
    error = (inside - high) / b
    np.exp(error, out=error)  # e^−(h−x)/b
    other = (low - inside) / b
    np.exp(other, out=other)  # e^−(x−l)/b
    error += other
    error *= -0.5
    error += 1.0
    error *= b
    outside = (x < low) | (x > high)
    if outside.any():
        edge = np.abs(x - inside) + 0.5 * b * (1 - np.exp(-(high - low) / b))
        error = np.where(outside, edge, error)
    return error


def data_free_guess(value_range: tuple[float, float]) -> float:
    """The data-free guess of a value in the public range [low, high]: its middle, (low + high) / 2.

    Released without looking at the data, it costs no privacy and bounds the worst error by half the range; a
    constant picked by looking at the data (its mean, say) is not data-free.
    """
    low, high = (float(v) for v in value_range)
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ParameterError(f"the public range must be two finite numbers low < high, got {value_range!r}")
    return (low + high) / 2


def data_free_guess_mae(series, value_range: tuple[float, float]) -> float:
    """MAE of releasing the data-free guess (the middle of the public range) at every timestamp, in the series' units.

    The yardstick of every error the app shows: a private release whose MAE is not below this number tells a reader
    no more than the public range already does. Values outside the range count as they are (no clamping), so the
    number is the error a reader of the guess would actually see.
    """
    x = np.asarray(series, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ParameterError("series must be a non-empty 1-d array of finite numbers")
    return float(np.abs(x - data_free_guess(value_range)).mean())
