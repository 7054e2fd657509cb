"""Exact worst-case leakage (lmdk.priste.worst): never below any prior's leakage, equal to a global optimiser."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import differential_evolution, minimize

from lmdk.errors import ParameterError
from lmdk.priste import (
    Event,
    Grid,
    event_vectors4,
    gaussian_transition,
    leakage,
    make_event,
    planar_laplace_emission,
    worst_case_from_vectors,
    worst_case_leakage,
)
from lmdk.priste.worst import leakage_lower_bound, leakage_upper_bound, lower_bound_rows


def instance(seed: int, m: int = 4, T: int = 4):
    """Random small instance: M, E (Dirichlet rows), an event and observations."""
    rng = np.random.default_rng(seed)
    M = rng.dirichlet(np.full(m, 0.8), size=m)
    E = rng.dirichlet(np.full(m, 1.5), size=m)
    kind = ("presence", "pattern")[seed % 2]
    times = np.sort(rng.choice(np.arange(T), size=2, replace=False))
    regions = rng.random((2, m)) < 0.5
    regions[:, seed % m] = True
    regions[:, (seed + 1) % m] = False  # neither impossible nor certain
    obs = rng.integers(0, m, int(rng.integers(1, T + 1)))
    return Event(kind, regions, times), M, E, obs


def log_f(pis, a, an, b, d):
    """log F for a batch of priors (rows of pis)."""
    return np.log(pis @ b) + np.log(pis @ an) - np.log(pis @ a) - np.log(pis @ d)


def global_optimum(a, an, b, d, seed: int) -> float:
    """sup |log F| by differential evolution on a softmax parametrisation plus many-start SLSQP on the simplex."""
    m = a.size

    def neg(z, sign):
        w = np.exp(z - z.max())
        p = w / w.sum()
        return -sign * log_f(p[None], a, an, b, d)[0]

    best = 0.0
    for sign in (1, -1):
        r = differential_evolution(neg, [(-30, 30)] * m, args=(sign,), seed=seed, tol=1e-12, maxiter=400,
                                   polish=True)
        best = max(best, -r.fun)
        rng = np.random.default_rng(seed)
        for p0 in rng.dirichlet(np.full(m, 0.5), size=20):
            res = minimize(lambda p, s: -s * log_f(np.clip(p, 1e-300, None)[None], a, an, b, d)[0], p0,
                           args=(sign,), method="SLSQP", bounds=[(0, 1)] * m,
                           constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1}], options={"ftol": 1e-14})
            if res.success and np.all(res.x >= -1e-12):
                best = max(best, -res.fun)
    return best


@pytest.mark.parametrize("seed,m", [(s, 4) for s in range(8)] + [(100, 6), (101, 6)])
def test_equals_global_solver(seed, m):
    ev, M, E, obs = instance(seed, m=m)
    value, pi = worst_case_leakage(ev, M, E, obs)
    a, an, b, d = event_vectors4(ev, M, E, obs)
    opt = global_optimum(a, an, b, d, seed)
    assert value == pytest.approx(opt, rel=1e-7, abs=1e-9)
    # the returned prior attains the value
    assert leakage(ev, pi, M, E, obs) == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_never_below_random_priors(seed):
    ev, M, E, obs = instance(seed, m=int(3 + seed % 2), T=5)
    value, _ = worst_case_leakage(ev, M, E, obs)
    rng = np.random.default_rng(seed)
    a, an, b, d = event_vectors4(ev, M, E, obs)
    m = a.size
    pis = np.concatenate([rng.dirichlet(np.full(m, c), size=1000) for c in (0.05, 0.3, 1.0, 5.0)])
    with np.errstate(divide="ignore", invalid="ignore"):
        lf = np.abs(log_f(pis, a, an, b, d))
    assert np.nanmax(lf) <= value * (1 + 1e-9) + 1e-12
    for p in pis[:200]:  # and through the independent leakage() path
        assert leakage(ev, p, M, E, obs) <= value * (1 + 1e-9) + 1e-12


def test_optimum_can_lie_inside_an_edge():
    # some instances have a maximiser mixing two cells; the exact search must still match the solver there
    interior = 0
    for seed in range(40):
        ev, M, E, obs = instance(seed, m=3, T=4)
        _, pi = worst_case_leakage(ev, M, E, obs)
        if np.count_nonzero(pi > 1e-6) == 2 and np.all(pi < 1 - 1e-6):
            interior += 1
    assert interior >= 3


def test_hull_and_all_pairs_agree_on_larger_random_vectors():
    rng = np.random.default_rng(11)
    for _ in range(20):
        m = 150
        a = rng.random(m) ** 3
        b = a * rng.random(m)
        d = (1 - a) * rng.random(m)
        v1, p1, _ = worst_case_from_vectors(a, b, d, method="hull")
        v2, p2, _ = worst_case_from_vectors(a, b, d, method="pairs")
        assert v1 == pytest.approx(v2, rel=1e-10)


def test_degenerate_coplanar_points_fall_back_to_pairs():
    # all points on one plane (a constant): Qhull cannot build a 3-D hull
    rng = np.random.default_rng(5)
    a = np.full(30, 0.3)
    b, d = rng.random(30) * 0.3, rng.random(30) * 0.7
    v, pi, _ = worst_case_from_vectors(a, b, d)
    ratio = (b / d)
    assert v == pytest.approx(max(np.log(ratio.max() * 0.7 / 0.3), -np.log(ratio.min() * 0.7 / 0.3)), rel=1e-12)
    # identical points and a single point
    assert worst_case_from_vectors(np.full(5, 0.5), np.full(5, 0.1), np.full(5, 0.2))[0] == pytest.approx(
        np.log(2), rel=1e-12)


def test_supremum_needs_tiny_weights_on_a_realistic_grid():
    # far-away start with an almost impossible event: the sup mixes cells with weights ~1e-13 (found exactly)
    g = Grid(20, 20)
    M = gaussian_transition(g, 1.0)
    E = planar_laplace_emission(g, 1.0)
    ev = make_event("presence", range(10), range(3, 8), g.m)
    value, pi = worst_case_leakage(ev, M, E, [5])
    assert np.isfinite(value) and value > 10
    assert leakage(ev, pi, M, E, [5]) == pytest.approx(value, rel=1e-6)
    assert worst_case_leakage(ev, M, E, [5], method="pairs")[0] == pytest.approx(value, rel=1e-10)


def test_uniform_emission_leaks_nothing_and_impossible_event_is_zero():
    rng = np.random.default_rng(2)
    M = rng.dirichlet(np.ones(4), size=4)
    U = np.full((4, 4), 0.25)
    ev = Event("pattern", np.array([[1, 1, 0, 0], [0, 1, 1, 0]], bool), np.array([0, 1]))
    assert worst_case_leakage(ev, M, U, [0, 3, 2])[0] == pytest.approx(0.0, abs=1e-12)
    never = Event("presence", np.zeros(4, bool), np.array([1]))
    assert worst_case_leakage(never, M, rng.dirichlet(np.ones(4), size=4), [0, 1])[0] == 0.0


def test_infinite_when_observation_excludes_the_event():
    M = np.eye(2)
    E = np.array([[1.0, 0.0], [0.5, 0.5]])  # cell 0 never reports 1
    ev = Event("presence", np.array([True, False]), np.array([0]))
    assert worst_case_leakage(ev, M, E, [1])[0] == np.inf


def test_bad_arguments():
    with pytest.raises(ParameterError, match="same length"):
        worst_case_from_vectors(np.ones(3), np.ones(2), np.ones(3))
    with pytest.raises(ParameterError, match="method"):
        worst_case_from_vectors(np.ones(3) / 2, np.ones(3), np.ones(3), method="cplex")


def test_thousand_timestamps_worst_case_is_finite_and_exact():
    g = Grid(3, 3)
    M = gaussian_transition(g, 0.5)  # weak mixing: rows of Pr(o | l_0) drift apart
    E = planar_laplace_emission(g, 2.0)
    rng = np.random.default_rng(4)
    obs = rng.integers(0, g.m, 1000)
    ev = make_event("pattern", [0, 1, 3], range(500, 503), g.m)
    for n in (300, 502, 1000):
        value, pi = worst_case_leakage(ev, M, E, obs[:n])
        assert np.isfinite(value) and value > 0
        assert worst_case_leakage(ev, M, E, obs[:n], method="pairs")[0] == pytest.approx(value, rel=1e-10)
        assert leakage(ev, pi, M, E, obs[:n]) == pytest.approx(value, rel=1e-6)


def test_certification_recovers_vertices_the_hull_missed(monkeypatch):
    # pretend Qhull lost the optimal vertices: the bound-based certification must still find the exact optimum
    import lmdk.priste.worst as pw

    rng = np.random.default_rng(9)
    m = 80
    a = rng.random(m) ** 2
    b, d = a * rng.random(m), (1 - a) * rng.random(m)
    want, pi, _ = worst_case_from_vectors(a, b, d, method="pairs")
    best = set(np.flatnonzero(pi > 0).tolist())
    monkeypatch.setattr(pw, "_candidate_vertices", lambda P, method: np.array(
        [k for k in range(m) if k not in best][:6]))
    assert worst_case_from_vectors(a, b, d, method="hull")[0] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("n", [5, 8])
def test_hull_with_certification_matches_all_pairs_where_qhull_alone_fell_short(n):
    # on this 20×20 instance the bare hull search returned 29.068 / 60.338 instead of 29.128 / 60.42
    from lmdk.experiments.priste_drivers import synthetic_setup

    s = synthetic_setup(rng=0)
    ev = make_event("presence", range(10), range(3, 8), s.grid.m)
    E = planar_laplace_emission(s.grid, 1.0)
    a, an, b, d = event_vectors4(ev, s.M, E, s.trajectory[:n])
    hull = worst_case_from_vectors(a, b, d, a_not=an)[0]
    assert hull == pytest.approx(worst_case_from_vectors(a, b, d, a_not=an, method="pairs")[0], rel=1e-12)
    assert hull > {5: 29.1, 8: 60.4}[n]


@pytest.mark.parametrize("seed", range(4))
def test_extreme_magnitudes_hull_matches_all_pairs(seed):
    # probabilities spread over 300 orders of magnitude: leakages of hundreds of nats, bound in log space
    rng = np.random.default_rng(seed)
    m = 60
    a = 10.0 ** -rng.uniform(0, 300, m)
    b = a * 10.0 ** -rng.uniform(0, 300, m)
    d = (1 - a) * 10.0 ** -rng.uniform(0, 300, m)
    hull = worst_case_from_vectors(a, b, d)
    pairs = worst_case_from_vectors(a, b, d, method="pairs")
    assert hull[0] == pytest.approx(pairs[0], rel=1e-12) and hull[0] > 700


def random_vectors(seed: int, m: int, spread: float, zeros: bool):
    """Random (a, b, d) with probabilities over ``spread`` orders of magnitude, optionally with exact zeros."""
    rng = np.random.default_rng(seed)
    a = 10.0 ** -rng.uniform(0, spread, m)
    b = a * 10.0 ** -rng.uniform(0, spread, m)
    d = (1 - a) * 10.0 ** -rng.uniform(0, spread, m)
    if zeros:
        for v in (a, b, d):
            v[rng.random(m) < 0.1] = 0.0
        b[a == 0] = 0.0  # Pr(EVENT, o | i) ≤ Pr(EVENT | i)
    return a, b, d


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(1, 40), spread=st.sampled_from([0.5, 3.0, 30.0, 300.0]),
       zeros=st.booleans())
def test_bounds_bracket_the_exact_supremum_and_screen_is_exact(seed, m, spread, zeros):
    a, b, d = random_vectors(seed, m, spread, zeros)
    exact = worst_case_from_vectors(a, b, d, method="pairs")[0]
    screen = worst_case_from_vectors(a, b, d, method="screen")[0]
    upper, lower = leakage_upper_bound(a, b, d), leakage_lower_bound(a, b, d, k=2)[0]
    tol = 1e-12 * max(1.0, exact) if np.isfinite(exact) else 0.0
    assert screen == exact or screen == pytest.approx(exact, rel=1e-12)
    assert upper >= exact or upper >= exact - tol  # never below the supremum
    assert lower <= exact or lower <= exact + tol  # attained by a feasible prior


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(1, 40), spread=st.sampled_from([0.5, 3.0, 30.0, 300.0]),
       zeros=st.booleans())
def test_batched_lower_bound_is_the_top_one_quick_search_per_row(seed, m, spread, zeros):
    rows = [random_vectors(seed + k, m, spread, zeros) for k in range(5)]
    a = rows[0][0]
    B = np.stack([b * 10.0 ** (3 * k) for k, (_, b, _) in enumerate(rows)])  # rows on different scales
    D = np.stack([d * 10.0 ** (3 * k) for k, (_, _, d) in enumerate(rows)])
    D[:, a == 0] = 0.0
    an = 1.0 - a
    got = lower_bound_rows(a, an, B, D)
    for q in range(len(rows)):
        exact = worst_case_from_vectors(a, B[q], D[q], a_not=an, method="pairs")[0]
        vertices = leakage_lower_bound(a, B[q], D[q], a_not=an, stop_above=-1.0)[0]
        assert got[q] >= vertices or got[q] == pytest.approx(vertices, rel=1e-12)
        assert got[q] <= exact or got[q] == pytest.approx(exact, rel=1e-12)
        if not zeros:  # no ties among the extreme cells: the same four cells as the k = 1 quick search
            assert got[q] == pytest.approx(leakage_lower_bound(a, B[q], D[q], a_not=an, k=1)[0], rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(2, 40), spread=st.sampled_from([0.5, 3.0, 30.0]),
       zeros=st.booleans(), cut=st.floats(0.0, 1.5))
def test_screen_with_a_floor_or_a_stop_decides_exactly_what_the_supremum_would(seed, m, spread, zeros, cut):
    import lmdk.priste.worst as pw

    a, b, d = random_vectors(seed, m, spread, zeros)
    vecs = pw.prepare_vectors(a, b, d, None)
    quick = pw.quick_search(vecs, 1)
    exact = pw.screen_from(vecs, quick)[0]
    level = cut * exact if np.isfinite(exact) else 10.0 * cut
    for kw in ({"floor": level}, {"stop_above": level}, {"floor": level, "stop_above": level}):
        got = pw.screen_from(vecs, quick, **kw)[0]
        assert got <= exact or got == pytest.approx(exact, rel=1e-12)  # always a feasible prior's leakage
        assert (got > level * (1 + 1e-9)) == (exact > level * (1 + 1e-9))  # the decision is the exact one


def test_worst_case_with_factored_transitions_equals_the_dense_computation():
    g = Grid(4, 5)
    M, E = gaussian_transition(g, 0.9), planar_laplace_emission(g, 1.0)
    ev = make_event("presence", [0, 1, 6], [2, 3], g.m)
    obs = np.random.default_rng(3).integers(0, g.m, 7)
    dense = worst_case_leakage(ev, M, E, obs)[0]
    assert worst_case_leakage(ev, M, E, obs, grid_shape=(4, 5))[0] == pytest.approx(dense, rel=1e-10)


def test_lower_bound_prior_attains_its_value_and_stop_above_short_cuts():
    s_ev, M, E, obs = instance(3, m=5, T=5)
    a, an, b, d = event_vectors4(s_ev, M, E, obs)
    value, pi, _ = leakage_lower_bound(a, b, d, a_not=an)
    assert leakage(s_ev, pi, M, E, obs) == pytest.approx(value, rel=1e-9)
    assert value <= worst_case_from_vectors(a, b, d, a_not=an, method="pairs")[0] * (1 + 1e-12)
    # a vertex above stop_above is returned without the segment search: still a feasible prior's leakage
    quick, pi_q, _ = leakage_lower_bound(a, b, d, a_not=an, stop_above=-1.0)
    assert np.count_nonzero(pi_q) == 1 and leakage(s_ev, pi_q, M, E, obs) == pytest.approx(quick, rel=1e-9)


def test_upper_bound_is_nearly_tight_on_the_grid_where_tiny_priors_matter():
    # 20×20 grid, PRESENCE over 10 cells: the supremum comes within a few % of the O(m) bound
    from lmdk.experiments.priste_drivers import synthetic_setup

    s = synthetic_setup(rng=0)
    ev = make_event("presence", range(10), range(3, 8), s.grid.m)
    E = planar_laplace_emission(s.grid, 0.1)
    a, an, b, d = event_vectors4(ev, s.M, E, s.trajectory[:6])
    exact = worst_case_from_vectors(a, b, d, a_not=an, method="pairs")[0]
    assert worst_case_from_vectors(a, b, d, a_not=an)[0] == pytest.approx(exact, rel=1e-12)
    assert exact <= leakage_upper_bound(a, b, d, a_not=an) <= 1.5 * exact


def test_bounds_of_degenerate_vectors():
    assert leakage_upper_bound(np.zeros(3), np.zeros(3), np.ones(3)) == 0.0  # the event is impossible
    assert leakage_upper_bound(np.full(4, 0.5), np.full(4, 0.1), np.full(4, 0.2)) == pytest.approx(np.log(2))
    assert leakage_lower_bound(np.full(4, 0.5), np.full(4, 0.1), np.full(4, 0.2))[0] == pytest.approx(np.log(2))


@pytest.mark.parametrize("seed", range(6))
def test_screen_pruning_one_edge_at_a_time_is_still_exact(seed, monkeypatch):
    # flagged edges are searched largest bound first and the rest pruned against the best value so far
    import lmdk.priste.worst as pw

    monkeypatch.setattr(pw, "CHUNK", 1)
    a, b, d = random_vectors(seed, 80, (3.0, 30.0, 300.0)[seed % 3], seed % 2 == 0)
    want = worst_case_from_vectors(a, b, d, method="pairs")[0]
    got = worst_case_from_vectors(a, b, d)[0]
    assert got == want or got == pytest.approx(want, rel=1e-12)
