"""Landmark detectors (lmdk.landmarks): thresholds, watchlists, stay points, target fractions."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk import landmarks as lm
from lmdk.data import from_contacts, from_trajectory, from_values, sample
from lmdk.errors import ParameterError


def sorted_unique_ints(indices) -> bool:
    """The contract of every detector."""
    return indices.dtype == np.int64 and np.all(np.diff(indices) > 0)


# -- helpers for the app ---------------------------------------------------------------------
def test_merge_and_toggle():
    np.testing.assert_array_equal(lm.merge([5, 1], [1, 3]), [1, 3, 5])
    np.testing.assert_array_equal(lm.toggle([1, 3, 5], [3, 4]), [1, 4, 5])
    np.testing.assert_array_equal(lm.toggle([], [2, 2]), [2])
    np.testing.assert_array_equal(lm.merge(np.array([True, False, True]), [1]), [0, 1, 2])
    with pytest.raises(ParameterError, match="0..4"):
        lm.merge([1], [5], n=5)
    with pytest.raises(ParameterError, match="whole-number"):
        lm.toggle([1], ["a"])


# -- thresholds, percentiles, contacts -------------------------------------------------------
def test_by_threshold_below_above_and_both():
    v = np.array([0.3, 1.0, 0.5, 2.0, 0.5])
    np.testing.assert_array_equal(lm.by_threshold(v, below=0.5), [0, 2, 4])  # inclusive
    np.testing.assert_array_equal(lm.by_threshold(v, above=1.0), [1, 3])
    np.testing.assert_array_equal(lm.by_threshold(v, below=0.3, above=2.0), [0, 3])
    with pytest.raises(ParameterError, match="below"):
        lm.by_threshold(v)
    with pytest.raises(ParameterError, match="finite"):
        lm.by_threshold([np.nan], below=1)


def test_by_percentile_counts_exactly_with_ties():
    v = np.array([1, 1, 1, 1, 5, 6, 7, 8, 9, 10], dtype=float)
    np.testing.assert_array_equal(lm.by_percentile(v, 0.2, "below"), [0, 1])  # ties by position
    np.testing.assert_array_equal(lm.by_percentile(v, 0.3, "above"), [7, 8, 9])
    assert lm.by_percentile(v, 0.0).size == 0 and lm.by_percentile(v, 1.0).size == 10
    with pytest.raises(ParameterError, match="side"):
        lm.by_percentile(v, 0.2, "middle")
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        lm.by_percentile(v, 20)


def test_by_contacts():
    ids = np.array([-1, 3, 7, 3, -2, 9])
    np.testing.assert_array_equal(lm.by_contacts(ids, [3, 9]), [1, 3, 5])
    assert lm.by_contacts(ids, []).size == 0
    s = from_contacts(pd.date_range("2020", periods=6, freq="5min"), ids)
    np.testing.assert_array_equal(lm.by_contacts(s, {7}), [2])


# -- stay points -----------------------------------------------------------------------------
def reference_stays(t, lat, lon, distance_m, duration_s):
    """Li et al. 2008 literally, one point at a time (great-circle distance by haversine)."""
    from lmdk.mechanisms import great_circle_metres

    n, i, out = len(t), 0, []
    while i < n:
        j = i + 1
        while j < n and great_circle_metres(lat[i], lon[i], lat[j], lon[j]) <= distance_m:
            j += 1
        if t[j - 1] - t[i] > duration_s:
            out.extend(range(i, j))
            i = j
        else:
            i += 1
    return np.array(out, dtype=np.int64)


def test_stay_points_on_a_hand_made_track():
    t = np.arange(8) * 600.0  # a fix every 10 minutes
    lat = np.array([0, 0.00001, 0.00002, 0.00001, 0.01, 0.02, 0.02, 0.02]) + 40
    lon = np.full(8, 116.0)
    # first four fixes stay within ~3 m for 30 min; the last three stay for 20 min
    np.testing.assert_array_equal(lm.stay_points(t, lat, lon, 10, 25 * 60), [0, 1, 2, 3])
    np.testing.assert_array_equal(lm.stay_points(t, lat, lon, 10, 15 * 60), [0, 1, 2, 3, 5, 6, 7])
    assert lm.stay_points(t, lat, lon, 10, 30 * 60).size == 0  # duration must be exceeded
    starts, ends = lm.stay_segments(t, lat, lon, 10, 15 * 60)
    np.testing.assert_array_equal(starts, [0, 5])
    np.testing.assert_array_equal(ends, [4, 8])


@settings(max_examples=120)
@given(st.integers(0, 2**32 - 1), st.integers(1, 70), st.sampled_from([0.0, 30.0, 200.0, 1000.0, 5000.0]),
       st.sampled_from([0.0, 120.0, 600.0, 1800.0]))
def test_stay_points_match_the_literal_algorithm(seed, n, distance, duration):
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.integers(0, 400, n)).astype(float)
    moving = rng.random(n) < 0.5
    lat = 39.9 + np.cumsum(rng.normal(0, 0.003, n) * moving)
    lon = 116.4 + np.cumsum(rng.normal(0, 0.003, n) * moving)
    got = lm.stay_points(t, lat, lon, distance, duration)
    np.testing.assert_array_equal(got, reference_stays(t, lat, lon, distance, duration))


def test_stay_points_long_windows_take_the_lazy_path(monkeypatch):
    monkeypatch.setattr(lm, "_PREFIX_OFFSETS", 2)
    rng = np.random.default_rng(5)
    n = 300
    t = np.arange(n) * 60.0
    lat = 39.9 + np.cumsum(rng.normal(0, 0.0003, n))
    lon = 116.4 + np.cumsum(rng.normal(0, 0.0003, n))
    for distance in (50.0, 150.0, 400.0):
        np.testing.assert_array_equal(lm.stay_points(t, lat, lon, distance, 600.0),
                                      reference_stays(t, lat, lon, distance, 600.0))


def test_stay_points_accept_datetimes_and_reject_bad_input():
    times = pd.date_range("2020-01-01", periods=4, freq="20min")
    lat, lon = np.full(4, 10.0), np.full(4, 10.0)
    np.testing.assert_array_equal(lm.stay_points(times, lat, lon, 1, 1800), [0, 1, 2, 3])
    np.testing.assert_array_equal(lm.stay_points(times.values, lat, lon, 1, 1800), [0, 1, 2, 3])
    with pytest.raises(ParameterError, match="sorted"):
        lm.stay_points([2.0, 1.0], [0, 0], [0, 0], 1, 1)
    with pytest.raises(ParameterError, match="distance_m"):
        lm.stay_points([1.0, 2.0], [0, 0], [0, 0], -1, 1)
    with pytest.raises(ParameterError, match="equal lengths"):
        lm.stay_points([1.0, 2.0], [0], [0, 0], 1, 1)
    assert lm.stay_points([1.0], [0], [0], 1, 0).size == 0


# -- target fractions (§4.1.2) ---------------------------------------------------------------
@pytest.mark.parametrize("fraction", [0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
def test_fraction_on_hue_is_exact_with_a_threshold_below(fraction):
    hue = sample("hue")
    fit = lm.fit_fraction(hue, fraction)
    assert fit.detector == "threshold" and sorted_unique_ints(fit.indices)
    assert fit.achieved == pytest.approx(fraction, abs=0.005)
    np.testing.assert_array_equal(fit.indices, lm.by_threshold(hue.values, below=fit.parameter["below"]))
    np.testing.assert_array_equal(lm.by_fraction(hue.values, fraction), fit.indices)


def test_hue_thresholds_are_close_to_the_papers():
    hue = sample("hue")
    paper = {0.2: 0.54, 0.4: 0.68, 0.6: 0.88, 0.8: 1.12}  # §4.1.2 (listed there in reverse order)
    for fraction, threshold in paper.items():
        assert lm.fit_fraction(hue, fraction).parameter["below"] == pytest.approx(threshold, abs=0.03)


def test_fraction_with_ties_picks_the_closer_count():
    v = np.array([1.0] * 6 + [2.0, 3.0, 4.0, 5.0])
    fit = lm.fit_fraction(v, 0.5)  # below=1 gives 6, the next lower option 0: 6 is closer to 5
    assert fit.indices.size == 6 and fit.parameter["below"] == 1.0


@pytest.mark.parametrize("fraction", [0.2, 0.4, 0.6, 0.8])
def test_fraction_on_taxi_uses_stay_points_at_30_minutes(fraction):
    taxi = sample("taxi")
    fit = lm.fit_fraction(taxi, fraction)
    assert fit.detector == "stay_points" and fit.parameter["duration_s"] == 1800
    assert fit.achieved == pytest.approx(fraction, abs=0.03)
    latlon = taxi.latlon()
    again = lm.stay_points(taxi.seconds, latlon[:, 0], latlon[:, 1], fit.parameter["distance_m"], 1800)
    np.testing.assert_array_equal(again, fit.indices)


def test_fraction_on_taxi_extremes():
    taxi = sample("taxi", n=200)
    assert lm.by_fraction(taxi, 0.0).size == 0
    assert lm.by_fraction(taxi, 1.0).size == 200


@pytest.mark.parametrize("fraction", [0.0, 0.2, 0.4, 0.6, 1.0])
def test_fraction_on_contacts_builds_a_watchlist(fraction):
    contacts = sample("contacts")
    fit = lm.fit_fraction(contacts, fraction)
    assert fit.detector == "contacts"
    assert fit.achieved == pytest.approx(fraction, abs=0.02)
    np.testing.assert_array_equal(lm.by_contacts(contacts.contacts, fit.parameter["watchlist"]), fit.indices)


def test_watchlist_is_the_ascending_prefix_when_that_hits_the_target():
    ids = np.array([5, 5, 9, 2, -1, 7, 7, 2, 9, 9])  # counts: 2→2, 5→2, 7→2, 9→3, −1→1
    fit = lm.fit_fraction(from_contacts(pd.date_range("2020", periods=10, freq="5min"), ids), 0.6)
    assert fit.parameter["watchlist"] == (2, 5, 7)
    np.testing.assert_array_equal(fit.indices, [0, 1, 3, 5, 6, 7])


def test_fraction_validation():
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        lm.by_fraction([1.0, 2.0], 1.5)
    with pytest.raises(ParameterError, match="number"):
        lm.by_fraction([1.0, 2.0], "half")


def test_fraction_on_a_synthetic_trajectory_series():
    times = pd.date_range("2020", periods=40, freq="10min")
    lat = np.r_[np.full(20, 40.0), 40.0 + np.arange(1, 21) * 0.01]
    s = from_trajectory(times, lat, np.full(40, 116.0))
    fit = lm.fit_fraction(s, 0.5)
    np.testing.assert_array_equal(fit.indices, np.arange(20))
    assert fit.parameter["distance_m"] < 1112  # below one step of 0.01° latitude
    assert from_values(np.arange(3.0)).kind == "values"
