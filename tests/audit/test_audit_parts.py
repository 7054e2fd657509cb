"""The audit's parts: Clopper–Pearson loss bounds, the position measures, the value bound, the chain posterior,
and release_rows against schemes.release."""
from __future__ import annotations

import numpy as np
import pytest

import lmdk
from lmdk import relation
from lmdk.audit import correlation, empirical_epsilon, positions, rows, values


def test_laplace_samples_bracket_epsilon():
    gen = np.random.default_rng(0)
    s0, s1 = gen.laplace(0, 1, 20_000), gen.laplace(1, 1, 20_000)  # ε = 1 between 0 and 1
    est = empirical_epsilon(s0, s1)
    assert 0.8 < est.lower <= 1.0 <= est.upper < 1.3
    same = empirical_epsilon(gen.laplace(0, 1, 5000), gen.laplace(0, 1, 5000))
    assert same.lower < 0.15


def test_separated_samples_give_a_large_lower_bound():
    est = empirical_epsilon(np.zeros(2000), np.ones(2000))
    assert est.lower > 5 and not np.isfinite(est.upper)
    assert est.to_dict()["upper"] is None


def test_auc_and_precision_by_hand():
    mask = np.array([True, True, False, False, False])
    perfect = np.array([[5, 4, 1, 2, 3.0]])
    assert positions.auc(perfect, mask)[0] == 1.0 and positions.precision_at_k(perfect, mask)[0] == 1.0
    ties = np.zeros((1, 5))
    assert positions.auc(ties, mask)[0] == 0.5
    assert positions.precision_at_k(ties, mask)[0] == pytest.approx(2 / 5)  # ties broken at random: chance


def test_repeats_score_prefers_rare_repeated_values():
    v = np.array([[0.0, 0.0, 3.1, 3.1, 0.0, 0.0]])  # 0 is common (a clamped end), 3.1 rare
    score = positions.repeats_score(v)
    assert score[0, 0] == 0 and score[0, 2] == 0 and score[0, 4] == 0
    assert score[0, 3] == pytest.approx(2 - 2 / 6) and score[0, 1] == pytest.approx(2 - 4 / 6)


def test_value_bound():
    assert values.bound(1.0, [0.5, 0.5]) == pytest.approx(np.e / (1 + np.e))
    assert values.bound(0.0, [0.7, 0.2, 0.1]) == pytest.approx(0.7)  # no release: the prior's best guess


def test_chain_posterior_matches_brute_force():
    gen = np.random.default_rng(1)
    n, stay = 6, 0.8
    evidence = gen.normal(size=(3, n))
    got = correlation.posterior_logodds(evidence, stay)
    import itertools

    for r in range(3):
        num, den = np.zeros(n), np.zeros(n)
        for path in itertools.product((0, 1), repeat=n):
            p = 0.5 * np.prod([stay if path[i] == path[i - 1] else 1 - stay for i in range(1, n)])
            p *= np.exp(sum(evidence[r, i] for i in range(n) if path[i] == 1))
            for t in range(n):
                (num if path[t] else den)[t] += p
        assert np.allclose(got[r], np.log(num / den))


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive", "w-event"])
@pytest.mark.parametrize("protected", [relation.public_range(0, 25), relation.PAPERS_UNIT_CHANGE],
                         ids=["discrete", "textbook"])
def test_release_rows_of_equal_rows_is_schemes_release(scheme, protected):
    x = lmdk.sample("hue", n=120).values
    L = np.arange(0, 120, 7)
    want = lmdk.release(x, L, scheme, 1.0, protects=protected, repetitions=9, rng=3, w=5)
    got = rows.release_rows(np.tile(x, (9, 1)), L, scheme, 1.0, mechanism="laplace", rng=3, w=5,
                            calibration=protected.calibration("laplace"))
    assert np.array_equal(got.values, want.values)
    assert np.array_equal(got.budgets, want.budgets)
    assert np.array_equal(got.published, want.published)


def test_release_rows_with_dummies_goes_through_the_batch():
    x = lmdk.sample("hue", n=80).values
    L = np.arange(0, 80, 9)
    got = rows.release_rows(np.tile(x, (4, 1)), L, "skip", 1.0, mechanism="laplace", rng=0,
                            dummies={"method": "random"},
                            calibration=relation.public_range(0, 25).calibration("laplace"))
    assert got.values.shape == (4, 80) and (got.budgets == 0).sum(axis=1).min() >= L.size
