"""Issue 53: without --tz, ``lmdk aggregate`` reads declared windows on the UTC offsets the readings carried — each
bin on the offset its readings carried at its start — and day bins start at that offset's midnight; the JSON's
``landmark_clock`` and the statement name that clock (before, the rule was read on UTC: a -07:00 table's 18:00–22:00
evenings landed on 11:00–15:00 local)."""
from __future__ import annotations

import json

import pandas as pd

from lmdk import cli
from lmdk.aggregate import ALL, build
from lmdk.aggregate.landmarks import bin_landmarks
from lmdk.landmarks import parse_rule

RULE = "calendar:daily@18:00-22:00"


def offset_table(tmp_path, stamps, users: int = 3):
    """A long table of ``users`` users reading 1.0 at each of ``stamps`` (text written with its UTC offset)."""
    rows = [(f"u{u}", stamp, 1.0) for u in range(users) for stamp in stamps]
    path = tmp_path / "offsets.csv"
    pd.DataFrame(rows, columns=["user", "timestamp", "value"]).to_csv(path, index=False)
    return path


def minus_seven(tmp_path, start: str = "2024-03-04 12:00", hours: int = 12):
    """Readings every hour from ``start`` local time, written with the offset -07:00."""
    local = pd.date_range(start, periods=hours, freq="h")
    return offset_table(tmp_path, [t.strftime("%Y-%m-%dT%H:%M:%S-07:00") for t in local])


def test_the_evening_rule_marks_the_local_evening_bins_of_a_minus_seven_table(tmp_path):
    agg = build(minus_seven(tmp_path, hours=48), "sum", value_range=(0, 2))
    series = agg.to_series(ALL)
    marked = bin_landmarks(parse_rule(RULE), series, "1h", None, agg.zoned)
    hours = series.timestamps[marked.indices].tz_convert("UTC-07:00")
    assert len(hours) == 8 and set(hours.hour) == {18, 19, 20, 21}
    assert set(series.timestamps[marked.indices].hour) == {1, 2, 3, 4}  # UTC: the next night
    assert marked.clock.startswith("the offsets the readings carried (UTC−07:00") and marked.warnings == ()


def test_the_cli_names_the_carried_offsets_and_no_longer_warns_of_utc(tmp_path, capsys):
    table = minus_seven(tmp_path)  # 12:00–23:00 local = 19:00–06:00 UTC: 4 local evening hours, 3 UTC ones
    out, summary = tmp_path / "released.csv", tmp_path / "summary.json"
    assert cli.main(["aggregate", str(table), "--statistic", "sum", "--range", "0", "2", "--landmarks", RULE,
                     "--scheme", "uniform", "--epsilon", "1", "--out", str(out), "--json", str(summary)]) == 0
    err = capsys.readouterr().err
    data = json.loads(summary.read_text())
    assert data["landmarks"] == 4
    assert data["landmark_clock"] == "the offsets the readings carried (UTC−07:00; each bin on the offset at its start)"
    assert not any("UTC" in w for w in data["warnings"]) and "read on UTC" not in err
    assert "The rule was read on the offsets the readings carried (UTC−07:00" in out.read_text()


def test_day_bins_start_at_the_carried_offsets_midnight(tmp_path):
    agg = build(minus_seven(tmp_path, "2024-03-04 00:00", 48), "sum", value_range=(0, 2), bin="1d")
    series = agg.to_series(ALL)
    assert [str(t) for t in series.timestamps] == ["2024-03-04 07:00:00+00:00", "2024-03-05 07:00:00+00:00"]
    assert series.values.tolist() == [3.0, 3.0]  # each local day holds its own 24 readings, not a UTC day's


def test_a_clock_change_moves_the_evening_with_the_offsets(tmp_path):
    local = pd.date_range("2024-03-09 00:00", "2024-03-12 23:00", freq="h", tz="America/Vancouver")  # PST, PDT
    table = offset_table(tmp_path, [t.isoformat() for t in local])
    agg = build(table, "sum", value_range=(0, 2))
    series = agg.to_series(ALL)
    marked = bin_landmarks(parse_rule(RULE), series, "1h", None, agg.zoned)
    wall = series.timestamps[marked.indices].tz_convert("America/Vancouver")
    assert len(wall) == 16 and set(wall.hour) == {18, 19, 20, 21}
    assert "UTC−08:00, UTC−07:00" in marked.clock
    days = build(table, "sum", value_range=(0, 2), bin="1d").to_series(ALL).timestamps
    assert [str(t) for t in days] == ["2024-03-09 08:00:00+00:00", "2024-03-10 08:00:00+00:00",
                                      "2024-03-11 07:00:00+00:00", "2024-03-12 07:00:00+00:00"]


def test_tz_and_naive_input_keep_their_clocks(tmp_path):
    agg = build(minus_seven(tmp_path, hours=48), "sum", value_range=(0, 2), tz="America/Vancouver")
    assert agg.utc_offsets == ()
    series = agg.to_series(ALL, tz="America/Vancouver")
    marked = bin_landmarks(parse_rule(RULE), series, "1h", "America/Vancouver", agg.zoned)
    assert marked.clock == "the wall clock of America/Vancouver" and set(series.timestamps[marked.indices].hour) == {
        18, 19, 20, 21}
    naive = offset_table(tmp_path, [t.strftime("%Y-%m-%d %H:%M") for t in pd.date_range("2024-03-04", periods=24,
                                                                                          freq="h")])
    plain = build(naive, "sum", value_range=(0, 2))
    assert plain.utc_offsets == () and plain.to_series(ALL).timestamps.tz is None
