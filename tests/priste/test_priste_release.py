"""PriSTE release (lmdk.priste.calibration): ε-spatiotemporal event privacy at every t, calibration, δ variant."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from lmdk.errors import ParameterError
from lmdk.priste import (
    Event,
    Grid,
    band,
    delta_location_set,
    gaussian_transition,
    leakage,
    make_event,
    planar_laplace_emission,
    release,
    release_repetitions,
    simulate_trajectory,
    worst_case_leakage,
)


def small_setup(seed: int, rows=2, cols=3, T=6, sigma=1.0):
    g = Grid(rows, cols, cell_size_m=1000.0)
    M = gaussian_transition(g, sigma)
    traj = simulate_trajectory(M, T, rng=seed)
    return g, M, traj


@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(["presence", "pattern"]),
       epsilon=st.floats(0.05, 2.0), alpha=st.floats(0.3, 8.0), sigma=st.floats(0.3, 3.0),
       two_events=st.booleans())
def test_every_release_is_private_for_the_worst_prior(seed, kind, epsilon, alpha, sigma, two_events):
    g, M, traj = small_setup(seed, sigma=sigma)
    rng = np.random.default_rng(seed)
    start = int(rng.integers(0, 4))
    events = [make_event(kind, rng.choice(g.m, size=2, replace=False), range(start, start + 2), g.m)]
    if two_events:
        events.append(make_event("presence", [int(rng.integers(g.m))], [int(rng.integers(0, 6))], g.m))
    res = release(traj, events, epsilon, alpha, M, g, rng=seed, keep_emissions=True)
    E = np.stack(res.emissions)
    for t in range(traj.size):
        obs = res.released_cells[: t + 1]
        for k, ev in enumerate(events):
            # independent recomputation from scratch with the all-pairs search
            w, pi = worst_case_leakage(ev, M, E[: t + 1], obs, method="pairs")
            assert w <= epsilon * (1 + 1e-9)
            assert res.leakage[t, k] == pytest.approx(w, rel=1e-8, abs=1e-10)
            assert leakage(ev, pi, M, E[: t + 1], obs) <= epsilon * (1 + 1e-8)
    assert np.allclose(res.alpha[res.alpha > 0], alpha * 0.5 ** res.halvings[res.alpha > 0])


def test_same_seed_same_release_and_inf_epsilon_is_plain_plm():
    g, M, traj = small_setup(1, rows=3, cols=3, T=8)
    ev = make_event("presence", [0, 1], range(2, 5), g.m)
    r1 = release(traj, ev, 0.3, 2.0, M, g, rng=42)
    r2 = release(traj, ev, 0.3, 2.0, M, g, rng=42)
    assert np.array_equal(r1.released_cells, r2.released_cells) and np.array_equal(r1.alpha, r2.alpha)
    assert r1.halvings.sum() > 0  # 2-PLM must be calibrated for ε = 0.3
    plain = release(traj, ev, np.inf, 2.0, M, g, rng=42)
    assert np.all(plain.halvings == 0) and np.all(plain.alpha == 2.0)
    assert plain.max_leakage.max() > 0.3  # …and leaks more than ε


@pytest.mark.parametrize("check", ["any_prior", "fixed_prior"])
def test_checking_halvings_in_batches_gives_the_release_of_one_at_a_time(check, monkeypatch):
    """Candidates are drawn BATCH at a time, then the stream is rewound: same output as drawing them one by one."""
    import lmdk.priste.calibration as pr

    g, M, traj = small_setup(4, rows=3, cols=3, T=10)
    events = [make_event("presence", [0, 1, 4], range(2, 5), g.m), make_event("pattern", [4, 5], [6, 7], g.m)]
    runs = []
    for batch in (1, 3, 8):
        monkeypatch.setattr(pr, "BATCH", batch)
        gen = np.random.default_rng(9)
        res = release(traj, events, 0.2, 4.0, M, g, rng=gen, delta=0.05, max_halvings=3, check=check)
        runs.append((res, gen.random()))  # the stream is left where one draw per candidate leaves it
    assert runs[0][0].halvings.max() >= 3  # batches of 1 and 3 are split
    assert check == "fixed_prior" or (runs[0][0].alpha == 0).any()  # the uniform fallback is reached
    for res, after in runs[1:]:
        np.testing.assert_array_equal(res.released_cells, runs[0][0].released_cells)
        np.testing.assert_array_equal(res.halvings, runs[0][0].halvings)
        np.testing.assert_allclose(res.leakage, runs[0][0].leakage, rtol=1e-12)
        assert after == runs[0][1]
    fresh = np.random.default_rng(9)
    fresh.random(int(np.sum(runs[0][0].halvings + 1)))  # one uniform per candidate tried
    assert runs[0][1] == fresh.random()


def test_certify_only_check_releases_the_same_cells_with_lower_bounds_of_the_leakage():
    g, M, traj = small_setup(8, rows=20, cols=20, T=12)  # the paper's grid: the exact search has work to skip
    events = [make_event("presence", range(10), range(3, 8), g.m), make_event("pattern", [5, 6], [6, 7], g.m)]
    exact = release(traj, events, 0.3, 3.0, M, g, rng=4)
    quick = release(traj, events, 0.3, 3.0, M, g, rng=4, exact_leakage=False)
    np.testing.assert_array_equal(quick.released_cells, exact.released_cells)
    np.testing.assert_array_equal(quick.halvings, exact.halvings)
    assert np.all(quick.leakage <= exact.leakage * (1 + 1e-12)) and quick.worst_leakage is None
    assert np.all(quick.leakage <= 0.3 * (1 + 1e-9))
    assert np.any(quick.leakage < exact.leakage * (1 - 1e-6))  # it does skip part of the search
    with pytest.raises(ParameterError, match="audit"):
        release(traj, events, 0.3, 3.0, M, g, rng=4, exact_leakage=False, audit=True)


def test_tighter_epsilon_never_needs_fewer_halvings_on_average():
    g, M, traj = small_setup(3, rows=3, cols=3, T=6)
    ev = make_event("presence", [4], range(1, 4), g.m)
    h = [release_repetitions(traj, ev, eps, 4.0, M, g, 6, rng=0)["halvings"].mean() for eps in (2.0, 0.2)]
    assert h[1] > h[0]


def test_first_observation_is_drawn_from_the_plm_row():
    # χ² goodness of fit of o_0 against E[true] (α-PLM, no calibration), with a power check against 2α
    g = Grid(3, 3)
    M = gaussian_transition(g, 1.0)
    ev = make_event("presence", [0], [2], g.m)
    traj = np.array([4])
    E = planar_laplace_emission(g, 0.7)
    obs = [release(traj, ev, np.inf, 0.7, M, g, rng=s).released_cells[0] for s in range(3000)]
    counts = np.bincount(obs, minlength=g.m)
    assert chisquare(counts, 3000 * E[4]).pvalue > 1e-4
    assert chisquare(counts, 3000 * planar_laplace_emission(g, 1.4)[4]).pvalue < 1e-4


def test_delta_location_set_variant():
    g, M, traj = small_setup(5, rows=3, cols=3, T=7, sigma=0.6)
    ev = make_event("pattern", [3, 4], range(2, 4), g.m)
    # δ = 0 keeps every cell with positive probability: identical to Algorithm 2 with the same seed
    r0 = release(traj, ev, 0.5, 2.0, M, g, delta=0.0, rng=9)
    r = release(traj, ev, 0.5, 2.0, M, g, rng=9)
    assert np.array_equal(r0.released_cells, r.released_cells)
    rd = release(traj, ev, 0.5, 2.0, M, g, delta=0.3, rng=9, keep_emissions=True)
    p = np.full(g.m, 1 / g.m)
    for t in range(traj.size):
        allowed = delta_location_set(p, 0.3)
        assert allowed[rd.released_cells[t]] and np.all(rd.emissions[t][:, ~allowed] == 0)
        q = p * rd.emissions[t][:, rd.released_cells[t]]
        p = (q / q.sum()) @ M
    assert np.all(rd.max_leakage <= 0.5 * (1 + 1e-9))


def test_fallback_to_uniform_after_max_halvings_keeps_privacy():
    g, M, traj = small_setup(2, rows=2, cols=2, T=5, sigma=0.4)
    ev = make_event("presence", [0], range(1, 3), g.m)
    res = release(traj, ev, 1e-3, 50.0, M, g, rng=1, max_halvings=2)
    assert np.any(res.alpha == 0.0)
    assert np.all(res.max_leakage <= 1e-3 * (1 + 1e-9))


def test_result_frame_and_band():
    g, M, traj = small_setup(4, rows=2, cols=2, T=5)
    evs = [make_event("presence", [1], [1, 2], g.m), make_event("pattern", [2, 3], [2, 3], g.m)]
    df = release_repetitions(traj, evs, 0.5, 3.0, M, g, 3, rng=5)
    assert list(df.columns[:3]) == ["rep", "t", "true_cell"] and len(df) == 15
    assert {"leakage_event0", "leakage_event1", "distance_m"} <= set(df.columns)
    b = band(df, "alpha")
    assert len(b) == 5 and np.all(b["q10"] <= b["median"]) and np.all(b["median"] <= b["q90"])


def test_bad_arguments():
    g, M, traj = small_setup(0, rows=2, cols=2, T=3)
    ev = make_event("presence", [0], [1], g.m)
    with pytest.raises(ParameterError, match="epsilon"):
        release(traj, ev, 0.0, 1.0, M, g)
    with pytest.raises(ParameterError, match="alpha"):
        release(traj, ev, 1.0, -1.0, M, g)
    with pytest.raises(ParameterError, match="trajectory_cells"):
        release([0, 9], ev, 1.0, 1.0, M, g)
    with pytest.raises(ParameterError, match="cells"):
        release(traj, make_event("presence", [0], [1], 9), 1.0, 1.0, M, g)
    with pytest.raises(ParameterError, match="grid has"):
        release(traj, ev, 1.0, 1.0, np.eye(3), g)
    with pytest.raises(ParameterError, match="delta"):
        release(traj, ev, 1.0, 1.0, M, g, delta=1.0)
    with pytest.raises(ParameterError, match="repetitions"):
        release_repetitions(traj, ev, 1.0, 1.0, M, g, 0)
    with pytest.raises(ParameterError, match="Event"):
        release(traj, ["presence"], 1.0, 1.0, M, g)
    assert isinstance(ev, Event)


def test_thousand_timestamp_release_stays_finite_and_private():
    g, M, traj = small_setup(8, rows=2, cols=2, T=1000, sigma=0.7)
    evs = [make_event("presence", [0], range(200, 205), g.m), make_event("pattern", [1, 2], [900, 901], g.m)]
    res = release(traj, evs, 0.5, 3.0, M, g, rng=8)
    assert np.all(np.isfinite(res.leakage)) and np.all(res.max_leakage <= 0.5 * (1 + 1e-9))
    assert res.halvings.sum() > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), epsilon=st.floats(0.05, 2.0), alpha=st.floats(0.5, 8.0))
def test_fixed_prior_check_holds_at_that_prior_and_audit_is_the_exact_worst_case(seed, epsilon, alpha):
    g, M, traj = small_setup(seed, rows=2, cols=3, T=5)
    rng = np.random.default_rng(seed)
    ev = make_event("presence", rng.choice(g.m, size=2, replace=False), range(1, 3), g.m)
    prior = rng.dirichlet(np.ones(g.m))
    res = release(traj, ev, epsilon, alpha, M, g, rng=seed, check="fixed_prior", prior=prior, audit=True,
                  keep_emissions=True)
    E = np.stack(res.emissions)
    for t in range(traj.size):
        obs = res.released_cells[: t + 1]
        fixed = leakage(ev, prior, M, E[: t + 1], obs)
        assert fixed <= epsilon * (1 + 1e-9)
        assert res.leakage[t, 0] == pytest.approx(fixed, rel=1e-8, abs=1e-10)
        worst = worst_case_leakage(ev, M, E[: t + 1], obs, method="pairs")[0]
        assert res.worst_leakage[t, 0] == pytest.approx(worst, rel=1e-8, abs=1e-10)
        assert worst >= fixed - 1e-9


def test_fixed_uniform_prior_check_misses_the_worst_case_on_the_grid():
    # the §3 quantification at the uniform prior lets through releases whose any-prior leakage exceeds ε
    from lmdk.experiments.priste_drivers import synthetic_setup

    s = synthetic_setup(10, 10, length=12, rng=0)
    ev = make_event("presence", range(5), range(3, 8), s.grid.m)
    fixed = release(s.trajectory, ev, 1.0, 1.0, s.M, s.grid, rng=3, check="fixed_prior", audit=True)
    exact = release(s.trajectory, ev, 1.0, 1.0, s.M, s.grid, rng=3, audit=True)
    assert np.all(fixed.max_leakage <= 1.0 + 1e-9) and fixed.worst_leakage.max() > 1.0
    assert np.all(exact.worst_leakage == exact.leakage) and exact.max_leakage.max() <= 1.0 + 1e-9
    assert fixed.alpha.mean() > exact.alpha.mean()
    assert "worst_leakage" in fixed.to_frame() and "worst_leakage" not in exact.to_frame()


def test_check_arguments():
    g, M, traj = small_setup(0, rows=2, cols=2, T=3)
    ev = make_event("presence", [0], [1], g.m)
    with pytest.raises(ParameterError, match="check"):
        release(traj, ev, 1.0, 1.0, M, g, check="uniform")
    with pytest.raises(ParameterError, match="prior"):
        release(traj, ev, 1.0, 1.0, M, g, prior=np.full(4, 0.25))
    with pytest.raises(ParameterError, match="prior"):
        release(traj, ev, 1.0, 1.0, M, g, check="fixed_prior", prior=[0.5, 0.5])
    a = release(traj, ev, 1.0, 1.0, M, g, check="fixed_prior", rng=2)
    b = release(traj, ev, 1.0, 1.0, M, g, check="fixed_prior", prior=np.full(4, 0.25), rng=2)
    assert np.array_equal(a.released_cells, b.released_cells) and a.worst_leakage is None
