"""The landmark strip (rug) under a chart over time, as on the Data & landmarks timeline: one tick per landmark in
a thin row "L" below the plot, never markers on the curves (hundreds of them merged into a black band, issue 35)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.charts.figure import Draft
from ui.charts.style import RUG_LANDMARK

STRIP = 0.13  # share of the plot's height the strip takes (as the timeline's)


def add_landmark_rug(fig: go.Figure | Draft, x, *, customdata=None,
                     hover: str = "landmark t=%{x}") -> go.Figure | Draft:
    """``fig`` with its landmarks at positions ``x`` (already thinned, ui.charts.downsample.markers) as ticks in a
    strip "L" under its plot: the strip is y axis 2, the plot's y axis moves above it, x stays shared (a dict trace:
    ``fig`` may be a go.Figure or a ui.charts.figure.Draft)."""
    x = np.asarray(x)
    fig.add_trace({"type": "scatter", "x": x, "y": np.ones(x.size), "customdata": customdata, "mode": "markers",
                   "name": "landmark", "marker": RUG_LANDMARK, "yaxis": "y2",
                   "hovertemplate": hover + "<extra></extra>"})
    fig.update_layout(
        xaxis={"anchor": "y2"},
        yaxis={"domain": [STRIP + 0.04, 1.0]},
        yaxis2={"domain": [0.0, STRIP], "range": [0.4, 1.6], "fixedrange": True, "tickvals": [1], "ticktext": ["L"],
                "showgrid": False, "zeroline": False, "rangemode": "normal"},
    )
    return fig
