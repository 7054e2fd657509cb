"""Tests of lmdk.mechanisms: distributions (KS/χ² with power checks), broadcasting, errors, projection."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from scipy.special import expit

from lmdk import mechanisms as mech
from lmdk.errors import ParameterError

ALPHA = 1e-4
N = 20_000


def _ks_p(sample, dist) -> float:
    return stats.kstest(sample, dist.cdf).pvalue


# --- Laplace -----------------------------------------------------------------------------------

@pytest.mark.parametrize("eps, delta", [(1.0, 1.0), (0.1, 2.0), (5.0, 0.5)])
def test_laplace_noise_has_scale_sensitivity_over_epsilon(eps, delta):
    values = np.linspace(-3, 3, N)
    noise = mech.laplace(values, eps, sensitivity=delta, rng=1) - values
    assert _ks_p(noise, stats.laplace(scale=delta / eps)) > ALPHA
    assert _ks_p(noise, stats.laplace(scale=1.3 * delta / eps)) < ALPHA  # power: 30 % wrong scale
    assert _ks_p(noise, stats.laplace(scale=delta / eps / 1.3)) < ALPHA


def test_laplace_per_element_epsilon_broadcasts_over_repetitions():
    eps = np.array([0.5, 1.0, 4.0])
    reps = np.broadcast_to(eps, (N, 3))
    values = np.array([1.0, -2.0, 10.0])
    out = mech.laplace(values, reps, rng=2)
    assert out.shape == (N, 3)
    for j in range(3):
        assert _ks_p(out[:, j] - values[j], stats.laplace(scale=1 / eps[j])) > ALPHA
        assert _ks_p(out[:, j] - values[j], stats.laplace(scale=1.3 / eps[j])) < ALPHA


def test_laplace_is_deterministic_per_seed_and_uses_generator():
    a = mech.laplace(np.zeros(5), 1.0, rng=7)
    b = mech.laplace(np.zeros(5), 1.0, rng=np.random.default_rng(7))
    c = mech.laplace(np.zeros(5), 1.0, rng=8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf, [1.0, 0.0], "x", []])
def test_bad_epsilon_is_rejected_naming_it(bad):
    with pytest.raises(ParameterError, match="epsilon"):
        mech.laplace(np.zeros(2), bad, rng=0)


def test_shape_mismatch_and_bad_inputs_are_rejected():
    with pytest.raises(ParameterError, match="epsilon.*values"):
        mech.laplace(np.zeros(3), np.ones(4), rng=0)
    with pytest.raises(ParameterError, match="values"):
        mech.laplace([1.0, np.nan], 1.0, rng=0)
    with pytest.raises(ParameterError, match="sensitivity"):
        mech.laplace([1.0], 1.0, sensitivity=0, rng=0)
    with pytest.raises(ParameterError, match="epsilon"):
        mech.planar_laplace(np.zeros((3, 2)), np.ones(2), rng=0)
    with pytest.raises(ParameterError, match="xy"):
        mech.planar_laplace(np.zeros((3, 3)), 1.0, rng=0)
    with pytest.raises(ParameterError, match="bits"):
        mech.randomized_response([0, 2], 1.0, rng=0)
    with pytest.raises(ParameterError, match="utilities"):
        mech.exponential([], 1.0, rng=0)
    with pytest.raises(ParameterError, match="epsilon"):
        mech.exponential([1.0, 2.0], -1.0, rng=0)


# --- Randomized response -------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_randomized_response_flip_rate(eps):
    bits = np.arange(N) % 2
    out = mech.randomized_response(bits, eps, rng=3)
    assert out.dtype == bits.dtype and set(np.unique(out)) <= {0, 1}
    flips = int(np.sum(out != bits))
    assert stats.binomtest(flips, N, expit(-eps)).pvalue > ALPHA
    assert stats.binomtest(flips, N, expit(-1.3 * eps)).pvalue < ALPHA  # power: 30 % wrong ε


def test_randomized_response_bool_and_per_element_epsilon():
    bits = np.ones((N, 2), dtype=bool)
    out = mech.randomized_response(bits, np.array([0.5, 2.0]), rng=4)
    assert out.dtype == bool
    for j, eps in enumerate([0.5, 2.0]):
        flips = int(np.sum(~out[:, j]))
        assert stats.binomtest(flips, N, expit(-eps)).pvalue > ALPHA


# --- Planar Laplace ------------------------------------------------------------------------------

def test_planar_radius_inverts_the_cdf():
    eps = 0.01
    r = np.array([0.0, 1.0, 50.0, 300.0, 2000.0])
    cdf = 1 - (1 + eps * r) * np.exp(-eps * r)
    assert np.allclose(mech.planar_radius(cdf, eps), r, atol=1e-6, rtol=1e-9)


@pytest.mark.parametrize("eps", [0.01, 0.5])
def test_planar_laplace_radius_gamma_and_uniform_angle(eps):
    origin = np.array([100.0, -40.0])
    out = mech.planar_laplace(np.tile(origin, (N, 1)), eps, rng=5)
    d = out - origin
    radius = np.hypot(d[:, 0], d[:, 1])
    angle = np.mod(np.arctan2(d[:, 1], d[:, 0]), 2 * np.pi)
    assert _ks_p(radius, stats.gamma(2, scale=1 / eps)) > ALPHA
    assert _ks_p(radius, stats.gamma(2, scale=1.3 / eps)) < ALPHA  # power: 30 % wrong scale
    assert _ks_p(angle, stats.uniform(0, 2 * np.pi)) > ALPHA
    assert _ks_p(angle, stats.uniform(0, 1.3 * 2 * np.pi)) < ALPHA


def test_planar_laplace_per_point_epsilon():
    eps = np.where(np.arange(N) % 2 == 0, 0.1, 1.0)
    out = mech.planar_laplace(np.zeros((N, 2)), eps, rng=6)
    radius = np.hypot(out[:, 0], out[:, 1])
    assert _ks_p(radius * eps, stats.gamma(2)) > ALPHA
    assert out.shape == (N, 2)


# --- Exponential ---------------------------------------------------------------------------------

def test_exponential_probabilities_and_sampling():
    u = np.array([0.0, 1.0, 2.0, 5.0])
    eps, delta = 1.5, 2.0
    expected = np.exp(eps * u / (2 * delta))
    expected /= expected.sum()
    _, p = mech.exponential(u, eps, sensitivity=delta, rng=0)
    assert np.allclose(p, expected)
    idx, probs = mech.exponential(np.tile(u, (N, 1)), eps, sensitivity=delta, rng=9)
    counts = np.bincount(idx, minlength=4)
    assert stats.chisquare(counts, N * expected).pvalue > ALPHA
    wrong = np.exp(1.3 * eps * u / (2 * delta))
    wrong /= wrong.sum()
    assert stats.chisquare(counts, N * wrong).pvalue < ALPHA  # power: 30 % wrong ε
    assert probs.shape == (N, 4)


def test_exponential_is_stable_for_huge_utilities_and_returns_int():
    idx, p = mech.exponential([1e300, 1e300 - 1e290, -1e300], 1.0, rng=1)
    assert isinstance(idx, int) and np.all(np.isfinite(p)) and np.isclose(p.sum(), 1.0)
    assert p[2] == 0.0


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30), st.floats(1e-3, 50))
def test_exponential_probabilities_form_a_distribution(u, eps):
    idx, p = mech.exponential(u, eps, rng=0)
    assert 0 <= idx < len(u) and np.isclose(p.sum(), 1.0) and np.all(p >= 0)
    assert p[np.argmax(u)] == p.max()


# --- unit noise shared with the schemes -----------------------------------------------------------

@pytest.mark.parametrize("mechanism", mech.MECHANISMS)
def test_public_mechanisms_equal_unit_noise_then_perturb(mechanism):
    data = {"laplace": np.arange(6.0), "randomized_response": np.array([0, 1, 1, 0, 1, 0]),
            "planar_laplace": np.arange(12.0).reshape(6, 2)}[mechanism]
    eps = np.linspace(0.5, 3, 6)
    public = {"laplace": lambda: mech.laplace(data, eps, 2.0, rng=3),
              "randomized_response": lambda: mech.randomized_response(data, eps, rng=3),
              "planar_laplace": lambda: mech.planar_laplace(data, eps, rng=3)}[mechanism]()
    delta = 2.0 if mechanism == "laplace" else 1.0
    manual = mech.perturb(mechanism, data, eps, mech.unit_noise(mechanism, (6,), rng=3), delta)
    assert np.array_equal(public, manual)
    with pytest.raises(ParameterError, match="mechanism"):
        mech.unit_noise("gaussian", (3,), rng=0)


# --- lat/lon projection --------------------------------------------------------------------------

@pytest.mark.parametrize("lat0, bound", [(39.9, 0.0016), (60.0, 0.003)])
def test_latlon_round_trip_and_distance_accuracy(lat0, bound):
    rng = np.random.default_rng(0)
    lat = lat0 + rng.uniform(-0.09, 0.09, 500)  # ~±10 km north/south of the origin
    lon = 116.4 + rng.uniform(-0.12, 0.12, 500)
    xy, origin = mech.latlon_to_metres(lat, lon)
    lat2, lon2 = mech.metres_to_latlon(xy, origin)
    assert np.allclose(lat2, lat, atol=1e-9) and np.allclose(lon2, lon, atol=1e-9)
    planar = np.hypot(*(xy[1:] - xy[:-1]).T)
    true = mech.great_circle_metres(lat[1:], lon[1:], lat[:-1], lon[:-1])
    assert np.max(np.abs(planar - true) / true) < bound


def test_latlon_across_antimeridian_and_validation():
    xy, origin = mech.latlon_to_metres([0.0, 0.0], [179.99, -179.99])
    assert abs(origin[1]) > 179.9
    assert np.isclose(np.hypot(*(xy[1] - xy[0])), mech.great_circle_metres(0, 179.99, 0, -179.99), rtol=1e-6)
    with pytest.raises(ParameterError, match="lat"):
        mech.latlon_to_metres([91.0], [0.0])
    with pytest.raises(ParameterError, match="same shape"):
        mech.latlon_to_metres([1.0, 2.0], [0.0])
    with pytest.raises(ParameterError, match="origin"):
        mech.latlon_to_metres([89.0], [0.0])
