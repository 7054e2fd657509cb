"""Issue 53: an aggregate bin is a landmark if any part of it lies in a declared window, and a declared rule that
marks no bin is said (output and the JSON's warnings), naming the rule and the bins' width."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from lmdk import cli
from lmdk.declared.calendar import parse


def daily_table(tmp_path: Path, days: int = 14, freq: str = "1h", start: str = "2024-01-01") -> Path:
    times = pd.date_range(start, periods=int(pd.Timedelta(days=days) / pd.Timedelta(freq)), freq=freq)
    frame = pd.concat([pd.DataFrame({"user": u, "timestamp": times, "value": 1.0}) for u in "abc"])
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path


def aggregate(capsys, tmp_path: Path, table: Path, rule: str, bin: str) -> tuple[dict, str, pd.DataFrame]:
    out, summary = tmp_path / "out.csv", tmp_path / "out.json"
    code = cli.main(["aggregate", str(table), "--statistic", "sum", "--range", "0", "2", "--bin", bin, "--landmarks",
                     rule, "--scheme", "uniform", "--epsilon", "1", "--out", str(out), "--json", str(summary)])
    _, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(summary.read_text()), err, pd.read_csv(out, comment="#")


def test_office_hours_mark_every_weekday_of_daily_bins(tmp_path, capsys):
    data, _, _ = aggregate(capsys, tmp_path, daily_table(tmp_path), "calendar:mon-fri@09:00-17:00", "1d")
    assert data["n_events"] == 14 and data["landmarks"] == 10  # was 0: no bin starts inside 09:00–17:00
    assert [w for w in data["warnings"] if "noise swamps" not in w] == []  # 10 landmarks of 14 bins at ε = 1


def test_a_year_long_bin_holding_the_window_is_a_landmark():
    rule = parse("calendar:2008-09-01..2009-04-01")
    width = pd.Timedelta("365d")
    starts = pd.DatetimeIndex([pd.Timestamp(k * width.value) for k in range(37, 41)])
    assert [str(s.date()) for s in starts[1:3]] == ["2007-12-23", "2008-12-22"]
    assert rule.mask(starts).tolist() == [False, False, True, False]  # the old rule: only the bin starting inside
    assert rule.bin_mask(starts, width).tolist() == [False, True, True, False]  # Sept–Dec 2008 is in the first


def test_bin_mask_marks_a_bin_touching_a_window_and_no_other():
    rule = parse("calendar:sun@09:00-12:00")
    starts = pd.date_range("2024-01-07 06:00", periods=8, freq="90min")  # 2024-01-07 is a Sunday
    # bins 06:00–07:30, 07:30–09:00 (ends where the window opens), 09:00, 10:30, 12:00 (starts where it ends)…
    assert np.flatnonzero(rule.bin_mask(starts, "90min")).tolist() == [2, 3]
    starts = pd.date_range("2024-01-07 08:45", periods=1, freq="1h")
    assert rule.bin_mask(starts, "1h").tolist() == [True] and rule.mask(starts).tolist() == [False]


def test_a_declared_rule_that_marks_no_bin_is_warned_about(tmp_path, capsys):
    rule = "calendar:2023-05-01..2023-05-03"  # outside the data
    data, err, _ = aggregate(capsys, tmp_path, daily_table(tmp_path, days=3), rule, "1h")
    assert data["landmarks"] == 0
    assert len(data["warnings"]) == 1 and rule in data["warnings"][0] and "no bin of 1h" in data["warnings"][0]
    assert f"warning: declared rule {rule!r} marks no bin of 1h" in err


def test_the_json_names_the_clock_the_rule_was_read_on(tmp_path, capsys):
    table = daily_table(tmp_path, days=2)
    data, _, _ = aggregate(capsys, tmp_path, table, "calendar:daily@18:00-22:00", "1h")
    assert data["landmark_clock"] == "the timestamps' own wall clock (times without a zone)"
    out, summary = tmp_path / "tz.csv", tmp_path / "tz.json"
    assert cli.main(["aggregate", str(table), "--statistic", "sum", "--range", "0", "2", "--landmarks",
                     "calendar:daily@18:00-22:00", "--scheme", "uniform", "--epsilon", "1", "--tz",
                     "America/Vancouver", "--out", str(out), "--json", str(summary), "--quiet"]) == 0
    assert json.loads(summary.read_text())["landmark_clock"] == "the wall clock of America/Vancouver"
    assert "The rule was read on the wall clock of America/Vancouver." in out.read_text()


def test_the_guides_home0_evenings_are_read_on_the_local_clock_with_tz(tmp_path):
    """The privacy-officer guide's fleet (times with a -07:00 offset) and home0's rule mon-fri@18:00-22:00: with --tz
    America/Vancouver the landmark bins are 18:00–22:00 local, and without it too: the rule is read on the offsets
    the readings carried (issue 53; before, it was read on UTC: 11:00–15:00 local)."""
    import lmdk
    from lmdk.aggregate import ALL, build
    from lmdk.aggregate.landmarks import bin_landmarks
    from lmdk.landmarks import parse_rule

    hue = lmdk.sample("hue")
    path = tmp_path / "fleet.csv"
    pd.DataFrame({"user": "home0", "timestamp": hue.timestamps[:240], "value": hue.values[:240]}).to_csv(path,
                                                                                                       index=False)
    assert "-07:00" in path.read_text().splitlines()[1]
    agg = build(path, "sum", value_range=(0, 25))
    rule = parse_rule("calendar:mon-fri@18:00-22:00")
    local = bin_landmarks(rule, agg.to_series(ALL, tz="America/Vancouver"), "1h", "America/Vancouver", agg.zoned)
    hours = agg.to_series(ALL, tz="America/Vancouver").timestamps[local.indices]
    assert len(hours) > 0 and set(hours.hour) == {18, 19, 20, 21} and set(hours.weekday) <= {0, 1, 2, 3, 4}
    assert local.clock == "the wall clock of America/Vancouver" and local.warnings == ()
    carried = bin_landmarks(rule, agg.to_series(ALL), "1h", None, agg.zoned)
    assert carried.indices.tolist() == local.indices.tolist() and carried.warnings == ()
    assert carried.clock.startswith("the offsets the readings carried (UTC−07:00")
