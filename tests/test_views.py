"""Tests of lmdk.present.views: URL encoding of landmark sets, release summaries, clamping, release inputs."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lmdk
from lmdk import schemes
from lmdk.errors import ParameterError
from lmdk.present import views


@given(st.sets(st.integers(0, 20_000), max_size=3_000))
def test_landmark_encoding_round_trips(indices):
    text = views.encode_landmarks(sorted(indices))
    assert np.array_equal(views.decode_landmarks(text), np.asarray(sorted(indices), dtype=np.int64))
    assert all(c.isalnum() or c in "-._" for c in text)  # URL-safe without escaping


def test_long_random_sets_use_the_compact_bitmask():
    idx = np.random.default_rng(0).choice(10_000, 4_000, replace=False)
    text = views.encode_landmarks(idx)
    assert text.startswith("z") and len(text) < 2_000
    assert views.encode_landmarks(range(100, 5_000)) == "100-4999"


@pytest.mark.parametrize("text", ["5-3", "a-b", "1..2", "z!!!", "-5"])
def test_malformed_landmark_text_raises(text):
    with pytest.raises(ParameterError):
        views.decode_landmarks(text)


def test_decoding_rejects_indices_beyond_the_series():
    with pytest.raises(ParameterError, match="below|limit|<"):
        views.decode_landmarks("0-10", limit=10)


def test_clamp_is_a_clip_and_rejects_an_empty_range():
    assert np.array_equal(views.clamp(np.array([-2.0, 0.5, 9.0]), 0.0, 1.0), [0.0, 0.5, 1.0])
    with pytest.raises(ParameterError):
        views.clamp(np.zeros(3), 1.0, 1.0)


def test_quantile_band_orders_low_median_high():
    values = np.random.default_rng(1).normal(size=(200, 50))
    med, lo, hi = views.quantile_band(values, 0.9)
    assert np.all(lo <= med) and np.all(med <= hi)
    inside = ((values >= lo) & (values <= hi)).mean()
    assert 0.85 < inside < 0.95


def test_quantile_band_matches_numpy_quantile():
    rng = np.random.default_rng(4)
    for shape in [(100, 300), (1, 5), (2, 7), (9, 20, 2)]:
        values = rng.normal(size=shape)
        med, lo, hi = views.quantile_band(values, 0.9)
        want_lo, want_med, want_hi = np.quantile(values, [0.05, 0.5, 0.95], axis=0)
        assert med.shape == lo.shape == hi.shape == shape[1:]
        np.testing.assert_allclose(med, want_med, rtol=0, atol=1e-12)
        np.testing.assert_allclose(lo, want_lo, rtol=0, atol=1e-12)
        np.testing.assert_allclose(hi, want_hi, rtol=0, atol=1e-12)


def test_summary_checks_theorem_2_against_the_real_landmarks():
    x = np.random.default_rng(2).normal(5, 1, 100)
    landmarks = np.array([3, 10, 50])
    out = {}
    for scheme in ("event", "uniform", "user"):
        rel = schemes.release(x, landmarks, scheme, 1.0,
                              protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=20, rng=np.random.default_rng(3))
        out[scheme] = views.summarize(scheme, x, rel, landmarks, 1.0, "laplace", clamp_range=(0.0, 10.0))
    assert not out["event"].satisfies and out["event"].worst_sigma == pytest.approx(4.0)
    assert out["uniform"].satisfies and out["uniform"].worst_sigma == pytest.approx(1.0)
    assert out["user"].worst_sigma == pytest.approx(4 / 100)
    for summary in out.values():
        assert summary.mae_ci[0] <= summary.mae <= summary.mae_ci[1]
        assert summary.mae_clamped <= summary.mae + 1e-12  # clamping to a range containing x never hurts
        assert summary.first.shape == x.shape and summary.budgets.shape == x.shape


@given(st.integers(2, 12), st.integers(1, 40), st.floats(0.01, 5.0), st.booleans())
def test_summary_worst_sigma_is_theorem_2_over_every_repetition(reps, n, eps, same):
    """worst_sigma is the largest Theorem 2 loss over every repetition and t, bit for bit: computed on one row when
    the rows are equal (a data-independent scheme, issue 34) and on all of them when they differ (Adaptive, L′)."""
    from types import SimpleNamespace

    from lmdk import privacy

    rng = np.random.default_rng(reps * 1_000 + n)
    landmarks = np.flatnonzero(rng.random(n) < 0.3)
    budgets = rng.uniform(0, eps, size=(1 if same else reps, n)).repeat(reps if same else 1, axis=0)
    release = SimpleNamespace(values=rng.normal(size=(reps, n)), budgets=budgets, published=budgets > 0)
    summary = views.summarize("adaptive", np.zeros(n), release, landmarks, eps, "laplace")
    assert summary.worst_sigma == float(privacy.landmark_loss(budgets, landmarks).max())


def test_release_inputs_fit_each_kind():
    from lmdk import data

    hue = data.sample("hue", n=50)
    x, mech, origin = views.release_input(hue, [1, 2])
    assert mech == "laplace" and x.shape == (50,) and origin is None
    taxi = data.sample("taxi", n=40)
    xy, mech, origin = views.release_input(taxi, [])
    assert mech == "planar_laplace" and xy.shape == (40, 2) and len(origin) == 2
    contacts = data.sample("contacts", n=30)
    bits, mech, _ = views.release_input(contacts, [0, 5])
    assert mech == "randomized_response" and bits.sum() == 2 and bits[5] == 1
    y, title = views.timeline_values(taxi)
    assert y[0] == 0 and "(m)" in title


def test_synthetic_series_is_deterministic_in_the_seed():
    a = views.synthetic_series("trajectory", 30, 0.8, 7)
    b = views.synthetic_series("trajectory", 30, 0.8, 7)
    assert a.source_hash == b.source_hash and a.kind == "trajectory"
    assert (views.synthetic_series("values", 30, 0.8, 8).source_hash
            != views.synthetic_series("values", 30, 0.8, 7).source_hash)
    with pytest.raises(ParameterError):
        views.synthetic_series("contacts", 30, 0.5, 1)


def test_a_synthetic_series_starts_on_2024_01_01_in_kwh_whatever_its_seed():
    """Issue 35: a synthetic long series was dated 1970 with the unit '(units)'."""
    import pandas as pd

    from lmdk.present import views as v

    a, b = v.synthetic_series("values", 50, 0.5, rng=1), v.synthetic_series("values", 50, 0.5, rng=2)
    assert a.timestamps[0] == b.timestamps[0] and pd.Timestamp(a.timestamps[0]).strftime("%Y-%m-%d") == "2024-01-01"
    assert a.units == "kWh"
