"""calendar: landmark rules — declared windows of wall-clock time (lmdk.declared.calendar)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lmdk
from lmdk.data import Series
from lmdk.declared.calendar import parse
from lmdk.errors import ParameterError

WEEK = pd.date_range("2024-01-01", periods=7 * 24, freq="1h")  # Monday 2024-01-01 00:00 .. Sunday 23:00


def _marked(rule: str, index=WEEK) -> list[str]:
    """The marked timestamps as 'Day HH:MM' strings."""
    hits = index[parse(rule).mask(index)]
    return [f"{t.day_name()[:3]} {t:%H:%M}" for t in hits]


def test_one_weekday_start_inclusive_end_exclusive():
    assert _marked("calendar:sun@09:00-12:00") == ["Sun 09:00", "Sun 10:00", "Sun 11:00"]


def test_daily_window_every_day():
    marked = _marked("calendar:daily@12:00-13:00")
    assert marked == [f"{d} 12:00" for d in ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")]


def test_a_window_past_midnight_belongs_to_the_day_it_starts():
    marked = _marked("calendar:mon-fri@22:00-06:00")
    assert len(marked) == 5 * 8
    assert "Fri 22:00" in marked and "Sat 05:00" in marked and "Sat 06:00" not in marked
    assert "Mon 03:00" not in marked  # Sunday night is not in mon-fri
    assert "Tue 03:00" in marked and "Sat 22:00" not in marked


def test_lists_of_days_and_the_end_of_the_day():
    marked = _marked("calendar:sat,sun@00:00-24:00")
    assert len(marked) == 48 and {m[:3] for m in marked} == {"Sat", "Sun"}


def test_date_ranges_include_both_dates_and_windows_join_with_plus():
    index = pd.date_range("2024-04-30", "2024-05-04 23:00", freq="1h")
    hits = index[parse("calendar:2024-05-01..2024-05-03").mask(index)]
    assert hits[0] == pd.Timestamp("2024-05-01 00:00") and hits[-1] == pd.Timestamp("2024-05-03 23:00")
    assert len(hits) == 72
    both = parse("calendar:2024-05-01+daily@12:00-13:00").mask(index)
    assert both.sum() == 24 + 4  # 1 May whole, and 12:00 on the four other days


def test_wrapping_day_ranges():
    assert {m[:3] for m in _marked("calendar:fri-mon@10:00-11:00")} == {"Fri", "Sat", "Sun", "Mon"}


def test_windows_keep_wall_clock_bounds_across_clock_changes():
    berlin = pd.date_range("2024-03-30", "2024-04-01 23:00", freq="1h", tz="Europe/Berlin")
    per_day = pd.Series(parse("calendar:daily@09:00-12:00").mask(berlin), index=berlin.date).groupby(level=0).sum()
    assert per_day.tolist() == [3, 3, 3]  # the spring-forward day (31 March) still has 09:00, 10:00, 11:00
    autumn = pd.date_range("2024-10-27 00:00", periods=6, freq="1h", tz="Europe/Berlin")  # 02:00 occurs twice
    night = parse("calendar:daily@02:00-03:00").mask(autumn)
    assert night.sum() == 2 and set(autumn[night].hour) == {2}


def test_zone_aware_series_are_read_in_their_zone_or_in_tz():
    utc = pd.date_range("2024-06-02 06:00", periods=6, freq="1h", tz="UTC")  # a Sunday
    rule = parse("calendar:sun@09:00-10:00")
    assert utc[rule.mask(utc)].hour.tolist() == [9]
    assert utc[rule.mask(utc, tz="Europe/Berlin")].hour.tolist() == [7]  # 07:00 UTC is 09:00 CEST
    naive = utc.tz_localize(None)
    assert np.array_equal(rule.mask(naive), rule.mask(naive, tz="Asia/Tokyo"))  # naive: wall clock as it stands


def test_landmark_rule_text_and_data_independence():
    rule = lmdk.landmarks.parse_rule("calendar:sun@09:00-12:00")
    assert rule.kind == "calendar" and not rule.data_dependent
    assert lmdk.landmarks.parse_rule("percentile:20").data_dependent
    series = lmdk.sample("hue")
    landmarks = rule.indices(series)
    assert len(landmarks) > 0
    assert set(series.timestamps[landmarks].day_name()) == {"Sunday"}
    assert set(series.timestamps[landmarks].hour) == {9, 10, 11}


@given(values=st.lists(st.floats(0, 25), min_size=48, max_size=48),
       other=st.lists(st.floats(0, 25), min_size=48, max_size=48))
def test_the_landmark_set_never_depends_on_the_values(values, other):
    index = pd.date_range("2024-01-06", periods=48, freq="1h", name="timestamp")
    rule = lmdk.landmarks.parse_rule("calendar:sat@08:00-11:00+sun@20:00-02:00")
    a = Series(pd.DataFrame({"value": values}, index=index), "values")
    b = Series(pd.DataFrame({"value": other}, index=index), "values")
    assert np.array_equal(rule.indices(a), rule.indices(b))


@given(st.lists(st.datetimes(min_value=pd.Timestamp("2020-01-01").to_pydatetime(),
                             max_value=pd.Timestamp("2030-01-01").to_pydatetime()), min_size=1, max_size=40))
def test_the_vectorised_mask_matches_a_plain_reading_of_the_rule(times):
    index = pd.DatetimeIndex(times)
    rule = parse("calendar:mon-fri@22:00-06:00+sat@09:30-12:00+2024-05-01..2024-05-03")

    def plain(t: pd.Timestamp) -> bool:
        minutes = t.hour * 60 + t.minute + t.second / 60
        weekday_night = (t.weekday() < 5 and minutes >= 22 * 60) or ((t.weekday() - 1) % 7 < 5 and minutes < 6 * 60)
        saturday = t.weekday() == 5 and 9 * 60 + 30 <= minutes < 12 * 60
        may = pd.Timestamp("2024-05-01") <= t.normalize() <= pd.Timestamp("2024-05-03")
        return weekday_night or saturday or may

    assert rule.mask(index).tolist() == [plain(t) for t in index]


def test_preview_shows_one_week_from_a_monday():
    preview = parse("calendar:sun@09:00-12:00").preview()
    assert len(preview) == 168 and preview["landmark"].sum() == 3
    assert preview.loc[preview["landmark"], "weekday"].unique().tolist() == ["Sun"]


@pytest.mark.parametrize("text, words", [
    ("calendar:", "names no window"),
    ("calendar:funday@09:00-10:00", "not a weekday"),
    ("calendar:sun@9-10", "not a time"),
    ("calendar:sun@09:00", "needs a start and an end"),
    ("calendar:sun@10:00-10:00", "empty"),
    ("calendar:sun@24:00-10:00", "00:00–23:59"),
    ("calendar:sun@09:61-10:00", "not a time of day"),
    ("calendar:2024-05-03..2024-05-01", "comes before"),
    ("calendar:2024-02-30", "not a valid date"),
    ("calendar:May 1", "not a date"),
])
def test_bad_rules_name_the_problem_and_the_form(text, words):
    with pytest.raises(ParameterError, match=words):
        lmdk.landmarks.parse_rule(text)


def test_unknown_zone_and_untimed_values_are_refused():
    with pytest.raises(ParameterError, match="IANA"):
        parse("calendar:daily@12:00-13:00").mask(WEEK, tz="Mars/Olympus")
    with pytest.raises(ParameterError, match="needs a series with timestamps"):
        lmdk.landmarks.parse_rule("calendar:daily@12:00-13:00").indices(np.arange(5.0))
