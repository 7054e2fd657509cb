"""The Data & landmarks timeline: a series over time with its regular events, landmarks and dummy landmarks
(the Dummy landmarks page draws it too)."""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.chart_style import DUMMY_MARKER, LANDMARK_MARKER, REGULAR, REGULAR_MARKER, _base_layout, time_values

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
