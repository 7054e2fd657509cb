"""Tests of lmdk.tpl.temporal: L(α) against brute force, BPL/FPL/TPL, the supremum, and the landmark loss
against a from-scratch implementation of the thesis definition (papers/004)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lmdk import privacy
from lmdk.errors import ParameterError, TooLargeError
from lmdk.experiments.tpl import COLUMNS, figure8, figure9
from lmdk.tpl import temporal as tpl

# --------------------------------------------------------------------------- independent references


def brute_loss(P: np.ndarray, alpha) -> np.ndarray:
    """L(α) by enumerating every ordered row pair and every subset of states (Cao et al.)."""
    P = np.asarray(P, dtype=float)
    m = P.shape[0]
    subsets = np.array(list(itertools.product((0.0, 1.0), repeat=m)))  # (2^m, m)
    q_s = subsets @ P.T  # (2^m, m): q_S for every row as q
    x = np.expm1(np.atleast_1d(np.asarray(alpha, dtype=float)))[:, None, None, None]
    num = np.log1p(x * q_s[None, :, :, None])
    den = np.log1p(x * q_s[None, :, None, :])
    return (num - den).max(axis=(1, 2, 3)).reshape(np.shape(alpha))


def reference_chain(budgets, start: int, stop: int, loss, step: int) -> float:
    """A recursion restarted at ``start`` (value ε_start) stepped one timestamp at a time to ``stop``."""
    value = budgets[start]
    for k in range(start + step, stop + step, step):
        value = float(loss(value)) + budgets[k]
    return value


def reference_landmark_loss(budgets, landmarks, loss_b, loss_f=None, timestamps=None):
    """The thesis definition from scratch: for every t, Σ_{i ∈ L∪{t}} α_i with restarted segments.

    ``timestamps``: evaluate only these t (the others stay NaN); ``loss_*``: any callable α ↦ L(α).
    """
    loss_f = loss_b if loss_f is None else loss_f
    b = np.asarray(budgets, dtype=float)
    n = b.size
    marks = set(int(i) for i in landmarks)
    overall, own = np.full(n, np.nan), np.full(n, np.nan)
    for t in range(n) if timestamps is None else timestamps:
        members = sorted(marks | {t})
        total = 0.0
        for pos, i in enumerate(members):
            lo = members[pos - 1] + 1 if pos > 0 else 0
            hi = members[pos + 1] - 1 if pos + 1 < len(members) else n - 1
            alpha = reference_chain(b, lo, i, loss_b, 1) + reference_chain(b, hi, i, loss_f, -1) - b[i]
            total += alpha
            if i == t:
                own[t] = alpha
        overall[t] = total
    return overall, own


def reference_tpl(budgets, loss_b, loss_f=None):
    """BPL, FPL, TPL by the plain recursions of Cao et al."""
    loss_f = loss_b if loss_f is None else loss_f
    b = np.asarray(budgets, dtype=float)
    n = b.size
    bpl = np.array([reference_chain(b, 0, t, loss_b, 1) for t in range(n)])
    fpl = np.array([reference_chain(b, n - 1, t, loss_f, -1) for t in range(n)])
    return bpl, fpl, bpl + fpl - b


def random_matrix(rng, m: int, zeros: bool = True) -> np.ndarray:
    """A random row-stochastic matrix, optionally with some exact zeros."""
    P = rng.dirichlet(np.full(m, 0.5), size=m)
    if zeros:
        P[rng.random((m, m)) < 0.25] = 0.0
        P[np.arange(m), rng.integers(0, m, m)] += 1e-3  # keep every row non-empty
        P /= P.sum(axis=1, keepdims=True)
    return P


# --------------------------------------------------------------------------- matrices


def test_transition_matrix_laplacian_smoothing_values():
    P = tpl.transition_matrix(0.1)
    assert np.allclose(P, [[1.1 / 1.2, 0.1 / 1.2], [0.1 / 1.2, 1.1 / 1.2]], atol=1e-15)
    P3 = tpl.transition_matrix(0.5, n=3)
    assert np.allclose(P3.sum(axis=1), 1.0) and np.isclose(P3[0, 0], 1.5 / 2.5)
    assert np.allclose(tpl.transition_matrix(np.inf, 4), 0.25)
    assert np.array_equal(tpl.transition_matrix("strong"), tpl.transition_matrix(tpl.CORRELATION["strong"]))
    assert tpl.CORRELATION == {"weak": 1.0, "moderate": 0.1, "strong": 0.01}


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "medium"])
def test_transition_matrix_rejects_bad_strength(bad):
    with pytest.raises(ParameterError, match="s"):
        tpl.transition_matrix(bad)


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ([[0.5, 0.5]], "square"),
        ([[1.2, -0.2], [0.5, 0.5]], "negative"),
        ([[0.5, 0.4], [0.5, 0.5]], "row 0 sums"),
        ([[np.nan, 1.0], [0.5, 0.5]], "NaN"),
    ],
)
def test_user_matrix_validation(bad, fragment):
    with pytest.raises(ParameterError, match=fragment):
        tpl.loss_increment(bad, 1.0)


def test_user_matrix_within_tolerance_is_accepted():
    P = np.array([[0.3, 0.7 + 5e-10], [0.6, 0.4]])
    assert np.isfinite(tpl.loss_increment(P, 1.0))


def test_too_many_states_is_refused():
    with pytest.raises(TooLargeError, match="states"):
        tpl.loss_function(np.full((501, 501), 1 / 501))


# --------------------------------------------------------------------------- L(α)


@pytest.mark.parametrize("m", [2, 3, 4, 6, 8, 10])
def test_loss_increment_matches_brute_force(m):
    rng = np.random.default_rng(100 + m)
    alphas = np.array([0.0, 1e-6, 0.01, 0.3, 1.0, 2.5, 7.0, 30.0])
    for trial in range(3 if m < 10 else 1):
        P = random_matrix(rng, m, zeros=trial % 2 == 0)
        assert np.allclose(tpl.loss_increment(P, alphas), brute_loss(P, alphas), rtol=1e-12, atol=1e-12)


def test_loss_increment_handles_zero_entries_and_degenerate_matrices():
    alphas = np.array([0.0, 0.5, 3.0])
    assert np.allclose(tpl.loss_increment(np.eye(3), alphas), alphas)  # perfect correlation: L(α) = α
    assert np.allclose(tpl.loss_increment(np.full((3, 3), 1 / 3), alphas), 0.0)  # independence
    P = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.2, 0.0, 0.8]])
    assert np.allclose(tpl.loss_increment(P, alphas), brute_loss(P, alphas), atol=1e-13)
    assert tpl.loss_increment(P, np.inf) == np.inf  # some d_S = 0 with q_S > 0
    assert np.isclose(tpl.loss_increment(tpl.transition_matrix(0.1), np.inf), np.log(11.0))


def test_loss_increment_keeps_the_shape_of_alpha_and_rejects_negative():
    P = tpl.transition_matrix(0.1)
    assert tpl.loss_increment(P, np.zeros((2, 3))).shape == (2, 3)
    assert np.ndim(tpl.loss_increment(P, 1.0)) == 0
    with pytest.raises(ParameterError, match="alpha"):
        tpl.loss_increment(P, -0.1)


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(2, 7),
    a=st.floats(0, 50, allow_nan=False),
    b=st.floats(0, 50, allow_nan=False),
)
def test_loss_increment_is_monotone_and_below_alpha(seed, m, a, b):
    P = random_matrix(np.random.default_rng(seed), m, zeros=seed % 2 == 0)
    lo, hi = sorted((a, b))
    la, lb = tpl.loss_increment(P, [lo, hi])
    assert 0.0 <= la <= lb + 1e-12
    assert la <= lo + 1e-12 and lb <= hi + 1e-12
    assert lb - la <= hi - lo + 1e-9  # 1-Lipschitz (each vertex function has slope ≤ 1)


@settings(max_examples=50)
@given(a=st.floats(0, 1), b=st.floats(0, 1))
@example(a=1.0, b=1.4e-6)  # Q − D of nearly equal rows cancels: rounding once made a slope-1 edge look steeper
def test_every_two_state_matrix_has_one_vertex(a, b):
    P = np.array([[a, 1 - a], [b, 1 - b]])
    assert tpl.loss_function(P).n_vertices <= 1  # so the Möbius scan serves every 2-state matrix
    alphas = np.array([0.0, 0.4, 3.0])
    assert np.allclose(tpl.loss_increment(P, alphas), brute_loss(P, alphas), atol=1e-12)


def test_two_state_bpl_by_hand():
    # P = [[0.8, 0.2], [0.1, 0.9]], ε = 1 everywhere. By hand: the pair (row 0, row 1) with S = {0}
    # dominates (q=0.8, d=0.1), so L(α) = log((0.8x + 1)/(0.1x + 1)), x = e^α − 1.
    # BPL_0 = 1; x = e − 1 = 1.718282 → L = log(2.374625/1.171828) = log(2.026427) = 0.706275;
    # BPL_1 = 1.706275; x = e^1.706275 − 1 = 4.508416 → L = log(4.606733/1.450842) = 1.155367;
    # BPL_2 = 2.155367.
    P = np.array([[0.8, 0.2], [0.1, 0.9]])
    bpl, fpl, tpl_ = tpl.temporal_privacy_loss(np.ones(3), P)
    assert np.allclose(bpl, [1.0, 1.706275, 2.155367], atol=2e-6)
    assert np.allclose(fpl, bpl[::-1])
    assert np.allclose(tpl_, bpl + fpl - 1.0)


# --------------------------------------------------------------------------- BPL / FPL / TPL and supremum


@pytest.mark.parametrize("kind", ["laplace", "random"])
def test_temporal_privacy_loss_matches_recursions(kind):
    rng = np.random.default_rng(7)
    P_b = tpl.transition_matrix(0.05, 3) if kind == "laplace" else random_matrix(rng, 4)
    P_f = tpl.transition_matrix(0.3) if kind == "laplace" else random_matrix(rng, 3)
    budgets = rng.uniform(0, 1, 40)
    budgets[[3, 4, 20]] = 0.0
    got = tpl.temporal_privacy_loss(budgets, P_b, P_f)
    want = reference_tpl(budgets, tpl.loss_function(P_b), tpl.loss_function(P_f))
    for g, w in zip(got, want, strict=True):
        assert np.allclose(g, w, rtol=1e-11, atol=1e-11)


def test_temporal_privacy_loss_vectorises_over_repetitions():
    rng = np.random.default_rng(3)
    budgets = rng.uniform(0, 0.5, (4, 25))
    P = tpl.transition_matrix(0.01)
    P3 = random_matrix(rng, 4, zeros=False)
    for matrix in (P, P3):
        bpl, fpl, tpl_ = tpl.temporal_privacy_loss(budgets, matrix)
        assert bpl.shape == (4, 25)
        for r in range(4):
            assert np.allclose(tpl_[r], tpl.temporal_privacy_loss(budgets[r], matrix)[2], rtol=1e-12)


@pytest.mark.parametrize("s", [0.01, 0.1, 1.0])
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_supremum_is_the_limit_of_bpl(s, eps):
    P = tpl.transition_matrix(s)
    bpl = tpl.temporal_privacy_loss(np.full(3000, eps), P)[0]
    sup = tpl.privacy_loss_supremum(P, eps)
    assert np.all(bpl <= sup + 1e-9)
    assert np.isclose(bpl[-1], sup, rtol=1e-9)


def test_supremum_of_a_multi_vertex_matrix_and_divergent_cases():
    P = random_matrix(np.random.default_rng(11), 5, zeros=False)
    assert tpl.loss_function(P).n_vertices > 1
    bpl = tpl.temporal_privacy_loss(np.full(3000, 0.5), P)[0]
    assert np.isclose(bpl[-1], tpl.privacy_loss_supremum(P, 0.5), rtol=1e-9)
    assert tpl.privacy_loss_supremum(np.eye(2), 1.0) == np.inf  # L(α) = α: BPL grows forever
    assert tpl.privacy_loss_supremum(np.eye(2), 0.0) == 0.0
    assert np.isclose(tpl.privacy_loss_supremum(np.full((2, 2), 0.5), 0.7), 0.7)  # no correlation
    sups = tpl.privacy_loss_supremum(tpl.transition_matrix(0.1), [0.1, 1.0])
    assert sups.shape == (2,) and sups[0] < sups[1]
    # d = 0 with q·e^ε < 1: a finite limit although L(α) → inf
    P0 = np.array([[0.5, 0.5], [0.0, 1.0]])
    assert np.isfinite(tpl.privacy_loss_supremum(P0, 0.2))
    assert np.isclose(tpl.temporal_privacy_loss(np.full(4000, 0.2), P0)[0][-1], tpl.privacy_loss_supremum(P0, 0.2))
    assert tpl.privacy_loss_supremum(P0, 1.0) == np.inf  # q·e^ε ≥ 1


# --------------------------------------------------------------------------- landmark temporal privacy loss


def _random_case(rng, n, m_kind):
    """Random budgets (some 0), landmarks and matrices: Laplacian (Möbius scan) or random (direct)."""
    budgets = rng.uniform(0, 1, n)
    budgets[rng.random(n) < 0.15] = 0.0
    k = int(rng.integers(0, n + 1))
    marks = np.sort(rng.choice(n, size=k, replace=False))
    if m_kind == "laplace":
        return budgets, marks, tpl.transition_matrix(float(rng.choice([0.01, 0.1, 1.0])), int(rng.integers(2, 4))), None
    return budgets, marks, random_matrix(rng, int(rng.integers(2, 5))), random_matrix(rng, int(rng.integers(2, 4)))


@pytest.mark.parametrize("m_kind", ["laplace", "random"])
def test_landmark_loss_matches_definition_from_scratch(m_kind):
    rng = np.random.default_rng(2024 if m_kind == "laplace" else 99)
    for _ in range(25):
        budgets, marks, P_b, P_f = _random_case(rng, int(rng.integers(1, 16)), m_kind)
        got = tpl.landmark_temporal_privacy_loss(budgets, marks, P_b, P_f)
        loss_b = tpl.loss_function(P_b)
        loss_f = loss_b if P_f is None else tpl.loss_function(P_f)
        overall, own = reference_landmark_loss(budgets, marks, loss_b, loss_f)
        assert np.allclose(got.overall, overall, rtol=1e-10, atol=1e-10)
        assert np.allclose(got.own, own, rtol=1e-10, atol=1e-10)
        assert np.allclose(got.bound, np.minimum(overall, budgets.sum()), rtol=1e-10, atol=1e-10)


def test_landmark_loss_long_skewed_stretch_matches_definition():
    rng = np.random.default_rng(5)
    n = 300
    budgets = np.full(n, 1 / 31)
    marks = np.sort(rng.choice(40, size=30, replace=False))  # one landmark-free stretch of 260 events
    P = tpl.transition_matrix(0.01)
    got = tpl.landmark_temporal_privacy_loss(budgets, marks, P)
    overall, own = reference_landmark_loss(budgets, marks, tpl.loss_function(P))
    assert np.max(np.abs(got.overall - overall)) < 1e-9
    assert np.max(np.abs(got.own - own)) < 1e-9


def test_landmark_loss_multi_vertex_long_stretch_matches_definition():
    P_b = np.array([[0.22, 0.66, 0.12], [0.39, 0.19, 0.42], [0.58, 0.24, 0.18]])
    P_f = random_matrix(np.random.default_rng(4), 4, zeros=False)
    loss_b, loss_f = tpl.loss_function(P_b), tpl.loss_function(P_f)
    assert loss_b.n_vertices > 1 and loss_f.n_vertices > 1  # the direct recursion with shared chains
    rng = np.random.default_rng(6)
    n = 250
    budgets = rng.uniform(0, 0.3, n)
    marks = np.array([3, 4, 200, 230])  # a 195-event stretch: many chains converge and are shared
    got = tpl.landmark_temporal_privacy_loss(budgets, marks, P_b, P_f)
    overall, own = reference_landmark_loss(budgets, marks, loss_b.scalar, loss_f.scalar)
    assert np.max(np.abs(got.overall - overall)) < 1e-9
    assert np.max(np.abs(got.own - own)) < 1e-9


def test_shared_chains_equal_independent_chains():
    from lmdk.tpl.chains import _shared_chains

    loss = tpl.loss_function(np.array([[0.22, 0.66, 0.12], [0.39, 0.19, 0.42], [0.58, 0.24, 0.18]]))
    eps = np.random.default_rng(9).uniform(0, 1, 300)
    got = _shared_chains(eps, loss)
    want = [reference_chain(eps[j:], 0, eps.size - 1 - j, loss.scalar, 1) for j in range(eps.size)]
    assert np.max(np.abs(got - want)) < 1e-10


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30))
def test_landmark_loss_sanity_properties(seed, n):
    rng = np.random.default_rng(seed)
    budgets = rng.uniform(0, 2, n)
    P = tpl.transition_matrix(float(rng.choice([0.01, 0.1, 1.0])))
    tpl_ = tpl.temporal_privacy_loss(budgets, P)[2]
    none = tpl.landmark_temporal_privacy_loss(budgets, [], P)
    assert np.allclose(none.overall, tpl_, rtol=1e-11) and np.allclose(none.own, tpl_, rtol=1e-11)
    every = tpl.landmark_temporal_privacy_loss(budgets, np.arange(n), P)
    assert np.allclose(every.overall, budgets.sum(), rtol=1e-11)
    marks = np.flatnonzero(rng.random(n) < 0.3)
    indep = tpl.landmark_temporal_privacy_loss(budgets, marks, np.full((2, 2), 0.5))
    assert np.allclose(indep.overall, privacy.landmark_loss(budgets, marks), rtol=1e-11, atol=1e-12)
    some = tpl.landmark_temporal_privacy_loss(budgets, marks, P)
    assert np.all(some.bound <= budgets.sum() + 1e-12) and np.all(some.bound <= some.overall + 1e-12)
    assert np.all(some.overall >= indep.overall - 1e-12)  # correlation never lowers the loss


def test_landmark_loss_with_huge_budgets_uses_the_direct_recursion():
    budgets = np.array([400.0, 0.5, 350.0, 0.0, 1.0, 600.0])
    P = tpl.transition_matrix(0.01)
    got = tpl.landmark_temporal_privacy_loss(budgets, [2], P)
    overall, own = reference_landmark_loss(budgets, [2], tpl.loss_function(P))
    assert np.allclose(got.overall, overall, rtol=1e-12) and np.allclose(got.own, own, rtol=1e-12)


def test_landmark_loss_can_exceed_the_user_level_guarantee():
    budgets = np.full(10, 0.1)
    got = tpl.landmark_temporal_privacy_loss(budgets, [2, 7], tpl.transition_matrix(0.01))
    assert got.overall.max() > budgets.sum()  # stretches counted in both neighbours' terms
    assert np.isclose(got.bound.max(), budgets.sum())


@pytest.mark.parametrize("multi_vertex", [False, True])
def test_landmark_loss_repetitions_and_per_repetition_masks(multi_vertex):
    rng = np.random.default_rng(8)
    budgets = rng.uniform(0, 1, (3, 12))
    mask = rng.random((3, 12)) < 0.3
    P = (np.array([[0.22, 0.66, 0.12], [0.39, 0.19, 0.42], [0.58, 0.24, 0.18]]) if multi_vertex
         else tpl.transition_matrix(0.1))
    got = tpl.landmark_temporal_privacy_loss(budgets, mask, P)
    assert got.overall.shape == (3, 12)
    for r in range(3):
        one = tpl.landmark_temporal_privacy_loss(budgets[r], np.flatnonzero(mask[r]), P)
        assert np.allclose(got.overall[r], one.overall, rtol=1e-12)
        assert np.allclose(got.own[r], one.own, rtol=1e-12)
    shared = tpl.landmark_temporal_privacy_loss(budgets, [1, 5], P)
    assert shared.overall.shape == (3, 12)
    with pytest.raises(ParameterError, match="repetitions"):
        tpl.landmark_temporal_privacy_loss(budgets, mask[:2], P)


@pytest.mark.parametrize(
    "budgets, marks, fragment",
    [([1.0, -0.1], [0], "budgets"), ([1.0, np.nan], [0], "budgets"), ([1.0, 1.0], [2], "landmarks"),
     ([], [], "budgets")],
)
def test_landmark_loss_rejects_bad_input(budgets, marks, fragment):
    with pytest.raises(ParameterError, match=fragment):
        tpl.landmark_temporal_privacy_loss(budgets, marks, tpl.transition_matrix(0.1))


# --------------------------------------------------------------------------- temporal distance and figures


def test_temporal_distance_by_hand():
    # n = 10, L = {3, 4}: regular 0 1 2 | 5 6 7 8 9 → distances 0 1 0 | 0 1 2 1 0
    got = tpl.temporal_distance(10, [3, 4])
    assert got.timestamps.tolist() == [0, 1, 2, 5, 6, 7, 8, 9]
    assert got.distance.tolist() == [0, 1, 0, 0, 1, 2, 1, 0]
    assert np.isclose(got.mean, 5 / 8)
    assert tpl.temporal_distance(5, []).distance.tolist() == [0, 1, 2, 1, 0]
    assert np.isnan(tpl.temporal_distance(3, [0, 1, 2]).mean)


def test_figure_frames_are_tidy_and_reproducible():
    f8 = figure8(n=40, percentages=(0, 50, 100), repetitions=2, rng=1)
    assert list(f8.columns) == COLUMNS and len(f8) == 4 * 3
    assert f8.equals(figure8(n=40, percentages=(0, 50, 100), repetitions=2, rng=1))
    f9 = figure9(n=30, percentages=(0, 20, 100), repetitions=2, rng=2)
    assert list(f9.columns) == COLUMNS
    assert len(f9) == 4 * 3 * 3 * 3 * 2  # distributions × % × (none, moderate, strong) × quantities × statistics
    at0 = f9[(f9.landmark_pct == 0) & (f9.quantity == "overall") & (f9.statistic == "max")]
    by_corr = at0.groupby("correlation").value.mean()
    assert by_corr["none"] < by_corr["moderate"] < by_corr["strong"]
    none = f9[f9.correlation == "none"]
    assert np.allclose(none[none.quantity == "overall"].value, 1.0, atol=1 / 7)  # Uniform: ε or ε·|L|/(|L|+1)
    with pytest.raises(ParameterError, match="distribution"):
        figure9(distributions=("normal",))
