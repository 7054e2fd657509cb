"""Legends above a chart sit at its top edge in container coordinates (issue 35): plotly then reserves the top margin
down to the legend on every draw. In paper coordinates a legend kept the first width's position after a resize from
1024 to 1920 px and lay over the plot (tests/test_browser_a11y.py's CLIPPED checks it in the browser)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ui.charts import loss_charts, population_charts, scheme_charts, style

B = np.linspace(0.05, 0.2, 40)
ROWS = [{"scheme": "event", "mae": 1.0, "low": 0.8, "high": 1.2, "dummies": 1.1, "dummies_low": 0.9,
         "dummies_high": 1.3}]


def _charts() -> dict[str, object]:
    """One chart of every builder whose legend is above the plot."""
    users = pd.DataFrame({"user": ["a", "b"], "landmark_share": [0.1, 0.3], "mae": [1.0, 2.0],
                          "theorem2_holds": [True, True], "degenerate": [False, False], "user_level_mae": [2.0, 2.5]})
    n = 48
    return {
        "temporal loss": loss_charts.temporal_loss(B, B, B, B, [3, 10], scheme="uniform", epsilon=1.0),
        "landmark loss": loss_charts.landmark_loss(B, B, B, B, [3, 10], scheme="uniform", epsilon=1.0),
        "budgets before/after": loss_charts.budgets_before_after("uniform", B, B / 2, [3, 10], [5], epsilon=1.0,
                                                                 publishing_epsilon=0.99),
        "dummy MAE": loss_charts.mae_with_without(ROWS, unit="kWh", epsilon=1.0, guess=2.0),
        "scheme MAE": scheme_charts.mae(ROWS, unit="kWh", epsilon=1.0, guess=2.0),
        "releases": scheme_charts.releases(pd.date_range("2024-01-01", periods=n, freq="h"), np.ones(n),
                                           {"user": (np.ones(n), np.zeros(n), np.full(n, 2.0))}, [],
                                           y_title="value (kWh)", epsilon=1.0),
        "population share vs MAE": population_charts.share_vs_mae(users, "skip", unit="kWh", epsilon=1.0),
    }


@pytest.mark.parametrize("name", list(_charts()))
def test_a_top_legend_is_anchored_to_the_charts_top_edge_not_to_the_plot(name):
    legend = _charts()[name].layout.legend
    assert (legend.orientation, legend.yref, legend.y, legend.yanchor) == ("h", "container", 1.0, "top"), name


def test_top_legend_keeps_the_placement_a_chart_asks_for():
    legend = style.top_legend(x=0.0, xanchor="left", entrywidth=150)
    assert (legend["x"], legend["xanchor"], legend["entrywidth"], legend["yref"]) == (0.0, "left", 150, "container")
