"""Tests of lmdk.metrics: MAE per mechanism (hand-computed), 95 % CI coverage, validation."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from lmdk import metrics
from lmdk.errors import ParameterError
from lmdk.mechanisms import great_circle_metres


def test_laplace_mae_per_repetition():
    series = np.array([1.0, 2.0, 3.0])
    values = np.array([[1.0, 2.0, 6.0], [0.0, 0.0, 3.0]])
    out = metrics.mae(series, values, "laplace")
    assert np.allclose(out.per_repetition, [1.0, 1.0]) and out.mean == pytest.approx(1.0)
    assert out.ci == (pytest.approx(1.0), pytest.approx(1.0)) and out.unit == "value units"
    single = metrics.mae(series, values[0], "laplace")
    assert single.per_repetition.shape == (1,) and np.isnan(single.ci_low)


def test_randomized_response_percentage_wrong():
    out = metrics.mae([0, 1, 1, 0], np.array([[0, 1, 1, 0], [1, 0, 1, 0]]), "randomized_response")
    assert np.allclose(out.per_repetition, [0.0, 50.0]) and out.unit == "% wrong reports"


def test_planar_and_great_circle_distances():
    series = np.zeros((2, 2))
    values = np.array([[[3.0, 4.0], [0.0, 0.0]]])
    assert metrics.mae(series, values, "planar_laplace").mean == pytest.approx(2.5)
    latlon = np.array([[39.9, 116.4], [39.91, 116.41]])
    moved = latlon + [0.01, 0.0]
    expected = great_circle_metres(latlon[:, 0], latlon[:, 1], moved[:, 0], moved[:, 1]).mean()
    assert metrics.mae(latlon, moved, "planar_laplace", degrees=True).mean == pytest.approx(expected)
    assert 1100 < expected < 1120  # 0.01° of latitude ≈ 1.11 km


def test_ci_has_exact_95_percent_coverage_on_normal_data():
    gen = np.random.default_rng(1)
    trials = 4_000
    samples = gen.normal(5.0, 3.0, (trials, 10))
    lows, highs = np.array([metrics.mean_ci95(s)[1:] for s in samples]).T
    covered = int(np.sum((lows <= 5.0) & (5.0 <= highs)))
    assert stats.binomtest(covered, trials, 0.95).pvalue > 1e-4
    mid, half = (lows + highs) / 2, (highs - lows) / 2 / 1.3
    narrow = int(np.sum((mid - half <= 5.0) & (5.0 <= mid + half)))
    assert stats.binomtest(narrow, trials, 0.95).pvalue < 1e-4  # power: a 30 % narrower CI under-covers


def test_validation():
    with pytest.raises(ParameterError, match="do not match"):
        metrics.mae(np.zeros(3), np.zeros((2, 4)), "laplace")
    with pytest.raises(ParameterError, match="mechanism"):
        metrics.mae(np.zeros(3), np.zeros(3), "gauss")
    with pytest.raises(ParameterError, match="planar_laplace"):
        metrics.mae(np.zeros(3), np.zeros(3), "planar_laplace")
    with pytest.raises(ParameterError, match="NaN"):
        metrics.mae(np.zeros(2), [0.0, np.nan], "laplace")
    with pytest.raises(ParameterError, match="empty"):
        metrics.mean_ci95([])


def test_data_free_guess_is_the_middle_of_the_public_range_and_its_mae():
    """The yardstick of issue 35: readings near 0–2 kWh in a 0–25 kWh range are about 11.6 kWh from the guess 12.5."""
    x = np.array([0.5, 1.0, 1.5, 0.0, 25.0])
    assert metrics.data_free_guess((0, 25)) == 12.5
    assert metrics.data_free_guess_mae(x, (0, 25)) == pytest.approx(np.mean(np.abs(x - 12.5)))
    # a narrower public range is a better guess: the range, not the scheme, sets this error
    assert metrics.data_free_guess_mae(x[:4], (0, 2)) < metrics.data_free_guess_mae(x[:4], (0, 25))
    with pytest.raises(ParameterError):
        metrics.data_free_guess((5, 5))
    with pytest.raises(ParameterError):
        metrics.data_free_guess_mae([], (0, 1))


def test_mae_interval_is_never_negative():
    """Errors near 0 with a wide spread: the t-interval's lower end would be below 0; an MAE bound never is."""
    x = np.zeros(3)
    values = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [30.0, 30.0, 30.0]])
    m = metrics.mae(x, values)
    assert m.ci_low == 0.0 and m.ci_high > m.mean
