"""PriSTE scale: the calibration depends only on α·cell size (issue 16), and the figures record their cell size."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

from lmdk.cli import experiments as command
from lmdk.experiments import runner as ex
from lmdk.experiments.priste_drivers import paper_event, synthetic_setup
from lmdk.priste import release


@pytest.mark.parametrize("alpha_cell", [0.1, 0.5, 2.0])
def test_calibrated_alpha_times_cell_is_the_same_at_100_m_and_250_m(alpha_cell):
    """Same α₀·cell and seed ⇒ same released cells, halvings and calibrated α·cell; distances scale with the cell."""
    out = {}
    for cell_km in (0.1, 0.25):
        s = synthetic_setup(8, 8, cell_size_m=cell_km * 1000.0, length=12, rng=3)
        ev = paper_event("presence", 1, 10, 4, 8, s.grid.m)
        out[cell_km] = release(s.trajectory, ev, 0.5, alpha_cell / cell_km, s.M, s.grid, rng=11)
    a, b = out[0.1], out[0.25]
    assert np.array_equal(a.true_cells, b.true_cells) and np.array_equal(a.released_cells, b.released_cells)
    assert np.array_equal(a.halvings, b.halvings) and a.halvings.sum() > 0  # calibration did something
    np.testing.assert_allclose(a.alpha * 0.1, b.alpha * 0.25, rtol=1e-12)
    np.testing.assert_allclose(a.distance_m / 0.1, b.distance_m / 0.25, rtol=1e-12)
    np.testing.assert_allclose(a.leakage, b.leakage, rtol=1e-9, atol=1e-12)


def test_figures_take_the_cell_size_as_a_parameter_and_record_it(tmp_path):
    few = [{"alpha0": 1.0}]
    small = ex.run_figure("priste-table2", repetitions=2, seed=1, configs=few)
    big = ex.run_figure("priste-table2", repetitions=2, seed=1, configs=few, parameters={"cell_km": 1.0})
    assert (small["cell_km"] == 0.1).all() and (big["cell_km"] == 1.0).all()
    assert list(small.columns[:2]) == ["cell_km", "alpha0"]
    exact = {c: d.set_index("check").loc["any_prior"] for c, d in ((0.1, small), (1.0, big))}
    assert exact[0.1]["mean_alpha"] > 5 * exact[1.0]["mean_alpha"]  # 1/km on 100 m cells is calibrated less
    with pytest.raises(ValueError, match="no parameter"):
        ex.run_figure("fig10", repetitions=1, parameters={"cell_km": 1.0})
    spec = ex.FIGURES["priste-runtime"]
    assert spec.with_parameters({"cell_km": 2.0}) == {"cell_km": 2.0} and spec.config_keys()[0] == "cell_km"


def test_cli_cell_km_is_recorded_in_the_json(tmp_path, monkeypatch):
    one = dataclasses.replace(ex.FIGURES["priste-runtime"], configs=lambda: [{"vary": "width", "size": 5}])
    monkeypatch.setitem(ex.FIGURES, "priste-runtime", one)
    assert command.main(["priste-runtime", "--repetitions", "1", "--cell-km", "0.25", "--formats", "csv", "--quiet",
                    "--out", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "priste-runtime.json").read_text())
    assert meta["cell_km"] == 0.25 and meta["alpha_unit"] == "per km"
    assert (pd.read_csv(tmp_path / "priste-runtime.csv")["cell_km"] == 0.25).all()


@pytest.mark.parametrize("argv, message", [
    (["fig7", "--cell-km", "1"], "--cell-km applies to the PriSTE figures only"),
    (["priste-budget", "--cell-km", "0"], "--cell-km must be a finite number > 0"),
])
def test_cli_rejects_a_bad_cell_km(argv, message, capsys):
    with pytest.raises(SystemExit):
        command.main(argv)
    assert message in capsys.readouterr().err
