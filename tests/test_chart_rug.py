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


def test_dummy_landmarks_budget_chart_puts_landmarks_and_dummies_in_rows_of_the_strip():
    """Dummy landmarks' before/after budgets: no marker on the bars (794 open and filled marks merged into a band);
    real landmarks and dummies are ticks in two rows of a strip under both panels, told apart by row and colour."""
    before, after = np.full(40, 0.02), np.full(40, 0.01)
    dummies = [5, 6, 30]
    fig = loss_charts.budgets_before_after("uniform", before, after, LANDMARKS, dummies + [10], epsilon=1.0,
                                           publishing_epsilon=0.99)
    marks = {t.name: t for t in fig.data if t.name in ("landmark", "dummy landmark")}
    real, dummy = marks["landmark"], marks["dummy landmark"]
    assert sorted(np.asarray(real.x).tolist()) == LANDMARKS
    assert sorted(np.asarray(dummy.x).tolist()) == dummies  # a dummy that is a landmark counts as a landmark
    assert real.yaxis == dummy.yaxis == "y3" and {t.yaxis for t in fig.data} - {"y3"} == {"y", "y2"}
    assert set(np.asarray(real.y).tolist()) != set(np.asarray(dummy.y).tolist())  # rows of their own
    assert real.marker.color != dummy.marker.color
    assert list(fig.layout.yaxis3.ticktext) == ["L", "dummy"]
    strip, lower = fig.layout.yaxis3.domain, fig.layout.yaxis2.domain
    assert strip[1] < lower[0]  # under both budget panels
    assert [t.type for t in fig.data if t.yaxis in ("y", "y2")] == ["bar", "bar"]  # bars only, no marks on them
