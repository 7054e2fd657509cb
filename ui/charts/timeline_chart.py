"""The Data & landmarks timeline: a series over time with its regular events, landmarks and dummy landmarks
(the Dummy landmarks page draws it too)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.charts.downsample import markers, positions
from ui.charts.figure import Draft
from ui.charts.style import REGULAR, REGULAR_MARKER, RUG_DUMMY, RUG_LANDMARK, base_layout, time_values

STRIP = 0.13  # share of the plot's height the landmark strip under the series takes (its rows: L and dummies)


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
    window: tuple[int, int] | None = None,
    draw_once: bool = False,
) -> go.Figure:
    """A series over time with regular events, landmarks and (optionally) dummy landmarks.

    Every point trace carries ``customdata`` = timestamp index so selections map back to events. ``window``:
    the events [first, stop) drawn (ui.charts.zoom; default all); a window longer than ``DISPLAY_POINTS`` is drawn
    by its MinMaxLTTB points and at most ``MARKERS_MAX`` landmark markers (ui.charts.downsample) — real events all.
    ``draw_once``: the figure of ``ui.charts.figure.figure`` (built without plotly.py's validation, for a page that
    redraws it on every ε change), else a plotly.py Figure styled by the template.
    """
    y = np.asarray(y, dtype=float)
    n = len(y)
    first, stop = window if window is not None else (0, n)
    idx = first + positions(y[first:stop])

    def inside(events) -> np.ndarray:
        """The distinct events inside the drawn window, sorted."""
        e = np.asarray(sorted(set(int(i) for i in events)), dtype=int)
        return e[(e >= first) & (e < stop)]

    lm_all = inside(landmarks)
    lm = markers(lm_all, y)
    dm = markers(np.setdiff1d(inside(dummies), lm_all), y)
    times = time_values(x)
    scatter = "scattergl" if idx.size > 3_000 else "scatter"
    thinned = idx.size < stop - first  # a downsampled line: tiny dots (they would merge into a band), but dots —
    fig = Draft()  # plotly selects (clicks, boxes) only traces with markers
    fig.add_trace({
        "type": scatter, "x": times[idx], "y": y[idx], "customdata": idx, "mode": "lines+markers",
        "name": "regular event", "line": dict(color=REGULAR, width=1),
        "marker": {**REGULAR_MARKER, "size": 2, "maxdisplayed": 1} if thinned else REGULAR_MARKER,
        "hovertemplate": "t=%{customdata}<br>%{x|%Y-%m-%d %H:%M}<br>%{y:.3g}<extra></extra>",
    })
    # landmarks as a strip (rug) under the series, not markers on it: hundreds of markers on the line merged into a
    # black band; dummies in a row of their own, grey and thinner (not only unfilled)
    if dm.size:
        fig.add_trace({
            "type": scatter, "x": times[dm], "y": np.zeros(dm.size), "customdata": dm, "mode": "markers",
            "name": "dummy landmark", "marker": RUG_DUMMY, "yaxis": "y2",
            "hovertemplate": "dummy t=%{customdata}<br>%{x|%Y-%m-%d %H:%M}<extra></extra>",
        })
    fig.add_trace({
        "type": scatter, "x": times[lm] if lm.size else [], "y": np.ones(lm.size) if lm.size else [],
        "customdata": lm, "mode": "markers", "name": "landmark", "marker": RUG_LANDMARK, "yaxis": "y2",
        "hovertemplate": "landmark t=%{customdata}<br>%{x|%Y-%m-%d %H:%M}<extra></extra>",
    })
    drawn = {"first": int(first), "stop": int(stop), "drawn": int(idx.size), "landmarks_drawn": int(lm.size)}
    base_layout(fig, height=height, meta={**(meta or {}), **({"window": drawn} if stop - first < n or
                                                             idx.size < n else {})})
    fig.update_xaxes(title_text=x_title, type="date")
    strip = STRIP * (1.8 if dm.size else 1.0)  # a row for the landmarks, one more for the dummies
    fig.update_layout(
        xaxis={"anchor": "y2"},
        yaxis={"title": {"text": y_title}, "domain": [strip + 0.04, 1.0]},
        yaxis2={"domain": [0.0, strip], "range": [-0.6, 1.6] if dm.size else [0.4, 1.6], "fixedrange": True,
                "tickvals": [1, 0] if dm.size else [1], "ticktext": ["L", "dummy"] if dm.size else ["L"],
                "showgrid": False, "zeroline": False},
    )
    if selectable:  # Streamlit then pans by default and a click selects (dragmode 'select' turns clicks off)
        fig.update_layout(clickmode="event+select")
    return fig.done() if draw_once else go.Figure(data=fig.data, layout=fig.layout)
