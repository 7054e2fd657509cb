"""The look every chart shares: one Okabe–Ito colour per scheme, one landmark style, fonts, axes and layout.

Conventions (keep them when adding a chart):
- a scheme is always drawn in ``SCHEME_COLOURS[scheme]``; the original series in ``ORIGINAL``;
- real landmarks are filled black diamonds (``LANDMARK_MARKER``), dummy landmarks open grey triangles
  (``DUMMY_MARKER``: colour, shape and fill differ), regular events small grey dots; on a timeline landmarks are a
  strip (rug) of ticks under the series (``RUG_LANDMARK``; dummies grey in a row of their own, ``RUG_DUMMY``); in
  the thin "L" strip above multi-panel charts, landmarks are solid black ticks and dummies dotted grey ticks (one
  path: cheap to draw; see ui.charts.panels);
- axes carry units; repetitions are a median line plus a shaded band, never one line per repetition;
- ``layout.meta`` carries a small dict (e.g. ``{"eps": 1.0}``) that browser tests and the benchmark
  read to know a chart was redrawn for the current settings.
"""
from __future__ import annotations

from typing import Any

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
    # the baselines (lmdk.baselines), opt-in: four dark colours of Paul Tol's colour-blind-safe "muted" scheme, apart
    # from the six above by lightness; every chart also names the scheme (panel heading, axis label)
    "bd": "#332288",  # indigo
    "ba": "#882255",  # wine
    "fast": "#999933",  # olive
    "pegasus": "#117733",  # dark green
}
ORIGINAL = "#000000"
REGULAR = "#8C8C8C"
LANDMARK_COLOUR = "#000000"
DUMMY_COLOUR = "#6b6b6b"  # grey (5.3:1 on white): dummies differ from landmarks in colour, shape and fill
LANDMARK_MARKER = dict(symbol="diamond", size=8, color=LANDMARK_COLOUR, line=dict(width=0))
DUMMY_MARKER = dict(symbol="triangle-up-open", size=9, color=DUMMY_COLOUR, line=dict(width=1.5))
RUG_LANDMARK = dict(symbol="line-ns-open", size=12, color=LANDMARK_COLOUR, line=dict(width=2, color=LANDMARK_COLOUR))
RUG_DUMMY = dict(symbol="line-ns-open", size=12, color=DUMMY_COLOUR, line=dict(width=1.5, color=DUMMY_COLOUR))
REGULAR_MARKER = dict(symbol="circle", size=4, color=REGULAR)
FONT = dict(size=14)
MODEBAR = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
# Pass to st.plotly_chart: our own light styling instead of Streamlit's theme, whose client-side
# restyling of large multi-panel specs costs several hundred milliseconds per redraw.
PLOTLY_KW: dict[str, Any] = {"config": MODEBAR, "theme": None}
# ticklabeloverflow "allow": our margins keep labels inside the chart, and plotly's default ("hide past div")
# measures every tick label's box after drawing — a forced browser layout per label on multi-panel charts.
AXIS: dict[str, Any] = {"gridcolor": "#E6E6E6", "zeroline": False, "linecolor": "#BDBDBD", "ticks": "outside",
                        "tickcolor": "#BDBDBD", "title": {"font": {"size": 13, "color": "#31333F"}, "standoff": 12},
                        "ticklabeloverflow": "allow"}
# the page's own font, each name quoted: an unquoted "Source Sans 3" is not valid CSS, so browsers dropped the whole
# family and drew a fallback wider than the font plotly measured with (labels overlapped their bars)
TEMPLATE_FONT = {"family": '"Source Sans", "Source Sans Pro", sans-serif', "size": 13, "color": "#31333F"}
TEMPLATE = go.layout.Template(layout={
    "font": TEMPLATE_FONT,
    "xaxis": AXIS, "yaxis": AXIS, "paper_bgcolor": "white", "plot_bgcolor": "white",
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


def top_legend(*, x: float = 1.0, xanchor: str = "right", **extra) -> dict:
    """A horizontal legend at the chart's top edge, in container coordinates: plotly reserves the top margin down to
    the legend's bottom on every draw, so the plot starts below it at any width and after any resize. A legend above
    the plot in paper coordinates kept the position of the first width's margin after a resize (1024 → 1920 px) and
    lay 27 px over the plot (issue 35); one placed lower than the very top in container coordinates moved down a
    little more at each resize (plotly.js 3/4), so it sits at y = 1."""
    return {"orientation": "h", "yref": "container", "y": 1.0, "yanchor": "top", "x": x, "xanchor": xanchor, **extra}


def common_layout(*, height: int, meta: dict | None = None, legend: bool = True) -> dict:
    """Layout keys every chart shares (as a plain dict)."""
    return {
        "height": height,
        "margin": {"l": 70, "r": 20, "t": 70, "b": 50},  # legend below the (hover-only) toolbar
        "font": FONT,
        "template": TEMPLATE,
        "showlegend": legend,
        "legend": top_legend(),
        "meta": meta or {},
        "hovermode": "closest",
    }


def base_layout(fig, *, height: int, meta: dict | None = None, legend: bool = True):
    """``fig`` (a go.Figure or a ui.charts.figure.Draft) with the layout every chart shares (``common_layout``)."""
    fig.update_layout(**common_layout(height=height, meta=meta, legend=legend))
    return fig


def number(v: float) -> str:
    """A short, readable number: 3 significant digits, thousands separated, no exponent below 1e6."""
    if v is None or not np.isfinite(v):
        return "–"
    if abs(v) >= 1e6 or (v != 0 and abs(v) < 1e-3):
        return f"{v:.2e}"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"
