"""Tests of lmdk.synthetic: landmark samplers (χ² with power checks), AR(1) values and trajectories (KS)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from lmdk import synthetic as syn
from lmdk.errors import ParameterError

ALPHA = 1e-4


@given(st.integers(1, 300), st.floats(0, 1), st.sampled_from(syn.DISTRIBUTIONS), st.integers(0, 2**32 - 1))
def test_landmarks_exact_count_sorted_unique(n, fraction, distribution, seed):
    lm = syn.landmarks(n, fraction, distribution, rng=seed)
    assert len(lm) == round(fraction * n)
    assert np.all(np.diff(lm) > 0) and (len(lm) == 0 or (lm[0] >= 0 and lm[-1] < n))
    assert lm.dtype == np.int64
    assert np.array_equal(lm, syn.landmarks(n, fraction, distribution, rng=seed))


def _single_draw_counts(n, distribution, draws, seed):
    gen = np.random.default_rng(seed)
    picks = np.concatenate([syn.landmarks(n, 1 / n, distribution, rng=gen) for _ in range(draws)])
    return np.bincount(picks, minlength=n)


@pytest.mark.parametrize("distribution", syn.DISTRIBUTIONS)
def test_single_landmark_follows_the_distribution(distribution, monkeypatch):
    n, draws = 40, 12_000
    counts = _single_draw_counts(n, distribution, draws, seed=11)
    p = syn.landmark_probabilities(n, distribution)
    keep = p * draws >= 5  # χ² needs expected counts ≥ 5: pool the far tail into one bin
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(p[keep], p[~keep].sum()) * draws
    obs, exp = obs[exp > 0], exp[exp > 0]
    assert stats.chisquare(obs, exp).pvalue > ALPHA
    if distribution != "uniform":  # power: a 30 % wider scale is rejected
        monkeypatch.setattr(syn, "SCALE_DIVISOR", syn.SCALE_DIVISOR / 1.3)
        wrong = syn.landmark_probabilities(n, distribution)
        assert stats.chisquare(counts, wrong * draws).pvalue < ALPHA
    else:
        assert stats.chisquare(counts, syn.landmark_probabilities(n, "symmetric") * draws).pvalue < ALPHA


def test_shapes_of_the_distributions():
    n = 100
    means = {d: np.mean([syn.landmarks(n, 0.2, d, rng=s).mean() for s in range(50)]) for d in syn.DISTRIBUTIONS}
    assert means["skewed"] < 30 and 40 < means["symmetric"] < 60 and 40 < means["uniform"] < 60
    bimodal = np.concatenate([syn.landmarks(n, 0.2, "bimodal", rng=s) for s in range(50)])
    assert np.mean((bimodal < 25) | (bimodal >= 75)) > 0.7
    sym = np.concatenate([syn.landmarks(n, 0.2, "symmetric", rng=s) for s in range(50)])
    assert np.mean((sym >= 25) & (sym < 75)) > 0.7


def test_two_landmarks_match_successive_sampling_without_replacement():
    n, draws = 4, 20_000
    p = syn.landmark_probabilities(n, "skewed")
    pairs = list(itertools.combinations(range(n), 2))
    expected = np.array([p[a] * p[b] / (1 - p[a]) + p[b] * p[a] / (1 - p[b]) for a, b in pairs])
    gen = np.random.default_rng(3)
    seen = [tuple(syn.landmarks(n, 0.5, "skewed", rng=gen)) for _ in range(draws)]
    counts = np.array([seen.count(pair) for pair in pairs])
    assert stats.chisquare(counts, expected * draws).pvalue > ALPHA
    naive = np.array([p[a] * p[b] for a, b in pairs])  # power: independent draws would differ
    assert stats.chisquare(counts, naive / naive.sum() * draws).pvalue < ALPHA


def test_landmark_validation():
    with pytest.raises(ParameterError, match="distribution"):
        syn.landmarks(10, 0.5, "gaussian")
    with pytest.raises(ParameterError, match="fraction"):
        syn.landmarks(10, 1.5)
    with pytest.raises(ParameterError, match="n "):
        syn.landmarks(0, 0.5)


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.95])
def test_values_ar1_innovations_and_correlation(rho):
    x = syn.values(20_000, rho, rng=5, mean=2.0, std=3.0)
    innov = (x[1:] - 2.0) - rho * (x[:-1] - 2.0)
    sd = 3.0 * np.sqrt(1 - rho**2)
    assert stats.kstest(innov, stats.norm(scale=sd).cdf).pvalue > ALPHA
    assert stats.kstest(innov, stats.norm(scale=1.3 * sd).cdf).pvalue < ALPHA  # power
    assert abs(np.corrcoef(x[1:], x[:-1])[0, 1] - rho) < 0.03
    assert abs(x.std() - 3.0) < 0.3


def test_values_fully_correlated_is_constant_and_validation():
    x = syn.values(50, 1.0, rng=1)
    assert np.allclose(x, x[0])
    with pytest.raises(ParameterError, match="correlation"):
        syn.values(10, 1.2)


def test_trajectory_turning_angles_and_steps():
    xy = syn.trajectory(20_000, rng=7, correlation=0.9, step=600.0, stop_rate=0.0)
    d = np.diff(xy, axis=0)
    lengths = np.hypot(d[:, 0], d[:, 1])
    assert stats.kstest(lengths, stats.gamma(2, scale=300).cdf).pvalue > ALPHA
    assert stats.kstest(lengths, stats.gamma(2, scale=1.3 * 300).cdf).pvalue < ALPHA
    heading = np.arctan2(d[:, 1], d[:, 0])
    turns = np.angle(np.exp(1j * np.diff(heading)))
    sigma = syn.turning_sigma(0.9)
    assert stats.kstest(turns, stats.norm(scale=sigma).cdf).pvalue > ALPHA
    assert stats.kstest(turns, stats.norm(scale=1.3 * sigma).cdf).pvalue < ALPHA
    assert abs(np.cos(turns).mean() - 0.9) < 0.01


def test_trajectory_stops_and_uncorrelated_headings():
    xy = syn.trajectory(5_000, rng=8, correlation=0.0, stop_rate=0.05, mean_stop=10)
    assert xy.shape == (5_000, 2) and np.all(xy[0] == 0)
    d = np.diff(xy, axis=0)
    still = np.all(d == 0, axis=1)
    assert 0.2 < still.mean() < 0.5  # stationary share stopped: 0.05 / (0.05 + 0.1) = 1/3
    moving = d[~still]
    turns = np.angle(np.exp(1j * np.diff(np.arctan2(moving[:, 1], moving[:, 0]))))
    assert stats.kstest(turns, stats.uniform(-np.pi, 2 * np.pi).cdf).pvalue > ALPHA
    with pytest.raises(ParameterError, match="step"):
        syn.trajectory(10, step=-1)
