"""lmdk.data.resample: windows and hourly/daily aggregation of long series; Adaptive's fast-forward over long
stretches without publications is exact (lmdk.schemes.run_adaptive)."""
import numpy as np
import pandas as pd
import pytest

import lmdk
from lmdk import schemes
from lmdk.data import from_contacts, from_trajectory, from_values, resample
from lmdk.errors import ParameterError
from lmdk.relation import Calibration


def meter(days=3, minutes=15, tz="Europe/London", start="2024-10-26"):
    index = pd.date_range(start, periods=days * 24 * 60 // minutes, freq=f"{minutes}min", tz=tz)
    return from_values(np.arange(len(index), dtype=float) % 7, index, units="kWh", name="meter")


def test_window_takes_the_events_from_start():
    s = meter()
    w = resample.window(s, 10, 20)
    assert len(w) == 20 and w.timestamps[0] == s.timestamps[10] and w.timestamps[-1] == s.timestamps[29]
    np.testing.assert_array_equal(w.values, s.values[10:30])
    assert w.source_hash != s.source_hash
    assert len(resample.window(s, len(s) - 5, 100)) == 5  # the series ends first
    assert resample.window(s, 0, len(s)) is s  # the whole series is itself
    for start, n in ((-1, 5), (len(s), 5), (0, 0), (1.5, 3), (True, 3)):
        with pytest.raises(ParameterError):
            resample.window(s, start, n)


def test_hourly_sum_and_mean_of_15_minute_readings_across_a_daylight_saving_switch():
    s = meter(days=2)  # 48 real hours; 2024-10-27 in London has 25 (01:00 twice)
    hourly = resample.aggregate(s, "hourly")  # sum by default
    assert len(hourly) == 48 and (hourly.timestamps.hour == 1).sum() == 3  # 01:00 BST, 01:00 GMT, 01:00 next day
    frame = s.frame.tz_convert("UTC")
    expected = frame["value"].groupby(frame.index.floor("h")).sum().to_numpy()
    np.testing.assert_allclose(hourly.values, expected)  # London's offsets are whole hours: UTC hours = clock hours
    mean = resample.aggregate(s, "hourly", "mean")
    np.testing.assert_allclose(mean.values, expected / 4)
    assert hourly.units == "kWh" and "hourly" in hourly.name and "4 readings" in hourly.warnings[-1]
    daily = resample.aggregate(s, "daily")
    assert len(daily) == 2 and daily.values.sum() == pytest.approx(s.values.sum())
    assert daily.timestamps[1] == pd.Timestamp("2024-10-27", tz="Europe/London")


def test_aggregation_bins_are_clock_hours_of_the_series_zone():
    index = pd.date_range("2024-01-01 00:00", periods=8, freq="15min", tz="Asia/Kolkata")  # UTC+5:30
    s = from_values(np.ones(8), index)
    hourly = resample.aggregate(s, "hourly")
    np.testing.assert_array_equal(hourly.values, [4.0, 4.0])
    assert hourly.timestamps[0] == pd.Timestamp("2024-01-01 00:00", tz="Asia/Kolkata")


def test_empty_hours_have_no_event_and_naive_series_work():
    index = pd.DatetimeIndex(["2024-01-01 00:10", "2024-01-01 00:50", "2024-01-01 03:20"])
    s = from_values([1.0, 2.0, 5.0], index)
    hourly = resample.aggregate(s, "hourly")
    assert list(hourly.timestamps) == [pd.Timestamp("2024-01-01 00:00"), pd.Timestamp("2024-01-01 03:00")]
    np.testing.assert_array_equal(hourly.values, [3.0, 5.0])


def test_trajectories_aggregate_to_centroids_or_last_fixes_and_contacts_are_refused():
    times = pd.date_range("2024-01-01", periods=6, freq="20min")
    lat, lon = np.array([1.0, 2, 3, 4, 5, 6]), np.array([10.0, 10, 10, 20, 20, 20])
    t = from_trajectory(times, lat, lon)
    centroid = resample.aggregate(t, "hourly")
    np.testing.assert_allclose(centroid.latlon(), [[2.0, 10.0], [5.0, 20.0]])
    np.testing.assert_allclose(resample.aggregate(t, "hourly", "last").latlon(), [[3.0, 10.0], [6.0, 20.0]])
    with pytest.raises(ParameterError, match="sum or mean|mean or last"):
        resample.aggregate(t, "hourly", "sum")
    with pytest.raises(ParameterError, match="use a window"):
        resample.aggregate(from_contacts(times, [1, 2, 3, 4, 5, 6]), "hourly")
    with pytest.raises(ParameterError, match="period"):
        resample.aggregate(t, "weekly")


def test_hue_daily_and_the_public_range_of_a_sum():
    hue = lmdk.sample("hue", n=None)
    daily = resample.aggregate(hue, "daily")
    assert len(daily) < len(hue) / 23 and daily.values.sum() == pytest.approx(hue.values.sum())
    k = resample.readings_per_period(3600, "daily")
    assert k == 25  # a 25-hour daylight-saving day
    assert resample.aggregated_range(0, 25, "sum", k) == (0.0, 625.0)
    assert resample.aggregated_range(0, 25, "mean", k) == (0.0, 25.0)
    assert resample.aggregated_range(-2, 3, "sum", 4) == (-8.0, 12.0)
    assert resample.readings_per_period(900, "hourly") == 4
    text = resample.privacy_meaning("daily", "sum")
    assert "whole day" in text and "stronger per reading" in text and "coarser" in text


@pytest.mark.parametrize("fraction, reps, cal", [
    (0.2, 1, Calibration(20.0, "discrete", (0.0, 20.0))),
    (0.02, 4, Calibration(20.0, "discrete", (0.0, 20.0))),
    (0.3, 3, Calibration(1.0, "textbook")), (0.0, 2, Calibration(1.0, "snapping", None, 40.0)),
    (1.0, 2, Calibration(1.0, "textbook")),
    (0.6, 12, Calibration(20.0, "discrete", (0.0, 20.0))),  # the vectorised path
])
def test_adaptive_fast_forward_is_exact(monkeypatch, fraction, reps, cal):
    rng = np.random.default_rng(5)
    n = 3_000
    x = np.clip(10 + np.cumsum(rng.normal(0, 0.3, n)), 0, 20)
    landmarks = np.flatnonzero(rng.random(n) < fraction)
    # the engine: every sampler
    fast = schemes.release_engine(x, landmarks, "adaptive", 1.0, cal, repetitions=reps, rng=7)
    per_row = rng.random((reps, n)) < fraction  # a landmark set per repetition (dummy landmarks, populations)
    fast_rows = schemes.release_engine(x, per_row, "adaptive", 0.7, cal, repetitions=reps, rng=8)
    monkeypatch.setattr(schemes, "_FAST_FORWARD", False)
    plain = schemes.release_engine(x, landmarks, "adaptive", 1.0, cal, repetitions=reps, rng=7)
    plain_rows = schemes.release_engine(x, per_row, "adaptive", 0.7, cal, repetitions=reps, rng=8)
    for a, b in ((fast, plain), (fast_rows, plain_rows)):
        np.testing.assert_array_equal(a.values, b.values)
        np.testing.assert_array_equal(a.budgets, b.budgets)
        np.testing.assert_array_equal(a.published, b.published)
