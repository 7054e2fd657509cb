"""``lmdk population`` on a small file: outputs, progress and summary, refusals and their exit codes."""
from __future__ import annotations

import json

import pandas as pd
from population_support import fleet, read_released

from lmdk.cli import main


def _files(tmp_path, scheme="adaptive"):
    """A small CSV long table and a policy file."""
    table = fleet(users=6, n=48, ids=[f"house-{i}" for i in range(6)])
    table.to_csv(tmp_path / "meters.csv", index=False)
    (tmp_path / "policy.json").write_text(json.dumps({"landmarks": "percentile:25", "scheme": scheme, "epsilon": 1}))
    return table


def test_population_command_releases_and_summarises(tmp_path, capsys):
    table = _files(tmp_path)
    out = tmp_path / "out"
    code = main(["population", str(tmp_path / "meters.csv"), "--config", str(tmp_path / "policy.json"),
                 "--out", str(out), "--bound", "20", "--allow-data-landmarks"])
    err = capsys.readouterr().err
    assert code == 0
    assert "6 users" in err and "events/s" in err and "Theorem 2 violated for 0 users" in err
    released = read_released(out / "released")
    assert sorted(released["user"].unique()) == sorted(table["user"].unique())
    assert len(released) == len(table) and set(released.columns) == {"user", "timestamp", "released"}
    assert (released["released"].abs() <= 20).all()  # the snapping sampler clamps to the public bound
    summary = pd.read_parquet(out / "summary.parquet")
    assert list(summary["user"]) == sorted(table["user"].unique())
    assert json.loads((out / "aggregates.json").read_text())["users"] == 6


def test_population_command_refusals(tmp_path, capsys):
    _files(tmp_path, scheme="event")
    args = ["population", str(tmp_path / "meters.csv"), "--config", str(tmp_path / "policy.json"), "--quiet"]
    assert main(args + ["--out", str(tmp_path / "a")]) == 2  # an export without --bound
    assert "needs what ε protects" in capsys.readouterr().err
    assert main(args + ["--out", str(tmp_path / "b"), "--seed", "1"]) == 3  # event violates Theorem 2
    assert "refused" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()  # a refused run writes nothing computed from the data (issue 52)
    assert main(args + ["--out", str(tmp_path / "c"), "--seed", "1", "--allow-violation"]) == 0
    assert main(args + ["--out", str(tmp_path / "c"), "--seed", "1", "--allow-violation"]) == 2  # not over a release
    assert "already holds files" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"landmarks": "percentile:25", "scheme": "adaptive"}')
    assert main(["population", str(tmp_path / "meters.csv"), "--config", str(bad), "--out", str(tmp_path / "d")]) == 2
    assert "missing field(s) ['epsilon']" in capsys.readouterr().err
