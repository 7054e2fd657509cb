"""``lmdk aggregate`` (issue 36): the flags and JSON keys as the issue spells them, exit codes, real contacts."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk import cli

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "realworld"
SCHOOL = REALWORLD / "sociopatterns_primaryschool.csv"
LUNCH = "calendar:daily@12:00-14:00"
SUNDAYS = "calendar:sun@09:00-12:00"
KEYS = {"statistic", "scheme", "epsilon", "n_users", "n_events", "landmarks", "landmark_kind", "sensitivity", "range",
        "theorem2", "mae", "relative_mae", "guarantee", "landmark_clock", "dropped_rows", "time_range", "outside_rows",
        "clamped_share", "users_without_readings",
        "warnings"}


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def meters(tmp_path_factory) -> Path:
    """200 homes × 4 weeks of hourly readings in two districts, as a Parquet long table."""
    rng = np.random.default_rng(1)
    times = pd.date_range("2024-01-01", periods=24 * 28, freq="1h")
    frames = [pd.DataFrame({"user": u, "timestamp": times, "value": rng.gamma(2, 0.5, times.size),
                            "district": "north" if u % 2 else "south"}) for u in range(200)]
    path = tmp_path_factory.mktemp("meters") / "meters.parquet"
    pd.concat(frames, ignore_index=True).to_parquet(path, index=False)
    return path


def test_sum_writes_the_released_series_with_its_statement_and_the_json_summary(meters, tmp_path, capsys):
    out, summary = tmp_path / "r.csv", tmp_path / "r.json"
    code, _, err = run(capsys, "aggregate", meters, "--statistic", "sum", "--bin", "1h", "--range", 0, 25,
                       "--landmarks", SUNDAYS, "--scheme", "skip", "--epsilon", 1, "--out", out, "--json", summary,
                       "--who", "household", "--units", "kWh")
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert set(data) == KEYS
    assert (data["statistic"], data["scheme"], data["epsilon"], data["n_users"]) == ("sum", "skip", 1.0, 200)
    assert data["n_events"] == 24 * 28 and data["landmarks"] == 4 * 3 and data["landmark_kind"] == "declared"
    assert data["sensitivity"] == 25.0 and data["range"] == [0, 5000]
    assert data["theorem2"] == {"satisfied": True, "worst_sum": pytest.approx(1.0)}
    lines = out.read_text().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    assert any("any one household's readings at every landmark hour (12) and any one other hour, each anywhere "
               "between 0 and 25 kWh, at ε = 1" in line for line in comments)
    assert any("Landmarks: declared (calendar)" in line for line in comments)
    table = pd.read_csv(out, comment="#")
    assert list(table.columns) == ["timestamp", "released"] and len(table) == 24 * 28
    truth = pd.read_parquet(meters).assign(value=lambda f: f["value"].clip(0, 25)).groupby("timestamp")["value"].sum()
    mae = float(np.mean(np.abs(table["released"].to_numpy() - truth.to_numpy())))
    assert data["mae"] == pytest.approx(mae)
    assert data["relative_mae"] == pytest.approx(mae / float(np.mean(np.abs(truth))))  # never a mean of ratios


def test_by_a_column_releases_every_group_and_summarises_each(meters, tmp_path, capsys):
    out, summary = tmp_path / "g.parquet", tmp_path / "g.json"
    ledger = tmp_path / "ledger.jsonl"
    code, _, err = run(capsys, "aggregate", meters, "--statistic", "mean", "--by", "district", "--range", 0, 25,
                       "--landmarks", SUNDAYS, "--scheme", "adaptive", "--epsilon", 1, "--out", out, "--json", summary,
                       "--ledger", ledger, "--dataset", "meters")
    assert code == 0, err
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert len(entries) == 1 and entries[0]["epsilon"] == 1.0 and entries[0]["users"] == 200  # parallel groups
    groups = json.loads(summary.read_text())["groups"]
    assert set(groups) == {"north", "south"}
    assert all(set(g) == KEYS and g["n_users"] == 100 for g in groups.values())
    assert groups["north"]["sensitivity"] == pytest.approx(0.25) and groups["north"]["range"] == [0, 25]
    assert "compose in parallel" in groups["north"]["guarantee"]
    table = pd.read_parquet(out)
    assert list(table.columns) == ["timestamp", "group", "released"] and len(table) == 2 * 24 * 28


@pytest.mark.parametrize(("argv", "message"), [
    (["--statistic", "sum"], "--range LOW HIGH"),
    (["--statistic", "count", "--range", "0", "1"], "does not apply to a count"),
    (["--statistic", "sum", "--range", "0", "25", "--by", "nowhere"], "--by 'nowhere'"),
    (["--statistic", "sum", "--range", "0", "25", "--bin", "soon"], "bin 'soon'"),
    (["--statistic", "sum", "--range", "0", "25", "--tz", "Mars/Olympus"], "time zone"),
])
def test_bad_input_is_one_line_and_exit_2(meters, capsys, argv, message):
    code, _, err = run(capsys, "aggregate", meters, *argv, "--landmarks", SUNDAYS, "--scheme", "skip", "--epsilon", 1,
                       "--quiet")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_data_derived_rule_is_refused_unless_allowed_and_then_stated(meters, tmp_path, capsys):
    args = ["aggregate", meters, "--statistic", "sum", "--range", 0, 25, "--landmarks", "percentile:10", "--scheme",
            "skip", "--epsilon", 1, "--quiet"]
    code, _, err = run(capsys, *args)
    assert code == 3 and "calendar:" in err
    summary = tmp_path / "d.json"
    code, out, _ = run(capsys, *args, "--allow-data-landmarks", "--json", summary)
    assert code == 0 and "the landmark set came from the data" in out
    assert json.loads(summary.read_text())["landmark_kind"] == "data"


def test_a_scheme_that_violates_theorem2_is_refused(meters, capsys):
    code, _, err = run(capsys, "aggregate", meters, "--statistic", "sum", "--range", 0, 25, "--landmarks", SUNDAYS,
                       "--scheme", "event", "--epsilon", 1, "--quiet")
    assert code == 3 and "violates" in err


def test_tz_keeps_the_repeated_autumn_hour_as_two_bins(tmp_path, capsys):
    """A naive local-time export across the autumn clock change: with --tz the repeated 02:00 is two bins."""
    wall = pd.date_range("2024-10-27 00:00", "2024-10-27 05:00", freq="1h")
    wall = wall.insert(3, pd.Timestamp("2024-10-27 02:00"))  # 00, 01, 02 (CEST), 02 (CET), 03, 04, 05
    rows = pd.DataFrame({"user": np.repeat(["a", "b"], wall.size), "timestamp": np.tile(wall.astype(str), 2),
                         "value": 1.0})
    path = tmp_path / "autumn.csv"
    rows.to_csv(path, index=False)
    out, summary = tmp_path / "out.csv", tmp_path / "s.json"
    code, _, err = run(capsys, "aggregate", path, "--statistic", "sum", "--range", 0, 25, "--landmarks",
                       "calendar:daily@02:00-03:00", "--scheme", "uniform", "--epsilon", 1, "--tz", "Europe/Berlin",
                       "--out", out, "--json", summary, "--quiet")
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert data["n_events"] == 7 and data["landmarks"] == 2  # both 02:00 hours are landmarks, by the wall clock
    stamps = pd.read_csv(out, comment="#")["timestamp"].tolist()
    assert "2024-10-27T02:00:00+02:00" in stamps and "2024-10-27T02:00:00+01:00" in stamps  # ISO 8601


@pytest.mark.skipif(not SCHOOL.exists(), reason="../shared/data/realworld is absent")
def test_sociopatterns_school_contacts_as_a_count_stream_placed_by_start(tmp_path, capsys):
    """Contacts per 5-minute bin (K = 1) of the SocioPatterns primary school; its times are seconds from midnight
    of the first school day, placed on Thursday 1 October 2009 with --start; landmarks the lunch break."""
    summary, out = tmp_path / "school.json", tmp_path / "school.csv"
    code, _, err = run(capsys, "aggregate", SCHOOL, "--statistic", "count", "--bin", "5min", "--start", "2009-10-01",
                       "--landmarks", LUNCH, "--scheme", "skip", "--epsilon", 1, "--who", "pupil", "--json", summary,
                       "--out", out)
    assert code == 0, err
    assert "contact rows were dropped" in err
    data = json.loads(summary.read_text())
    assert data["n_users"] == 242 and data["sensitivity"] == 1.0 and data["range"] == [0, 242]
    assert data["landmarks"] == 2 * 24  # two lunch breaks of 2 h in 5-minute bins
    assert data["theorem2"]["satisfied"] and 0 < data["relative_mae"] < 0.5
    table = pd.read_csv(out, comment="#")
    assert table["timestamp"].iloc[0].startswith("2009-10-01T08:")  # ISO 8601 with the offset
    assert "any one pupil's contact rows at every landmark 5-minute bin (48)" in data["guarantee"]


def test_plan_answers_epsilon_per_scheme_for_a_relative_target(meters, tmp_path, capsys):
    summary = tmp_path / "plan.json"
    code, out, err = run(capsys, "plan", meters, "--statistic", "sum", "--range", 0, 25, "--landmarks", SUNDAYS,
                         "--target-relative-mae", 0.05, "--schemes", "event,uniform,skip", "--json", summary)
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert set(data) == {"event", "uniform", "skip"}
    for answer in data.values():
        assert set(answer) == {"epsilon", "achieved_relative_mae", "ci95", "feasible"}
        assert answer["feasible"] and answer["achieved_relative_mae"] == pytest.approx(0.05, rel=0.05)
        assert answer["ci95"][0] <= answer["achieved_relative_mae"] <= answer["ci95"][1]
    # uniform spends ε/(|L| + 1) per bin: it needs |L| + 1 = 13 times event level's ε for the same error
    assert data["uniform"]["epsilon"] / data["event"]["epsilon"] == pytest.approx(13, rel=0.1)


def test_plan_users_for_answers_the_smallest_n_per_scheme(meters, tmp_path, capsys):
    summary = tmp_path / "users.json"
    code, out, err = run(capsys, "plan", meters, "--statistic", "sum", "--range", 0, 25, "--landmarks", SUNDAYS,
                         "--target-relative-mae", 0.02, "--users-for", 1, "--schemes", "event,uniform",
                         "--json", summary)
    assert code == 0, err
    data = json.loads(summary.read_text())
    for answer in data.values():
        assert set(answer) == {"users", "achieved_relative_mae", "feasible"}
        assert answer["feasible"] and answer["achieved_relative_mae"] <= 0.02
    # the noise does not grow with N, the sum does: N ∝ 1/target, and uniform needs about 13 × event level's N
    assert data["uniform"]["users"] / data["event"]["users"] == pytest.approx(13, rel=0.15)


def test_plan_relative_flags_need_a_statistic(meters, capsys):
    code, _, err = run(capsys, "plan", meters, "--target-relative-mae", 0.02, "--landmarks", SUNDAYS)
    assert code == 2 and "--statistic" in err


def test_dummies_hide_the_aggregates_landmarks_as_lmdk_release_does(meters, tmp_path, capsys):
    summary, ledger = tmp_path / "d.json", tmp_path / "d.jsonl"
    code, _, err = run(capsys, "aggregate", meters, "--statistic", "sum", "--range", 0, 25, "--landmarks", SUNDAYS,
                       "--scheme", "skip", "--epsilon", 1, "--dummies", "random", "--out", tmp_path / "d.csv",
                       "--json", summary, "--ledger", ledger, "--dataset", "meters")
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert set(data) == KEYS | {"dummies"} and data["dummies"] == {"method": "random", "share": 0.01}
    assert "dummy landmarks hide them" in data["guarantee"] and "selection's own ε is 0.01" in data["guarantee"]
    assert data["theorem2"]["satisfied"] and data["landmarks"] == 12  # the declared set; dummies are extra
    assert json.loads(ledger.read_text().splitlines()[0])["dummies"]["method"] == "random"
    with pytest.raises(SystemExit) as refused:
        run(capsys, "aggregate", meters, "--statistic", "sum", "--range", 0, 25, "--landmarks", SUNDAYS,
            "--scheme", "skip", "--epsilon", 1, "--dummies", "clever")
    assert refused.value.code == 2 and "--dummies" in capsys.readouterr().err
