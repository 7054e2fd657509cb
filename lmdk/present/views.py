"""Small pure helpers the dashboard needs around the core: URL encoding of landmark sets,
summaries of a Release across repetitions, and post-processing by clamping (numpy/pandas only).

``release_input`` and ``MECHANISM_FOR_KIND`` live in :mod:`lmdk.data.mechanism_input` (the core); they are
re-exported here because generated scripts call ``lmdk.views.release_input``."""
from __future__ import annotations

import base64
import zlib
from dataclasses import dataclass

import numpy as np

from lmdk.data.mechanism_input import MECHANISM_FOR_KIND, release_input  # noqa: F401 (re-exported)
from lmdk.errors import ParameterError

_MAX_RANGES_CHARS = 2_000


def encode_landmarks(landmarks) -> str:
    """Encode sorted landmark indices compactly for a URL: runs as "a-b" joined by "." or a zlib bitmask "z…"."""
    idx = np.unique(np.asarray(landmarks, dtype=np.int64))
    if idx.size == 0:
        return "-"
    if idx[0] < 0:
        raise ParameterError("landmarks: indices must be non-negative")
    breaks = np.flatnonzero(np.diff(idx) != 1)
    starts = np.concatenate(([idx[0]], idx[breaks + 1]))
    ends = np.concatenate((idx[breaks], [idx[-1]]))
    text = ".".join(f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts.tolist(), ends.tolist(), strict=True))
    if len(text) <= _MAX_RANGES_CHARS:
        return text
    mask = np.zeros(int(idx[-1]) + 1, dtype=bool)
    mask[idx] = True
    packed = zlib.compress(np.packbits(mask).tobytes(), 9)
    return "z" + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def decode_landmarks(text: str, limit: int = 10_000_000) -> np.ndarray:
    """Inverse of encode_landmarks; raises ParameterError on malformed text or indices ≥ limit."""
    if text in ("", "-"):
        return np.zeros(0, dtype=np.int64)
    try:
        if text.startswith("z"):
            raw = zlib.decompress(base64.urlsafe_b64decode(text[1:] + "=" * (-len(text[1:]) % 4)))
            if len(raw) * 8 > limit + 8:
                raise ParameterError(f"landmarks: the encoded set is longer than the limit {limit}")
            idx = np.flatnonzero(np.unpackbits(np.frombuffer(raw, dtype=np.uint8)))
        else:
            parts = []
            for token in text.split("."):
                a, _, b = token.partition("-")
                lo, hi = int(a), int(b) if b else int(a)
                if lo < 0 or hi < lo or hi >= limit:
                    raise ParameterError(f"landmarks: bad range {token!r} (need 0 ≤ a ≤ b < {limit})")
                parts.append(np.arange(lo, hi + 1))
            idx = np.unique(np.concatenate(parts))
    except (ValueError, zlib.error) as exc:
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError(f"landmarks: cannot decode {text[:30]!r}; use 'a-b.c' runs or a 'z' bitmask") from exc
    if idx.size and idx[-1] >= limit:
        raise ParameterError(f"landmarks: index {int(idx[-1])} is not below the series length {limit}")
    return idx.astype(np.int64)


def share(landmarks, n: int) -> float:
    """Fraction of the n timestamps that are landmarks (0 for an empty series)."""
    return float(len(landmarks)) / n if n else 0.0


def clamp(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Clamp released values to a public range [low, high] — post-processing, free under DP (Theorem 1)."""
    if not low < high:
        raise ParameterError(f"clamp range: low ({low}) must be below high ({high})")
    return np.clip(values, low, high)


def quantile_band(values: np.ndarray, level: float = 0.9) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Median and the central `level` band across repetitions (axis 0) of released values.

    The quantiles of np.quantile's default ("linear", Hyndman & Fan type 7: position q·(R−1) between order
    statistics), read off one sort along axis 0 — several times faster than np.quantile's strided partitions."""
    if values.ndim < 2:
        raise ParameterError("values: need repetitions × n (× 2) releases")
    tail = (1.0 - level) / 2.0
    ordered = np.sort(values, axis=0)
    last = ordered.shape[0] - 1

    def at(q: float) -> np.ndarray:
        pos = q * last
        below = int(np.floor(pos))
        above = min(below + 1, last)
        frac = pos - below
        a, b = ordered[below], ordered[above]
        return a + (b - a) * frac if frac < 0.5 else b - (b - a) * (1.0 - frac)

    return at(0.5), at(tail), at(1.0 - tail)


@dataclass(frozen=True)
class ReleaseSummary:
    """What the dashboard draws for one scheme: median/band of the releases, budgets, accounting, error."""

    scheme: str
    median: np.ndarray  # n (or n × 2)
    low: np.ndarray
    high: np.ndarray
    budgets: np.ndarray  # budgets of the first repetition, n
    budgets_mean: np.ndarray  # mean budget per timestamp across repetitions, n
    published_share: float  # share of (repetition, t) pairs that spent budget
    worst_sigma: float  # max over repetitions and t of Σ_{L∪{t}} ε_i (Theorem 2)
    satisfies: bool  # every repetition satisfies (ε, L)-landmark privacy
    mae: float
    mae_ci: tuple[float, float]
    mae_clamped: float | None = None
    mae_clamped_ci: tuple[float, float] | None = None
    first: np.ndarray | None = None  # the first repetition's released values, for downloads and maps
    first_published: np.ndarray | None = None  # its published flags


MAE_UNIT = {"laplace": None, "planar_laplace": "m", "randomized_response": "% wrong reports"}
SYNTHETIC_ORIGIN = (39.9042, 116.4074)  # synthetic trajectories are placed in Beijing (T-drive's city)
SYNTHETIC_FIX_SECONDS = 177  # T-drive's average sampling interval (§4.1.1)
SYNTHETIC_START = "2024-01-01"  # every synthetic values series starts here, whatever its seed (not 1970)
SYNTHETIC_UNIT = "kWh"  # synthetic values read as hourly meter readings (mean 10, sd 2)


def synthetic_series(kind: str, n: int, correlation: float, rng=None):
    """A synthetic values series (AR(1) hourly readings in ``SYNTHETIC_UNIT`` from ``SYNTHETIC_START``, the same start
    for every seed) or trajectory (correlated walk in Beijing, a fix every 177 s)."""
    from lmdk import mechanisms, synthetic
    from lmdk.data import series as data_series
    from lmdk.rng import as_generator

    gen = as_generator(rng)
    if kind == "values":
        x = synthetic.values(n, correlation, gen, mean=10.0, std=2.0)
        import pandas as pd

        hours = pd.date_range(SYNTHETIC_START, periods=n, freq="h", name="timestamp")
        return data_series.from_values(x, hours, units=SYNTHETIC_UNIT,
                                       name=f"synthetic values (n={n}, ρ={correlation:g})")
    if kind == "trajectory":
        xy = synthetic.trajectory(n, gen, correlation=correlation)
        lat, lon = mechanisms.metres_to_latlon(xy, SYNTHETIC_ORIGIN)
        times = np.datetime64("2008-02-02T08:00:00") + np.arange(n) * np.timedelta64(SYNTHETIC_FIX_SECONDS, "s")
        return data_series.from_trajectory(times, lat, lon, name=f"synthetic trajectory (n={n}, ρ={correlation:g})")
    raise ParameterError(f"kind must be 'values' or 'trajectory' for a synthetic series, not {kind!r}")


def timeline_values(series) -> tuple[np.ndarray, str]:
    """The y values drawn on the timeline and their axis title: values; metres moved per step; contact id."""
    if series.kind == "values":
        return series.values, f"value ({series.units})" if series.units else "value"
    if series.kind == "trajectory":
        xy, _ = series.xy()
        step = np.r_[0.0, np.hypot(*np.diff(np.asarray(xy), axis=0).T)]
        return step, "distance from previous fix (m)"
    return series.contacts.astype(float), "contact id (−1 nothing found, −2 outsider)"


def summarize(scheme: str, original: np.ndarray, release, landmarks, epsilon: float, mechanism: str, *,
              clamp_range: tuple[float, float] | None = None, level: float = 0.9) -> ReleaseSummary:
    """Reduce a Release (repetitions × n) to what the dashboard draws; Theorem 2 checked against the real L."""
    from lmdk import metrics, privacy

    values = np.asarray(release.values, dtype=float)
    budgets = np.atleast_2d(np.asarray(release.budgets, dtype=float))
    n = budgets.shape[-1]
    mask = privacy.landmark_mask(np.asarray(landmarks, dtype=np.int64), n)
    same_rows = budgets.shape[0] > 1 and bool((budgets[1:] == budgets[:1]).all())  # a data-independent scheme
    loss = privacy.landmark_loss(budgets[:1] if same_rows else budgets, mask)  # identical rows, identical losses
    extra = float(getattr(release, "selection_epsilon", 0.0) or 0.0)
    worst = float(loss.max()) + extra
    med, lo, hi = quantile_band(values, level)
    error = metrics.mae(original, values, mechanism)
    mae_c, ci_c = None, None
    if clamp_range is not None and mechanism == "laplace":
        clamped = metrics.mae(original, clamp(values, *clamp_range), mechanism)
        mae_c, ci_c = clamped.mean, clamped.ci
    published = np.atleast_2d(np.asarray(release.published, dtype=bool))
    return ReleaseSummary(
        scheme=scheme, median=med, low=lo, high=hi, budgets=budgets[0], budgets_mean=budgets.mean(axis=0),
        published_share=float(published.mean()), worst_sigma=worst, satisfies=bool(worst <= epsilon + 1e-9),
        mae=error.mean, mae_ci=error.ci, mae_clamped=mae_c, mae_clamped_ci=ci_c, first=values[0],
        first_published=published[0],
    )
