"""Tests of lmdk.baselines (issue 29): w-event BD/BA, FAST, PeGaSus through schemes.release.

Their guarantees checked the way Theorem 2 is (hypothesis): BD/BA spend at most ε in every window of w timestamps
(the dissimilarity test's ε/(2w) included), FAST at most ε over the whole series, PeGaSus ε per event. The vectorised
implementations equal straightforward one-repetition-at-a-time transcriptions of the algorithms on the same noise;
the qualitative results of the three papers are reproduced on small streams (numbers in docs/REPRODUCTION.md).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import lmdk
from lmdk import schemes
from lmdk.baselines import BASELINES, _noise, fast, pegasus, protects
from lmdk.errors import ParameterError

ALPHA = 1e-4


def _values(gen: np.random.Generator, n: int, kind: int) -> np.ndarray:
    """A stream of one of three shapes: heavy-tailed noise, piecewise constant, a smooth wave."""
    if kind == 0:
        return gen.standard_cauchy(n) * gen.uniform(0.1, 50)
    if kind == 1:
        return np.repeat(gen.integers(0, 40, n // 7 + 1), 7)[:n].astype(float)
    return 10 + 5 * np.sin(np.arange(n) / gen.uniform(3, 30))


def window_sums(budgets: np.ndarray, w: int) -> np.ndarray:
    """Σ of budgets over every window of w consecutive timestamps (shorter ones at the start included)."""
    c = np.concatenate([np.zeros((budgets.shape[0], 1)), np.cumsum(budgets, axis=1)], axis=1)
    n = budgets.shape[1]
    ends = np.arange(1, n + 1)
    return c[:, ends] - c[:, np.maximum(ends - w, 0)]


# --- guarantees ----------------------------------------------------------------------------------------------------

@settings(max_examples=80)
@given(n=st.integers(1, 120), data=st.data(), eps=st.floats(0.01, 20), seed=st.integers(0, 2**32 - 1),
       kind=st.integers(0, 2), scheme=st.sampled_from(["bd", "ba"]), discrete=st.booleans())
def test_bd_ba_spend_at_most_epsilon_in_every_window(n, data, eps, seed, kind, scheme, discrete):
    gen = np.random.default_rng(seed)
    w = data.draw(st.integers(1, n))
    x = _values(gen, n, kind)
    protects = lmdk.relation.up_to(7.0, -60.0, 60.0) if discrete else lmdk.relation.PAPERS_UNIT_CHANGE
    rel = schemes.release(x, [], scheme, eps, protects=protects, w=w, repetitions=4, rng=gen)
    assert rel.w == w and rel.budgets.shape == (4, n)
    assert window_sums(rel.budgets, w).max() <= eps * (1 + 1e-9)
    tests = eps / (2 * w)
    publication = rel.budgets - np.where(rel.budgets > 0, tests, 0.0)
    assert window_sums(publication, w).max() <= eps / 2 * (1 + 1e-9)  # M_{t,2}'s ε/2 per window
    assert np.all(publication[~rel.published] <= 1e-12) and np.all(publication[rel.published] > 0)
    if scheme == "bd":  # BD tests at every timestamp
        assert np.allclose(rel.budgets - publication, tests)


@settings(max_examples=60)
@given(n=st.integers(1, 150), eps=st.floats(0.01, 20), seed=st.integers(0, 2**32 - 1), kind=st.integers(0, 2),
       discrete=st.booleans(), share=st.floats(0.01, 1.0))
def test_fast_spends_at_most_epsilon_over_the_series(n, eps, seed, kind, discrete, share):
    gen = np.random.default_rng(seed)
    x = _values(gen, n, kind)
    m = fast.max_samples(n, share)
    protects = lmdk.relation.up_to(5.0, -60.0, 60.0) if discrete else lmdk.relation.PAPERS_UNIT_CHANGE
    rel = lmdk.baselines.release_baseline(x, [], "fast", eps, protects=protects, repetitions=4, rng=gen, samples=m)
    assert np.all(rel.budgets.sum(axis=1) <= eps * (1 + 1e-9))
    assert np.all(rel.published.sum(axis=1) <= m) and np.all(rel.published[:, 0])
    assert np.allclose(rel.budgets[rel.published], eps / m) and np.all(rel.budgets[~rel.published] == 0)
    assert lmdk.privacy.satisfies_landmark_privacy(rel.budgets, np.arange(0, n, 3), eps)  # user level ⊇ landmarks


@settings(max_examples=40)
@given(n=st.integers(1, 80), eps=st.floats(0.01, 20), seed=st.integers(0, 2**32 - 1), kind=st.integers(0, 2),
       discrete=st.booleans())
def test_pegasus_spends_epsilon_per_event_and_groups_are_consecutive(n, eps, seed, kind, discrete):
    gen = np.random.default_rng(seed)
    x = _values(gen, n, kind)
    protects = lmdk.relation.up_to(3.0, -60.0, 60.0) if discrete else lmdk.relation.PAPERS_UNIT_CHANGE
    rel = schemes.release(x, [], "pegasus", eps, protects=protects, repetitions=3, rng=gen)
    assert np.all(rel.budgets <= eps * (1 + 1e-12)) and np.allclose(rel.budgets, eps) and rel.published.all()
    noise = _noise.Noise(np.random.default_rng(seed), 3, n, 1.0, None)
    starts = pegasus.groups(x, 0.2 * eps, noise)
    t = np.arange(n)
    assert np.all(starts <= t) and np.all((starts[:, 1:] == starts[:, :-1]) | (starts[:, 1:] == t[1:]))


# --- the vectorised algorithms equal one-repetition transcriptions on the same noise -------------------------------

def _noise_pair(seed: int, reps: int, n: int, delta: float, value_range):
    return (_noise.Noise(np.random.default_rng(seed), reps, n, delta, value_range),
            _noise.Noise(np.random.default_rng(seed), reps, n, delta, value_range))


def _reference_bd(x, eps, w, noise, default=0.0):
    """Kellaris et al. Alg. 2, one repetition after another (the noise drawn as the vectorised code draws it)."""
    reps, n = noise.reps, noise.n
    test = noise.statistic(eps / (2 * w), noise.width)
    draw = noise.stepper()
    values, budgets, pub = np.zeros((reps, n)), np.zeros((reps, n)), np.zeros((reps, n), dtype=bool)
    for r in range(reps):
        last, spent = default, []
        for t in range(n):
            dis = test.noisy(np.full(reps, abs(x[t] - last)), t)[r]
            eps_rm = max(eps / 2 - sum(spent[max(0, t - w + 1):t]), 0.0)
            e2 = eps_rm / 2
            go = e2 > 0 and dis > noise.sensitivity / e2
            if go:
                mask = np.zeros(reps, dtype=bool)
                mask[r] = True
                last = draw(t, x[t], np.where(mask, e2, 1.0), mask)[r]
            spent.append(e2 if go else 0.0)
            values[r, t], budgets[r, t], pub[r, t] = last, eps / (2 * w) + spent[-1], go
    return values, budgets, pub


def _reference_ba(x, eps, w, noise, default=0.0):
    """Kellaris et al. Alg. 3, one repetition after another."""
    reps, n = noise.reps, noise.n
    unit = eps / (2 * w)
    test = noise.statistic(unit, noise.width)
    draw = noise.stepper()
    values, budgets, pub = np.zeros((reps, n)), np.zeros((reps, n)), np.zeros((reps, n), dtype=bool)
    for r in range(reps):
        last, l_pub, e_l = default, -1, unit
        for t in range(n):
            t_n = round(e_l / unit) - 1
            dis = test.noisy(np.full(reps, abs(x[t] - last)), t)[r]
            if t - l_pub <= t_n:  # nullified
                values[r, t] = last
                continue
            e2 = unit * min(t - (l_pub + t_n), w)
            go = dis > noise.sensitivity / e2
            if go:
                mask = np.zeros(reps, dtype=bool)
                mask[r] = True
                last, l_pub, e_l = draw(t, x[t], np.where(mask, e2, 1.0), mask)[r], t, e2
            values[r, t], budgets[r, t], pub[r, t] = last, unit + (e2 if go else 0.0), go
    return values, budgets, pub


@pytest.mark.parametrize("value_range", [None, (0.0, 40.0)])
@pytest.mark.parametrize("w", [1, 4, 15])
def test_bd_and_ba_equal_their_one_repetition_transcriptions(w, value_range):
    from lmdk.baselines import bd_ba

    x = np.clip(_values(np.random.default_rng(w), 60, 1) + np.random.default_rng(9).normal(0, 2, 60), 0, 40)
    for vectorised, reference in ((bd_ba.budget_distribution, _reference_bd), (bd_ba.budget_absorption,
                                                                                  _reference_ba)):
        a, b = _noise_pair(5 + w, 6, 60, 4.0, value_range)
        got = vectorised(x, 0.8, w, a, np.zeros(()))
        want = reference(x, 0.8, w, b)
        for g, e in zip(got, want, strict=True):
            assert np.allclose(g, e, rtol=1e-12, atol=1e-12)


def _reference_groups(x, eps_g, noise):
    """PeGaSus's grouper (Chen et al. 2017, Alg. 2), one repetition after another, deviations summed directly."""
    reps, n = noise.reps, noise.n
    svt = noise.statistic(eps_g, 2.0 * noise.width, scales=(2.0, 4.0))
    theta = pegasus.THRESHOLD * noise.width / eps_g
    out = np.empty((reps, n), dtype=np.int64)
    for r in range(reps):
        closed, start, noisy_theta = True, 0, 0.0
        for t in range(n):
            if closed:
                start, closed = t, False
                noisy_theta = svt.noisy(np.array([theta]), t, 0, np.array([r]))[0]
            else:
                group = x[start:t + 1]
                dev = np.abs(group - group.mean()).sum()
                if svt.noisy(np.array([dev]), t, 1, np.array([r]))[0] >= noisy_theta:
                    start, closed = t, True
            out[r, t] = start
    return out


@pytest.mark.parametrize("delta, value_range", [(1.0, None), (25.0, (0.0, 25.0)), (0.02, None)])
def test_pegasus_grouper_equals_its_transcription(delta, value_range):
    gen = np.random.default_rng(3)
    x = np.clip(np.repeat(gen.uniform(0, 25, 40), 20) + gen.normal(0, 0.5, 800), 0, 25)
    a, b = _noise_pair(11, 8, 800, delta, value_range)
    assert np.array_equal(pegasus.groups(x, 0.3, a), _reference_groups(x, 0.3, b))


def test_median_smoother_is_the_median_of_each_group_so_far():
    gen = np.random.default_rng(4)
    noisy = gen.normal(size=(5, 300)).round(1)  # ties included
    starts = np.maximum.accumulate(np.where(gen.random((5, 300)) < 0.1, np.arange(300), 0), axis=1)
    got = pegasus.median_smoother(noisy, starts)
    want = np.array([[np.median(noisy[r, starts[r, t]:t + 1]) for t in range(300)] for r in range(5)])
    assert np.allclose(got, want)


def test_fast_equals_its_transcription():
    """FAST's Kalman filter and PID controller (Fan & Xiong 2014) for one repetition at a time."""
    gen = np.random.default_rng(8)
    n, reps, eps = 300, 4, 1.0
    x = 20 + 5 * np.sin(np.arange(n) / 20) + gen.normal(0, 0.3, n)
    a, b = _noise_pair(21, reps, n, 1.0, None)
    got = fast.fast(x, eps, a, samples=60)
    draws = b.samples(eps / 60, 60)  # the j-th sample of repetition r takes draw (r, j)
    for r in range(reps):
        post, p, count, interval, nxt, errors, last_err, last_k = 0.0, fast.P0, 0, 1, fast.TI, [], 0.0, 0
        for t in range(n):
            prior, p_minus = post, (p + fast.Q if t else p)
            initial = count < fast.TI
            sample = (initial or t == nxt) and count < 60
            if not sample:
                post, p = prior, p_minus
                assert got[0][r, t] == pytest.approx(post) and not got[2][r, t]
                continue
            z = draws.noisy(x[t], np.array([r]), np.array([count]))[0]
            if t == 0:
                post, p = z, p_minus
            else:
                k = p_minus / (p_minus + fast.R)
                post, p = prior + k * (z - prior), (1 - k) * p_minus
            count += 1
            e = 0.0 if t == 0 else abs(post - prior) / max(abs(post), 1.0)
            errors = ([e] + errors)[:fast.TI]
            if not initial:
                pid = fast.CP * e + fast.CI * sum(errors) / fast.TI + fast.CD * (e - last_err) / max(t - last_k, 1)
                interval = max(1, interval + int(fast.THETA * (1 - np.exp((pid - fast.XI) / fast.XI))))
                nxt = t + interval
            last_err, last_k = e, t
            assert got[0][r, t] == pytest.approx(post) and got[2][r, t]


# --- what is released ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["bd", "ba"])
def test_published_noise_is_laplace_with_the_publication_budget(scheme):
    reps, delta, w = 60, 2.0, 10
    x = np.repeat(np.arange(0, 300, 30.0), 30)  # sparse changes of 30 units
    rel = schemes.release(x, [], scheme, 2.0,
                          protects=lmdk.relation.Relation("papers", d=delta), w=w, repetitions=reps, rng=4)
    e2 = rel.budgets - 2.0 / (2 * w)
    z = ((rel.values - x) * e2 / delta)[rel.published]
    assert z.size > 1_000
    assert stats.kstest(z, stats.laplace().cdf).pvalue > ALPHA
    assert stats.kstest(z, stats.laplace(scale=1.3).cdf).pvalue < ALPHA


@pytest.mark.parametrize("scheme", BASELINES)
def test_discrete_sampler_is_seeded_in_range_and_costs_what_textbook_costs(scheme):
    gen = np.random.default_rng(2)
    x = np.clip(np.repeat(gen.uniform(0, 25, 30), 10) + gen.normal(0, 1, 300), 0, 25)
    kw = dict(w=12, repetitions=30)
    meter = lmdk.relation.public_range(0, 25)
    one = schemes.release(x, [3, 9], scheme, 1.0, protects=meter, rng=1, **kw)
    two = schemes.release(x, [3, 9], scheme, 1.0, protects=meter, rng=1, **kw)
    assert np.array_equal(one.values, two.values) and np.array_equal(one.budgets, two.budgets)
    assert np.all((one.values >= 0) & (one.values <= 25))
    if scheme in ("bd", "ba"):  # the released values themselves: on the discrete Laplace's grid
        from lmdk import discrete_laplace as dl

        cells = one.published
        g = dl.calibrate(one.budgets[cells] - 1.0 / 24, 25.0, (0, 25)).grid
        assert np.all(one.values[cells] / g == np.round(one.values[cells] / g))
    wide = dict(kw, repetitions=150)
    discrete = np.abs(schemes.release(x, [], scheme, 1.0, protects=lmdk.relation.up_to(25.0, -1e6, 1e6), rng=5,
                                      **wide).values - x).mean(axis=1)
    textbook = np.abs(schemes.release(x, [], scheme, 1.0, protects=lmdk.relation.Relation("papers", d=25.0), rng=6,
                                      **wide).values - x).mean(axis=1)
    error = np.sqrt(discrete.var() / discrete.size + textbook.var() / textbook.size)
    assert abs(discrete.mean() - textbook.mean()) <= 5 * error + textbook.mean() / 256


def test_release_records_the_landmarks_but_does_not_use_them():
    x = np.linspace(0, 10, 50)
    a = schemes.release(x, [1, 5, 7], "ba", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, w=5, repetitions=3, rng=7)
    b = schemes.release(x, [], "ba", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, w=5, repetitions=3, rng=7)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.budgets, b.budgets)
    assert a.landmarks[:, [1, 5, 7]].all() and a.landmarks.sum() == 9 and a.scheme == "ba" and a.w == 5
    with pytest.raises(ValueError):
        a.values[0, 0] = 1.0  # read-only like every Release


@pytest.mark.parametrize("scheme", BASELINES)
def test_refusals_say_why(scheme):
    with pytest.raises(ParameterError, match="values \\(laplace\\) only"):
        schemes.release(np.zeros((5, 2)), [], scheme, 1.0,
                        protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="planar_laplace")
    with pytest.raises(ParameterError, match="values \\(laplace\\) only"):
        schemes.release(np.zeros(5), [], scheme, 1.0,
                        protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="randomized_response")
    with pytest.raises(ParameterError, match="not landmark-aware"):
        schemes.release(np.zeros(5), [1], scheme, 1.0,
                        protects=lmdk.relation.PAPERS_UNIT_CHANGE, dummies={"method": "random", "share": 0.1})
    with pytest.raises(ParameterError, match="discrete"):  # the engine: no relation calibrates values this way
        schemes.release_engine(np.zeros(5), [], scheme, 1.0, lmdk.relation.Calibration(1.0, "snapping", None, 5.0))
    with pytest.raises(ParameterError, match="value_range"):
        schemes.release_engine(np.zeros(5), [], scheme, 1.0, lmdk.relation.Calibration(1.0, "discrete"))
    with pytest.raises(ParameterError, match="protects="):
        lmdk.baselines.release_baseline(np.zeros(5), [], scheme, 1.0, sampler="discrete")
    with pytest.raises(ParameterError, match="needs protects="):
        lmdk.baselines.release_baseline(np.zeros(5), [], scheme, 1.0)
    with pytest.raises(ParameterError, match="one series only"):
        schemes.allocate(scheme, 5, [], 1.0)
    assert "ε" in protects(scheme, 7)


def test_window_and_samples_are_validated():
    with pytest.raises(ParameterError, match="w "):
        schemes.release(np.zeros(5), [], "bd", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, w=6)
    with pytest.raises(ParameterError, match="samples"):
        lmdk.baselines.release_baseline(np.zeros(5), [], "fast", 1.0,
                                        protects=lmdk.relation.PAPERS_UNIT_CHANGE, samples=0)
    assert schemes.release(np.zeros(5), [], "bd", 1.0,
                           protects=lmdk.relation.PAPERS_UNIT_CHANGE).w == 5  # default: the whole series


# --- the papers' qualitative results (docs/REPRODUCTION.md, "Baselines") -------------------------------------------

def sparse_stream(n: int = 1000, seed: int = 1) -> np.ndarray:
    """Counts that change rarely: a new level (0–50) every 100 timestamps."""
    return np.repeat(np.random.default_rng(seed).integers(0, 50, n // 100 + 1), 100)[:n].astype(float)


def smooth_stream(n: int = 1000) -> np.ndarray:
    """A slow wave (period 500 timestamps) around 20 ± 10."""
    return 20 + 10 * np.sin(2 * np.pi * np.arange(n) / 500)


def mae(x, scheme, eps, reps=40, seed=3, **kw) -> tuple[float, float]:
    err = np.abs(schemes.release(x, [], scheme, eps, protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=reps,
                                 rng=seed, **kw).values - x).mean(axis=1)
    return float(err.mean()), float(err.std(ddof=1) / np.sqrt(err.size))


def _beats(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """a's MAE below b's by more than 4 standard errors."""
    return b[0] - a[0] > 4 * np.hypot(a[1], b[1])


@pytest.mark.parametrize("w", [20, 50])
def test_kellaris_ba_beats_the_uniform_w_event_split_on_a_sparse_stream(w):
    x = sparse_stream()
    assert _beats(mae(x, "ba", 1.0, w=w), mae(x, "w-event", 1.0, w=w))


def test_fan_xiong_fast_beats_plain_laplace_at_user_level_on_a_smooth_series_at_low_epsilon():
    x = smooth_stream()
    for eps in (0.1, 0.5):
        fast_mae, user_mae = mae(x, "fast", eps), mae(x, "user", eps)
        assert _beats(fast_mae, user_mae) and user_mae[0] / fast_mae[0] > 5


def test_chen_pegasus_beats_the_laplace_mechanism_at_event_level_on_a_sparse_stream():
    x = sparse_stream()
    for eps in (0.1, 1.0):
        assert _beats(mae(x, "pegasus", eps), mae(x, "event", eps))
