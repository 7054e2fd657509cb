"""The charts and maps of the pages, and the chart API they call: ``charts.budgets(...)``, ``charts.PLOTLY_KW``, …
re-exported here from the modules that build them, plus the warm-up that runs once when the first page imports it.

- ``style``: colours (one Okabe–Ito colour per scheme), markers, fonts, template, shared layout, ``number``; its
  docstring lists the conventions to keep when adding a chart;
- ``figure``: figures drawn once per mount (``figure``, ``single_draw``, ``meta_of``) and their export
  (``figure_spec``, ``to_html``);
- ``decimate`` and ``downsample``: fewer points for drawing (min/max and grid decimation, band envelopes; the
  MinMaxLTTB points of a long series and how a selection on them maps back to every event);
- ``panels``: stacked panels sharing the x axis and the landmark strip "L" above them;
- the figures of the pages, one module per kind: ``timeline_chart``, ``budget_chart``, ``scheme_charts``,
  ``loss_charts``, ``audit_charts``, ``population_charts``, ``priste_charts`` (the ``_chart(s)`` suffix keeps a
  module's name apart from the function ``charts.budgets``/``charts.timeline`` and from the page modules ``ui.audit``,
  ``ui.population``, ``ui.priste``);
- ``run_figures``: ``drawn``, a run's figures built once and shared by every session asking for them;
- ``maps``: pydeck trajectories; ``alt_text``: every chart's text alternative (summary, table, CSV);
  ``zoom``: the window of events the per-timestamp charts draw.
"""
from __future__ import annotations

import numpy as np

from ui.charts.budget_chart import ABSOLUTE_RANGE, BAR_LIMIT, ROW_FILL, budgets
from ui.charts.decimate import DRAW_POINTS
from ui.charts.figure import DrawOnceFigure, data_revision, figure_spec, meta_of, single_draw, to_html
from ui.charts.panels import DENSITY_BINS, RUG_DENSITY_LIMIT
from ui.charts.run_figures import drawn
from ui.charts.scheme_charts import mae, releases
from ui.charts.style import (
    DUMMY_COLOUR,
    DUMMY_MARKER,
    FONT,
    LANDMARK_COLOUR,
    LANDMARK_MARKER,
    MODEBAR,
    ORIGINAL,
    PLOTLY_KW,
    REGULAR,
    REGULAR_MARKER,
    SCHEME_COLOURS,
    TEMPLATE,
    number,
    rgba,
    time_values,
    top_legend,
)
from ui.charts.timeline_chart import timeline

__all__ = [
    "ABSOLUTE_RANGE", "BAR_LIMIT", "DENSITY_BINS", "DRAW_POINTS", "DUMMY_COLOUR", "DUMMY_MARKER", "FONT",
    "LANDMARK_COLOUR", "LANDMARK_MARKER", "MODEBAR", "ORIGINAL", "PLOTLY_KW", "REGULAR", "REGULAR_MARKER",
    "ROW_FILL", "RUG_DENSITY_LIMIT", "SCHEME_COLOURS", "TEMPLATE", "DrawOnceFigure", "budgets", "data_revision",
    "drawn", "figure_spec", "mae", "meta_of", "number", "releases", "rgba", "single_draw", "time_values",
    "top_legend", "timeline",
    "to_html",
]


def _freeze_long_lived() -> None:
    """Take everything imported so far (Streamlit, pandas, plotly and the trace classes it loads lazily, …) out of
    the garbage collector's traversals: Streamlit runs gc.collect(2) after every script run, and walking these
    ~160,000 long-lived objects cost 40–70 ms of server CPU per ε change, competing with the browser's drawing.
    Objects created later (sessions, results, figures) are collected as before."""
    import gc

    from lmdk import metrics, privacy, schemes  # noqa: F401 — the modules every scheme rerun uses
    from lmdk.present import views  # noqa: F401 — imported to be frozen with the rest
    from ui.charts.figure import figure

    figure([{"type": "scatter", "x": np.arange(2), "y": np.zeros(2)}, {"type": "bar", "x": [0], "y": [1.0]}],
           {"xaxis": {}, "yaxis": {}}).to_json()
    gc.collect()
    gc.freeze()


_freeze_long_lived()
