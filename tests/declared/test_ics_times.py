"""Declared landmarks from a person's calendar (ics:), explicit times (times:) and declared places (place:)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk.data import series as ds
from lmdk.errors import ParameterError, PolicyRefused
from lmdk.landmarks import parse_rule
from lmdk.selection.export import rule_source

# A weekly gym hour in Berlin that spans the clock change of 31 March 2024, a call at 09:00 New York time (EDT,
# UTC−4 on 27 March), an all-day holiday (a date, floating) and a floating lunch; with its VTIMEZONE as exported.
ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//lmdk tests//EN
BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:STANDARD
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VEVENT
UID:gym@lmdk
DTSTART;TZID=Europe/Berlin:20240325T180000
DTEND;TZID=Europe/Berlin:20240325T190000
RRULE:FREQ=WEEKLY;COUNT=3
SUMMARY:Gym
END:VEVENT
BEGIN:VEVENT
UID:call@lmdk
DTSTART;TZID=America/New_York:20240327T090000
DURATION:PT2H
SUMMARY:Call
END:VEVENT
BEGIN:VEVENT
UID:holiday@lmdk
DTSTART;VALUE=DATE:20240329
DTEND;VALUE=DATE:20240330
SUMMARY:Holiday
END:VEVENT
BEGIN:VEVENT
UID:lunch@lmdk
DTSTART:20240402T123000
DTEND:20240402T130000
SUMMARY:Lunch (floating)
END:VEVENT
END:VCALENDAR
"""


def _hours(zone: str | None = "Europe/Berlin", start="2024-03-24", end="2024-04-10"):
    """An hourly series (its timestamps are all that matters here)."""
    times = pd.date_range(start, end, freq="h", tz=zone)
    return ds.from_values(np.zeros(len(times)), times), times


def _marked(rule: str, series, times) -> list[str]:
    """The wall-clock times (Berlin) a rule marks."""
    chosen = times[parse_rule(rule).indices(series)]
    return [t.strftime("%m-%d %H:%M") for t in chosen]


@pytest.fixture
def calendar_file(tmp_path):
    path = tmp_path / "me.ics"
    path.write_text(ICS.replace("\n", "\r\n"))
    return path


def test_ics_recurring_event_keeps_its_wall_clock_across_the_clock_change(calendar_file):
    series, times = _hours()
    marked = _marked(f"ics:{calendar_file}", series, times)
    gym = [m for m in marked if m.endswith("18:00") and not m.startswith("03-29")]  # not the all-day holiday
    assert gym == ["03-25 18:00", "04-01 18:00", "04-08 18:00"]  # before and after the change, 18:00 in Berlin
    assert "04-15 18:00" not in marked  # COUNT=3 ends the series
    utc = [times[i].tz_convert("UTC").hour for i in parse_rule(f"ics:{calendar_file}").indices(series)
           if times[i].hour == 18 and times[i].day != 29]
    assert utc == [17, 16, 16]  # the instant moves by the hour the clocks moved


def test_ics_event_in_another_zone_is_placed_on_the_series_clock(calendar_file):
    series, times = _hours()
    marked = _marked(f"ics:{calendar_file}", series, times)
    assert {"03-27 14:00", "03-27 15:00"} <= set(marked)  # 09:00–11:00 EDT = 13:00–15:00 UTC = 14:00–16:00 CET
    assert "03-27 09:00" not in marked and "03-27 16:00" not in marked


def test_ics_all_day_and_floating_events_follow_the_series_wall_clock(calendar_file):
    series, times = _hours()
    marked = set(_marked(f"ics:{calendar_file}", series, times))
    assert {f"03-29 {h:02d}:00" for h in range(24)} <= marked and "03-30 00:00" not in marked
    assert "04-02 12:00" in marked and "04-02 13:00" not in marked  # 12:30–13:00 overlaps the 12:00 reading
    utc_series, utc_times = _hours("UTC")
    lunch = [m for m in _marked(f"ics:{calendar_file}", utc_series, utc_times) if m.startswith("04-02 1")]
    assert lunch == ["04-02 12:00"]  # floating: 12:30 on whichever wall clock the series keeps


def test_ics_with_zoned_events_needs_the_series_zone(calendar_file):
    series, _ = _hours(zone=None)
    with pytest.raises(ParameterError, match="timezone"):
        parse_rule(f"ics:{calendar_file}").indices(series)


def test_ics_refuses_a_file_that_is_no_calendar(tmp_path):
    bad = tmp_path / "notes.ics"
    bad.write_text("hello")
    series, _ = _hours()
    with pytest.raises(ParameterError, match="not an iCalendar file"):
        parse_rule(f"ics:{bad}").indices(series)
    with pytest.raises(ParameterError, match="cannot read"):
        parse_rule(f"ics:{tmp_path / 'missing.ics'}").indices(series)


def test_times_instants_spans_offsets_and_outside_times(tmp_path):
    path = tmp_path / "times.txt"
    path.write_text("time\n2024-03-25 10:30\n2024-03-26T09:00/2024-03-26T11:00\n2024-03-27T12:00Z\n2031-01-01 00:00\n")
    series, times = _hours()
    assert _marked(f"times:{path}", series, times) == ["03-25 10:00", "03-26 09:00", "03-26 10:00", "03-27 13:00"]


def test_times_file_errors_name_the_entry(tmp_path):
    path = tmp_path / "times.txt"
    path.write_text("2024-03-25 10:30\n2024-13-45 99:00\n")
    series, _ = _hours()
    with pytest.raises(ParameterError, match="2024-13-45"):
        parse_rule(f"times:{path}").indices(series)
    path.write_text("2024-03-26T11:00/2024-03-26T09:00\n")
    with pytest.raises(ParameterError, match="ends before it starts"):
        parse_rule(f"times:{path}").indices(series)


def test_declared_kinds_are_declared_and_place_reads_the_data(calendar_file):
    assert rule_source(f"ics:{calendar_file}").kind == "declared"
    assert rule_source("times:x.txt").kind == "declared"
    rule = parse_rule("place:52.52,13.405,200m")
    assert rule.data_dependent and rule.place == (52.52, 13.405) and rule.distance_m == 200
    with pytest.raises(PolicyRefused):
        rule_source("place:52.52,13.405,200", kind="trajectory")
    assert rule_source("place:52.52,13.405,200", kind="trajectory", allow_data_landmarks=True).kind == "unprotected"
    with pytest.raises(PolicyRefused, match="cannot be selected privately"):
        rule_source("place:52.52,13.405,200", kind="trajectory", landmark_epsilon=0.5)
    with pytest.raises(ParameterError, match="LAT,LON,RADIUS_M"):
        parse_rule("place:52.52,13.405")
    with pytest.raises(ParameterError, match="must be a finite number in -90..90"):
        parse_rule("place:95,13,200")


def test_place_marks_the_events_within_the_radius():
    times = pd.date_range("2024-01-01", periods=4, freq="min")
    # 0 m, ~111 m north, ~1.1 km north, ~185 m south of the place
    lat = 52.0 + np.array([0.0, 0.001, 0.01, -0.001666])
    trajectory = ds.from_trajectory(times, lat, np.full(4, 13.0))
    assert parse_rule("place:52,13,190").indices(trajectory).tolist() == [0, 1, 3]
    assert parse_rule("place:52,13,150").indices(trajectory).tolist() == [0, 1]
    with pytest.raises(ParameterError, match="trajectory"):
        parse_rule("place:52,13,150").indices(ds.from_values(np.zeros(4), times))


def test_lmdk_release_reads_a_calendar_file_in_the_zone_of_tz(calendar_file, tmp_path, capsys):
    from lmdk.cli import main

    times = pd.date_range("2024-03-24", "2024-04-05", freq="h")  # naive: Berlin wall clock, said by --tz
    pd.DataFrame({"timestamp": times, "value": np.linspace(0, 3, len(times))}).to_csv(tmp_path / "m.csv", index=False)
    args = ["release", str(tmp_path / "m.csv"), "--scheme", "adaptive", "--epsilon", "1", "--landmarks",
            f"ics:{calendar_file}", "--range", "0", "3", "--out", str(tmp_path / "r.csv")]
    assert main(args + ["--summary", str(tmp_path / "s.json"), "--tz", "Europe/Berlin"]) == 0
    assert "Landmark set: declared in advance (ics:" in capsys.readouterr().err
    aware = pd.DatetimeIndex(times).tz_localize("Europe/Berlin", nonexistent="NaT").dropna()
    assert json.loads((tmp_path / "s.json").read_text())["landmarks"] == len(
        parse_rule(f"ics:{calendar_file}").indices(ds.from_values(np.zeros(len(aware)), aware)))
    assert main(args) == 2  # without the zone the two clocks cannot be compared
    assert "--tz ZONE" in capsys.readouterr().err


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.integers(1, 5), min_size=1, max_size=30),
       spans=st.lists(st.tuples(st.integers(-5, 120), st.integers(0, 20)), max_size=6))
def test_a_span_marks_exactly_the_readings_whose_interval_it_overlaps(steps, spans):
    from lmdk.declared.spans import _marked

    times = np.cumsum(np.asarray(steps, dtype=np.int64))
    starts = np.asarray([s for s, _ in spans], dtype=np.int64)
    ends = starts + np.asarray([d for _, d in spans], dtype=np.int64)
    ends_of_readings = np.r_[times[1:], times[-1] + (times[-1] - times[-2] if times.size > 1 else 1)]
    expected = np.zeros(times.size, dtype=bool)
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        if e > s:  # [t_i, t_next) ∩ [s, e) ≠ ∅
            expected |= (times < e) & (ends_of_readings > s)
        else:  # an instant: the reading whose interval holds it
            expected |= (times <= s) & (ends_of_readings > s)
    shuffled = np.random.default_rng(0).permutation(times.size)
    assert np.array_equal(_marked(times, starts, ends), expected)
    assert np.array_equal(_marked(times[shuffled], starts, ends), expected[shuffled])  # any order of readings
