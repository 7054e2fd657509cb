"""PriSTE map model (lmdk.priste.grid) and events (lmdk.priste.events)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from lmdk.errors import DataError, ParameterError
from lmdk.priste import (
    Event,
    Grid,
    delta_location_set,
    estimate_transition,
    gaussian_transition,
    grid_around,
    make_event,
    planar_laplace_emission,
    restricted_emission,
    simulate_trajectory,
)


def test_cell_xy_roundtrip_and_layout():
    g = Grid(3, 4, cell_size_m=250.0)
    cells = np.arange(g.m)
    assert np.array_equal(g.xy_to_cell(g.cell_to_xy(cells)), cells)
    assert g.cell_to_xy(5).tolist() == [1.5 * 250, 1.5 * 250]  # row 1, col 1
    assert g.xy_to_cell([[-10.0, 5.0]], clip=True).tolist() == [0]
    with pytest.raises(DataError, match="outside"):
        g.xy_to_cell([[1e6, 0.0]])
    assert g.distances_m()[0, 5] == pytest.approx(250 * np.sqrt(2))


def test_latlon_anchor_roundtrip_and_grid_around():
    g = Grid(5, 6, 200.0, origin_lat=39.9, origin_lon=116.3)
    lat, lon = g.cell_to_latlon(np.arange(g.m))
    assert np.array_equal(g.latlon_to_cell(lat, lon), np.arange(g.m))
    assert g.corners_latlon().shape == (30, 4, 2)
    with pytest.raises(ParameterError, match="anchor"):
        Grid(2, 2).cell_to_latlon([0])
    h = grid_around(lat, lon, 200.0)
    assert h.m <= 49 and np.all(h.latlon_to_cell(lat, lon, clip=True) >= 0)
    with pytest.raises(ParameterError, match="cell_size_m"):
        grid_around(lat, lon, 1.0, max_cells=10)


def test_planar_laplace_rows_and_shape():
    g = Grid(4, 4)
    E = planar_laplace_emission(g, 1.5)
    assert np.allclose(E.sum(axis=1), 1) and np.all(E > 0)
    d = g.distances_m() / 1000
    # within a row the probability is exp(−α d) up to the row constant
    assert np.allclose(np.log(E[5]) - np.log(E[5, 5]), -1.5 * d[5])
    assert np.allclose(planar_laplace_emission(g, 0.0), 1 / 16)
    with pytest.raises(ParameterError, match="alpha"):
        planar_laplace_emission(g, -1)


def test_delta_location_set_is_the_smallest_set_by_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(30):
        p = rng.dirichlet(np.full(6, 0.5))
        delta = float(rng.uniform(0, 0.9))
        mask = delta_location_set(p, delta)
        best = min(k for k in range(1, 7) for s in itertools.combinations(range(6), k)
                   if p[list(s)].sum() >= 1 - delta - 1e-12)
        assert mask.sum() == best and p[mask].sum() >= 1 - delta - 1e-12
    assert delta_location_set(np.array([0.5, 0.5, 0.0]), 0.0).tolist() == [True, True, False]


def test_restricted_emission():
    E = planar_laplace_emission(Grid(2, 2), 1.0)
    R = restricted_emission(E, [True, False, True, False])
    assert np.allclose(R.sum(axis=1), 1) and np.all(R[:, [1, 3]] == 0)
    assert R[0, 0] / R[0, 2] == pytest.approx(E[0, 0] / E[0, 2])
    with pytest.raises(ParameterError, match="allowed"):
        restricted_emission(E, [False] * 4)


def test_gaussian_transition():
    g = Grid(5, 5)
    M = gaussian_transition(g, 1.0)
    assert np.allclose(M.sum(axis=1), 1)
    d = g.distances_m()[12] / 1000
    order = np.argsort(d, kind="stable")
    assert np.all(np.diff(M[12, order]) <= 1e-15)  # decays with distance
    assert gaussian_transition(g, 0.1)[12, 12] > 0.99 > gaussian_transition(g, 3.0)[12, 12]
    with pytest.raises(ParameterError, match="sigma"):
        gaussian_transition(g, 0)


def test_estimate_transition_recovers_the_chain():
    g = Grid(3, 3)
    M = gaussian_transition(g, 0.8)
    traj = simulate_trajectory(M, 40000, rng=3)
    est = estimate_transition(traj, 0.0, m=g.m)
    assert np.abs(est - M).max() < 0.03
    small = estimate_transition([0, 1, 1], 1.0, m=3)
    assert np.allclose(small, [[1 / 4, 2 / 4, 1 / 4], [1 / 4, 2 / 4, 1 / 4], [1 / 3, 1 / 3, 1 / 3]])
    assert estimate_transition([0, 1], 0.0, m=3)[2].tolist() == [0, 0, 1]
    assert estimate_transition([0, 1, 0]).shape == (2, 2)
    with pytest.raises(DataError, match="cells"):
        estimate_transition([0], m=3)


def test_simulated_trajectory_is_seeded():
    M = gaussian_transition(Grid(3, 3), 1.0)
    assert np.array_equal(simulate_trajectory(M, 20, rng=1), simulate_trajectory(M, 20, rng=1))
    assert simulate_trajectory(M, 5, start=4, rng=0)[0] == 4


def test_event_truth_values():
    r = np.array([[True, False, False], [False, True, False]])
    pres, patt = Event("presence", r, np.array([0, 2])), Event("pattern", r, np.array([0, 2]))
    trajs = np.array([[0, 2, 1], [0, 2, 2], [1, 0, 1], [2, 2, 2]])
    assert pres.holds(trajs).tolist() == [True, True, True, False]
    assert patt.holds(trajs).tolist() == [True, False, False, False]
    ev = make_event("presence", [0, 2], [3, 4, 5], 4)
    assert ev.regions.shape == (3, 4) and ev.length == 3 and ev.start == 3 and ev.end == 5
    assert ev.region_at(4).tolist() == [True, False, True, False] and ev.region_at(6) is None
    with pytest.raises(ParameterError, match="cells"):
        make_event("presence", [7], [1], 4)
