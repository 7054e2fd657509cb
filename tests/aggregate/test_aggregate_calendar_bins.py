"""Issue 55: calendar bins through one parser, the warning when noise swamps the answer, and outputs people script
(--seed, --json -, typed Parquet timestamps) — each on a small table made here."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk import cli
from lmdk.aggregate import build
from lmdk.errors import ParameterError

SUNDAYS = "calendar:sun@09:00-12:00"
EVERY_HOUR = "calendar:daily@00:00-23:59"


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def monthly(tmp_path: Path, users: int = 3, months: int = 6) -> Path:
    """A reading per user on the 15th of every month (noon, naive), as a long CSV."""
    days = pd.date_range("2024-01-01 12:00", periods=months, freq="MS") + pd.Timedelta(days=14)
    rows = pd.DataFrame({"user": np.repeat([f"u{i}" for i in range(users)], days.size),
                         "timestamp": np.tile(days.astype(str), users), "value": 1.0})
    path = tmp_path / "monthly.csv"
    rows.to_csv(path, index=False)
    return path


def aggregate(capsys, path, *extra):
    return run(capsys, "aggregate", path, "--statistic", "sum", "--range", 0, 5, "--landmarks", SUNDAYS,
               "--scheme", "skip", "--epsilon", 1, *extra)


@pytest.mark.parametrize(("spelling", "use"), [("1m", "1min"), ("1m", "1month"), ("1M", "1month"),
                                                ("MS", "1month"), ("1MS", "1month")])
def test_ambiguous_bin_spellings_are_refused_naming_the_one_to_use(tmp_path, capsys, spelling, use):
    code, _, err = aggregate(capsys, monthly(tmp_path), "--bin", spelling, "--out", tmp_path / "o.csv")
    assert code == 2, err
    assert "ambiguous" in err and use in err and "Traceback" not in err


def test_more_than_a_million_bins_is_a_clear_error(tmp_path, capsys):
    """Two years of monthly data in minute bins: 1,051,201 bins, refused before anything is allocated."""
    code, _, err = aggregate(capsys, monthly(tmp_path, months=25), "--bin", "1min", "--out", tmp_path / "o.csv")
    assert code == 2, err
    assert "1,000,000" in err and "wider bins" in err


def test_monthly_bins_start_on_the_first_and_the_statement_says_monthly_bins(tmp_path, capsys):
    out, summary = tmp_path / "o.csv", tmp_path / "s.json"
    code, _, err = aggregate(capsys, monthly(tmp_path), "--bin", "1month", "--out", out, "--json", summary)
    assert code == 0, err
    table = pd.read_csv(out, comment="#")
    assert [str(t)[:10] for t in table["timestamp"]] == [f"2024-{m:02d}-01" for m in range(1, 7)]
    text = out.read_text()
    assert "monthly bin" in text and "-minute bin" not in text
    data = json.loads(summary.read_text())
    assert data["n_events"] == 6 and "monthly bins" in data["guarantee"]


def test_quarters_and_years_are_calendar_bins():
    frame = pd.DataFrame({"user": ["a", "a", "b"], "value": [1.0, 2.0, 4.0],
                          "timestamp": pd.to_datetime(["2023-12-31 23:00", "2024-02-10 00:00", "2024-05-01 00:00"])})
    quarters = build(frame, "sum", value_range=(0, 5), bin="1quarter").series["all"]
    assert [str(t.date()) for t in quarters.index] == ["2023-10-01", "2024-01-01", "2024-04-01"]
    assert quarters.tolist() == [1.0, 2.0, 4.0]
    years = build(frame, "sum", value_range=(0, 5), bin="1year").series["all"]
    assert [str(t.date()) for t in years.index] == ["2023-01-01", "2024-01-01"] and years.tolist() == [1.0, 6.0]


def test_a_day_starts_at_local_midnight_and_lasts_23_hours_across_the_spring_clock_change():
    """Paris, 31 March 2024 (clocks go forward): 00:30 and 23:30 local are one day; a UTC day would split them."""
    local = pd.to_datetime(["2024-03-30 12:00", "2024-03-31 00:30", "2024-03-31 23:30", "2024-04-01 00:30"])
    frame = pd.DataFrame({"user": ["a", "a", "b", "b"], "value": [1.0, 1.0, 1.0, 1.0],
                          "timestamp": local.tz_localize("Europe/Paris")})
    agg = build(frame, "sum", value_range=(0, 5), bin="1d", tz="Europe/Paris")
    series = agg.to_series(tz="Europe/Paris")
    stamps = series.timestamps
    assert [str(t) for t in stamps] == ["2024-03-30 00:00:00+01:00", "2024-03-31 00:00:00+01:00",
                                        "2024-04-01 00:00:00+02:00"]
    assert series.values.tolist() == [1.0, 2.0, 1.0]
    assert stamps[2] - stamps[1] == pd.Timedelta(hours=23)


def test_weeks_start_on_monday():
    frame = pd.DataFrame({"user": ["a", "b"], "value": [1.0, 1.0],
                          "timestamp": pd.to_datetime(["2024-05-05 10:00", "2024-05-06 10:00"])})  # Sun, Mon
    weeks = build(frame, "sum", value_range=(0, 5), bin="1w").series["all"]
    assert [t.day_name() for t in weeks.index] == ["Monday", "Monday"]
    assert [str(t.date()) for t in weeks.index] == ["2024-04-29", "2024-05-06"]


def test_the_time_range_widens_outward_to_whole_calendar_months(tmp_path, capsys):
    summary = tmp_path / "s.json"
    code, _, err = aggregate(capsys, monthly(tmp_path), "--bin", "1month", "--time-range", "2024-01-20",
                             "2024-03-10", "--out", tmp_path / "o.csv", "--json", summary)
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert data["n_events"] == 3
    assert data["time_range"]["start"].startswith("2024-01-01") and data["time_range"]["end"].startswith("2024-04-01")


def test_one_parser_names_the_bins_in_words():
    from lmdk.data.bins import parse_bin

    assert parse_bin("30min").words() == "30-minute bins" and parse_bin("1d").words() == "daily bins"
    assert parse_bin("1month").words() == "monthly bins" and parse_bin("1quarter").text == "1quarter"
    with pytest.raises(ParameterError, match="1month"):
        parse_bin("MS")


def hourly(tmp_path: Path, users: int = 3) -> Path:
    stamps = pd.date_range("2024-01-01", periods=48, freq="1h")
    rows = pd.DataFrame({"user": np.repeat([f"u{i}" for i in range(users)], stamps.size),
                         "timestamp": np.tile(stamps.astype(str), users), "value": 0.5})
    path = tmp_path / "hourly.csv"
    rows.to_csv(path, index=False)
    return path


def test_noise_that_swamps_the_answer_is_said_with_the_fix_and_counted_in_the_json(tmp_path, capsys):
    summary = tmp_path / "s.json"
    code, _, err = run(capsys, "aggregate", hourly(tmp_path), "--statistic", "sum", "--range", 0, 1, "--landmarks",
                       EVERY_HOUR, "--scheme", "uniform", "--epsilon", 0.05, "--out", tmp_path / "o.csv",
                       "--json", summary)
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert data["clamped_share"] > 0.5
    swamped = [w for w in data["warnings"] if "swamps" in w]
    assert swamped and all(fix in swamped[0] for fix in ("fewer landmarks", "larger ε", "wider bins", "Skip"))
    assert "noise swamps the answer" in err


def test_a_comfortable_release_has_no_swamped_warning(tmp_path, capsys):
    summary = tmp_path / "s.json"
    code, _, err = run(capsys, "aggregate", hourly(tmp_path, users=50), "--statistic", "sum", "--range", 0, 1,
                       "--landmarks", SUNDAYS, "--scheme", "skip", "--epsilon", 1000, "--out", tmp_path / "o.csv",
                       "--json", summary)
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert data["clamped_share"] < 0.5 and not [w for w in data["warnings"] if "swamps" in w]


def test_lmdk_release_says_when_noise_swamps_the_answer(tmp_path, capsys):
    stamps = pd.date_range("2024-01-01", periods=48, freq="1h")
    path = tmp_path / "one.csv"
    pd.DataFrame({"timestamp": stamps.astype(str), "value": 0.5}).to_csv(path, index=False)
    summary = tmp_path / "s.json"
    code, _, err = run(capsys, "release", path, "--landmarks", EVERY_HOUR, "--scheme", "uniform", "--epsilon",
                       0.05, "--range", 0, 1, "--out", tmp_path / "o.csv", "--summary", summary)
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert "clamped_share" in data and any("swamps" in w for w in data["warnings"])
    assert "noise swamps the answer" in err


def test_seed_reproduces_a_demonstration_marked_inside_every_output(tmp_path, capsys):
    path = hourly(tmp_path)
    outs = []
    for i in range(2):
        out, summary = tmp_path / f"o{i}.csv", tmp_path / f"s{i}.json"
        code, _, err = run(capsys, "aggregate", path, "--statistic", "sum", "--range", 0, 1, "--landmarks", SUNDAYS,
                           "--scheme", "skip", "--epsilon", 1, "--seed", 7, "--out", out, "--json", summary)
        assert code == 0, err
        outs.append(out.read_text())
        assert "DEMONSTRATION ONLY" in out.read_text().splitlines()[0]
        assert "DEMONSTRATION ONLY" in json.loads(summary.read_text())["demonstration_only"]
        assert "fresh OS entropy" not in out.read_text()
    assert outs[0] == outs[1]
    parquet = tmp_path / "o.parquet"
    code, _, err = run(capsys, "aggregate", path, "--statistic", "sum", "--range", 0, 1, "--landmarks", SUNDAYS,
                       "--scheme", "skip", "--epsilon", 1, "--seed", 7, "--out", parquet)
    import pyarrow.parquet as pq

    assert code == 0, err and "DEMONSTRATION ONLY" in pq.read_schema(parquet).metadata[b"lmdk"].decode()


def test_seed_is_refused_with_a_ledger(tmp_path, capsys):
    code, _, err = run(capsys, "aggregate", hourly(tmp_path), "--statistic", "sum", "--range", 0, 1, "--landmarks",
                       SUNDAYS, "--scheme", "skip", "--epsilon", 1, "--seed", 7, "--ledger", tmp_path / "l.db",
                       "--out", tmp_path / "o.csv")
    assert code == 2 and "--seed" in err and "--ledger" in err
    assert not (tmp_path / "o.csv").exists()


def test_json_dash_writes_the_summary_to_standard_output_when_out_names_the_table(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "aggregate", hourly(tmp_path), "--statistic", "sum", "--range", 0, 1,
                         "--landmarks", SUNDAYS, "--scheme", "skip", "--epsilon", 1, "--out", "o.csv", "--json", "-")
    assert code == 0, err
    assert json.loads(out)["n_users"] == 3 and not (tmp_path / "-").exists()


def test_json_dash_without_out_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "aggregate", hourly(tmp_path), "--statistic", "sum", "--range", 0, 1,
                       "--landmarks", SUNDAYS, "--scheme", "skip", "--epsilon", 1, "--json", "-")
    assert code == 2 and "--out" in err and not (tmp_path / "-").exists()


def test_parquet_output_has_typed_zone_aware_timestamps(tmp_path, capsys):
    out = tmp_path / "o.parquet"
    code, _, err = aggregate(capsys, monthly(tmp_path), "--bin", "1d", "--tz", "Europe/Berlin", "--out", out)
    assert code == 0, err
    table = pd.read_parquet(out)
    assert isinstance(table["timestamp"].dtype, pd.DatetimeTZDtype)
    assert str(table["timestamp"].dt.tz) == "Europe/Berlin"
    assert table["timestamp"].iloc[0] == pd.Timestamp("2024-01-15", tz="Europe/Berlin")


def test_lmdk_plan_statistic_reads_bins_with_the_same_parser(tmp_path, capsys):
    path = monthly(tmp_path)
    code, _, err = run(capsys, "plan", path, "--statistic", "sum", "--range", 0, 5, "--landmarks", SUNDAYS,
                       "--target-relative-mae", 0.5, "--schemes", "skip", "--bin", "1M")
    assert code == 2 and "1month" in err and "ambiguous" in err
    summary = tmp_path / "plan.json"
    code, out, err = run(capsys, "plan", path, "--statistic", "sum", "--range", 0, 5, "--landmarks", SUNDAYS,
                         "--target-relative-mae", 0.5, "--schemes", "skip", "--bin", "1month", "--json", summary)
    assert code == 0, err
    assert "6 bins of 1month" in out + err  # six calendar months, not one 1-month-long Timedelta
