"""Two-possible-world quantification (lmdk.priste.quantify) against brute force over all m^T trajectories."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import logsumexp

from lmdk.errors import ParameterError
from lmdk.priste import (
    Event,
    event_vectors,
    event_vectors4,
    joint_probability,
    leakage,
    observation_probability,
    prior_probability,
)


def stochastic(rng, n, k, conc=1.0):
    """Random row-stochastic n×k matrix (Dirichlet rows)."""
    return rng.dirichlet(np.full(k, conc), size=n)


def brute(event, pi, M, Es, obs, T):
    """(Pr(E), Pr(E, o), Pr(o)) by summing over all m^T trajectories."""
    m = pi.size
    X = np.array(list(itertools.product(range(m), repeat=T)))
    p = pi[X[:, 0]] * np.prod(M[X[:, :-1], X[:, 1:]], axis=1)
    h = event.holds(X)
    e = np.prod([Es[k][X[:, k], o] for k, o in enumerate(obs)], axis=0)
    return (p * h).sum(), (p * h * e).sum(), (p * e).sum()


def random_instance(seed: int, where: str, per_time_E: bool):
    """Random π, M, E, event (presence/pattern, maybe non-consecutive times, one region per time), observations."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 5))
    T = int(rng.integers(3, 6)) if m < 4 else int(rng.integers(3, 5))
    kind = ("presence", "pattern")[seed % 2]
    n = int(rng.integers(1, min(3, T - 1) + 1))
    first = 0 if seed % 4 == 0 else 1  # some events start at t = 0
    times = np.sort(rng.choice(np.arange(first, T - 1), size=min(n, T - 1 - first), replace=False))
    regions = rng.random((times.size, m)) < 0.5
    regions[np.arange(times.size), rng.integers(0, m, times.size)] = True  # never empty
    ev = Event(kind, regions, times)
    pi = rng.dirichlet(np.ones(m))
    M = stochastic(rng, m, m, 0.7)
    Es = [stochastic(rng, m, m, 1.0) for _ in range(T)]
    if not per_time_E:
        Es = [Es[0]] * T
    n_obs = {"before": ev.start, "during": int(rng.integers(ev.start + 1, ev.end + 2)), "after": T}[where]
    n_obs = max(n_obs, 1)
    obs = rng.integers(0, m, n_obs)
    E_arg = np.stack(Es) if per_time_E else Es[0]
    return ev, pi, M, Es, E_arg, obs, T


@pytest.mark.parametrize("where", ["before", "during", "after"])
@pytest.mark.parametrize("per_time_E", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_matches_brute_force(seed, where, per_time_E):
    ev, pi, M, Es, E_arg, obs, T = random_instance(seed, where, per_time_E)
    px, py, pz = brute(ev, pi, M, Es, obs, T)
    assert prior_probability(ev, pi, M) == pytest.approx(px, abs=1e-12)
    assert joint_probability(ev, pi, M, E_arg, obs) == pytest.approx(py, abs=1e-12)
    assert observation_probability(pi, M, E_arg, obs) == pytest.approx(pz, abs=1e-12)
    want = abs(np.log((py / px) / ((pz - py) / (1 - px)))) if 0 < px < 1 else 0.0
    assert leakage(ev, pi, M, E_arg, obs) == pytest.approx(want, abs=1e-12)
    a, b, c = event_vectors(ev, M, E_arg, obs)
    assert pi @ a == pytest.approx(px, abs=1e-12)
    assert (pi @ b) / (pi @ c) == pytest.approx(py / pz, abs=1e-12)


@given(seed=st.integers(0, 10**6), where=st.sampled_from(["before", "during", "after"]))
def test_matches_brute_force_property(seed, where):
    ev, pi, M, Es, E_arg, obs, T = random_instance(seed, where, seed % 3 == 0)
    px, py, pz = brute(ev, pi, M, Es, obs, T)
    assert prior_probability(ev, pi, M) == pytest.approx(px, abs=1e-12)
    assert joint_probability(ev, pi, M, E_arg, obs) == pytest.approx(py, abs=1e-12)
    a, an, b, d = event_vectors4(ev, M, E_arg, obs)
    assert a + an == pytest.approx(np.ones_like(a), abs=1e-12)
    assert (pi @ d) / (pi @ (b + d)) == pytest.approx((pz - py) / pz, abs=1e-12)


def test_paper_example_3_1_presence_prior():
    # Example 3.1 (1-based t = 3, 4 → 0-based 2, 3): presence in {s1, s2}; compare with direct enumeration.
    M = np.array([[0.1, 0.2, 0.7], [0.4, 0.1, 0.5], [0.0, 0.1, 0.9]])
    ev = Event("presence", np.array([True, True, False]), np.array([2, 3]))
    pi = np.array([0.2, 0.3, 0.5])
    p2 = pi @ M @ M
    # Pr(not in region at t=2 and not at t=3) = p2[2] * M[2, 2]
    assert prior_probability(ev, pi, M) == pytest.approx(1 - p2[2] * M[2, 2], abs=1e-15)


def test_pattern_is_conjunction_presence_is_disjunction():
    rng = np.random.default_rng(3)
    M = stochastic(rng, 3, 3)
    r = np.array([[True, False, False], [False, True, True]])
    times = np.array([1, 2])
    pi = rng.dirichlet(np.ones(3))
    p1 = pi @ M
    both = sum(p1[i] * M[i, j] for i in range(3) for j in range(3) if r[0, i] and r[1, j])
    either = 1 - sum(p1[i] * M[i, j] for i in range(3) for j in range(3) if not r[0, i] and not r[1, j])
    assert prior_probability(Event("pattern", r, times), pi, M) == pytest.approx(both, abs=1e-15)
    assert prior_probability(Event("presence", r, times), pi, M) == pytest.approx(either, abs=1e-15)


def test_thousand_timestamps_are_stable():
    rng = np.random.default_rng(7)
    m, T = 6, 1000
    M = stochastic(rng, m, m, 2.0)
    E = stochastic(rng, m, m, 0.5)
    obs = rng.integers(0, m, T)
    pi = rng.dirichlet(np.ones(m))
    ev = Event("presence", np.array([1, 1, 0, 0, 0, 0], bool), np.array([400, 401, 402]))
    # independent log-space forward pass
    la = np.log(pi) + np.log(E[:, obs[0]])
    for o in obs[1:]:
        la = logsumexp(la[:, None] + np.log(M), axis=0) + np.log(E[:, o])
    want = logsumexp(la)
    assert want < -700  # the probability itself underflows a double
    assert observation_probability(pi, M, E, obs, log=True) == pytest.approx(want, rel=1e-12)
    lj = joint_probability(ev, pi, M, E, obs, log=True)
    assert np.isfinite(lj) and lj < want
    L = leakage(ev, pi, M, E, obs)
    a, an, b, d = event_vectors4(ev, M, E, obs)
    assert np.all(np.isfinite(b)) and np.all(np.isfinite(d)) and (b + d).max() == pytest.approx(1.0)
    x, y, u = pi @ a, pi @ b, pi @ d
    assert L == pytest.approx(abs(np.log(y * (1 - x) / (x * u))), abs=1e-9)


def test_bad_inputs_raise():
    M = np.eye(2)
    ev = Event("presence", np.array([True, False]), np.array([0]))
    with pytest.raises(ParameterError, match="pi"):
        prior_probability(ev, [0.5, 0.6], M)
    with pytest.raises(ParameterError, match="row-stochastic"):
        prior_probability(ev, [0.5, 0.5], [[0.5, 0.4], [0, 1]])
    with pytest.raises(ParameterError, match="observations"):
        joint_probability(ev, [0.5, 0.5], M, M, [2])
    with pytest.raises(ParameterError, match="per-timestamp"):
        joint_probability(ev, [0.5, 0.5], M, np.stack([M]), [0, 1])
    with pytest.raises(ParameterError, match="cells"):
        prior_probability(Event("presence", np.array([True, False, True]), np.array([0])), [0.5, 0.5], M)
    with pytest.raises(ParameterError, match="increasing"):
        Event("pattern", np.array([True, False]), np.array([2, 1]))
    with pytest.raises(ParameterError, match="kind"):
        Event("visit", np.array([True, False]), np.array([1]))


@pytest.mark.parametrize("kind", ["presence", "pattern"])
def test_batched_candidates_on_a_factored_grid_equal_one_at_a_time_dense_ones(kind):
    """EventTracker.candidates (k columns at once, Kronecker-factored M) = candidate per column with the dense M."""
    from lmdk.priste import Grid, gaussian_transition, planar_laplace_emission
    from lmdk.priste.quantify import EventTracker

    g = Grid(3, 4)
    M, E = gaussian_transition(g, 0.8), planar_laplace_emission(g, 1.5)
    ev = Event(kind, np.stack([np.arange(g.m) < 5, np.arange(g.m) % 3 == 0]), np.array([2, 4]))
    fast, dense = EventTracker(ev, M, grid_shape=(3, 4)), EventTracker(ev, M)
    assert fast.op.factored and not dense.op.factored
    rng = np.random.default_rng(5)
    for _ in range(8):  # before, during and after the event
        C = E[:, rng.integers(0, g.m, 4)]
        b, d = fast.candidates(C)
        assert b.shape == d.shape == (4, g.m)
        for q in range(4):
            b1, d1 = dense.candidate(C[:, q])
            np.testing.assert_allclose(b[q], b1, rtol=1e-11, atol=1e-300)
            np.testing.assert_allclose(d[q], d1, rtol=1e-11, atol=1e-300)
        fast.commit(C[:, 0])
        dense.commit(C[:, 0])
