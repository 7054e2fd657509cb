"""Landmarks over time are drawn the timeline's way on every chart over time (issue 35): ticks in a strip "L" under
the plot (y axis 2), never diamonds on the curves, where hundreds of them merged into a black band."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ui.charts import audit_charts, loss_charts

LANDMARKS = [3, 10, 20, 21]


def _strip_only(fig) -> None:
    """The landmarks are one trace of ticks on the strip's axis, and no trace draws diamonds on a curve."""
    marks = [t for t in fig.data if t.name == "landmark"]
    assert len(marks) == 1 and marks[0].yaxis == "y2" and marks[0].marker.symbol == "line-ns-open"
    assert sorted(np.asarray(marks[0].x).tolist()) == LANDMARKS
    assert not any("diamond" in str(t.marker.symbol) for t in fig.data if getattr(t, "marker", None) is not None)
    strip, plot = fig.layout.yaxis2.domain, fig.layout.yaxis.domain
    assert strip[1] < plot[0] and fig.layout.xaxis.anchor == "y2"  # under the plot, sharing its time axis
    assert list(fig.layout.yaxis2.ticktext) == ["L"] and fig.layout.yaxis2.title.text is None


def test_both_temporal_loss_charts_put_landmarks_in_the_strip():
    b = np.linspace(0.05, 0.2, 40)
    _strip_only(loss_charts.temporal_loss(b, b, b, b, LANDMARKS, scheme="uniform", epsilon=1.0))
    _strip_only(loss_charts.landmark_loss(b, b, b, b, LANDMARKS, scheme="uniform", epsilon=1.0))


def test_the_adversary_labs_correlation_chart_puts_landmarks_in_the_strip():
    p = np.linspace(0.5, 0.9, 40)
    result = SimpleNamespace(success=p, bound=p, bound_plain=p, target=10, ci=(0.6, 0.8), s=0.1)
    _strip_only(audit_charts.correlation_curves(result, "skip", LANDMARKS))
