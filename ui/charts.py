"""Plotly figure builders shared by every page: one Okabe–Ito colour per scheme, one landmark style.

Conventions (keep them when adding a chart):
- a scheme is always drawn in ``SCHEME_COLOURS[scheme]``; the original series in ``ORIGINAL``;
- real landmarks are filled black diamonds (``LANDMARK_MARKER``), dummy landmarks open diamonds
  (``DUMMY_MARKER``), regular events small grey dots; in the thin "L" strip above multi-panel charts,
  landmarks are solid black ticks and dummies dotted ticks (one path: cheap to draw);
- axes carry units; repetitions are a median line plus a shaded band, never one line per repetition;
- ``layout.meta`` carries a small dict (e.g. ``{"eps": 1.0}``) that browser tests and the benchmark
  read to know a chart was redrawn for the current settings.
"""
from __future__ import annotations

import hashlib
from typing import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

from lmdk.experiments.charts import rgba  # noqa: F401  (one colour helper for the pages and the runner's charts)

SCHEME_COLOURS = {  # Okabe & Ito (2008); yellow is left out (too pale on white)
    "event": "#E69F00",  # orange
    "user": "#56B4E9",  # sky blue
    "w-event": "#009E73",  # bluish green
    "uniform": "#0072B2",  # blue
    "skip": "#D55E00",  # vermilion
    "adaptive": "#CC79A7",  # reddish purple
}
ORIGINAL = "#000000"
REGULAR = "#8C8C8C"
LANDMARK_COLOUR = "#000000"
DUMMY_COLOUR = "#000000"
LANDMARK_MARKER = dict(symbol="diamond", size=8, color=LANDMARK_COLOUR, line=dict(width=0))
DUMMY_MARKER = dict(symbol="diamond-open", size=9, color=DUMMY_COLOUR, line=dict(width=1.5))
REGULAR_MARKER = dict(symbol="circle", size=4, color=REGULAR)
FONT = dict(size=14)
ABSOLUTE_RANGE = (-5.0, 1.3)  # log10 of the shared εₜ axis: 10⁻⁵ … 20, every budget the app can produce at n ≤ 400
BAR_LIMIT = 400  # above this many timestamps, budget bars are drawn as a filled step line (same look, faster)
MODEBAR = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
# Pass to st.plotly_chart: our own light styling instead of Streamlit's theme, whose client-side
# restyling of large multi-panel specs costs several hundred milliseconds per redraw.
PLOTLY_KW = {"config": MODEBAR, "theme": None}
# ticklabeloverflow "allow": our margins keep labels inside the chart, and plotly's default ("hide past div")
# measures every tick label's box after drawing — a forced browser layout per label on multi-panel charts.
_AXIS = {"gridcolor": "#E6E6E6", "zeroline": False, "linecolor": "#BDBDBD", "ticks": "outside",
         "tickcolor": "#BDBDBD", "title": {"font": {"size": 13, "color": "#31333F"}, "standoff": 12}, "ticklabeloverflow": "allow"}
_TEMPLATE_FONT = {"family": "Source Sans Pro, Source Sans 3, sans-serif", "size": 13, "color": "#31333F"}
TEMPLATE = go.layout.Template(layout={
    "font": _TEMPLATE_FONT,
    "xaxis": _AXIS, "yaxis": _AXIS, "paper_bgcolor": "white", "plot_bgcolor": "white",
    "colorway": list(SCHEME_COLOURS.values()),
})


def time_values(x) -> np.ndarray:
    """Timestamps as float milliseconds of local wall time: plotly reads numbers on a date axis as ms,
    and numeric arrays travel base64-encoded (ISO strings would make every chart several times larger)."""
    import pandas as pd

    if not isinstance(x, pd.DatetimeIndex):
        try:
            x = pd.DatetimeIndex(x)
        except (TypeError, ValueError):
            return np.asarray(x)
    if x.tz is not None:
        x = x.tz_localize(None)
    return x.asi8.astype(np.float64) / 1e6


def _common_layout(*, height: int, meta: dict | None = None, legend: bool = True) -> dict:
    """Layout keys every chart shares (as a plain dict)."""
    return {
        "height": height,
        "margin": {"l": 70, "r": 20, "t": 70, "b": 50},  # legend below the (hover-only) toolbar
        "font": FONT,
        "template": TEMPLATE,
        "showlegend": legend,
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        "meta": meta or {},
        "hovermode": "closest",
    }


def _base_layout(fig: go.Figure, *, height: int, meta: dict | None = None, legend: bool = True) -> go.Figure:
    fig.update_layout(**_common_layout(height=height, meta=meta, legend=legend))
    return fig


def data_revision(data: list[dict]) -> str:
    """A short digest of the traces' values, for ``layout.datarevision``."""
    h = hashlib.blake2b(digest_size=8)
    for trace in data:
        for key in sorted(trace):
            value = trace[key]
            h.update(key.encode())
            numeric = isinstance(value, np.ndarray) and value.dtype.kind != "O"  # object arrays' bytes are pointers
            h.update(value.tobytes() if numeric else repr(value.tolist() if isinstance(value, np.ndarray)
                                                             else value).encode())
    return h.hexdigest()


class DrawOnceFigure(go.Figure):
    """A figure built by ``_figure``: ``to_dict`` hands out its dicts with numpy arrays as they are (no deep copy,
    no base64), so ``st.plotly_chart``'s ``to_dict`` + orjson writes them straight into plain JSON lists — a deep
    copy of per-point Python lists cost more server time than building the chart."""

    def to_dict(self):
        return {"data": [dict(trace) for trace in self._data], "layout": dict(self._layout)}


def _figure(data: list[dict], layout: dict) -> go.Figure:
    """A figure drawn ONCE per mount, from plain dicts built by this module (tests validate them against plotly's
    schema; skipping plotly.py's per-property validation saves ~10 ms per multi-panel chart and rerun).

    Streamlit's chart element hands plotly.js a JSON deep copy of the figure right after mounting it, and
    plotly.js redraws everything when an object-valued setting is a new object: the data arrays (unless
    ``datarevision`` is set), base64 typed arrays (decoded, they are compared as objects whatever the
    datarevision), ``layout.template`` and ``layout.meta``. So here the template is inlined (``template`` is
    ``False``), ``datarevision`` is a digest of the data, arrays travel as plain JSON lists (C-contiguous
    numpy arrays that orjson writes as lists, see ``DrawOnceFigure``), and ``meta`` is wrapped in a
    one-element list (arrays are compared by ``datarevision``): read it with ``meta_of``. That halves the
    browser's work per ε change.
    """
    data = [_arrays(trace) for trace in data]
    revision = data_revision(data)
    layout = {**layout, "template": False, "datarevision": revision,
              "meta": [layout.get("meta") or {}], "paper_bgcolor": "white", "plot_bgcolor": "white",
              "font": {**_TEMPLATE_FONT, **layout.get("font", {})},
              # room for 6-character tick labels ("0.0005") beside a rotated axis title without overlap
              "margin": {**layout.get("margin", {}), "l": max(84, layout.get("margin", {}).get("l", 0))}}
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")):
            title = {**_AXIS["title"], **axis.get("title", {})}
            if not title.get("text"):  # plotly measures every tick label of an axis whose title has a standoff
                title.pop("standoff")
            layout[key] = {**_AXIS, **axis, "title": title}
    return DrawOnceFigure(data=data, layout=layout, _validate=False)


def _short(values, digits: int) -> np.ndarray:
    """Values rounded to ``digits`` significant digits (so they print short in the JSON spec); keep ``digits``
    above what the hover labels show. NaN/inf/0 are kept."""
    a = np.array(values, dtype=float)
    ok = np.isfinite(a) & (a != 0)
    v = a[ok]
    k = digits - 1 - np.floor(np.log10(np.abs(v))).astype(int)  # decimals to keep
    up = k >= 0  # scale by an exact power of ten, so the result is the double nearest to the decimal
    r = np.empty_like(v)
    r[up] = np.round(v[up] * 10.0 ** k[up]) / 10.0 ** k[up]
    r[~up] = np.round(v[~up] / 10.0 ** -k[~up]) * 10.0 ** -k[~up]
    a[ok] = r
    return a


def _arrays(value):
    """Every array (numpy, or a base64 typed array from ``to_plotly_json``; also nested in dicts) as a
    C-contiguous numpy array, which orjson serialises as a plain JSON list (NaN → null: a gap in a line)."""
    if isinstance(value, dict):
        if set(value) <= {"dtype", "bdata", "shape"} and "bdata" in value:
            import base64

            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]).newbyteorder("<"))
            if value.get("shape"):
                array = array.reshape([int(d) for d in str(value["shape"]).split(",")])
            value = array.astype(array.dtype.newbyteorder("="))
        else:
            return {k: _arrays(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "US":  # strings: plain lists (orjson does not write numpy string arrays)
            return value.tolist()
        value = np.ascontiguousarray(value, dtype=np.float32 if value.dtype == np.float16 else None)
    return value


def single_draw(fig: go.Figure) -> go.Figure:
    """Any figure styled by this module (``TEMPLATE``) in the draw-once form of ``_figure`` — for pages whose
    charts are rebuilt on every ε change. Its ``layout.meta`` becomes a one-element list (see ``meta_of``)."""
    spec = fig.to_plotly_json()
    layout = {k: v for k, v in spec["layout"].items() if k != "template"}
    return _figure(spec["data"], layout)


def meta_of(layout) -> dict:
    """``layout.meta`` as a dict, whether stored plainly or (figures from ``_figure``) as a one-element list."""
    meta = layout.get("meta") if isinstance(layout, dict) else layout.meta
    return (meta[0] if isinstance(meta, (list, tuple)) and meta else meta) or {}


def timeline(
    x: Sequence,
    y: np.ndarray,
    landmarks: Iterable[int],
    *,
    y_title: str,
    x_title: str = "time",
    dummies: Iterable[int] = (),
    selectable: bool = True,
    height: int = 360,
    meta: dict | None = None,
) -> go.Figure:
    """A series over time with regular events, landmarks and (optionally) dummy landmarks.

    Every point trace carries ``customdata`` = timestamp index so selections map back to events.
    """
    y = np.asarray(y, dtype=float)
    n = len(y)
    idx = np.arange(n)
    lm = np.asarray(sorted(set(int(i) for i in landmarks)), dtype=int)
    dm = np.asarray(sorted(set(int(i) for i in dummies) - set(lm.tolist())), dtype=int)
    x = time_values(x)
    scatter = go.Scattergl if n > 3_000 else go.Scatter
    fig = go.Figure()
    fig.add_trace(
        scatter(
            x=x, y=y, customdata=idx, mode="lines+markers", name="regular event",
            line=dict(color=REGULAR, width=1), marker=REGULAR_MARKER,
            hovertemplate="t=%{customdata}<br>%{x|%Y-%m-%d %H:%M}<br>%{y:.3g}<extra></extra>",
        )
    )
    if dm.size:
        fig.add_trace(
            scatter(
                x=x[dm], y=y[dm], customdata=dm, mode="markers", name="dummy landmark",
                marker=DUMMY_MARKER, hovertemplate="dummy t=%{customdata}<extra></extra>",
            )
        )
    fig.add_trace(
        scatter(
            x=x[lm] if lm.size else [], y=y[lm] if lm.size else [], customdata=lm, mode="markers",
            name="landmark", marker=LANDMARK_MARKER,
            hovertemplate="landmark t=%{customdata}<br>%{x|%Y-%m-%d %H:%M}<br>%{y:.3g}<extra></extra>",
        )
    )
    _base_layout(fig, height=height, meta=meta)
    fig.update_xaxes(title_text=x_title, type="date")
    fig.update_yaxes(title_text=y_title)
    if selectable:  # Streamlit then pans by default and a click selects (dragmode 'select' turns clicks off)
        fig.update_layout(clickmode="event+select")
    return fig


def _stacked(rows: int, titles: Sequence[str], *, rug: bool, gap_px: float, row_px: float, rug_px: float = 34):
    """Layout dict of vertically stacked panels sharing the x axis (faster than make_subplots).

    Returns (layout, axis names per panel, rug axis names or None); panel 1 is the top one.
    """
    heights = ([rug_px] if rug else []) + [row_px] * rows
    total = sum(heights) + gap_px * (len(heights) - 1)
    layout: dict = {"annotations": []}
    axes = []
    top = 1.0
    for k, h in enumerate(heights):
        lo = max(0.0, top - h / total)
        idx = "" if k == 0 else str(k + 1)
        layout[f"xaxis{idx}"] = {"anchor": f"y{idx}", "domain": [0, 1], "showticklabels": k == len(heights) - 1,
                                 **({} if k == 0 else {"matches": "x"})}
        layout[f"yaxis{idx}"] = {"anchor": f"x{idx}", "domain": [lo, top]}
        axes.append((f"x{idx}", f"y{idx}"))
        top = lo - gap_px / total
    rug_axes = axes.pop(0) if rug else None
    for (xa, ya), title in zip(axes, titles):
        domain = layout["yaxis" + ya[1:]]["domain"]
        layout["annotations"].append({"text": title, "x": 0, "xref": "paper", "xanchor": "left", "y": domain[1],
                                      "yref": "paper", "yanchor": "bottom", "yshift": 2, "showarrow": False,
                                      "font": {"size": 13}})
    return layout, axes, rug_axes


def _ticks(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y of vertical ticks at ``positions`` as ONE NaN-separated path (hundreds of markers cost ~50 ms)."""
    x = np.repeat(positions.astype(float), 3)
    x[2::3] = np.nan
    y = np.tile([-1.0, 1.0, np.nan], positions.size)
    return x, y


RUG_DENSITY_LIMIT = 150  # above this many landmarks the L strip shows their density (~900 px: ticks merge into a band)
DENSITY_BINS = 120


def _density_band(landmarks: np.ndarray, x: np.ndarray, xa: str, ya: str) -> list[dict]:
    """The L strip as the share of landmarks per stretch of time: a filled profile standing on the strip's floor."""
    n = x.size
    edges = np.linspace(0, n, min(DENSITY_BINS, n) + 1).astype(np.int64)
    counts = np.histogram(landmarks, bins=edges)[0]
    share = counts / np.maximum(np.diff(edges), 1)
    centre = x[np.minimum((edges[:-1] + edges[1:]) // 2, n - 1)]
    floor = {"type": "scatter", "x": centre, "y": np.full(centre.size, -1.0), "mode": "lines", "xaxis": xa,
             "yaxis": ya, "line": {"width": 0}, "hoverinfo": "skip", "showlegend": False}
    profile = {"type": "scatter", "x": centre, "y": -1.0 + 2.0 * share, "mode": "lines", "fill": "tonexty",
               "line": {"shape": "hvh", "color": LANDMARK_COLOUR, "width": 1}, "fillcolor": "rgba(0,0,0,0.55)",
               "name": "landmark share", "xaxis": xa, "yaxis": ya, "customdata": 100 * share,
               "hovertemplate": "%{customdata:.0f} % of events are landmarks here<extra></extra>"}
    return [floor, profile]


def _rug(rug_axes, landmarks: np.ndarray, dummies: np.ndarray, x: np.ndarray) -> list[dict]:
    """The landmark strip above the panels: black ticks (dummies dotted), drawn once for all panels."""
    xa, ya = rug_axes
    if landmarks.size > RUG_DENSITY_LIMIT:
        traces = _density_band(landmarks, x, xa, ya)
    else:
        tx, ty = _ticks(x[landmarks]) if landmarks.size else (np.array([]), np.array([]))
        traces = [{"type": "scatter", "x": tx, "y": ty, "mode": "lines", "xaxis": xa, "yaxis": ya,
                   "line": {"color": LANDMARK_COLOUR, "width": 1.5}, "name": "landmark", "hoverinfo": "x"}]
    if dummies.size:
        dx, dy = _ticks(x[dummies])
        traces.append({"type": "scatter", "x": dx, "y": dy, "mode": "lines", "name": "dummy landmark",
                       "line": {"color": DUMMY_COLOUR, "width": 1.5, "dash": "dot"}, "xaxis": xa, "yaxis": ya,
                       "hoverinfo": "x"})
    return traces


DRAW_POINTS = 600  # lines longer than this are drawn min/max-decimated (spikes kept) — the panels are ~950 px wide


def _regular_step(xs: np.ndarray) -> float | None:
    """The constant step of evenly spaced x values (then traces can use x0/dx instead of x arrays), else None."""
    if xs.size < 2 or not np.issubdtype(np.asarray(xs).dtype, np.number):
        return None
    d = np.diff(xs)
    return float(d[0]) if d[0] > 0 and np.all(d == d[0]) else None


def _minmax_decimate(x: np.ndarray, y: np.ndarray, limit: int = DRAW_POINTS) -> tuple[np.ndarray, np.ndarray]:
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
    return [np.pad(a, (0, pad), mode="edge").reshape(-1, k) for a in arrays]


def _grid_decimate(k: int, line: np.ndarray, lo: np.ndarray | None = None, hi: np.ndarray | None = None):
    """For drawing an evenly spaced series: per bucket of k timestamps two points, at the bucket's start and middle
    — the line's minimum and maximum in time order (no spike disappears), the band's lowest ``lo`` and highest
    ``hi`` — so every trace shares one regular grid (x0, dx = k/2 steps) and needs no x array."""
    (yb,) = _bucketed(k, line)
    i_min, i_max = yb.argmin(axis=1), yb.argmax(axis=1)
    rows = np.arange(yb.shape[0])
    early = i_min <= i_max
    pairs = np.column_stack([np.where(early, yb[rows, i_min], yb[rows, i_max]),
                             np.where(early, yb[rows, i_max], yb[rows, i_min])]).ravel()
    if lo is None:
        return (pairs,)
    lob, hib = _bucketed(k, lo, hi)
    return pairs, np.repeat(lob.min(axis=1), 2), np.repeat(hib.max(axis=1), 2)


def _band_envelope(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, limit: int = DRAW_POINTS):
    """For drawing only: per bucket, the lowest low and highest high (the band never shrinks)."""
    n = lo.size
    if n <= limit:
        return x, lo, hi
    k = int(np.ceil(n / limit))
    m = n // k * k
    xs = np.concatenate([x[:m:k], x[m:]])
    return (xs, np.concatenate([lo[:m].reshape(-1, k).min(axis=1), lo[m:]]),
            np.concatenate([hi[:m].reshape(-1, k).max(axis=1), hi[m:]]))


def _steps(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A per-timestamp series as the points of an "hv" step line: the start of every run of equal values plus the
    last timestamp (drawn, it is the same line as all n points), with hover labels "t=a–b" for each run."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if n == 0:
        return np.zeros(0, dtype=np.int32), v, []
    starts = np.flatnonzero(np.concatenate([[True], v[1:] != v[:-1]]))
    ends = np.append(starts[1:] - 1, n - 1)
    x, y = starts, _short(v[starts], 5)  # hover shows 4 significant digits
    label = [f"t={a}" if a == b else f"t={a}–{b}" for a, b in zip(starts.tolist(), ends.tolist())]
    if starts[-1] != n - 1:  # close the last run at the final timestamp
        x, y, label = np.append(starts, n - 1), np.append(y, y[-1]), label + label[-1:]
    return x.astype(np.int32), y, label


def _index_sets(landmarks, dummies, n: int) -> tuple[np.ndarray, np.ndarray]:
    lm = np.unique(np.asarray(list(landmarks), dtype=np.int64))
    dm = np.setdiff1d(np.asarray(list(dummies), dtype=np.int64), lm)
    return lm[(lm >= 0) & (lm < n)], dm[(dm >= 0) & (dm < n)]


def budgets(
    budgets_by_scheme: dict[str, np.ndarray],
    landmarks: Iterable[int],
    *,
    epsilon: float,
    dummies: Iterable[int] = (),
    meta: dict | None = None,
    row_height: int = 120,
    absolute: bool = False,
) -> go.Figure:
    """Per-timestamp budgets per scheme, landmark budgets darkened and landmarks marked in a strip "L" on top.

    Up to ``BAR_LIMIT`` timestamps: real bars, one panel per scheme, landmark bars hatched; each panel scaled to
    its own largest εₜ, or with ``absolute`` one fixed logarithmic εₜ axis shared by every panel and every ε
    (``ABSOLUTE_RANGE``), so a change of ε or between schemes is seen as a change of height.
    Beyond: one filled step line per scheme, all in ONE plot as rows (each scaled to its own largest εₜ, which the
    row label states; hover shows εₜ) — the same picture as separate panels at a fraction of the browser's work."""
    schemes = list(budgets_by_scheme)
    n = max((len(b) for b in budgets_by_scheme.values()), default=0)
    lm, dm = _index_sets(landmarks, dummies, n)
    mask = np.zeros(n, dtype=bool)
    mask[lm] = True
    meta = {"eps": epsilon, **(meta or {})}
    if n > BAR_LIMIT:
        return _budget_rows(budgets_by_scheme, mask, lm, dm, meta=meta, row_height=row_height)
    # the unit sits in each panel's heading, not in a y-axis title: a titled axis measures all its tick labels on
    # every redraw (plotly's title standoff), and these labels change with ε
    layout, axes, rug_axes = _stacked(len(schemes), [f"{s} — budget εₜ" for s in schemes], rug=True, gap_px=30,
                                      row_px=row_height)
    t = np.arange(n)
    data: list[dict] = _rug(rug_axes, lm, dm, t)
    for (xa, ya), scheme in zip(axes, schemes):
        b = np.asarray(budgets_by_scheme[scheme], dtype=float)
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        data.append({"type": "bar", "x": t, "y": b, "name": scheme, "showlegend": False, "xaxis": xa, "yaxis": ya,
                     "marker": {"color": colour, "line": {"width": np.where(mask, 1.5, 0), "color": "#000"},
                                "pattern": {"shape": np.where(mask, "x", ""), "fgcolor": "#000", "size": 6,
                                            "fillmode": "overlay", "fgopacity": 0.6}},
                     "hovertemplate": "t=%{x}<br>ε_t=%{y:.4g}<extra>" + scheme + "</extra>"})
        if absolute:
            layout["yaxis" + ya[1:]].update(type="log", range=list(ABSOLUTE_RANGE), tick0=0, dtick=2, tickformat="~g")
            continue
        top = float(b.max()) if b.size else 1.0
        layout["yaxis" + ya[1:]].update(range=[0, 1.15 * top if top > 0 else 1.0])
    ry = "yaxis" + rug_axes[1][1:]
    layout[ry].update(range=[-1.1, 1.1], showticklabels=False, showgrid=False, zeroline=False, ticks="",
                      title={"text": "L", "font": {"size": 12}})
    layout["xaxis" + axes[-1][0][1:] if axes else "xaxis"].update(title={"text": "timestamp t"})
    layout["bargap"] = 0.25 if n <= 60 else 0
    layout.update(_common_layout(height=110 + (row_height + 30) * len(schemes), meta=meta))
    return _figure(data, layout)


ROW_FILL = 0.8  # share of a row's height the largest budget of that scheme reaches (budget rows, n > BAR_LIMIT)


def _row_outline(values: np.ndarray, base: float, top: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """A per-timestamp series as a closed "hv" step outline standing on ``base`` (change points only), its heights
    scaled so ``top`` reaches ROW_FILL; returns x, y, the unscaled values (rounded for hover) and hover labels."""
    sx, sy, label = _steps(values)
    scale = ROW_FILL / top if top > 0 else 0.0
    x = np.concatenate([sx[:1], sx, sx[-1:]])
    y = np.concatenate([[base], base + sy * scale, [base]])
    return x, _short(y, 5), np.concatenate([[0.0], sy, [0.0]]), ["", *label, ""]


def _budget_rows(budgets_by_scheme: dict, mask: np.ndarray, lm: np.ndarray, dm: np.ndarray, *, meta: dict,
                 row_height: int) -> go.Figure:
    """The budget chart for many timestamps: one plot, a row per scheme (top to bottom in the given order) and
    the landmark strip on top; each row is a filled step outline scaled to its own largest εₜ."""
    schemes = list(budgets_by_scheme)
    rows = len(schemes)
    data: list[dict] = []
    rug = _rug(("x", "y"), lm, dm, np.arange(mask.size, dtype=float))
    for trace in rug:  # ticks from the strip's base to its top (they were drawn from −1 to 1)
        trace["y"] = rows + 0.05 + (trace["y"] + 1.0) * ROW_FILL / 2
    data += rug
    tickvals, ticktext = [], []
    for i, scheme in enumerate(schemes):
        base = float(rows - 1 - i)
        b = np.asarray(budgets_by_scheme[scheme], dtype=float)
        top = float(b.max()) if b.size else 0.0
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        x, y, eps_t, label = _row_outline(b, base, top)
        data.append({"type": "scatter", "x": x, "y": y, "customdata": eps_t, "text": label, "mode": "lines",
                     "name": scheme, "showlegend": False, "fill": "toself", "fillcolor": rgba(colour, 0.6),
                     "line": {"color": colour, "width": 1, "shape": "hv"},
                     "hovertemplate": "%{text}<br>ε_t=%{customdata:.4g}<extra>" + scheme + "</extra>"})
        if lm.size:
            lx, ly, _, _ = _row_outline(np.where(mask, b, 0.0), base, top)
            data.append({"type": "scatter", "x": lx, "y": ly, "mode": "lines", "name": "budget on landmarks",
                         "legendgroup": "lmbudget", "showlegend": i == 0, "fill": "toself",
                         "fillcolor": "rgba(0,0,0,0.55)", "line": {"width": 0, "shape": "hv"}, "hoverinfo": "skip"})
        tickvals.append(base + ROW_FILL / 2)
        ticktext.append(f"<b>{scheme}</b><br><span style='font-size:11px'>max εₜ {number(top)}</span>")
    tickvals.append(rows + 0.05 + ROW_FILL / 2)
    ticktext.append("<b>L</b>")
    layout = _common_layout(height=round(130 + row_height * 0.8 * (rows + 0.6)), meta=meta)
    layout.update(
        margin={**layout["margin"], "l": 110},
        xaxis={"title": {"text": "timestamp t"}, "range": [-0.5, mask.size - 0.5], "zeroline": False},
        yaxis={"range": [-0.08, rows + 0.95], "tickvals": tickvals, "ticktext": ticktext, "showgrid": False,
               "zeroline": False, "ticks": "", "fixedrange": True},
        annotations=[{"text": "εₜ per timestamp — each row scaled to its scheme's largest εₜ (hover for values)",
                      "x": 0, "xref": "paper", "xanchor": "left", "y": 1.0, "yref": "paper", "yanchor": "bottom",
                      "yshift": 4, "showarrow": False, "font": {"size": 13}}],
    )
    return _figure(data, layout)


def releases(
    x: Sequence,
    original: np.ndarray,
    summaries: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    landmarks: Iterable[int],
    *,
    y_title: str,
    epsilon: float,
    band_label: str = "90 % of repetitions",
    meta: dict | None = None,
    row_height: int = 130,
) -> go.Figure:
    """Original series against each scheme's release (median line and band across repetitions), one panel per
    scheme (``landmarks`` is accepted for symmetry; the budget chart marks them)."""
    schemes = list(summaries)
    original = np.asarray(original, dtype=float)
    xs = time_values(x)
    layout, axes, _ = _stacked(len(schemes), [f"{s} — {y_title}" for s in schemes], rug=False, gap_px=34,
                               row_px=row_height)  # the unit in the heading: see budgets
    data: list[dict] = []  # landmarks are marked on the budget chart; here they would double the drawing cost
    step = _regular_step(xs)
    k = int(np.ceil(xs.size / (DRAW_POINTS // 2))) if step is not None and xs.size > DRAW_POINTS else 1
    orig = _short(_grid_decimate(k, original)[0] if k > 1 else original, 4)
    for n_panel, ((xa, ya), scheme) in enumerate(zip(axes, schemes)):
        med, lo, hi = (np.asarray(a, dtype=float) for a in summaries[scheme])
        if k > 1:
            med, lo, hi = _grid_decimate(k, med, lo, hi)
        med, lo, hi = (_short(a, 4) for a in (med, lo, hi))  # hover shows 3 significant digits
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        common = {"type": "scatter", "mode": "lines", "xaxis": xa, "yaxis": ya}
        band = {"line": {"width": 0}, "fillcolor": rgba(colour, 0.25), "name": band_label, "legendgroup": "band",
                "hoverinfo": "skip"}
        first = n_panel == 0
        if step is not None:  # evenly spaced: no x arrays at all, band filled between its two edges
            common.update(x0=float(xs[0]), dx=step * k / 2 if k > 1 else step)
            data += [{**common, **band, "y": lo, "showlegend": False},
                     {**common, **band, "y": hi, "fill": "tonexty", "showlegend": first},
                     {**common, "y": orig}]
            my = med
        else:
            bx, blo, bhi = _band_envelope(xs, lo, hi)
            ox, oy = _minmax_decimate(xs, orig)
            mx, my = _minmax_decimate(xs, med)
            data += [{**common, **band, "x": np.concatenate([bx, bx[::-1]]), "y": np.concatenate([bhi, blo[::-1]]),
                      "fill": "toself", "showlegend": first},
                     {**common, "x": ox, "y": oy}]
            common = {**common, "x": mx}
        data[-1].update(line={"color": ORIGINAL, "width": 1.2}, name="original", legendgroup="original",
                        showlegend=first, hovertemplate="original %{y:.3g}<extra></extra>")
        data.append({**common, "y": my, "line": {"color": colour, "width": 1.6}, "name": f"{scheme} median",
                     "showlegend": False,  # the panel heading names the scheme; a 2-row legend would cover it
                     "hovertemplate": "median %{y:.3g}<extra>" + scheme + "</extra>"})
    for key in [k for k in layout if k.startswith("xaxis")]:
        layout[key]["type"] = "date"
    if axes:
        layout["xaxis" + axes[-1][0][1:]].update(title={"text": "time"})
    layout.update(_common_layout(height=110 + (row_height + 34) * len(schemes), meta={"eps": epsilon, **(meta or {})}))
    return _figure(data, layout)


def mae(
    rows: Sequence[dict],
    *,
    unit: str,
    epsilon: float,
    meta: dict | None = None,
) -> go.Figure:
    """MAE per scheme with its 95 % CI; rows: {scheme, mae, low, high[, clamped, clamped_low, clamped_high]}."""
    schemes = [r["scheme"] for r in rows]
    values = [r["mae"] for r in rows]
    data = [{
        "type": "bar", "y": schemes, "x": values, "orientation": "h", "name": "MAE",
        "marker": {"color": [SCHEME_COLOURS.get(s, "#555") for s in schemes]},
        "error_x": {"type": "data", "symmetric": False, "color": "#333",
                    "array": [r["high"] - r["mae"] for r in rows], "arrayminus": [r["mae"] - r["low"] for r in rows]},
        "text": ["\u2003" + number(v) for v in values], "textposition": "outside", "cliponaxis": False,
        "hovertemplate": "%{y}: %{x:.4g} " + unit + "<extra>MAE</extra>",
    }]
    if any(r.get("clamped") is not None for r in rows):
        clamped = [r.get("clamped") for r in rows]
        data.append({
            "type": "bar", "y": schemes, "x": clamped, "orientation": "h", "name": "MAE after clamping",
            "marker": {"color": [rgba(SCHEME_COLOURS.get(s, "#555"), 0.35) for s in schemes],
                       "pattern": {"shape": "/", "fgcolor": "#333"}, "line": {"color": "#333", "width": 1}},
            "error_x": {"type": "data", "symmetric": False, "color": "#333",
                        "array": [(r["clamped_high"] - r["clamped"]) if r.get("clamped") is not None else 0
                                  for r in rows],
                        "arrayminus": [(r["clamped"] - r["clamped_low"]) if r.get("clamped") is not None else 0
                                       for r in rows]},
            "hovertemplate": "%{y}: %{x:.4g} " + unit + "<extra>clamped</extra>",
        })
    positive = [v for r in rows for v in (r["mae"], r.get("clamped")) if v is not None and v > 0]
    log = len(positive) > 1 and max(positive) / min(positive) > 30  # errors spanning decades: log axis
    layout = _common_layout(height=90 + 55 * max(len(rows), 1) * (2 if len(data) > 1 else 1),
                            meta={"eps": epsilon, **(meta or {})})
    layout.update(barmode="group", margin={"l": 90, "r": 60, "t": 70, "b": 50},
                  xaxis={"title": {"text": f"mean absolute error ({unit})" + (", log scale" if log else "")},
                         "type": "log" if log else "linear", "rangemode": "tozero", **({"dtick": 1} if log else {})},
                  yaxis={"autorange": "reversed"})
    return _figure(data, layout)


def number(v: float) -> str:
    """A short, readable number: 3 significant digits, thousands separated, no exponent below 1e6."""
    if v is None or not np.isfinite(v):
        return "–"
    if abs(v) >= 1e6 or (v != 0 and abs(v) < 1e-3):
        return f"{v:.2e}"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def figure_spec(fig: go.Figure) -> dict:
    """The figure as a plain plotly spec, ready for plotly.io outside Streamlit."""
    spec = fig.to_dict()
    if spec["layout"].get("template") is False:  # draw-once figures inline their styling (see _figure)
        spec["layout"] = {k: v for k, v in spec["layout"].items() if k != "template"}
    return spec


def to_html(fig: go.Figure) -> str:
    """A standalone HTML file of the figure (plotly.js from the CDN keeps the file small)."""
    import plotly.io as pio

    return pio.to_html(figure_spec(fig), include_plotlyjs="cdn", full_html=True, config=MODEBAR, validate=False)


def _freeze_long_lived() -> None:
    """Take everything imported so far (Streamlit, pandas, plotly and the trace classes it loads lazily, …) out of
    the garbage collector's traversals: Streamlit runs gc.collect(2) after every script run, and walking these
    ~160,000 long-lived objects cost 40–70 ms of server CPU per ε change, competing with the browser's drawing.
    Objects created later (sessions, results, figures) are collected as before."""
    import gc

    from lmdk import metrics, privacy, schemes, views  # noqa: F401 — the modules every scheme rerun uses

    _figure([{"type": "scatter", "x": np.arange(2), "y": np.zeros(2)}, {"type": "bar", "x": [0], "y": [1.0]}],
            {"xaxis": {}, "yaxis": {}}).to_json()
    gc.collect()
    gc.freeze()


_freeze_long_lived()

