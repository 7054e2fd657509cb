"""Fewer, shorter numbers, for drawing only: min/max and grid decimation (no spike disappears), band envelopes
(the band never shrinks), step lines by their change points, values rounded to a few significant digits."""
from __future__ import annotations

import numpy as np

DRAW_POINTS = 600  # lines longer than this are drawn min/max-decimated (spikes kept) — the panels are ~950 px wide


def rounded(values, digits: int) -> np.ndarray:
    """Values rounded to ``digits`` significant digits (so they print short in the JSON spec); keep ``digits``
    above what the hover labels show. NaN/inf/0 are kept."""
    a = np.array(values, dtype=float)
    ok = np.isfinite(a) & (a != 0)
    v = a[ok]
    k = digits - 1 - np.floor(np.log10(np.abs(v)))  # decimals to keep (whole numbers)
    # scale by an exact power of ten, so the result is the double nearest to the decimal; both branches at once
    # (fewer numpy calls: ~40 per ε change), the one not taken may overflow and is discarded
    with np.errstate(over="ignore", invalid="ignore"):
        p = 10.0 ** np.abs(k)
        a[ok] = np.where(k >= 0, np.round(v * p) / p, np.round(v / p) * p)
    return a


def regular_step(xs: np.ndarray) -> float | None:
    """The constant step of evenly spaced x values (then traces can use x0/dx instead of x arrays), else None."""
    if xs.size < 2 or not np.issubdtype(np.asarray(xs).dtype, np.number):
        return None
    d = np.diff(xs)
    return float(d[0]) if d[0] > 0 and np.all(d == d[0]) else None


def minmax_decimate(x: np.ndarray, y: np.ndarray, limit: int = DRAW_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """For drawing only: keep each bucket's minimum and maximum (in time order) so no spike disappears."""
    n = y.size
    if n <= limit:
        return x, y
    k = int(np.ceil(n / (limit // 2)))
    m = n // k * k
    yb = y[:m].reshape(-1, k)
    base = np.arange(0, m, k)
    i_min, i_max = base + yb.argmin(axis=1), base + yb.argmax(axis=1)
    idx = np.sort(np.concatenate([i_min, i_max, np.arange(m, n)]))
    return x[idx], y[idx]


def _bucketed(k: int, *arrays: np.ndarray) -> list[np.ndarray]:
    """Each array cut into buckets of k values (the last bucket padded with its final value), as (buckets, k)."""
    n = arrays[0].size
    pad = -n % k
    if not pad:  # np.pad costs ~40 µs a call even with nothing to add (7 calls per release chart and ε change)
        return [np.asarray(a).reshape(-1, k) for a in arrays]
    return [np.concatenate([a, np.full(pad, a[-1], dtype=np.asarray(a).dtype)]).reshape(-1, k) for a in arrays]


def grid_decimate(k: int, line: np.ndarray, lo: np.ndarray | None = None, hi: np.ndarray | None = None):
    """For drawing an evenly spaced series: per bucket of k timestamps two points, at the bucket's start and middle
    — the line's minimum and maximum in time order (no spike disappears), the band's lowest ``lo`` and highest
    ``hi`` — so every trace shares one regular grid (x0, dx = k/2 steps) and needs no x array."""
    (yb,) = _bucketed(k, line)
    i_min, i_max = yb.argmin(axis=1), yb.argmax(axis=1)
    rows = np.arange(yb.shape[0])
    early = i_min <= i_max
    pairs = np.column_stack([np.where(early, yb[rows, i_min], yb[rows, i_max]),
                             np.where(early, yb[rows, i_max], yb[rows, i_min])]).ravel()
    if lo is None or hi is None:
        return (pairs,)
    lob, hib = _bucketed(k, lo, hi)
    return pairs, np.repeat(lob.min(axis=1), 2), np.repeat(hib.max(axis=1), 2)


def band_envelope(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, limit: int = DRAW_POINTS):
    """For drawing only: per bucket, the lowest low and highest high (the band never shrinks)."""
    n = lo.size
    if n <= limit:
        return x, lo, hi
    k = int(np.ceil(n / limit))
    m = n // k * k
    xs = np.concatenate([x[:m:k], x[m:]])
    return (xs, np.concatenate([lo[:m].reshape(-1, k).min(axis=1), lo[m:]]),
            np.concatenate([hi[:m].reshape(-1, k).max(axis=1), hi[m:]]))


def step_points(values: np.ndarray, labels: bool = True) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A per-timestamp series as the points of an "hv" step line: the start of every run of equal values plus the
    last timestamp (drawn, it is the same line as all n points), with hover labels "t=a–b" for each run (``labels``
    False: none, for an outline drawn without hover)."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if n == 0:
        return np.zeros(0, dtype=np.int32), v, []
    starts = np.flatnonzero(np.concatenate([[True], v[1:] != v[:-1]]))
    ends = np.append(starts[1:] - 1, n - 1)
    x, y = starts, rounded(v[starts], 5)  # hover shows 4 significant digits
    label = ([f"t={a}" if a == b else f"t={a}–{b}" for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
             if labels else [""] * starts.size)
    if starts[-1] != n - 1:  # close the last run at the final timestamp
        x, y, label = np.append(starts, n - 1), np.append(y, y[-1]), label + label[-1:]
    return x.astype(np.int32), y, label
