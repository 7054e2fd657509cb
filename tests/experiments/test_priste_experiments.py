"""PriSTE experiment drivers (lmdk.experiments.priste_drivers) and page helpers (lmdk.priste.views)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lmdk.errors import ParameterError, TooLargeError
from lmdk.experiments.priste_drivers import (
    alpha_per_timestamp,
    brute_force_joint,
    paper_event,
    runtime_vs_event_size,
    synthetic_setup,
    utility_vs_epsilon,
)
from lmdk.priste import Event, joint_probability, make_event
from lmdk.priste.views import compare, snap_trace, synthetic_walk


@pytest.mark.parametrize("kind", ["presence", "pattern"])
def test_brute_force_baseline_equals_two_world_method(kind):
    rng = np.random.default_rng(1)
    m = 5
    M = rng.dirichlet(np.ones(m), size=m)
    E = rng.dirichlet(np.ones(m), size=m)
    pi = rng.dirichlet(np.ones(m))
    regions = rng.random((3, m)) < 0.5
    regions[:, 0] = True
    ev = Event(kind, regions, np.array([1, 2, 4]))
    for n_obs in (1, 3, 6):
        obs = rng.integers(0, m, n_obs)
        assert brute_force_joint(ev, pi, M, E, obs) == pytest.approx(joint_probability(ev, pi, M, E, obs), abs=1e-14)
    with pytest.raises(TooLargeError, match="max_combos"):
        brute_force_joint(ev, pi, M, E, obs, max_combos=1)


def test_paper_event_is_zero_based():
    ev = paper_event("presence", 1, 10, 4, 8, 400)
    assert ev.times.tolist() == [3, 4, 5, 6, 7] and np.flatnonzero(ev.regions[0]).tolist() == list(range(10))


def test_drivers_return_tidy_frames():
    s = synthetic_setup(3, 3, length=6, rng=0)
    ev = make_event("presence", [0, 1], [1, 2], s.grid.m)
    df = alpha_per_timestamp(s, [ev], [0.5, 1.0], [2.0], 2, rng=0)
    assert len(df) == 2 * 1 * 2 * 6 and {"epsilon", "alpha0", "rep", "t", "alpha", "distance_m"} <= set(df.columns)
    assert np.all(df["leakage"] <= df["epsilon"] * (1 + 1e-9))
    again = alpha_per_timestamp(s, [ev], [0.5, 1.0], [2.0], 2, rng=0)
    assert df.equals(again)
    u = utility_vs_epsilon(s, [ev], [0.5, 1.0], [2.0], 2, deltas=(None, 0.2), rng=0)
    assert len(u) == 2 * 2 * 2 and set(u["delta"].dropna()) == {0.2}
    rt = runtime_vs_event_size(s, vary="width", sizes=[2, 3], fixed=2, n_events=1, baseline_budget_s=0.05, rng=0)
    assert set(rt["method"]) == {"priste_joint", "priste_worst_case", "brute_force_joint"} and np.all(rt["seconds"] > 0)
    with pytest.raises(ParameterError, match="vary"):
        runtime_vs_event_size(s, vary="depth")


def test_views_snap_walk_and_compare():
    lat = np.array([39.90, 39.905, 39.91])
    lon = np.array([116.40, 116.41, 116.405])
    grid, cells = snap_trace(lat, lon, 500.0)
    assert grid.anchored and cells.size == 3 and np.all(cells < grid.m)
    g, M, traj = synthetic_walk(3, 3, 1000.0, 1.0, 5, seed=2)
    assert g.anchored and M.shape == (9, 9) and traj.size == 5
    ev = make_event("presence", [4], [1, 2], g.m)
    res = compare(traj, ev, 0.5, 3.0, M, g, 3, seed=1)
    assert res.repetitions == 3 and res.priste_alpha["median"].shape == (5,)
    assert np.all(res.priste_leakage["high"] <= 0.5 * (1 + 1e-9))
    assert res.priste_mean_alpha <= 3.0 and res.plain_leakage["median"].max() > 0.5


def test_table2_tiny_compares_the_two_checks():
    from lmdk.experiments import charts as experiments_charts
    from lmdk.experiments import runner as ex

    df = ex.run_figure("priste-table2", repetitions=2, seed=1, configs=[{"alpha0": 1.0}])
    assert set(df["check"]) == {"any_prior", "fixed_prior"} and (df["repetitions"] == 2).all()
    exact, fixed = (df.set_index("check").loc[c] for c in ("any_prior", "fixed_prior"))
    assert exact["max_worst_leakage"] <= 1.0 + 1e-9 and exact["violations"] == 0
    assert fixed["max_checked_leakage"] <= 1.0 + 1e-9  # ε holds at the uniform prior…
    assert fixed["max_worst_leakage"] > 1.0 and fixed["violations"] > 0  # …but not for every prior
    assert fixed["mean_alpha"] > exact["mean_alpha"] > 0 and (df["runtime_s"] > 0).all()
    assert len(experiments_charts.figure_chart("priste-table2", df).data) > 0


def test_window_means_pairs_each_span_with_the_timestamps_outside_both_windows():
    from lmdk.experiments.priste_window import window_dip, window_means

    rows = [{"panel": "fig8", "epsilon": 1.0, "alpha0": 1.0, "repetition": r, "t": t,
             "alpha": (0.1 if 3 <= t <= 7 else 0.3) + 0.01 * r} for r in range(3) for t in range(25)]
    out = window_means(pd.DataFrame(rows)).set_index("span")
    assert out.loc["T=[4:8]", "alpha"] == pytest.approx(0.11)
    assert out.loc["outside both", "alpha"] == pytest.approx(0.31)
    assert out.loc["T=[4:8]", "minus_outside"] == pytest.approx(-0.2)
    assert out.loc["T=[4:8]", "minus_outside_ci_high"] == pytest.approx(-0.2)  # paired: the repetition offset cancels
    assert out.loc["T=[16:20]", "alpha"] == pytest.approx(0.31) and (out["repetitions"] == 3).all()
    fig9 = pd.DataFrame(rows).assign(panel="fig9", alpha=lambda d: d["alpha"] + 0.05)  # no dip, just higher
    dip = window_dip(window_means(pd.concat([pd.DataFrame(rows), fig9]))).set_index("span")
    assert dip.loc["T=[4:8]", "dip"] == pytest.approx(-0.05) and dip.loc["T=[16:20]", "dip"] == pytest.approx(0.05)
    assert dip.loc["T=[4:8]", "dip_ci_low"] < -0.05 < dip.loc["T=[4:8]", "dip_ci_high"] < 0


def test_cli_raw_writes_the_repetition_rows(tmp_path, monkeypatch):
    import dataclasses

    from lmdk.cli import experiments as command
    from lmdk.experiments import runner as ex

    one = dataclasses.replace(ex.FIGURES["priste-table2"], configs=lambda: [{"alpha0": 1.0}])
    monkeypatch.setitem(ex.FIGURES, "priste-table2", one)
    assert command.main(["priste-table2", "--repetitions", "2", "--raw", "--formats", "csv", "--quiet",
                    "--out", str(tmp_path)]) == 0
    raw = pd.read_csv(tmp_path / "priste-table2.raw.csv.gz")
    assert len(raw) == 4 and set(raw["repetition"]) == {0, 1} and (raw["cell_km"] == 0.1).all()
