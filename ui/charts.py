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

from typing import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

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
BAR_LIMIT = 400  # above this many timestamps, budget bars are drawn as a filled step line (same look, faster)
MODEBAR = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
# Pass to st.plotly_chart: our own light styling instead of Streamlit's theme, whose client-side
# restyling of large multi-panel specs costs several hundred milliseconds per redraw.
PLOTLY_KW = {"config": MODEBAR, "theme": None}
_AXIS = {"gridcolor": "#E6E6E6", "zeroline": False, "linecolor": "#BDBDBD", "ticks": "outside",
         "tickcolor": "#BDBDBD", "title": {"font": {"size": 13, "color": "#31333F"}}}
TEMPLATE = go.layout.Template(layout={
    "font": {"family": "Source Sans Pro, Source Sans 3, sans-serif", "size": 13, "color": "#31333F"},
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


def rgba(hex_colour: str, alpha: float) -> str:
    """'#RRGGBB' → 'rgba(r,g,b,alpha)'."""
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _base_layout(fig: go.Figure, *, height: int, meta: dict | None = None, legend: bool = True) -> go.Figure:
    fig.update_layout(
        height=height,
        margin=dict(l=70, r=20, t=70, b=50),  # legend below the (hover-only) toolbar
        font=FONT,
        template=TEMPLATE,
        showlegend=legend,
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
        meta=meta or {},
        hovermode="closest",
    )
    return fig


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
    if selectable:
        fig.update_layout(dragmode="select", clickmode="event+select")
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


def _rug(rug_axes, landmarks: np.ndarray, dummies: np.ndarray, x: np.ndarray) -> list[dict]:
    """The landmark strip above the panels: black ticks (dummies dotted), drawn once for all panels."""
    xa, ya = rug_axes
    tx, ty = _ticks(x[landmarks]) if landmarks.size else (np.array([]), np.array([]))
    traces = [{"type": "scatter", "x": tx, "y": ty, "mode": "lines", "line": {"color": LANDMARK_COLOUR, "width": 1.5},
               "name": "landmark", "xaxis": xa, "yaxis": ya, "hoverinfo": "x"}]
    if dummies.size:
        dx, dy = _ticks(x[dummies])
        traces.append({"type": "scatter", "x": dx, "y": dy, "mode": "lines", "name": "dummy landmark",
                       "line": {"color": DUMMY_COLOUR, "width": 1.5, "dash": "dot"}, "xaxis": xa, "yaxis": ya,
                       "hoverinfo": "x"})
    return traces


DRAW_POINTS = 600  # lines longer than this are drawn min/max-decimated (spikes kept) — the panels are ~900 px wide


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
) -> go.Figure:
    """Per-timestamp budget bars, one panel per scheme; landmark bars darkened/hatched and marked in a strip."""
    schemes = list(budgets_by_scheme)
    n = max((len(b) for b in budgets_by_scheme.values()), default=0)
    lm, dm = _index_sets(landmarks, dummies, n)
    layout, axes, rug_axes = _stacked(len(schemes), schemes, rug=True, gap_px=30, row_px=row_height)
    t = np.arange(n)
    data: list[dict] = _rug(rug_axes, lm, dm, t)
    mask = np.zeros(n, dtype=bool)
    mask[lm] = True
    for (xa, ya), scheme in zip(axes, schemes):
        b = np.asarray(budgets_by_scheme[scheme], dtype=float)
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        hover = "t=%{x}<br>ε_t=%{y:.4g}<extra>" + scheme + "</extra>"
        if n <= BAR_LIMIT:
            data.append({"type": "bar", "x": t, "y": b, "name": scheme, "showlegend": False, "xaxis": xa, "yaxis": ya,
                         "marker": {"color": colour, "line": {"width": np.where(mask, 1.5, 0), "color": "#000"},
                                    "pattern": {"shape": np.where(mask, "x", ""), "fgcolor": "#000", "size": 6,
                                                "fillmode": "overlay", "fgopacity": 0.6}},
                         "hovertemplate": hover})
        else:
            data.append({"type": "scatter", "x": t, "y": b.astype(np.float32), "mode": "lines", "name": scheme,
                         "showlegend": False, "xaxis": xa, "yaxis": ya, "fill": "tozeroy",
                         "fillcolor": rgba(colour, 0.6), "line": {"color": colour, "width": 1, "shape": "hv"},
                         "hovertemplate": hover})
            if lm.size:
                data.append({"type": "scatter", "x": t, "y": np.where(mask, b, 0.0).astype(np.float32),
                             "mode": "lines", "name": "budget on landmarks", "legendgroup": "lmbudget",
                             "showlegend": (xa, ya) == axes[0], "xaxis": xa, "yaxis": ya, "fill": "tozeroy",
                             "fillcolor": "rgba(0,0,0,0.55)", "line": {"width": 0, "shape": "hv"},
                             "hoverinfo": "skip"})
        top = float(b.max()) if b.size else 1.0
        layout["yaxis" + ya[1:]].update(title={"text": "εₜ"}, range=[0, 1.15 * top if top > 0 else 1.0])
    ry = "yaxis" + rug_axes[1][1:]
    layout[ry].update(range=[-1.1, 1.1], showticklabels=False, showgrid=False, zeroline=False, ticks="",
                      title={"text": "L", "font": {"size": 12}})
    layout["xaxis" + axes[-1][0][1:] if axes else "xaxis"].update(title={"text": "timestamp t"})
    layout["bargap"] = 0.25 if n <= 60 else 0
    fig = go.Figure(data=data, layout=layout)
    return _base_layout(fig, height=110 + (row_height + 30) * len(schemes), meta={"eps": epsilon, **(meta or {})})


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
    lm, dm = _index_sets(landmarks, (), original.size)
    layout, axes, _ = _stacked(len(schemes), schemes, rug=False, gap_px=34, row_px=row_height)
    data: list[dict] = []  # landmarks are marked on the budget chart; here they would double the drawing cost
    ox, oy = _minmax_decimate(xs, original.astype(np.float32))
    for k, ((xa, ya), scheme) in enumerate(zip(axes, schemes)):
        med, lo, hi = (np.asarray(a, dtype=np.float32) for a in summaries[scheme])
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        common = {"type": "scatter", "mode": "lines", "xaxis": xa, "yaxis": ya}
        bx, blo, bhi = _band_envelope(xs, lo, hi)
        mx, my = _minmax_decimate(xs, med)
        data += [
            {**common, "x": np.concatenate([bx, bx[::-1]]), "y": np.concatenate([bhi, blo[::-1]]),
             "line": {"width": 0}, "fill": "toself", "fillcolor": rgba(colour, 0.25), "name": band_label,
             "legendgroup": "band", "showlegend": k == 0, "hoverinfo": "skip"},
            {**common, "x": ox, "y": oy, "line": {"color": ORIGINAL, "width": 1.2}, "name": "original",
             "legendgroup": "original", "showlegend": k == 0, "hovertemplate": "original %{y:.3g}<extra></extra>"},
            {**common, "x": mx, "y": my, "line": {"color": colour, "width": 1.6}, "name": f"{scheme} median",
             "hovertemplate": "median %{y:.3g}<extra>" + scheme + "</extra>"},
        ]
        layout["yaxis" + ya[1:]].update(title={"text": y_title})
    for key in [k for k in layout if k.startswith("xaxis")]:
        layout[key]["type"] = "date"
    if axes:
        layout["xaxis" + axes[-1][0][1:]].update(title={"text": "time"})
    fig = go.Figure(data=data, layout=layout)
    return _base_layout(fig, height=110 + (row_height + 34) * len(schemes), meta={"eps": epsilon, **(meta or {})})


def mae(
    rows: Sequence[dict],
    *,
    unit: str,
    epsilon: float,
    meta: dict | None = None,
) -> go.Figure:
    """MAE per scheme with its 95 % CI; rows: {scheme, mae, low, high[, clamped, clamped_low, clamped_high]}."""
    fig = go.Figure()
    schemes = [r["scheme"] for r in rows]
    values = [r["mae"] for r in rows]
    fig.add_trace(go.Bar(
        y=schemes, x=values, orientation="h", name="MAE",
        marker_color=[SCHEME_COLOURS.get(s, "#555") for s in schemes],
        error_x=dict(type="data", symmetric=False, color="#333",
                     array=[r["high"] - r["mae"] for r in rows], arrayminus=[r["mae"] - r["low"] for r in rows]),
        text=["\u2003" + number(v) for v in values], textposition="outside", cliponaxis=False,
        hovertemplate="%{y}: %{x:.4g} " + unit + "<extra>MAE</extra>",
    ))
    if any(r.get("clamped") is not None for r in rows):
        clamped = [r.get("clamped") for r in rows]
        fig.add_trace(go.Bar(
            y=schemes, x=clamped, orientation="h", name="MAE after clamping",
            marker=dict(color=[rgba(SCHEME_COLOURS.get(s, "#555"), 0.35) for s in schemes],
                        pattern=dict(shape="/", fgcolor="#333"), line=dict(color="#333", width=1)),
            error_x=dict(type="data", symmetric=False, color="#333",
                         array=[(r["clamped_high"] - r["clamped"]) if r.get("clamped") is not None else 0 for r in rows],
                         arrayminus=[(r["clamped"] - r["clamped_low"]) if r.get("clamped") is not None else 0
                                     for r in rows]),
            hovertemplate="%{y}: %{x:.4g} " + unit + "<extra>clamped</extra>",
        ))
    _base_layout(fig, height=90 + 55 * max(len(rows), 1) * (2 if len(fig.data) > 1 else 1), meta={"eps": epsilon, **(meta or {})})
    fig.update_layout(barmode="group", margin=dict(l=90, r=60, t=70, b=50))
    positive = [v for r in rows for v in (r["mae"], r.get("clamped")) if v is not None and v > 0]
    log = len(positive) > 1 and max(positive) / min(positive) > 30  # errors spanning decades: log axis
    fig.update_xaxes(title_text=f"mean absolute error ({unit})" + (", log scale" if log else ""),
                     type="log" if log else "linear", rangemode="tozero", dtick=1 if log else None)
    fig.update_yaxes(autorange="reversed")
    return fig


def number(v: float) -> str:
    """A short, readable number: 3 significant digits, thousands separated, no exponent below 1e6."""
    if v is None or not np.isfinite(v):
        return "–"
    if abs(v) >= 1e6 or (v != 0 and abs(v) < 1e-3):
        return f"{v:.2e}"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def to_html(fig: go.Figure) -> str:
    """A standalone HTML file of the figure (plotly.js from the CDN keeps the file small)."""
    return fig.to_html(include_plotlyjs="cdn", full_html=True, config=MODEBAR)
