"""One key per person in ``lmdk aggregate`` (issue 52): the same household written ``7`` and ``7.0`` in one table
is one user — N counts keys, the household contributes one reading per bin (so one person moves a bin by at most Δ),
and its group is one membership — as the policies, the population and the ledger already read it."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from lmdk import cli
from lmdk.aggregate.build import build
from lmdk.aggregate.inputs import group_pairs
from lmdk.errors import DataError

TIMES = [f"2026-01-01 {h:02d}:00:00" for h in range(6)]


def table(path, users: dict[str, str], value: float = 4.0):
    """A long CSV table: each of ``users`` ({id as written: district}) one reading of ``value`` every hour."""
    rows = [(user, t, value, district) for user, district in users.items() for t in TIMES]
    pd.DataFrame(rows, columns=["user", "timestamp", "value", "district"]).to_csv(path, index=False)
    return path


def test_7_and_7_0_in_one_table_are_one_user(tmp_path):
    path = table(tmp_path / "t.csv", {"7": "north", "7.0": "north", "8": "north"})
    agg = build(str(path), "sum", value_range=(0, 5))
    assert agg.users == {"all": 2}  # before: 3, household 7 counted twice
    assert agg.series["all"].tolist() == [8.0] * len(TIMES)  # before: 12 — household 7 moved each bin by 2Δ
    mean = build(str(path), "mean", value_range=(0, 5))
    assert mean.series["all"].tolist() == [4.0] * len(TIMES)


def test_the_cli_counts_keys_in_n_users_and_per_group(tmp_path, capsys):
    path = table(tmp_path / "t.csv", {"7": "north", "7.0": "north", "8": "south", " 8 ": "south", "9": "south"})
    summary = tmp_path / "s.json"
    code = cli.main(["aggregate", str(path), "--statistic", "sum", "--range", "0", "5", "--epsilon", "1",
                     "--landmarks", "calendar:daily@01:00-02:00", "--scheme", "uniform", "--by", "district",
                     "--json", str(summary),
                     "--out", str(tmp_path / "out.csv")])
    assert code == 0, capsys.readouterr().err
    groups = json.loads(summary.read_text())["groups"]
    assert {g: s["n_users"] for g, s in groups.items()} == {"north": 1, "south": 2}


def test_one_user_written_two_ways_in_two_groups_is_refused_naming_it(tmp_path):
    path = table(tmp_path / "t.csv", {"7": "north", "7.0": "south", "8": "south"})
    with pytest.raises(DataError, match="exactly one group"):
        build(str(path), "sum", value_range=(0, 5), groups=group_pairs(path, "district"))


def test_a_ledger_charges_one_key_and_the_release_counts_it_once(tmp_path, capsys):
    path = table(tmp_path / "t.csv", {"7": "north", "7.0": "north", "8": "north"})
    ledger = tmp_path / "ledger.jsonl"
    summary = tmp_path / "s.json"
    code = cli.main(["aggregate", str(path), "--statistic", "sum", "--range", "0", "5", "--epsilon", "1",
                     "--landmarks", "calendar:daily@01:00-02:00", "--scheme", "uniform", "--json", str(summary),
                     "--ledger", str(ledger),
                     "--dataset", "meters", "--out", str(tmp_path / "out.csv")])
    assert code == 0, capsys.readouterr().err
    entry = json.loads(ledger.read_text().splitlines()[0])
    assert entry["charges"] == {"7": 1.0, "8": 1.0}
    assert json.loads(summary.read_text())["n_users"] == 2


def test_the_apps_statistic_over_an_upload_counts_keys(tmp_path):
    from lmdk.aggregate.upload import UploadStatistic, choose
    from lmdk.data import mapping as mp

    raw = table(tmp_path / "t.csv", {"7": "north", "7.0": "north", "8": "north"}).read_bytes()
    chosen = choose(raw, "t.csv", mp.detect_bytes(raw, "t.csv").spec, UploadStatistic(statistic="sum", low=0, high=5))
    assert chosen.users == 2
