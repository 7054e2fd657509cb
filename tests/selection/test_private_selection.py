"""Private selection of data-derived landmarks (lmdk.selection.private), tested as an attacker would."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

import lmdk
from lmdk.errors import ParameterError
from lmdk.mechanisms import exponential
from lmdk.selection import select
from lmdk.selection.private import CANDIDATES, private_threshold, randomized_bits

RANGE = (0.0, 25.0)


def _loss_interval(hits_a: int, hits_b: int, trials: int, alpha: float = 1e-6) -> tuple[float, float]:
    """Clopper–Pearson bounds of ln(p_a / p_b) from two binomial counts (each side at alpha/2)."""
    def bounds(k):
        low = beta.ppf(alpha / 4, k, trials - k + 1) if k else 0.0
        high = beta.ppf(1 - alpha / 4, k + 1, trials - k) if k < trials else 1.0
        return low, high
    (la, ha), (lb, hb) = bounds(hits_a), bounds(hits_b)
    return float(np.log(la / hb)), float(np.log(ha / lb))


def _landmark_hits(a: float, epsilon: float, trials: int, rng) -> int:
    """How often the middle event of [20, a, 20] is selected as a landmark under below:10."""
    x = np.tile(np.array([20.0, a, 20.0]), (trials, 1))
    bits = randomized_bits(x < 10.0, epsilon, rng)
    return int(bits[:, 1].sum())


def test_neighbours_across_the_threshold_are_told_apart_at_most_by_the_selection_budget():
    rng, trials, eps = np.random.default_rng(7), 400_000, 1.0
    low, high = _loss_interval(_landmark_hits(5.0, eps, trials, rng), _landmark_hits(15.0, eps, trials, rng), trials)
    assert low <= eps <= high  # randomized response is tight: the loss is exactly ε_sel
    assert high < eps + 0.05


def test_power_a_response_at_twice_the_budget_is_caught():
    rng, trials, eps = np.random.default_rng(8), 400_000, 1.0
    low, _ = _loss_interval(_landmark_hits(5.0, 2 * eps, trials, rng), _landmark_hits(15.0, 2 * eps, trials, rng),
                            trials)
    assert low > eps  # the same measurement rejects a wrong calibration


def test_the_private_threshold_is_epsilon_dp_for_any_one_value_changed():
    gen = np.random.default_rng(3)
    x = gen.uniform(0, 5, size=200)
    eps = 0.5
    candidates = np.linspace(*RANGE, CANDIDATES + 1)
    worst = 0.0
    for s, new in ((0, 25.0), (17, 0.0), (101, 4.99)):
        y = x.copy()
        y[s] = new
        probs = []
        for values in (x, y):
            counts = np.searchsorted(np.sort(values), candidates, side="left")
            _, p = exponential(-np.abs(counts - 0.2 * len(values)), eps, 1.0, gen)
            probs.append(p)
        worst = max(worst, float(np.max(np.abs(np.log(probs[0]) - np.log(probs[1])))))
    assert 0 < worst <= eps + 1e-9


def test_the_private_threshold_lands_near_the_true_percentile_on_many_events():
    x = np.random.default_rng(4).uniform(0, 25, size=20_000)
    threshold = private_threshold(x, 20.0, "below", RANGE, 1.0, np.random.default_rng(5))
    assert abs(threshold - np.percentile(x, 20)) < 0.5


def test_select_splits_the_budget_and_is_deterministic_for_a_seed():
    series = lmdk.sample("hue")
    a = select(series, "percentile:20", 1.0, RANGE, rng=11)
    b = select(series, "percentile:20", 1.0, RANGE, rng=11)
    assert np.array_equal(a.indices, b.indices) and a.threshold == b.threshold
    assert a.threshold_epsilon == a.response_epsilon == 0.5 and a.epsilon == 1.0
    by_threshold = select(series, "below:0.5", 2.0, RANGE, rng=11)
    assert by_threshold.threshold_epsilon == 0.0 and by_threshold.response_epsilon == 2.0
    assert by_threshold.landmark_level_epsilon(1.0) == pytest.approx(1.0 + (len(by_threshold.indices) + 1) * 2.0)


def test_more_budget_selects_closer_to_the_true_set():
    series = lmdk.sample("hue")
    true = set(lmdk.landmarks.parse_rule("below:0.5").indices(series).tolist())

    def agreement(eps: float) -> float:
        chosen = set(select(series, "below:0.5", eps, RANGE, rng=2).indices.tolist())
        return 1 - len(chosen ^ true) / len(series)

    assert agreement(0.5) < agreement(2.0) < agreement(8.0) and agreement(8.0) > 0.99


@pytest.mark.parametrize("rule", ["stay:30min", "contacts:list.txt", "file:l.csv", "none",
                                  "calendar:sun@09:00-12:00"])
def test_rules_that_cannot_be_selected_privately_are_refused_with_the_alternatives(rule):
    with pytest.raises(ParameterError, match="declare the landmarks"):
        select(np.zeros(5), rule, 1.0, RANGE)


def test_bad_budget_range_and_series_name_the_field():
    with pytest.raises(ParameterError, match="selection epsilon"):
        select(np.zeros(5), "below:1", 0.0, RANGE)
    with pytest.raises(ParameterError, match="low < high"):
        select(np.zeros(5), "below:1", 1.0, (3.0, 3.0))
    with pytest.raises(ParameterError, match="finite"):
        select(np.array([1.0, np.nan]), "below:1", 1.0, RANGE)
