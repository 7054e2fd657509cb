"""Draw what a screen can show: which events of a long series a chart draws, and how a selection on the drawn
chart maps back to every real event it covers.

A panel is 900–1,900 px wide, so a line of 35,040 or 105,120 points costs the browser its time (plotly draws
and hit-tests every point) and shows nothing more than ~2,000 well-chosen ones. ``positions`` picks them with
MinMaxLTTB (Van Der Donckt et al., "MinMaxLTTB: Leveraging MinMax-Preselection to Scale LTTB", IEEE VIS 2023)
from the ``tsdownsample`` library (Rust, vectorised): a min/max preselection keeps every spike, LTTB then keeps
the points that preserve the line's shape. The drawn points are *real events*: a trace carries their event
positions (``customdata`` or ``x``), so hover shows the real timestamp and value and a click addresses the exact
event. Zooming to full detail is the page's zoom window (``ui.charts.zoom``): a window of at most ``DISPLAY_POINTS``
events is drawn point for point.

``events_in_selection`` maps a box or lasso drawn on a downsampled timeline to every event inside it (not only
the drawn ones); ``bucket_max`` thins a per-timestamp budget drawn as filled steps (the top of each pixel column
is its largest εₜ, which is what filled bars show).
"""
from __future__ import annotations

import numpy as np

DISPLAY_POINTS = 2_000  # points per line; a window of at most this many events is drawn at full detail
MARKERS_MAX = 1_000  # landmark/dummy markers drawn at once (~1 per pixel column: more would only overlap)


def positions(y, n_out: int = DISPLAY_POINTS) -> np.ndarray:
    """Sorted positions (int64) of the points of ``y`` to draw: all of them when there are at most ``n_out``,
    else MinMaxLTTB's ``n_out`` (first and last included, every local extreme kept); NaN-aware."""
    from tsdownsample import MinMaxLTTBDownsampler, NaNMinMaxLTTBDownsampler

    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.size <= n_out:
        return np.arange(y.size, dtype=np.int64)
    finite = np.isfinite(y)
    if finite.all():
        idx = MinMaxLTTBDownsampler().downsample(y, n_out=n_out)
    elif finite.any():
        idx = NaNMinMaxLTTBDownsampler().downsample(np.where(np.isinf(y), np.nan, y), n_out=n_out)
    else:
        idx = np.linspace(0, y.size - 1, n_out).astype(np.int64)
    return np.unique(np.asarray(idx, dtype=np.int64))


def lines_positions(*ys, n_out: int = DISPLAY_POINTS) -> np.ndarray:
    """One set of positions for several lines drawn over the same events (each line's MinMaxLTTB points, merged
    and thinned to about ``n_out`` per line): every line keeps its extremes and all share one x array."""
    if not ys or len(ys[0]) <= n_out:
        return np.arange(len(ys[0]) if ys else 0, dtype=np.int64)
    return np.unique(np.concatenate([positions(y, n_out) for y in ys]))


def markers(events: np.ndarray, y: np.ndarray, n_out: int = MARKERS_MAX) -> np.ndarray:
    """The subset of sorted event positions ``events`` to mark (all up to ``n_out``; beyond, MinMaxLTTB over their
    values ``y[events]``, so markers are spread over the whole time axis and the highest and lowest stay)."""
    events = np.asarray(events, dtype=np.int64)
    if events.size <= n_out:
        return events
    return events[positions(np.asarray(y, dtype=np.float64)[events], n_out)]


def bucket_max(values: np.ndarray, n_out: int = DISPLAY_POINTS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bucket of consecutive timestamps (at most ``n_out`` buckets): its first timestamp, last timestamp and
    largest value — a filled step line through these is what the full one looks like at screen resolution."""
    v = np.asarray(values, dtype=np.float64)
    n = v.size
    k = max(1, int(np.ceil(n / n_out)))
    starts = np.arange(0, n, k, dtype=np.int64)
    return starts, np.minimum(starts + k - 1, n - 1), np.maximum.reduceat(v, starts) if n else v


def _as_ms(value) -> float:
    """A plotly date-axis value (ms number or date string, local wall time) as float ms."""
    import pandas as pd

    if isinstance(value, (int, float, np.floating, np.integer)):
        return float(value)
    return pd.Timestamp(str(value)).value / 1e6


def events_in_selection(selection: dict, x_ms: np.ndarray, y: np.ndarray, first: int = 0, stop: int | None = None,
                        *, date_axis: bool = True) -> np.ndarray:
    """Every event position in [first, stop) whose point (x_ms[t], y[t]) lies inside a plotly box or lasso
    ``selection`` (Streamlit's ``event.selection``), drawn or not; empty when the selection has no area."""
    stop = len(y) if stop is None else stop
    x = np.asarray(x_ms, dtype=np.float64)[first:stop]
    yy = np.asarray(y, dtype=np.float64)[first:stop]
    conv = _as_ms if date_axis else float
    inside = np.zeros(x.size, dtype=bool)
    for box in selection.get("box") or []:
        bx, by = [conv(v) for v in box.get("x", [])], [float(v) for v in box.get("y", [])]
        if len(bx) == 2 and len(by) == 2:
            inside |= (x >= min(bx)) & (x <= max(bx)) & (yy >= min(by)) & (yy <= max(by))
    for lasso in selection.get("lasso") or []:
        px = np.asarray([conv(v) for v in lasso.get("x", [])], dtype=np.float64)
        py = np.asarray(lasso.get("y", []), dtype=np.float64)
        if px.size >= 3 and px.size == py.size:
            inside |= _in_polygon(x, yy, px, py)
    return first + np.flatnonzero(inside)


def _in_polygon(x: np.ndarray, y: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Even–odd rule: points (x, y) inside the closed polygon (px, py), one vectorised pass per edge."""
    inside = np.zeros(x.size, dtype=bool)
    candidates = (x >= px.min()) & (x <= px.max()) & (y >= py.min()) & (y <= py.max())
    xs, ys = x[candidates], y[candidates]
    hit = np.zeros(xs.size, dtype=bool)
    for i in range(px.size):
        x1, y1, x2, y2 = px[i - 1], py[i - 1], px[i], py[i]
        crosses = (y1 > ys) != (y2 > ys)
        with np.errstate(divide="ignore", invalid="ignore"):
            at = x1 + (ys - y1) * (x2 - x1) / (y2 - y1)
        hit ^= crosses & (xs < at)
    inside[candidates] = hit
    return inside
