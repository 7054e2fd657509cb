"""The floating-point-safe export sampler (lmdk.snapping): distributions, the output grid, the ε′ it states."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import lmdk
from lmdk import snapping
from lmdk.errors import ParameterError

ALPHA = 1e-6  # false alarms are rare; the power checks below show the tests still see a wrong sampler
N = 200_000


def test_uniform_doubles_are_uniform_and_finer_than_the_2_53_grid():
    u = snapping.uniform_doubles(N, np.random.default_rng(1))
    assert ((u > 0) & (u < 1)).all()
    assert stats.kstest(u, "uniform").pvalue > ALPHA
    assert stats.kstest(u ** 1.02, "uniform").pvalue < ALPHA  # power: a slightly wrong law is rejected
    small = u[u < 2.0**-8]
    assert np.any((small * 2.0**53) % 1 != 0)  # textbook U = k/2^53 would never have these bits


def test_unit_laplace_noise_has_the_laplace_law():
    noise = snapping.unit_noise("laplace", N, np.random.default_rng(2))
    assert stats.kstest(noise, "laplace").pvalue > ALPHA
    assert stats.kstest(noise, "laplace", args=(0, 1.05)).pvalue < ALPHA  # power: scale 1.05 is rejected


def test_planar_radius_from_full_precision_uniforms_is_gamma_2():
    noise = snapping.unit_noise("planar_laplace", N, np.random.default_rng(3))
    assert stats.kstest(noise[:, 0], "gamma", args=(2,)).pvalue > ALPHA
    assert stats.kstest(noise[:, 0], "gamma", args=(2, 0, 1.05)).pvalue < ALPHA
    assert stats.kstest(noise[:, 1], "uniform", args=(0, 2 * np.pi)).pvalue > ALPHA


def _snapped_histogram(x: float, scale: float, bound: float, seed: int):
    noise = snapping.unit_noise("laplace", N, np.random.default_rng(seed))
    out = snapping.snap(np.clip(x, -bound, bound) + noise * scale, scale, bound)
    lam = snapping.grid(scale)
    k = np.round(out / lam).astype(int)
    return out, lam, k


def test_snapped_release_has_the_discretised_laplace_law_and_lies_on_the_grid():
    x, scale, bound = 0.3, 1.0, 6.0
    out, lam, k = _snapped_histogram(x, scale, bound, 4)
    assert lam == 1.0 and np.all(out == k * lam) and np.all(np.abs(out) <= bound)  # low bits carry nothing
    cells = np.arange(-int(bound / lam), int(bound / lam) + 1)
    edges = np.concatenate(([-np.inf], (cells[:-1] + 0.5) * lam, [np.inf]))  # the end cells absorb the clamp

    def expected(s):
        return np.diff(stats.laplace.cdf(edges, loc=x, scale=s)) * N

    observed = np.array([(k == c).sum() for c in cells])
    assert stats.chisquare(observed, expected(scale)).pvalue > ALPHA
    assert stats.chisquare(observed, expected(1.1)).pvalue < ALPHA  # power: a 10 % wrong scale is rejected


def test_release_with_the_snapping_sampler_stays_on_each_timestamps_grid():
    series = lmdk.sample("hue")
    L = lmdk.landmarks.by_percentile(series.values, 0.2)
    for scheme in ("uniform", "adaptive", "skip"):
        snap = lmdk.relation.Calibration(1.0, "snapping", None, 10.0)  # the engine: no relation snaps values
        rel = lmdk.schemes.release_engine(series.values, L, scheme, 1.0, snap, rng=5)
        budgets = lmdk.allocate("uniform", len(series), L, 1.0) if scheme == "uniform" else None
        values = rel.values[0]
        assert np.all(np.abs(values) <= 10.0)
        if budgets is not None:
            lam = snapping.grid(1.0 / budgets)
            on_grid = values / lam == np.round(values / lam)
            assert np.all(on_grid | (np.abs(values) == 10.0))  # a multiple of Λ, or clamped to ±B
        assert lmdk.satisfies_landmark_privacy(rel.budgets, L, 1.0)


def test_snapping_epsilon_and_bound_checks():
    assert snapping.snapping_epsilon(1.0, 2.0**49) == pytest.approx(2.0)
    assert snapping.snapping_epsilon(0.5, 100.0, sensitivity=4.0) == pytest.approx(0.5 * (1 + 2.0**-49 * 25))
    with pytest.raises(ParameterError, match="bound"):
        lmdk.schemes.release_engine(np.ones(5), [], "user", 1.0, lmdk.relation.Calibration(1.0, "snapping"))
    with pytest.raises(ParameterError, match="sampler"):
        lmdk.schemes.release_engine(np.ones(5), [], "user", 1.0, lmdk.relation.Calibration(1.0, "fancy"))
    with pytest.raises(ParameterError, match="bound"):
        lmdk.relation.radius(200, bound=-1)


def test_fresh_generator_differs_between_calls():
    a = snapping.fresh_generator().random(4)
    b = snapping.fresh_generator().random(4)
    assert not np.array_equal(a, b)


@settings(max_examples=300, deadline=None)
@given(power=st.integers(-60, 60), ulps=st.integers(0, 5))
def test_the_grid_is_the_smallest_power_of_two_at_or_above_the_scale(power, ulps):
    """Λ ≥ λ exactly (Mironov's condition), also for scales a few ulps above a power of two, where log2 in floating
    point rounds down onto the power (issue 52: 180 of 300 such scales gave Λ < λ)."""
    scale = np.ldexp(1.0, power)
    for _ in range(ulps):
        scale = np.nextafter(scale, np.inf)
    lam = float(snapping.grid(scale))
    assert lam >= scale and lam / 2 < scale
    assert lam == (scale if ulps == 0 else np.ldexp(1.0, power + 1))
    assert (snapping.grid(np.array([scale, 3.0])) == [lam, 4.0]).all()
