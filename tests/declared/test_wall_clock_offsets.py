"""Issue 53: declared windows are read on the person's wall clock. Times that carry a UTC offset are matched in their
own local time (the offset each carried), or in ``--tz`` when given, on ``lmdk release``, ``lmdk plan`` and ``lmdk
population`` (one policy or a policy table's rows); the statement and the JSON name the clock (``landmark_clock``).
The privacy-officer guide's home0 (``mon-fri@18:00-22:00``, a meter in Vancouver, -07:00 in June) is pinned to
18:00–22:00 local, where reading the UTC clock put its evenings at 11:00–15:00."""
from __future__ import annotations

import glob
import json
from pathlib import Path

import pandas as pd
import pytest

import lmdk
from lmdk import cli
from lmdk.data import load_series

HOME0 = "calendar:mon-fri@18:00-22:00"
ZONE = "America/Vancouver"


def fleet(tmp_path: Path, users=("home0",), hours: int = 240) -> Path:
    """The guide's fleet: HUE readings written with their -07:00 offsets, one block of rows per household."""
    hue = lmdk.sample("hue")
    frame = pd.concat([pd.DataFrame({"user": u, "timestamp": hue.timestamps[:hours], "value": hue.values[:hours]})
                       for u in users])
    path = tmp_path / "fleet.csv"
    frame.to_csv(path, index=False)
    assert "-07:00" in path.read_text().splitlines()[1]
    return path


def meter(tmp_path: Path) -> Path:
    """home0's own file (timestamp, value) with -07:00 offsets."""
    path = tmp_path / "home0.csv"
    pd.read_csv(fleet(tmp_path)).drop(columns="user").to_csv(path, index=False)
    return path


def local_hours(timestamps) -> tuple[set[int], set[int]]:
    """The (hours, weekdays) of UTC instants on Vancouver's wall clock."""
    local = pd.DatetimeIndex(pd.to_datetime(timestamps, utc=True)).tz_convert(ZONE)
    return set(local.hour), set(local.weekday)


def release(tmp_path: Path, *extra: str) -> tuple[dict, pd.DataFrame, str]:
    out, summary = tmp_path / "r.csv", tmp_path / "r.json"
    code = cli.main(["release", str(meter(tmp_path)), "--scheme", "skip", "--epsilon", "1", "--landmarks", HOME0,
                     "--range", "0", "25", "--include-private-columns", "--out", str(out), "--summary", str(summary),
                     "--quiet", *extra])
    assert code == 0
    text = out.read_text()
    return json.loads(summary.read_text()), pd.read_csv(out, comment="#"), text


def test_the_offset_each_reading_carried_is_kept_and_read_as_the_wall_clock(tmp_path):
    series = load_series(str(meter(tmp_path)))
    assert str(series.timestamps.tz) == "UTC" and series.utc_offsets == ((series.seconds[0] * 10**9, -7 * 3600),)
    assert series.wall_times()[0] == pd.Timestamp("2012-06-01 01:00") and series.timestamps[0].hour == 8
    strict = load_series(str(meter(tmp_path)), strict=True)
    assert strict.utc_offsets == series.utc_offsets


def test_a_clock_change_keeps_each_readings_own_offset(tmp_path):
    local = pd.date_range("2024-03-09", periods=72, freq="h", tz=ZONE)  # spring forward on 10 March
    path = tmp_path / "dst.csv"
    pd.DataFrame({"timestamp": local, "value": 1.0}).to_csv(path, index=False)
    series = load_series(str(path))
    assert [offset for _, offset in series.utc_offsets] == [-8 * 3600, -7 * 3600]
    assert (series.wall_times() == local.tz_localize(None)).all()
    marked = lmdk.landmarks.parse_rule("calendar:daily@09:00-10:00").indices(series)
    assert local[marked].hour.tolist() == [9, 9, 9]


def test_naive_times_have_no_offsets_and_read_as_they_stand(tmp_path):
    path = tmp_path / "naive.csv"
    pd.DataFrame({"timestamp": pd.date_range("2024-01-01", periods=48, freq="h"), "value": 1.0}).to_csv(path,
                                                                                                      index=False)
    series = load_series(str(path))
    assert series.utc_offsets == () and (series.wall_times() == series.timestamps).all()


def test_lmdk_release_reads_home0s_evenings_on_the_local_clock(tmp_path):
    summary, table, text = release(tmp_path)
    hours, days = local_hours(table["timestamp"][table["landmark"] == 1])
    assert hours == {18, 19, 20, 21} and days <= {0, 1, 2, 3, 4}
    clock = "each reading's local wall clock (the UTC offset it carried: -07:00)"
    assert summary["landmark_clock"] == clock
    assert f"# The landmark rule '{HOME0}' was read on {clock}." in text


def test_lmdk_release_tz_reads_every_time_on_that_clock(tmp_path):
    summary, table, _ = release(tmp_path, "--tz", "UTC")
    hours, _ = local_hours(table["timestamp"][table["landmark"] == 1])
    assert hours == {11, 12, 13, 14} and summary["landmark_clock"] == "the wall clock of UTC"


def test_lmdk_plan_names_the_clock(tmp_path, capsys):
    out = tmp_path / "plan.json"
    assert cli.main(["plan", str(meter(tmp_path)), "--landmarks", HOME0, "--range", "0", "25", "--target-mae", "5",
                     "--repetitions", "10", "--schemes", "skip", "--json", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["landmark_clock"].startswith("each reading's local wall clock")


def population(tmp_path: Path, *extra: str) -> tuple[dict, Path]:
    out = tmp_path / "per-user"
    policies = tmp_path / "policies.csv"
    policies.write_text(f"user,landmarks,epsilon,scheme\nhome0,{HOME0},1.0,skip\nhome1,calendar:sun@09:00-12:00,1.0,"
                        "uniform\n")
    assert cli.main(["population", str(fleet(tmp_path, ("home0", "home1"))), "--policies", str(policies),
                     "--range", "0", "25", "--include-private-columns", "--out", str(out), "--quiet", *extra]) == 0
    return json.loads((out / "aggregates.json").read_text()), out


def landmark_times(out: Path, user: str) -> pd.Series:
    frame = pd.read_parquet(glob.glob(str(out / "released" / f"user={user}" / "*.parquet"))[0])
    return frame["timestamp"][frame["landmark"] == 1]


def test_lmdk_population_policy_rows_read_home0s_evenings_on_the_local_clock(tmp_path):
    totals, out = population(tmp_path)
    hours, days = local_hours(landmark_times(out, "home0"))
    assert hours == {18, 19, 20, 21} and days <= {0, 1, 2, 3, 4}
    hours, days = local_hours(landmark_times(out, "home1"))
    assert hours == {9, 10, 11} and days == {6}
    assert totals["landmark_clock"].startswith("each user's readings' own wall clock")
    import pyarrow.parquet as pq

    note = pq.read_schema(glob.glob(str(out / "released" / "user=home0" / "*.parquet"))[0]).metadata[b"lmdk"]
    assert f"The landmark rule '{HOME0}' was read on each user's readings' own wall clock" in note.decode()


def test_lmdk_population_takes_tz(tmp_path):
    totals, out = population(tmp_path, "--tz", "UTC")
    hours, _ = local_hours(landmark_times(out, "home0"))
    assert hours == {11, 12, 13, 14} and totals["landmark_clock"] == "the wall clock of UTC"


def test_lmdk_population_refuses_an_unknown_zone(tmp_path, capsys):
    policies = tmp_path / "policies.csv"
    policies.write_text(f"user,landmarks,epsilon,scheme\nhome0,{HOME0},1.0,skip\n")
    assert cli.main(["population", str(fleet(tmp_path)), "--policies", str(policies), "--range", "0", "25", "--out",
                     str(tmp_path / "o"), "--quiet", "--tz", "Mars/Olympus"]) == 2
    assert "unknown time zone 'Mars/Olympus'" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_a_times_file_floating_time_is_the_meters_wall_clock(tmp_path):
    times = tmp_path / "home2.txt"
    times.write_text("time\n2012-06-04 19:30\n")  # no offset: the meter's wall clock (a Monday evening)
    series = load_series(str(meter(tmp_path)))
    marked = lmdk.landmarks.parse_rule(f"times:{times}").indices(series)
    assert series.wall_times()[marked].tolist() == [pd.Timestamp("2012-06-04 19:00")]


def test_an_event_that_stands_for_a_bin_is_marked_by_any_overlap():
    """An aggregate's events stand for their bins (``Series.interval``): a declared window marks every bin it touches,
    whichever path reads the rule (the app's calendar box and default rule call ``indices``)."""
    from dataclasses import replace

    from lmdk.data.series import from_values

    days = from_values([1.0, 2.0, 3.0], pd.date_range("2024-01-05", periods=3, freq="1D"))  # Fri, Sat, Sun
    rule = lmdk.landmarks.parse_rule("calendar:mon-fri@09:00-17:00")
    assert rule.indices(days).tolist() == []  # instants at midnight
    assert rule.indices(replace(days, interval="1d")).tolist() == [0]  # Friday's bin holds its office hours
    with pytest.raises(lmdk.errors.ParameterError, match="interval"):
        replace(days, interval="0h")
