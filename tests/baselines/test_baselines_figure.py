"""The experiments figure of issue 29: MAE of all schemes at Figure 7's settings (lmdk.experiments.baselines)."""
from __future__ import annotations

import numpy as np

from lmdk import experiments as ex
from lmdk.experiments import baselines, charts


def test_configs_put_the_baselines_on_values_only():
    cfgs = baselines.configs()
    hue = {c["scheme"] for c in cfgs if c["dataset"] == "hue"}
    taxi = {c["scheme"] for c in cfgs if c["dataset"] == "taxi"}
    assert hue == set(baselines.LANDMARK_PAPER + baselines.BASELINES) and taxi == set(baselines.LANDMARK_PAPER)
    assert len(cfgs) == 6 * 10 + 2 * 6 * 6


def test_tiny_run_summarises_mae_and_theorem2_and_charts():
    picked = [c for c in baselines.configs() if c["landmark_pct"] in (0, 20) and c["dataset"] in ("hue", "contacts")]
    df = ex.run_figure("baselines", repetitions=3, seed=1, configs=picked)
    assert len(df) == len(picked) and (df["repetitions"] == 3).all()
    hue20 = df[(df["dataset"] == "hue") & (df["landmark_pct"] == 20)].set_index("scheme")
    assert hue20.loc["fast", "theorem2"] == 1.0 and hue20.loc["pegasus", "theorem2"] == 0.0
    assert hue20.loc["pegasus", "mae"] < hue20.loc["user", "mae"] / 100
    again = ex.run_figure("baselines", repetitions=3, seed=1, configs=picked)
    assert np.array_equal(df["mae"].to_numpy(), again["mae"].to_numpy())
    fig = charts.figure_chart("baselines", df)
    dashed = {t.name for t in fig.data if t.line.dash == "dash"}
    assert dashed == set(baselines.BASELINES) and len(fig.layout.annotations) == 2  # one panel per data set
