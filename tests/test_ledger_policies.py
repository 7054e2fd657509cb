"""``lmdk population --policies`` with ``--ledger``/``--cap``: each user charged their own row's total ε, users the
table withholds never charged, the cap's withheld users in the same ``withheld`` column, and the exit codes."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk.cli import main
from lmdk.policies.assign import Assignment, charges
from lmdk.population import Policy


@pytest.fixture
def run(tmp_path, capsys):
    """Run ``lmdk population --policies`` on a day of the given users against one SQLite ledger; (code, stderr)."""
    (tmp_path / "policies.csv").write_text("user,landmarks,epsilon,scheme\nalice,calendar:daily@18:00-22:00,0.5,"
                                           "adaptive\nbob,calendar:daily@18:00-22:00,1.0,uniform\n")
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    rng = np.random.default_rng(7)

    def go(name: str, users: list[str]) -> tuple[int, str]:
        times = pd.date_range("2026-01-01", periods=24, freq="h").astype(str)
        table = pd.concat([pd.DataFrame({"user": u, "timestamp": times, "value": rng.uniform(0, 5, 24)})
                           for u in users])
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        capsys.readouterr()
        code = main(["population", str(tmp_path / f"{name}.csv"), "--policies", str(tmp_path / "policies.csv"),
                     "--out", str(tmp_path / name), "--range", "0", "25", "--quiet", "--ledger", url,
                     "--dataset", "meters-2026", "--cap", "2"])
        return code, capsys.readouterr().err

    go.url = url  # type: ignore[attr-defined]
    return go


def _by_user(url: str, capsys) -> dict:
    assert main(["ledger", url, "--by", "user", "--dataset", "meters-2026"]) == 0
    return {u: (v["epsilon_basic"], v["remaining"]) for u, v in json.loads(capsys.readouterr().out)["by_user"].items()}


def test_each_user_spends_their_own_epsilon_and_the_cap_withholds_only_the_one_past_it(tmp_path, run, capsys):
    assert run("d1", ["alice", "bob", "carol"])[0] == 0  # carol has no row: withheld, never charged
    assert run("d2", ["alice", "bob", "carol"])[0] == 0
    assert _by_user(run.url, capsys) == {"alice": (1.0, 1.0), "bob": (2.0, 0.0)}
    code, err = run("d3", ["alice", "bob", "carol"])
    assert code == 0 and "withheld 1 users" in err  # bob would pass the cap (2 + 1 > 2); alice has 1 left
    summary = pd.read_parquet(tmp_path / "d3" / "summary.parquet").set_index("user")
    assert summary.loc["alice", "withheld"] is None and summary.loc["carol", "withheld"] == "no policy"
    assert "cap ε = 2" in summary.loc["bob", "withheld"] and "ε asked 1" in summary.loc["bob", "withheld"]
    assert {p.name for p in (tmp_path / "d3" / "released").iterdir()} == {"user=alice"}
    totals = json.loads((tmp_path / "d3" / "aggregates.json").read_text())
    assert totals["users"] == 1 and totals["withheld_users"] == 2 and totals["withheld"]["no policy"] == 1
    assert _by_user(run.url, capsys) == {"alice": (1.5, 0.5), "bob": (2.0, 0.0)}


def test_every_user_withheld_exits_4_by_the_cap_else_3(run, capsys):
    assert run("d1", ["bob"])[0] == 0
    assert run("d2", ["bob"])[0] == 0
    code, err = run("d3", ["bob", "carol"])  # bob by the cap, carol by the table
    assert code == 4 and "no user released" in err
    assert run("d4", ["carol"])[0] == 3  # the table alone withheld everyone: nothing reserved
    assert _by_user(run.url, capsys) == {"bob": (2.0, 0.0)}


def test_charges_are_each_users_own_total_epsilon_with_the_selection():
    plain = Policy(landmarks="calendar:daily@18:00-22:00", scheme="adaptive", epsilon=1.0)
    selected = Policy(landmarks="percentile:20", scheme="adaptive", epsilon=0.5, landmark_epsilon=0.25)
    plan = Assignment(variants=(plain, selected), origins=("row 1", "row 2"),
                      by_user={"a": 0, "b": 1, "c": "no policy"}, fallback="no policy")
    assert charges(plan, ["a", "b", "c", "d", 3.0]) == {"a": 1.0, "b": 0.75}
