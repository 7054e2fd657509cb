"""Issue 55, "Columns by name", "Forgiving input, exact messages" and "A sample to try": tables with their own column
names, users without a usable value, errors on the file's line, one date order per column, counted warnings, and
``sample:district`` in ``lmdk aggregate``, ``lmdk population`` and ``lmdk plan --statistic`` — each on a small
table made here, as a new user would type it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from lmdk import cli

DECLARED = "calendar:sun@09:00-12:00"
RELEASE = ("--statistic", "sum", "--range", "0", "30", "--landmarks", DECLARED, "--scheme", "skip", "--epsilon", "1")


def run(capsys, *argv):
    """``lmdk ARGV`` in this process: (exit code, stdout, stderr)."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> Path:
    """``text`` written to ``path`` (a table made in the test)."""
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- columns by name
@pytest.mark.parametrize("user", ["symbol", "source", "industry", "cause", "site"])
def test_a_native_user_column_is_named_with_user_column(tmp_path, capsys, user):
    table = write(tmp_path / "t.csv", f"{user},date,close\nA,2024-01-01,10\nA,2024-01-02,11\n"
                                      "B,2024-01-01,20\nB,2024-01-02,21\nC,2024-01-01,5\nC,2024-01-02,6\n")
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--bin", "1d", "--out", tmp_path / "o.csv")
    assert code == 2 and "Traceback" not in err
    assert "--user-column" in err and "user_id" in err and "device" in err and "entity" in err  # the names tried
    assert repr(user) in err  # the file's columns
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--bin", "1d", "--user-column", user,
                       "--out", tmp_path / "o.csv", "--json", tmp_path / "o.json")
    assert code == 0, err
    assert json.loads((tmp_path / "o.json").read_text())["n_users"] == 3
    assert "readings from column 'close'" in err  # the value column named in the read line


def test_the_flags_override_the_mapping_files_keys(tmp_path, capsys):
    table = write(tmp_path / "t.csv", "site,when,harvest,rain\nx,2024-01-01,10,1\ny,2024-01-01,5,2\n"
                                      "z,2024-01-01,7,3\nx,2024-01-02,11,1\ny,2024-01-02,6,2\nz,2024-01-02,8,3\n")
    mapping = write(tmp_path / "m.json", json.dumps({"entity_column": "rain", "time_column": "when",
                                                     "value_column": "rain"}))
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--bin", "1d", "--mapping", mapping,
                       "--user-column", "site", "--value-column", "harvest", "--out", tmp_path / "o.csv",
                       "--json", tmp_path / "o.json")
    assert code == 0, err
    summary = json.loads((tmp_path / "o.json").read_text())
    assert summary["n_users"] == 3 and "'harvest'" in err


def test_integer_years_are_times_when_the_time_column_is_named(tmp_path, capsys):
    table = write(tmp_path / "harvest.csv", "site,year,harvest\nx,2001,10\nx,2002,11\nx,2003,12\n"
                                            "y,2001,5\ny,2002,6\ny,2003,7\n")
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--bin", "1year", "--user-column", "site",
                       "--time-column", "year", "--out", tmp_path / "o.csv")
    assert code == 0, err
    released = pd.read_csv(tmp_path / "o.csv", comment="#")
    assert [str(t)[:10] for t in released["timestamp"]] == ["2001-01-01", "2002-01-01", "2003-01-01"]


def test_integer_years_in_parquet_are_times_when_the_time_column_is_named(tmp_path, capsys):
    pd.DataFrame({"site": ["x", "x", "y", "y"], "year": [2001, 2002, 2001, 2002],
                  "harvest": [1.0, 2.0, 3.0, 4.0]}).to_parquet(tmp_path / "h.parquet", index=False)
    code, _, err = run(capsys, "aggregate", tmp_path / "h.parquet", *RELEASE, "--bin", "1year", "--user-column", "site",
                       "--time-column", "year", "--value-column", "harvest", "--out", tmp_path / "o.csv")
    assert code == 0, err
    released = pd.read_csv(tmp_path / "o.csv", comment="#")
    assert [str(t)[:10] for t in released["timestamp"]] == ["2001-01-01", "2002-01-01"]


@pytest.mark.parametrize(("cells", "time_format", "first"), [
    (("2024-01", "2024-02"), None, "2024-01-01"),
    (("45292", "45323"), "excel", "2024-01-01"),
    (("2020", "2021"), "year", "2020-01-01"),
])
def test_year_months_and_excel_dates_are_times(tmp_path, capsys, cells, time_format, first):
    rows = "".join(f"{u},{c},{v}\n" for u in "abc" for v, c in enumerate(cells, 1))
    table = write(tmp_path / "t.csv", "who,period,amount\n" + rows)
    mapping = {"entity_column": "who", "time_column": "period"} | ({"time_format": time_format} if time_format
                                                                  else {})
    path = write(tmp_path / "m.json", json.dumps(mapping))
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--bin", "1month", "--mapping", path,
                       "--out", tmp_path / "o.csv")
    assert code == 0, err
    assert str(pd.read_csv(tmp_path / "o.csv", comment="#")["timestamp"].iloc[0])[:10] == first


def test_plan_and_population_take_the_column_flags(tmp_path, capsys):
    table = write(tmp_path / "t.csv", "symbol,date,close\n" + "".join(
        f"{s},2024-01-{d:02d},{d}\n" for s in ("A", "B", "C") for d in range(1, 8)))
    code, out, err = run(capsys, "plan", table, "--statistic", "sum", "--range", "0", "30", "--landmarks", DECLARED,
                         "--target-relative-mae", "0.5", "--bin", "1d", "--user-column", "symbol")
    assert code == 0, err
    assert "over 3 users" in out
    policy = write(tmp_path / "p.json", json.dumps({"landmarks": DECLARED, "scheme": "skip", "epsilon": 1}))
    code, _, err = run(capsys, "population", table, "--config", policy, "--range", "0", "30",
                       "--user-column", "symbol", "--out", tmp_path / "pop", "--quiet")
    assert code == 0, err
    users = pd.read_parquet(tmp_path / "pop" / "summary.parquet")["user"].astype(str)
    assert sorted(users) == ["A", "B", "C"]


def test_the_mapping_keys_are_documented_in_the_cli_reference(capsys):
    with pytest.raises(SystemExit):
        cli.main(["aggregate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for key in ("entity_column", "time_column", "date_column", "value_column", "lat_column", "lon_column",
                "contact_column", "time_format", "year-month", "excel"):
        assert key in text, key


# --------------------------------------------------------------------------- forgiving input, exact messages
def test_a_user_without_any_value_is_kept_in_n_and_counted(tmp_path, capsys):
    table = write(tmp_path / "t.csv", "user,timestamp,value\na,2024-01-01 00:00,1\na,2024-01-01 01:00,2\n"
                                      "b,2024-01-01 00:00,\nb,2024-01-01 01:00,\nc,2024-01-01 00:00,3\n"
                                      "c,2024-01-01 01:00,4\n")
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--out", tmp_path / "o.csv", "--json", tmp_path / "o.json")
    assert code == 0, err
    summary = json.loads((tmp_path / "o.json").read_text())
    assert summary["n_users"] == 3 and summary["users_without_readings"] == 1
    assert any("no usable value" in w for w in summary["warnings"]) or "no usable value" in err


def test_the_library_keeps_a_user_without_a_value_in_n():
    from lmdk.aggregate import build

    frame = pd.DataFrame({"user": ["a", "a", "b", "b"], "timestamp": ["2024-01-01 00:00", "2024-01-01 01:00"] * 2,
                          "value": [1.0, 2.0, None, None]})
    agg = build(frame, "mean", value_range=(0, 30), bin="1h")
    assert agg.users == {"all": 2} and agg.users_without_readings == 1
    assert list(agg.series["all"]) == [0.5, 1.0]  # b contributes 0 to the sum, and counts in N


def test_an_error_names_the_files_line(tmp_path, capsys):
    table = write(tmp_path / "t.csv", "user,timestamp,value\na,2024-01-01 00:00,1\na,2024-01-01 01:00,2\n"
                                      "a,2024-01-01 02:00,2\nb,2024-01-01 00:00,1\nb,2024-01-01 01:00,1\n"
                                      "b,not a date,1\n")
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--out", tmp_path / "o.csv")
    assert code == 2
    assert "line 7" in err and "not a date" in err


def test_the_library_reads_one_date_order_per_column():
    from lmdk.population.input import open_source

    frame = pd.DataFrame({"user": ["a", "a", "b"], "timestamp": ["01/02/2024", "13/02/2024", "02/02/2024"],
                          "value": [1.0, 2.0, 3.0]})
    times = next(open_source(frame).chunks(100))["timestamp"]
    assert [t.month for t in times] == [2, 2, 2]  # 13/02 makes the column day first: 01/02 is 1 February


def test_averaged_rows_and_empty_values_are_counted_warnings(tmp_path, capsys):
    table = write(tmp_path / "t.csv", "user,timestamp,kwh,temp\na,2024-01-01 00:00,1,5\na,2024-01-01 00:00,3,5\n"
                                      "a,2024-01-01 01:00,,5\nb,2024-01-01 00:00,1,6\nb,2024-01-01 01:00,2,7\n")
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--out", tmp_path / "o.csv")
    assert code == 0, err
    assert "1 rows repeated a timestamp of their user and were averaged" in err
    assert "1 rows had no value and were left out" in err
    assert "readings from column 'kwh'" in err


def test_an_empty_group_is_refused_naming_its_lines(tmp_path, capsys):
    table = write(tmp_path / "t.csv", "user,timestamp,value,feeder\na,2024-01-01 00:00,1,n\na,2024-01-01 01:00,2,n\n"
                                      "b,2024-01-01 00:00,1,\nb,2024-01-01 01:00,1,\nc,2024-01-01 00:00,1,s\n")
    code, _, err = run(capsys, "aggregate", table, *RELEASE, "--by", "feeder", "--out", tmp_path / "o.csv")
    assert code == 2
    assert "empty group" in err and "line 4" in err and "line 5" in err


def test_no_raw_library_warning_reaches_the_terminal(tmp_path):
    frame = pd.DataFrame({"user": ["a", "a", "b", "b"],
                          "timestamp": ["2024-03-31T01:00:00+01:00", "2024-03-31T03:00:00+02:00",
                                        "2024-03-31T01:00:00+01:00", "2024-03-31T04:00:00+02:00"],
                          "value": [1.0, 2.0, 3.0, 4.0]})
    frame.to_parquet(tmp_path / "zones.parquet", index=False)
    done = subprocess.run([sys.executable, "-W", "always", "-m", "lmdk", "aggregate", str(tmp_path / "zones.parquet"),
                           *RELEASE, "--out", str(tmp_path / "o.csv")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "Traceback" not in done.stderr


# --------------------------------------------------------------------------- a sample to try
def test_sample_district_is_100_homes_of_8760_hours_from_a_fixed_seed():
    from lmdk.data.district import district_sample, district_table

    table = district_sample()
    assert table["user"].nunique() == 100 and len(table) == 100 * 8760
    assert table["value"].between(0, 25).all() and table.groupby("feeder")["user"].nunique().tolist() == [25] * 4
    assert district_table(homes=3, hours=48).equals(district_table(homes=3, hours=48))


def test_sample_district_works_in_aggregate_plan_and_population(tmp_path, capsys):
    code, _, err = run(capsys, "aggregate", "sample:district", "--statistic", "sum", "--bin", "1d", "--by", "feeder",
                       "--range", "0", "25", "--landmarks", DECLARED, "--scheme", "skip", "--epsilon", "1",
                       "--out", tmp_path / "d.csv", "--json", tmp_path / "d.json")
    assert code == 0, err
    summary = json.loads((tmp_path / "d.json").read_text())
    assert sorted(summary["groups"]) == ["east", "north", "south", "west"] if "groups" in summary else True
    assert "100 users, 4 group(s), 365 bins of 1d" in err
    code, out, err = run(capsys, "plan", "sample:district", "--statistic", "sum", "--range", "0", "25", "--bin", "1d",
                         "--landmarks", DECLARED, "--target-relative-mae", "0.05")
    assert code == 0, err
    assert "over 100 users" in out
    policy = write(tmp_path / "p.json", json.dumps({"landmarks": DECLARED, "scheme": "skip", "epsilon": 1}))
    code, _, err = run(capsys, "population", "sample:district", "--config", policy, "--range", "0", "25",
                       "--out", tmp_path / "pop", "--quiet")
    assert code == 0, err
    assert pd.read_parquet(tmp_path / "pop" / "summary.parquet")["user"].nunique() == 100


def test_the_readme_aggregate_example_uses_sample_district():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "lmdk aggregate sample:district" in readme
