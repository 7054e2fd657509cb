"""Charts of the experiment runner (plotly, imported lazily); never imported by the lmdk core.

One builder per figure turns the runner's tidy summary DataFrame into a plotly Figure: the
same Figure is written as standalone HTML, as PNG (kaleido + the system Chromium) and shown
on the Experiments page. Colours follow the Okabe–Ito palette, one colour per scheme.

By concern: ``common`` (palette, ``faceted`` panels, CI bands and error bars, decade log axes, the registry of
builders), ``paper_figures`` (the landmark paper's Figs. 7–11 and the baselines), ``priste_figures`` (PriSTE's
Figs. 8–15 and Table 2), ``files`` (HTML and PNG). Importing this package registers every builder; every public
name is importable from here.
"""
from __future__ import annotations

from lmdk.experiments.charts.common import (
    CHARTS,
    OKABE_ITO,
    SCHEME_COLORS,
    chart,
    ci_band,
    ci_error_bars,
    decade_log_axis,
    faceted,
    figure_chart,
    ordered,
    pct_labels,
    rgba,
)
from lmdk.experiments.charts.files import PNG_SIZE, png_unavailable, write_html, write_png, write_pngs
from lmdk.experiments.charts.paper_figures import (
    BASELINE_SCHEMES,
    DATASET_LABELS,
    FIG7_LINES,
    FIG9_STATISTIC,
    SHARE_BLUES,
)
from lmdk.experiments.charts.priste_figures import (
    MIN_REPETITIONS_FOR_BANDS,
    PRISTE_WINDOWS,
    RUNTIME_METHODS,
    TABLE2_CHECKS,
    TABLE2_PANELS,
    UTILITY_MEASURES,
)

__all__ = [
    "BASELINE_SCHEMES", "CHARTS", "DATASET_LABELS", "FIG7_LINES", "FIG9_STATISTIC", "MIN_REPETITIONS_FOR_BANDS",
    "OKABE_ITO", "PNG_SIZE", "PRISTE_WINDOWS", "RUNTIME_METHODS", "SCHEME_COLORS", "SHARE_BLUES", "TABLE2_CHECKS",
    "TABLE2_PANELS", "UTILITY_MEASURES", "chart", "ci_band", "ci_error_bars", "decade_log_axis", "faceted",
    "figure_chart", "ordered", "pct_labels", "png_unavailable", "rgba", "write_html", "write_png", "write_pngs",
]
