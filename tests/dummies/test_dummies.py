"""Tests of lmdk.dummies.selection: nesting, exactness of the generators, utilities, the selection's distribution,
errors."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import lmdk
from lmdk.dummies import chains as ch
from lmdk.dummies import selection as dm
from lmdk.errors import ParameterError, TooLargeError

ALPHA = 1e-4


@st.composite
def series_and_landmarks(draw, max_n=40):
    """A series length n and a landmark set L ⊆ 0..n−1 (possibly empty or all of T)."""
    n = draw(st.integers(1, max_n))
    members = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return n, np.flatnonzero(members)


def check_chain(opts, n, lm):
    """Options are nested supersets of L with strictly increasing sizes ending in T."""
    sets = list(opts)
    assert len(sets) == max(n - lm.size, 1)
    for s in sets:
        assert np.all(np.diff(s) > 0) and s.min() >= 0 and s.max() < n
        assert np.isin(lm, s).all()
    if lm.size < n:
        assert sets[0].size == lm.size + 1
    assert np.array_equal(sets[-1], np.arange(n))
    for small, big in zip(sets, sets[1:], strict=False):
        assert big.size == small.size + 1 and np.isin(small, big).all()


@pytest.mark.parametrize("method", ["heuristic", "partitioned", "random"])
@given(case=series_and_landmarks())
def test_nested_supersets_every_method(method, case):
    n, lm = case
    check_chain(dm.options(n, lm, method, rng=0), n, lm)


@given(case=series_and_landmarks(max_n=12))
def test_nested_supersets_optimal(case):
    n, lm = case
    check_chain(dm.options(n, lm, "optimal"), n, lm)


@given(case=series_and_landmarks())
def test_nested_supersets_partitioned_wasserstein(case):
    n, lm = case
    check_chain(dm.options(n, lm, "partitioned", metric="wasserstein", rng=1), n, lm)


def brute_force_gap(n, lm):
    """Smallest mean evaluation gap over all (n−|L|)! chains."""
    regular = ch.regular_timestamps(n, lm)
    return min(ch.evaluation_gap(n, lm, np.array(p)) for p in itertools.permutations(regular))


@pytest.mark.parametrize("seed", range(6))
def test_optimal_matches_brute_force_and_beats_heuristic(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 10))
    lm = np.sort(rng.choice(n, size=n - int(rng.integers(2, 6)), replace=False))
    opt = ch.evaluation_gap(n, lm, dm.options(n, lm, "optimal").order)
    heur = ch.evaluation_gap(n, lm, dm.options(n, lm, "heuristic").order)
    assert opt == pytest.approx(brute_force_gap(n, lm), abs=1e-12)
    assert opt <= heur + 1e-12


@pytest.mark.parametrize("n, lm", [(10, [5, 8]), (11, []), (15, [9])])
def test_optimal_strictly_better_than_greedy(n, lm):
    """The exhaustive search is not just the greedy chain: with few landmarks it is strictly better."""
    lm = np.array(lm, dtype=np.int64)
    heur = ch.evaluation_gap(n, lm, dm.options(n, lm, "heuristic").order)
    assert ch.evaluation_gap(n, lm, dm.options(n, lm, "optimal").order) < heur - 1e-6


def test_optimal_refuses_large_input():
    with pytest.raises(TooLargeError, match="heuristic"):
        dm.options(40, np.arange(10), "optimal")


def naive_heuristic(n, lm):
    """The thesis heuristic recomputed from scratch at every step."""
    target = ch.gap_std(n, ch.gap_sumsq(n, lm), lm.size + 1)
    cur, order = list(lm), []
    while len(cur) < n:
        best, pick = np.inf, None
        for r in sorted(set(range(n)) - set(cur)):
            s = np.sort(cur + [r])
            d = abs(ch.gap_std(n, ch.gap_sumsq(n, s), s.size + 1) - target)
            if d < best - 1e-12:
                best, pick = d, r
        cur.append(pick)
        order.append(pick)
    return np.array(order)


@pytest.mark.parametrize("seed", range(4))
def test_heuristic_incremental_equals_from_scratch(seed):
    rng = np.random.default_rng(seed)
    n = 25
    lm = np.sort(rng.choice(n, size=int(rng.integers(0, 10)), replace=False))
    assert np.array_equal(dm.options(n, lm, "heuristic").order, naive_heuristic(n, lm))


@pytest.mark.parametrize("metric", ["euclidean", "wasserstein"])
@pytest.mark.parametrize("seed", range(3))
def test_partitioned_each_step_is_closest_histogram(metric, seed):
    """Algorithm 1 lines 7–14: the grown bin gives the smallest full distance among all growable bins."""
    rng = np.random.default_rng(seed)
    n = 200
    lm = np.sort(rng.choice(n, size=40, replace=False, p=np.linspace(1, 5, n) / np.linspace(1, 5, n).sum()))
    bins = ch.fd_bins(n, lm)
    seq = ch.partitioned_bin_sequence(n, lm, bins, metric)
    cur = bins.counts.astype(float).copy()
    for b in seq:
        grown = cur + np.eye(cur.size)
        dist = ch.histogram_distance(bins, grown, metric)
        dist[cur >= bins.capacity] = np.inf
        assert dist[b] <= dist.min() + 1e-12
        cur[b] += 1
    assert np.array_equal(cur, bins.capacity)


@pytest.mark.parametrize("metric", ["euclidean", "wasserstein"])
def test_partitioned_keeps_shape_better_than_random(metric):
    """Power of the test above: greedy histogram growth stays closer to L's histogram than random dummies."""
    rng = np.random.default_rng(0)
    n = 200
    lm = np.sort(rng.choice(100, size=40, replace=False))  # all in the first half
    part = dm.landmark_set_distance(dm.options(n, lm, "partitioned", metric=metric, rng=0), lm, n, metric)
    rand = dm.landmark_set_distance(dm.options(n, lm, "random", rng=0), lm, n, metric)
    assert part.mean() < 0.8 * rand.mean()


def test_freedman_diaconis_width():
    rng = np.random.default_rng(5)
    lm = np.sort(rng.choice(1000, size=200, replace=False))
    q75, q25 = np.percentile(lm, [75, 25])
    assert ch.fd_bins(1000, lm).width == int(np.ceil(2 * (q75 - q25) / 200 ** (1 / 3)))
    assert ch.fd_bins(1000, np.array([7])).width == int(np.ceil(1000 / 11))  # Sturges fallback


def test_partitioned_options_follow_histogram_chain():
    rng = np.random.default_rng(2)
    n, lm = 300, np.sort(rng.choice(300, size=60, replace=False))
    opts = dm.options(n, lm, "partitioned", rng=3)
    for j in (0, 10, 100, len(opts) - 1):
        counts = np.bincount(opts.bins.of(opts[j]), minlength=opts.bins.capacity.size)
        expected = opts.bins.counts + np.bincount(opts.bin_sequence[: j + 1], minlength=counts.size)
        assert np.array_equal(counts, expected)


def test_same_seed_same_options_and_selection():
    lm = np.array([3, 8, 9, 30, 31, 32, 60])
    a = dm.select(80, lm, 1.0, rng=11)
    b = dm.select(80, lm, 1.0, rng=11)
    assert np.array_equal(a.chosen, b.chosen) and np.array_equal(a.options.order, b.options.order)


def test_bool_mask_accepted():
    mask = np.zeros(10, dtype=bool)
    mask[[1, 5]] = True
    assert np.array_equal(dm.options(10, mask, "heuristic").order, dm.options(10, [1, 5], "heuristic").order)


# ----------------------------------------------------------------------------- utilities


def test_position_utility_matches_definition():
    n, lm = 30, np.array([5, 6, 20])
    opts = dm.options(n, lm, "heuristic")
    got = dm.position_utility(n, lm, opts)
    for j, o in enumerate(opts):
        d = np.setdiff1d(o, lm)
        dist = np.min(np.abs(d[:, None] - lm[None, :]), axis=1) / (n - 1)
        assert got[j] == pytest.approx(1 - dist.mean())
    assert np.allclose(dm.position_utility(n, lm, list(opts)), got)


def test_partitioned_position_utility_is_expectation_over_bin_sampling():
    rng = np.random.default_rng(4)
    n, lm = 120, np.sort(rng.choice(120, size=30, replace=False))
    opts = dm.options(n, lm, "partitioned", rng=0)
    j = 20
    expected = dm.position_utility(n, lm, opts)[j]
    mask = dm._sample_histograms(opts, np.full(4000, j), rng)
    dist = dm._distance_to_landmarks(n, lm)
    mask[:, lm] = False
    sampled = 1 - (mask * dist).sum(axis=1) / mask.sum(axis=1)
    assert sampled.mean() == pytest.approx(expected, abs=4 * sampled.std() / np.sqrt(4000) + 1e-12)


def test_count_utility_values():
    opts = dm.options(10, [2, 4], "random", rng=0)
    assert np.allclose(dm.count_utility(10, [2, 4], opts), 1 - np.arange(1, 9) / 10)


@given(case=series_and_landmarks(max_n=30), data=st.data())
def test_utility_sensitivity_bounds(case, data):
    """For any candidate L′ ⊇ L ∪ L̃ with L, L̃ neighbours (one timestamp flipped): |u(L,L′) − u(L̃,L′)| ≤ Δu."""
    n, lm = case
    x = data.draw(st.integers(0, n - 1))
    other = np.setdiff1d(lm, [x]) if x in lm else np.union1d(lm, [x])
    big = np.union1d(lm, other)
    opts = [o for o in dm.options(n, big, "random", rng=0) if o.size > big.size or big.size == n]
    for util in dm.UTILITIES:
        fn = dm.position_utility if util == "position" else dm.count_utility
        a, b = fn(n, lm, opts), fn(n, other, opts)
        assert np.all((a >= 0) & (a <= 1))
        assert np.max(np.abs(a - b)) <= dm.utility_sensitivity(util, n) + 1e-12


def test_utility_sensitivities_are_attained():
    """Power of the bound test: count's 1/n is reached, and position moves by far more than 1/n."""
    n = 101
    full = [np.arange(n)]
    count_gap = abs(dm.count_utility(n, [0], full)[0] - dm.count_utility(n, [0, 100], full)[0])
    assert count_gap == pytest.approx(1 / n)
    pos_gap = abs(dm.position_utility(n, [0], full)[0] - dm.position_utility(n, [0, 100], full)[0])
    assert 0.2 < pos_gap <= dm.utility_sensitivity("position", n)


# ----------------------------------------------------------------------------- selection


def test_select_returns_consistent_selection():
    lm = np.array([1, 2, 10])
    s = dm.select(30, lm, 0.5, method="heuristic", utility="count", rng=0)
    assert np.array_equal(s.chosen, s.options[s.index])
    assert s.epsilon == 0.5 and s.sensitivity == 1 / 30
    assert s.probabilities.sum() == pytest.approx(1) and s.scores.shape == s.probabilities.shape
    logits = 0.5 * s.scores / (2 * s.sensitivity)
    assert np.allclose(s.probabilities, np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum())
    assert np.array_equal(s.dummies, np.setdiff1d(s.chosen, lm))


def chi2_pvalue(observed, probs):
    """Pearson χ² p-value after pooling cells with small expected counts."""
    expected = probs * observed.sum()
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp).pvalue


def test_selection_frequencies_match_probabilities():
    n, lm, eps = 16, np.array([0, 3, 4, 11]), 0.6
    gen = np.random.default_rng(123)
    draws = [dm.select(n, lm, eps, method="heuristic", utility="count", rng=gen) for _ in range(3000)]
    probs = draws[0].probabilities
    observed = np.bincount([d.index for d in draws], minlength=probs.size)
    assert chi2_pvalue(observed, probs) > ALPHA
    # power: the same draws are rejected against the probabilities of a different ε
    wrong = dm.select(n, lm, 2 * eps, method="heuristic", utility="count", rng=0).probabilities
    assert chi2_pvalue(observed, wrong) < ALPHA


@pytest.mark.parametrize("method, chunk", [("heuristic", None), ("random", None), ("heuristic", 100)])
def test_release_draws_match_probabilities(method, chunk, monkeypatch):
    if chunk is not None:  # many small chunks of repetitions must give the same distribution
        monkeypatch.setattr(dm, "RELEASE_CHUNK_ELEMENTS", chunk)
    n, lm, eps, share = 40, np.array([5, 6, 7, 30]), 20.0, 0.1
    spec = dm.DummySpec(method=method, share=share, utility="count")
    mask, pub, sel = dm.landmark_sets_for_release(n, lm, eps, spec, 20000, np.random.default_rng(9))
    assert pub == pytest.approx(eps * (1 - share)) and sel == pytest.approx(eps * share)
    assert pub + sel == pytest.approx(eps)
    assert mask[:, lm].all()
    index = mask.sum(axis=1) - lm.size - 1
    scores = 1 - np.arange(1, n - lm.size + 1) / n
    logits = sel * scores / (2 / n)
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    observed = np.bincount(index, minlength=probs.size)
    assert chi2_pvalue(observed, probs) > ALPHA
    wrong = np.exp(2 * (logits - logits.max()))
    assert chi2_pvalue(observed, wrong / wrong.sum()) < ALPHA


def test_partitioned_release_samples_uniformly_within_bin():
    """One dummy in the first grown bin: which regular timestamp it is must be uniform over that bin."""
    rng = np.random.default_rng(1)
    n, lm = 120, np.sort(rng.choice(120, size=30, replace=False))
    opts = dm.options(n, lm, "partitioned", rng=0)
    b = opts.bin_sequence[0]
    mask = dm._sample_histograms(opts, np.zeros(6000, dtype=np.int64), rng)
    regular = ch.regular_timestamps(n, lm)
    in_bin = regular[opts.bins.of(regular) == b]
    assert (mask.sum(axis=1) == lm.size + 1).all() and mask[:, in_bin].sum(axis=1).max() == 1
    observed = mask[:, in_bin].sum(axis=0)
    uniform = np.full(in_bin.size, 1 / in_bin.size)
    assert chi2_pvalue(observed, uniform) > ALPHA
    skew = np.linspace(1, 3, in_bin.size)
    assert chi2_pvalue(observed, skew / skew.sum()) < ALPHA


def test_partitioned_release_rows_match_chosen_histograms():
    rng = np.random.default_rng(6)
    n, lm = 200, np.sort(rng.choice(200, size=50, replace=False))
    opts = dm.options(n, lm, "partitioned", rng=0)
    index = rng.integers(0, len(opts), size=50)
    mask = dm._sample_histograms(opts, index, rng)
    monkeypatch_free = dm.landmark_sets_for_release(n, lm, 1.0, dm.DummySpec(), 7, np.random.default_rng(0))[0]
    assert monkeypatch_free.shape == (7, n) and monkeypatch_free[:, lm].all()
    for row, j in zip(mask, index, strict=True):
        counts = np.bincount(opts.bins.of(np.flatnonzero(row)), minlength=opts.bins.capacity.size)
        assert np.array_equal(counts, opts.bins.counts + np.bincount(opts.bin_sequence[: j + 1],
                                                                     minlength=counts.size))


def test_release_when_every_event_is_a_landmark():
    mask, pub, sel = dm.landmark_sets_for_release(6, np.arange(6), 1.0, dm.DummySpec(), 3, np.random.default_rng(0))
    assert mask.all() and pub == pytest.approx(0.99) and sel == pytest.approx(0.01)


# ----------------------------------------------------------------------------- distances


def test_landmark_set_distance_range_and_paths_agree():
    rng = np.random.default_rng(8)
    n, lm = 100, np.sort(rng.choice(100, size=30, replace=False))
    opts = dm.options(n, lm, "partitioned", rng=0)
    for metric in dm.METRICS:
        fast = dm.landmark_set_distance(opts, lm, n, metric)
        slow = dm.landmark_set_distance(list(opts), lm, n, metric)
        assert np.allclose(fast, slow) and fast.shape == (70,)
        assert np.all((fast >= 0) & (fast <= 1))
    assert dm.landmark_set_distance([lm], lm, n)[0] == 0.0


def test_wasserstein_distance_matches_scipy():
    rng = np.random.default_rng(3)
    n, lm = 100, np.sort(rng.choice(100, size=25, replace=False))
    bins = ch.fd_bins(n, lm)
    option = np.union1d(lm, [0, 1, 2, 99])
    centres = np.arange(bins.capacity.size) * bins.width + (bins.capacity - 1) / 2
    q = np.bincount(bins.of(option), minlength=centres.size)
    ref = stats.wasserstein_distance(centres, centres, bins.counts, q) / (centres[-1] - centres[0])
    assert dm.landmark_set_distance([option], lm, n, "wasserstein")[0] == pytest.approx(ref)


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("n, landmarks, match", [
    (10, [3, 10], "out of range"),
    (10, [-1, 2], "out of range"),
    (10, [2, 2, 5], "duplicated"),
    (3, [0, 1, 2, 2], "smaller than the number of landmarks"),
    (10, [1.5], "integer"),
    (10, [[1, 2]], "1-D"),
    (0, [], "positive integer"),
    (10, np.zeros(9, dtype=bool), "mask"),
])
def test_invalid_landmarks_raise(n, landmarks, match):
    with pytest.raises(ParameterError, match=match):
        dm.options(n, landmarks)


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "best"}, "method"),
    ({"utility": "nearness"}, "utility"),
    ({"metric": "cosine"}, "metric"),
])
def test_invalid_choices_raise(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        dm.select(10, [1], 1.0, **kwargs)


@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf"), "1"])
def test_invalid_epsilon_raises(eps):
    with pytest.raises(ParameterError, match="epsilon"):
        dm.select(10, [1], eps)


@pytest.mark.parametrize("kwargs, match", [
    ({"share": 0.0}, "share"), ({"share": 1.0}, "share"), ({"share": float("nan")}, "share"),
    ({"share": "0.1"}, "share"), ({"method": "exact"}, "method"), ({"utility": "size"}, "utility"),
])
def test_invalid_spec_raises(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        dm.DummySpec(**kwargs)


def test_release_argument_errors():
    gen = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="repetitions"):
        dm.landmark_sets_for_release(10, [1], 1.0, dm.DummySpec(), 0, gen)
    with pytest.raises(ParameterError, match="DummySpec"):
        dm.landmark_sets_for_release(10, [1], 1.0, {"method": "random"}, 1, gen)


def test_options_for_other_landmarks_rejected():
    opts = dm.options(10, [1, 2], "random", rng=0)
    with pytest.raises(ParameterError, match="different"):
        dm.landmark_set_distance(opts, [1, 3], 10)
    with pytest.raises(ParameterError, match="superset"):
        dm.position_utility(10, [1, 3], [np.array([1, 2])])


# ----------------------------------------------------------------------------- figures


def test_figure10_tidy_and_deterministic():
    from lmdk.experiments.dummies import figure10

    a = figure10(n=40, percents=(0, 50, 100), repetitions=2, rng=3)
    b = figure10(n=40, percents=(0, 50, 100), repetitions=2, rng=3)
    assert list(a.columns) == ["metric", "distribution", "landmark_pct", "repetition", "distance"]
    assert len(a) == 2 * 4 * 3 * 2 and a.equals(b)
    assert a["distance"].between(0, 1).all()
    assert (a.loc[a.landmark_pct == 100, "distance"] == 0).all()  # L = T: the only option is T itself


def test_lowest_fraction_landmarks():
    from lmdk.experiments.dummies import hue_sample, lowest_fraction

    values = hue_sample()
    assert values.size == 1000
    for pct in (0, 20, 60, 100):
        lm = lowest_fraction(values, pct / 100)
        assert lm.size == pct * 10
        if 0 < pct < 100:
            rest = np.setdiff1d(np.arange(1000), lm)
            assert values[lm].max() <= values[rest].min()


# ----------------------------------------------------------------------------- schemes with dummies (Theorem 2)

LANDMARK_PRIVATE_SCHEMES = ("user", "uniform", "skip", "adaptive")


@pytest.mark.parametrize("scheme", LANDMARK_PRIVATE_SCHEMES)
@given(case=series_and_landmarks(max_n=30), method=st.sampled_from(("heuristic", "partitioned", "random")),
       share=st.floats(0.001, 0.9), eps=st.floats(0.05, 10), util=st.sampled_from(dm.UTILITIES),
       seed=st.integers(0, 2**32 - 1))
def test_theorem2_holds_for_dummy_sets_and_real_landmarks(scheme, case, method, share, eps, util, seed):
    """With dummies, Theorem 2 holds w.r.t. L′ at ε − selection share and hence w.r.t. L ⊆ L′; total ≤ ε."""
    from lmdk import privacy, schemes

    n, lm = case
    if n - lm.size <= 8 and seed % 2:
        method = "optimal"  # small enough for the exhaustive search
    rng = np.random.default_rng(seed)
    series = rng.normal(size=n)
    spec = dm.DummySpec(method=method, share=share, utility=util)
    rel = schemes.release(series, lm, scheme, eps,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=3, rng=rng, dummies=spec)
    assert rel.landmarks[:, lm].all()
    assert rel.selection_epsilon == pytest.approx(share * eps)
    publish = eps - rel.selection_epsilon
    assert privacy.satisfies_landmark_privacy(rel.budgets, rel.landmarks, publish)
    assert privacy.satisfies_landmark_privacy(rel.budgets, lm, publish)
    assert np.max(privacy.landmark_loss(rel.budgets, lm)) + rel.selection_epsilon <= eps * (1 + 1e-9)


def test_theorem2_check_has_power():
    """The check is tight: Uniform with dummies reaches exactly ε − selection at regular events, so a
    slightly smaller goal is rejected."""
    from lmdk import privacy, schemes

    n, lm = 30, np.array([2, 3, 20])
    rel = schemes.release(np.zeros(n), lm, "uniform", 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=2, rng=0,
                          dummies=dm.DummySpec(method="heuristic", share=0.01))
    assert privacy.satisfies_landmark_privacy(rel.budgets, rel.landmarks, 0.99)
    assert not privacy.satisfies_landmark_privacy(rel.budgets, rel.landmarks, 0.98)


def test_figure11_tidy_and_reference():
    from lmdk.experiments.dummies import figure11

    df = figure11(percents=(20, 100), shares=(0.01, 0.5), repetitions=3, rng=0)
    assert list(df.columns) == ["dummy_share", "landmark_pct", "repetition", "mae", "landmark_share"]
    assert len(df) == 3 * 2 * 3 and (df["mae"] > 0).all()
    ref = df[(df.dummy_share == 0) & (df.landmark_pct == 20)]
    assert np.allclose(ref["landmark_share"], 0.2)
    with_dummies = df[(df.dummy_share > 0) & (df.landmark_pct == 20)]
    assert (with_dummies["landmark_share"] > 0.2).all()
    assert np.allclose(df.loc[df.landmark_pct == 100, "landmark_share"], 1.0)


def test_membership_disclosure_is_the_real_share_of_l_prime_and_zero_outside():
    """A marked event is real with probability |L|/|L′|; an unmarked one never is (every option contains L)."""
    n = 60
    L = np.array([3, 10, 11, 40, 50])
    sel = dm.select(n, L, 0.5, rng=2)
    d = dm.membership_disclosure(sel)
    sizes = np.asarray(sel.options.sizes)
    np.testing.assert_allclose(d.per_option, L.size / sizes)
    assert d.chosen == pytest.approx(L.size / sel.chosen.size)
    assert d.expected == pytest.approx(float(np.dot(sel.probabilities, L.size / sizes)))
    assert d.outside == 0.0
    # the empirical check: over many selections, the chance that an unmarked t0 is a landmark is exactly 0
    masks = np.stack([np.isin(np.arange(n), dm.select(n, L, 0.5, rng=s).chosen) for s in range(50)])
    assert masks[:, L].all()  # L ⊆ L′ always


@pytest.mark.parametrize("utility", ["count", "position"])
def test_random_dummies_are_drawn_afresh_for_every_repetition(utility):
    """Each repetition is its own release: over many, every regular event must be a dummy equally often (one order
    shared by every repetition puts the first events of that order in nearly every L′)."""
    n, lm = 30, np.array([3, 4, 20])
    spec = dm.DummySpec(method="random", share=0.5, utility=utility)
    mask, _, _ = dm.landmark_sets_for_release(n, lm, 1e-3, spec, 4000, np.random.default_rng(3))
    assert mask[:, lm].all()
    regular = ch.regular_timestamps(n, lm)
    observed = mask[:, regular].sum(axis=0)  # rows hold several dummies: less spread than multinomial, conservative
    assert chi2_pvalue(observed, np.full(regular.size, 1 / regular.size)) > ALPHA
    skew = np.linspace(1, 1.2, regular.size)
    assert chi2_pvalue(observed, skew / skew.sum()) < ALPHA
