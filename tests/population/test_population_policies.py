"""``lmdk population --policies``: each user under their own row (declared landmarks, ε, scheme), --config for the
others or "no policy", the officer's bounds, the statement and the ledger per user."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from population_support import fleet, read_released

from lmdk.cli import main
from lmdk.data import series as ds
from lmdk.landmarks import parse_rule

ICS = """BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//lmdk tests//EN\r\nBEGIN:VEVENT\r\nUID:call@lmdk\r\n\
DTSTART;TZID=America/New_York:20240102T090000\r\nDTEND;TZID=America/New_York:20240102T110000\r\n\
RRULE:FREQ=DAILY;COUNT=2\r\nSUMMARY:Call\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"""
USERS = [f"house-{i}" for i in range(5)]


def _files(tmp_path, rows: str) -> list[str]:
    """Meters (Berlin wall clock), a mapping with the zone, the rule files and the policy table; the common args."""
    fleet(users=5, n=96, ragged=False, ids=USERS).to_csv(tmp_path / "meters.csv", index=False)
    (tmp_path / "mapping.json").write_text(json.dumps({"time_column": "timestamp", "value_column": "value",
                                                       "entity_column": "user", "timezone": "Europe/Berlin"}))
    (tmp_path / "house-1.ics").write_text(ICS)
    (tmp_path / "house-2.txt").write_text("time\n2024-01-01 10:30\n2024-01-02T20:00/2024-01-02T23:00\n")
    (tmp_path / "policies.csv").write_text("user,landmarks,epsilon,scheme\n" + rows)
    return ["population", str(tmp_path / "meters.csv"), "--policies", str(tmp_path / "policies.csv"),
            "--mapping", str(tmp_path / "mapping.json"), "--range", "0", "25", "--quiet"]


ROWS = ("house-0,calendar:daily@18:00-22:00,1.0,adaptive\nhouse-1,ics:house-1.ics,0.5,skip\n"
        "house-2,times:house-2.txt,1.0,uniform\nhouse-3,none,5,adaptive\n")


def _expected_landmarks(rule: str) -> int:
    """|L| the rule gives one of the meters (their timestamps are shared)."""
    times = pd.date_range("2024-01-01", periods=96, freq="h", tz="Europe/Berlin")
    return len(parse_rule(rule).indices(ds.from_values(np.zeros(96), times)))


def test_each_user_is_released_under_their_own_row(tmp_path, capsys):
    args = _files(tmp_path, ROWS)
    out = tmp_path / "out"
    code = main(args + ["--out", str(out), "--max-epsilon", "2", "--ledger", str(tmp_path / "ledger.jsonl"),
                        "--dataset", "fleet"])
    err = capsys.readouterr().err
    assert code == 0
    assert "withheld user house-3: policy table row 4 (user house-3) is refused: epsilon 5 is over --max-epsilon 2" \
        in err
    summary = pd.read_parquet(out / "summary.parquet").set_index("user")
    assert summary.loc["house-1", ["scheme", "epsilon", "landmark_origin", "policy"]].tolist() == [
        "skip", 0.5, "declared", "policy table row 2"]
    assert summary.loc["house-0", "landmarks"] == _expected_landmarks("calendar:daily@18:00-22:00") == 16
    assert summary.loc["house-1", "landmarks"] == _expected_landmarks(f"ics:{tmp_path / 'house-1.ics'}") == 4
    assert summary.loc["house-2", "landmarks"] == _expected_landmarks(f"times:{tmp_path / 'house-2.txt'}") == 4
    assert summary.loc["house-3", "withheld"].startswith("refused: policy table row 4")
    assert summary.loc["house-4", "withheld"] == "no policy" and pd.isna(summary.loc["house-4", "epsilon"])
    assert summary.loc["house-0":"house-2", "theorem2_holds"].all()
    assert sorted(read_released(out / "released")["user"].unique()) == USERS[:3]
    note = pq.read_schema(out / "released" / "user=house-1" / "part-0.parquet").metadata[b"lmdk"].decode()
    assert "nominal ε = 0.5" in note and "house-1.ics" in note
    totals = json.loads((out / "aggregates.json").read_text())
    assert totals["users"] == 3 and totals["withheld_users"] == 2 and totals["scheme"] == "per user"
    assert [p["users"] for p in totals["policies"]] == [1, 1, 1]
    assert "ε = 0.5" in totals["policies"][1]["guarantee"]["protected"]
    entries = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert len(entries) == 1 and entries[0]["scheme"] == "per user"  # one reservation, each user's own ε
    assert entries[0]["charges"] == {"house-0": 1.0, "house-1": 0.5, "house-2": 1.0}  # the withheld: nothing


def test_config_covers_users_without_a_row_and_schemes_bound(tmp_path, capsys):
    args = _files(tmp_path, ROWS)
    (tmp_path / "default.json").write_text(json.dumps({"landmarks": "calendar:daily@01:00-06:00",
                                                       "scheme": "adaptive", "epsilon": 1.0}))
    code = main(args + ["--config", str(tmp_path / "default.json"), "--schemes", "adaptive,uniform",
                        "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 0 and "scheme 'skip' is not among --schemes adaptive,uniform" in err
    summary = pd.read_parquet(tmp_path / "out" / "summary.parquet").set_index("user")
    assert summary.loc["house-4", "policy"] == "--config" and summary.loc["house-3", "epsilon"] == 5.0
    assert summary.loc["house-1", "withheld"].endswith("scheme 'skip' is not among --schemes adaptive,uniform")


def test_refusals_and_exit_codes(tmp_path, capsys):
    args = _files(tmp_path, ROWS + "house-4,percentile:20,1,adaptive\n")
    assert main(args + ["--out", str(tmp_path / "a")]) == 3  # a rule that reads the values, not allowed
    assert "policy table row 5: refused: the landmark rule 'percentile:20'" in capsys.readouterr().err
    assert not (tmp_path / "a" / "released").exists()
    code = main(args + ["--out", str(tmp_path / "b"), "--allow-data-landmarks"])
    assert code == 0
    summary = pd.read_parquet(tmp_path / "b" / "summary.parquet").set_index("user")
    assert summary.loc["house-4", "landmark_origin"] == "unprotected"
    assert main(args + ["--out", str(tmp_path / "s"), "--landmark-epsilon", "0.5"]) == 0  # selected privately
    summary = pd.read_parquet(tmp_path / "s" / "summary.parquet").set_index("user")
    assert summary.loc["house-4", ["landmark_origin", "epsilon", "epsilon_total"]].tolist() == ["private", 1.0, 1.5]
    assert summary.loc["house-0", ["landmark_origin", "epsilon_total"]].tolist() == ["declared", 1.0]  # no ε_sel
    args = _files(tmp_path, ROWS + 'house-4,"place:52.5,13.4,200",1,adaptive\n')
    assert main(args + ["--out", str(tmp_path / "p"), "--allow-data-landmarks"]) == 2
    assert "policy table row 5: the landmark rule 'place:52.5,13.4,200' reads trajectory series" in \
        capsys.readouterr().err
    args = _files(tmp_path, "someone-else,none,1,adaptive\n")
    assert main(args + ["--out", str(tmp_path / "c")]) == 3  # every user withheld: nothing released
    assert "every user was withheld" in capsys.readouterr().err
    assert main(args[:2] + args[4:] + ["--out", str(tmp_path / "d")]) == 2  # neither --policies nor --config
    assert "--config FILE" in capsys.readouterr().err
    (tmp_path / "policies.csv").write_text("user,landmarks,epsilon,scheme\nhouse-0,none,-1,adaptive\n")
    assert main(args + ["--out", str(tmp_path / "e")]) == 2
    assert "policy table row 1 (user house-0), column 'epsilon'" in capsys.readouterr().err
