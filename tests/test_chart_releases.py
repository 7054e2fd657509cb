"""Release panels (Schemes & utility) keep the original's own scale with the noise band (issue 35): a median that
swings across the panel is left out and the panel says how far it strays, instead of a block of solid colour."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ui.charts import scheme_charts


def _panels(noise: float, n: int = 500):
    """500 hours of a series between 5 and 15 kWh and a median of three noisy releases clamped to 0–20 kWh."""
    rng = np.random.default_rng(3)
    original = 10 + 5 * np.sin(np.arange(n) / 8)
    median = np.clip(original + rng.laplace(0, noise, n), 0, 20)
    times = pd.date_range("2024-01-01", periods=n, freq="h")
    fig = scheme_charts.releases(times, original, {"user": (median, np.zeros(n), np.full(n, 20.0))}, [],
                                 y_title="value (kWh)", epsilon=1.0)
    notes = [a.text for a in fig.layout.annotations if a.yanchor == "top"]
    assert all(a.align == "right" and a.xanchor == "right" for a in fig.layout.annotations if a.yanchor == "top")
    return {t.name for t in fig.data}, notes, list(fig.layout.yaxis.range)


def test_a_median_that_swings_across_the_panel_is_left_out_and_the_panel_says_how_far_it_strays():
    names, notes, scale = _panels(noise=20.0)
    assert scale == pytest.approx([0, 20], abs=1e-3)  # the original 5–15 kWh plus half its range a side
    assert "user median" not in names and {"original", "90 % of repetitions"} <= names
    assert len(notes) == 1 and notes[0].startswith("median not drawn: ")
    assert " off at 1 time in 10;<br>band reaches 0 to 20" in notes[0]


def test_a_median_that_follows_the_original_is_drawn():
    names, notes, _ = _panels(noise=0.5)
    assert "user median" in names
    assert notes == ["band reaches 0 to 20, beyond this scale"] or not notes


def test_median_readable_measures_the_distance_from_the_original_at_one_timestamp_in_ten():
    original = np.array([1.0, 2.0, 3.0, np.nan])
    ok, strays = scheme_charts.median_readable(original + 2.0, original, [0.0, 4.0])
    assert not ok and strays == 2.0  # 2 > a quarter of the 0–4 scale
    assert scheme_charts.median_readable(original + 0.5, original, [0.0, 4.0]) == (True, 0.5)
    spikes = np.where(np.arange(20) % 5 == 0, 3.0, 0.0)  # on the original at 16 of 20 timestamps, 3 off at the rest
    ok, strays = scheme_charts.median_readable(np.arange(20.0) / 5 + spikes, np.arange(20.0) / 5, [0.0, 4.0])
    assert not ok and strays == 3.0  # right on average (0.6 off), but the spikes still swing over the panel
