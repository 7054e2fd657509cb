"""Plotly figure builders shared by every page: one Okabe–Ito colour per scheme, one landmark style.

Conventions (keep them when adding a chart):
- a scheme is always drawn in ``SCHEME_COLOURS[scheme]``; the original series in ``ORIGINAL``;
- real landmarks are filled black diamonds (``LANDMARK_MARKER``), dummy landmarks open diamonds
  (``DUMMY_MARKER``), regular events small grey dots;
- axes carry units; repetitions are a median line plus a shaded band, never one line per repetition;
- ``layout.meta`` carries a small dict (e.g. ``{"eps": 1.0}``) that browser tests and the benchmark
  read to know a chart was redrawn for the current settings.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

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


def rgba(hex_colour: str, alpha: float) -> str:
    """'#RRGGBB' → 'rgba(r,g,b,alpha)'."""
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _base_layout(fig: go.Figure, *, height: int, meta: dict | None = None, legend: bool = True) -> go.Figure:
    fig.update_layout(
        height=height,
        margin=dict(l=70, r=20, t=40, b=50),
        font=FONT,
        template="plotly_white",
        showlegend=legend,
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0),
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
    x = np.asarray(x)
    scatter = go.Scattergl if n > 3_000 else go.Scatter
    fig = go.Figure()
    fig.add_trace(
        scatter(
            x=x, y=y, customdata=idx, mode="lines+markers", name="regular event",
            line=dict(color=REGULAR, width=1), marker=REGULAR_MARKER,
            hovertemplate="t=%{customdata}<br>%{x}<br>%{y:.3g}<extra></extra>",
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
            hovertemplate="landmark t=%{customdata}<br>%{x}<br>%{y:.3g}<extra></extra>",
        )
    )
    _base_layout(fig, height=height, meta=meta)
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title)
    if selectable:
        fig.update_layout(dragmode="select", clickmode="event+select")
    return fig


def budgets(
    budgets_by_scheme: dict[str, np.ndarray],
    landmarks: Iterable[int],
    *,
    epsilon: float,
    dummies: Iterable[int] = (),
    meta: dict | None = None,
    row_height: int = 130,
) -> go.Figure:
    """Per-timestamp budget bars, one small panel per scheme, landmarks marked on the bars."""
    schemes = list(budgets_by_scheme)
    rows = max(len(schemes), 1)
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.35 / rows,
                        subplot_titles=[s for s in schemes])
    lm = np.asarray(sorted(set(int(i) for i in landmarks)), dtype=int)
    dm = np.asarray(sorted(set(int(i) for i in dummies) - set(lm.tolist())), dtype=int)
    for row, scheme in enumerate(schemes, start=1):
        b = np.asarray(budgets_by_scheme[scheme], dtype=float)
        t = np.arange(b.size)
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        if b.size <= BAR_LIMIT:
            trace = go.Bar(x=t, y=b, marker_color=colour, marker_line_width=0, name=scheme, showlegend=False,
                           hovertemplate="t=%{x}<br>ε_t=%{y:.4g}<extra>" + scheme + "</extra>")
        else:
            trace = go.Scatter(x=t, y=b, mode="lines", line=dict(color=colour, width=1, shape="hvh"),
                               fill="tozeroy", fillcolor=rgba(colour, 0.55), name=scheme, showlegend=False,
                               hovertemplate="t=%{x}<br>ε_t=%{y:.4g}<extra>" + scheme + "</extra>")
        fig.add_trace(trace, row=row, col=1)
        if lm.size:
            fig.add_trace(
                go.Scatter(x=lm, y=b[lm], mode="markers", marker={**LANDMARK_MARKER, "size": 6}, name="landmark",
                           showlegend=row == 1, legendgroup="landmark",
                           hovertemplate="landmark t=%{x}<br>ε_t=%{y:.4g}<extra>" + scheme + "</extra>"),
                row=row, col=1,
            )
        if dm.size:
            fig.add_trace(
                go.Scatter(x=dm, y=b[dm], mode="markers", marker={**DUMMY_MARKER, "size": 7}, name="dummy landmark",
                           showlegend=row == 1, legendgroup="dummy"),
                row=row, col=1,
            )
        top = float(b.max()) if b.size else 1.0
        fig.update_yaxes(title_text="εₜ", row=row, col=1, range=[0, 1.3 * top if top > 0 else 1.0])
    _base_layout(fig, height=70 + row_height * rows, meta={"eps": epsilon, **(meta or {})})
    fig.update_annotations(font=dict(size=13), xanchor="left", x=0.0)
    fig.update_xaxes(title_text="timestamp t", row=rows, col=1)
    fig.update_layout(bargap=0.25 if max((len(b) for b in budgets_by_scheme.values()), default=0) <= 60 else 0)
    return fig


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
    row_height: int = 150,
) -> go.Figure:
    """Original series against each scheme's release: median line and band across repetitions."""
    schemes = list(summaries)
    rows = max(len(schemes), 1)
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.3 / rows,
                        subplot_titles=schemes)
    x = np.asarray(x)
    original = np.asarray(original, dtype=float)
    lm = np.asarray(sorted(set(int(i) for i in landmarks)), dtype=int)
    for row, scheme in enumerate(schemes, start=1):
        med, lo, hi = summaries[scheme]
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        first = row == 1
        fig.add_trace(go.Scatter(x=x, y=hi, mode="lines", line=dict(width=0), hoverinfo="skip", showlegend=False),
                      row=row, col=1)
        fig.add_trace(go.Scatter(x=x, y=lo, mode="lines", line=dict(width=0), fill="tonexty",
                                 fillcolor=rgba(colour, 0.25), name=band_label, legendgroup="band",
                                 showlegend=first, hoverinfo="skip"), row=row, col=1)
        fig.add_trace(go.Scatter(x=x, y=original, mode="lines", line=dict(color=ORIGINAL, width=1.2),
                                 name="original", legendgroup="original", showlegend=first,
                                 hovertemplate="original %{y:.3g}<extra></extra>"), row=row, col=1)
        fig.add_trace(go.Scatter(x=x, y=med, mode="lines", line=dict(color=colour, width=1.6),
                                 name=f"{scheme} median", hovertemplate="median %{y:.3g}<extra>" + scheme + "</extra>"),
                      row=row, col=1)
        if lm.size:
            fig.add_trace(go.Scatter(x=x[lm], y=original[lm], mode="markers", marker={**LANDMARK_MARKER, "size": 5},
                                     name="landmark", legendgroup="landmark", showlegend=first, hoverinfo="skip"),
                          row=row, col=1)
        fig.update_yaxes(title_text=y_title, row=row, col=1)
    _base_layout(fig, height=80 + row_height * rows, meta={"eps": epsilon, **(meta or {})})
    fig.update_annotations(font=dict(size=13), xanchor="left", x=0.0)
    fig.update_xaxes(title_text="time", row=rows, col=1)
    return fig


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
        text=[number(v) for v in values], textposition="outside", cliponaxis=False,
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
    fig.update_layout(barmode="group", margin=dict(l=90, r=60, t=40, b=50))
    positive = [v for r in rows for v in (r["mae"], r.get("clamped")) if v is not None and v > 0]
    log = len(positive) > 1 and max(positive) / min(positive) > 30  # errors spanning decades: log axis
    fig.update_xaxes(title_text=f"mean absolute error ({unit})" + (", log scale" if log else ""),
                     type="log" if log else "linear", rangemode="tozero")
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
