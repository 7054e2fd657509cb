"""``lmdk plan``: the table, the JSON interface {scheme: {epsilon, achieved_mae, ci95, feasible}}, errors (exit 2)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import lmdk
from lmdk import cli, plan, relation
from lmdk.exports.runconfig import RunConfig

BASE = ("plan", "sample:hue", "--landmarks", "percentile:20", "--range", "0", "25")


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_prints_a_table_and_writes_the_json_interface(capsys, tmp_path):
    path = tmp_path / "plan.json"
    code, out, err = run(capsys, *BASE, "--target-mae", "0.5", "--w", "24", "--json", str(path))
    assert code == cli.EXIT_OK, err
    lines = out.splitlines()
    assert lines[0].startswith("target: a mean absolute error of at most 0.5 kWh over all hours; what ε protects: "
                               "range [0, 25] kWh (Δ = 25)")
    assert lines[1].split()[:3] == ["scheme", "ε", "needed"]
    assert [line.split()[0] for line in lines[2:8]] == list(plan.PLAN_SCHEMES)
    assert all(" ± " in line for line in lines[2:8])
    data = json.loads(path.read_text())
    assert list(data) == list(plan.PLAN_SCHEMES)
    for entry in data.values():
        assert list(entry) == ["epsilon", "achieved_mae", "ci95", "feasible"] and entry["feasible"] is True
        assert entry["ci95"][0] <= entry["achieved_mae"] <= entry["ci95"][1]
        assert abs(entry["achieved_mae"] - 0.5) <= plan.TOLERANCE * 0.5
    # the same numbers as the Python API with the same seed (0) and the same relation
    series = lmdk.sample("hue")
    L = lmdk.landmarks.parse_rule("percentile:20").indices(series)
    api = plan.plan(series.values, L, plan.Target(0.5), protects=relation.public_range(0, 25, "kWh"), w=24, rng=0)
    assert data == json.loads(json.dumps(api.to_json()))


def test_an_infeasible_scheme_is_reported_not_given_a_number(capsys, tmp_path):
    path = tmp_path / "plan.json"
    code, out, err = run(capsys, *BASE, "--target-mae", "0.05", "--at", "landmarks", "--schemes", "skip,uniform",
                         "--json", str(path))
    assert code == cli.EXIT_OK, err
    data = json.loads(path.read_text())
    assert data["skip"]["feasible"] is False and data["skip"]["epsilon"] is None
    assert data["uniform"]["feasible"] is True and data["uniform"]["epsilon"] > 0
    assert "infeasible" in out and "floor" in out


def test_within_probability_and_tradeoff(capsys):
    code, out, err = run(capsys, *BASE, "--within", "1", "--probability", "0.9", "--schemes", "event,skip",
                         "--tradeoff", "25,5,1")
    assert code == cli.EXIT_OK, err
    assert "an error within ±1 kWh with probability 90 % over all hours" in out
    assert "share within ±1" in out
    rows = {line.split()[0]: line.split() for line in out.split("ε ∝ Δ):")[1].strip().splitlines()[1:]}
    assert float(rows["1"][1]) == pytest.approx(float(rows["25"][2]) / 25, rel=0.01)  # "25 (current) ε …"


def test_the_target_comes_from_a_runconfig(capsys, tmp_path):
    series = lmdk.sample("hue")
    L = lmdk.landmarks.by_percentile(series.values, 0.2)
    cfg = RunConfig(data="sample:hue", events=len(series), landmarks=tuple(int(i) for i in L), schemes=("uniform",),
                    mechanism="laplace", epsilon=1.0, w=10, relation={"kind": "range", "low": 0, "high": 25},
                    target={"error": 0.4, "at": "regular"})
    path = tmp_path / "runconfig.json"
    path.write_text(cfg.to_json())
    code, out, err = run(capsys, "plan", "sample:hue", "--config", str(path), "--schemes", "uniform")
    assert code == cli.EXIT_OK, err
    assert out.startswith("target: a mean absolute error of at most 0.4 kWh at the regular hours")
    assert "Δ = 25" in out


def test_without_a_relation_the_plan_uses_delta_one_and_says_so(capsys):
    code, out, err = run(capsys, "plan", "sample:hue", "--landmarks", "percentile:20", "--target-mae", "0.5",
                         "--schemes", "event")
    assert code == cli.EXIT_OK
    assert "Δ = 1" in err and out.splitlines()[2].split()[1] == "2"  # ε = Δ/x = 1/0.5


@pytest.mark.parametrize("argv, words", [
    ((), "no target: pass --target-mae"),
    (("--within", "1"), "--within X needs --probability P"),
    (("--target-mae", "1", "--within", "1", "--probability", "0.9"), "either --target-mae"),
    (("--within", "1", "--probability", "1.5"), "probability"),
    (("--target-mae", "1", "--tradeoff", "a,b"), "--tradeoff"),
    (("--target-mae", "1", "--schemes", "nope"), "schemes"),
    (("--target-mae", "1", "--repetitions", "1"), "repetitions"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *BASE, *argv)
    assert code == cli.EXIT_INPUT
    assert words in err and len(err.strip().splitlines()) == 1


def test_help_has_examples(capsys):
    with pytest.raises(SystemExit):
        cli.main(["plan", "--help"])
    out = capsys.readouterr().out
    assert "--target-mae" in out and "lmdk plan sample:hue" in out and '"feasible"' in out
    assert np.isfinite(plan.EPSILON_MAX)


def test_dummy_landmarks_are_planned_through_the_release_itself(capsys, tmp_path):
    path = tmp_path / "plan.json"
    code, out, err = run(capsys, *BASE, "--target-mae", "1", "--schemes", "skip", "--dummies", "random",
                         "--json", str(path))
    assert code == cli.EXIT_OK, err
    entry = json.loads(path.read_text())["skip"]
    assert entry["feasible"] and entry["ci95"][0] <= entry["achieved_mae"] <= entry["ci95"][1]
    assert entry["ci95"][0] - 0.1 <= 1.0 <= entry["ci95"][1] + 0.1  # dummy sets vary: the interval says how much
