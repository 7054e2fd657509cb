"""Calendar windows: landmarks declared by the clock, not found in the data.

A ``calendar:`` rule marks the events whose wall-clock time falls in a window given in advance — "Sundays
09:00–12:00", "weekday nights 22:00–06:00", "1–3 May 2024". Whether an event is a landmark then depends on
its timestamp only, never on its value, location or contact, so two neighbouring series (which differ in
one event's value and share their timestamps) always have the same landmark set: the landmark paper's
Theorem 2 (§3.1) applies to the release exactly as stated, with L fixed before the data is seen.

Grammar (several windows joined with ``+``; an event is a landmark when any window holds it)::

    calendar:sun@09:00-12:00           one weekday, start inclusive, end exclusive
    calendar:mon-fri@22:00-06:00       a range of weekdays; an end ≤ start wraps past midnight, so the
                                       window belongs to the day it starts on (Fri 22:00 – Sat 06:00)
    calendar:sat,sun@00:00-24:00       a list of days (or ranges); 24:00 is the end of the day
    calendar:daily@12:00-13:00         every day
    calendar:2024-05-01..2024-05-03    whole days, both dates included
    calendar:2024-05-01                one whole day

Windows are wall-clock times of the person whose series it is: across a clock change a window keeps its
wall-clock bounds (09:00–12:00 is three hours of readings on most days and still 09:00–12:00 on the day the
clocks move). Timestamps without a zone are taken as wall-clock times as they stand; times that carried a UTC
offset in the file are read in their own local time (the offset each carried, ``Series.utc_offsets``); a
zone-aware series is read in its own zone; ``tz``, when given, wins over all of these. :func:`clock_name` says
which clock a rule was read on (the statements' and JSON's ``landmark_clock``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError

PREFIX = "calendar:"
DEFAULT_RULE = "calendar:daily@01:00-06:00"
"""The app's default landmark rule (views and exports alike): the night hours 01:00–06:00, about 21 % of an hourly
series — declared by the clock, so Theorem 2 holds as stated (issue 33: the former default, the lowest 20 % of the
values, read the data being released)."""
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
HELP = ("calendar:sun@09:00-12:00 | calendar:mon-fri@22:00-06:00 (wraps midnight) | calendar:sat,sun@00:00-24:00 "
        "| calendar:daily@12:00-13:00 | calendar:2024-05-01..2024-05-03 (whole days); join several with +")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}  # ticks of a DatetimeIndex unit per second
_FULL_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True)
class Weekly:
    """A window repeating on the chosen weekdays: from ``start`` (inclusive) to ``end`` (exclusive), in seconds
    after midnight; ``end <= start`` wraps past midnight into the next day."""

    days: tuple[bool, ...]
    start: int
    end: int

    def holds(self, weekday: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Which (weekday, second-of-day) pairs lie in the window (vectorised)."""
        today = np.asarray(self.days)[weekday]
        if self.start < self.end:
            return today & (second >= self.start) & (second < self.end)
        yesterday = np.asarray(self.days)[(weekday - 1) % 7]
        return (today & (second >= self.start)) | (yesterday & (second < self.end))


@dataclass(frozen=True)
class Dates:
    """Whole days from ``first`` to ``last``, both included (dates as numpy datetime64[D])."""

    first: np.datetime64
    last: np.datetime64

    def holds(self, day: np.ndarray) -> np.ndarray:
        """Which calendar days lie in the range (vectorised)."""
        return (day >= self.first) & (day <= self.last)


@dataclass(frozen=True)
class CalendarRule:
    """A ``calendar:`` landmark rule: one or more windows given in advance (see the module docstring)."""

    text: str
    windows: tuple[Weekly | Dates, ...]

    def mask(self, timestamps, tz: str | None = None) -> np.ndarray:
        """Which timestamps (a DatetimeIndex or anything pandas reads as one) are landmarks."""
        return self.holds(*clock_fields(wall_clock(timestamps, tz)))

    def holds(self, weekday: np.ndarray, second: np.ndarray, day: np.ndarray) -> np.ndarray:
        """Which wall-clock times, given as :func:`clock_fields`, lie in any window (vectorised: many series' times
        read once, then each rule on its own rows)."""
        out = np.zeros(len(weekday), dtype=bool)
        for window in self.windows:
            out |= window.holds(day) if isinstance(window, Dates) else window.holds(weekday, second)
        return out

    def indices(self, series, tz: str | None = None) -> np.ndarray:
        """Landmark positions of an ``lmdk.data.Series`` under this rule, read on the person's wall clock
        (:func:`series_wall_clock`: ``tz``'s, else the offset each reading carried, else the index's own); events
        that stand for a time bin (``Series.interval``) are marked when any part of the bin lies in a window."""
        index = getattr(series, "timestamps", None)
        if not isinstance(index, pd.DatetimeIndex):
            raise ParameterError(f"landmark rule {self.text!r} needs a series with timestamps (an lmdk Series); "
                                 "plain values have no calendar")
        interval = getattr(series, "interval", None)
        if interval:  # events that stand for a bin (an aggregate's): marked when any part of the bin is in a window
            from lmdk.data.bins import bin_offset

            return np.flatnonzero(self.bin_mask(index, bin_offset(interval), tz)).astype(np.int64)
        return np.flatnonzero(self.mask(series_wall_clock(series, tz))).astype(np.int64)

    def bin_mask(self, starts, width, tz: str | None = None) -> np.ndarray:
        """Which bins [start, start + width) have any part inside a window (aggregate bins; conservative: a bin
        that touches a declared window is a landmark, whatever its width): the bin's start lies in a window, or a
        window opens inside the bin. Read on the wall clock of ``tz`` (zone-aware starts) as :meth:`mask` is."""
        index = pd.DatetimeIndex(starts)
        out = self.mask(index, tz)
        if not len(index):
            return out
        begin = _wall_ns(wall_clock(index, tz))
        step = width if isinstance(width, pd.DateOffset) else pd.Timedelta(width)  # a calendar bin: wall clock
        end = np.maximum(_wall_ns(wall_clock(index + step, tz)), begin)
        day = np.int64(86_400 * 10**9)
        days = np.arange(begin.min() // day - 1, end.max() // day + 2, dtype=np.int64)
        weekday = (days + 3) % 7  # 1970-01-01 was a Thursday (weekday 3)
        edges = []
        for window in self.windows:
            if isinstance(window, Dates):
                edges.append(np.array([window.first.astype("datetime64[ns]").astype(np.int64)]))
            else:
                chosen = np.asarray(window.days)[weekday]
                edges.append(days[chosen] * day + np.int64(window.start) * 10**9)
        opens = np.sort(np.concatenate(edges)) if edges else np.zeros(0, dtype=np.int64)
        out |= np.searchsorted(opens, end, side="left") > np.searchsorted(opens, begin, side="right")
        return out

    def preview(self, start="2024-01-01", days: int = 7, step: str = "1h") -> pd.DataFrame:
        """What the rule marks over ``days`` days from ``start`` (a Monday by default), one row per ``step``:
        columns timestamp, weekday, landmark — the one-week preview a policy editor shows."""
        grid = pd.date_range(pd.Timestamp(start), periods=int(pd.Timedelta(days=days) / pd.Timedelta(step)),
                             freq=step, name="timestamp")
        return pd.DataFrame({"timestamp": grid, "weekday": grid.day_name().str[:3], "landmark": self.mask(grid)})


WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEK_START = "2024-01-01"  # a Monday: the preview week runs Mon–Sun


def week_preview(rule: CalendarRule | str) -> pd.DataFrame:
    """The rule's hourly one-week preview from WEEK_START: timestamp, weekday, landmark and the hour of the day."""
    parsed = parse(rule) if isinstance(rule, str) else rule
    week = parsed.preview(WEEK_START, days=7, step="1h")
    return week.assign(hour=week["timestamp"].dt.hour)


def week_grid(rule: CalendarRule | str, week: pd.DataFrame | None = None) -> pd.DataFrame:
    """The rule's one-week preview as a boolean weekday × hour table (rows Mon..Sun, columns 0..23): True where the
    hour starting there is a landmark — what the Data page's calendar box and the Policies page draw. ``week``: the
    rule's :func:`week_preview` when the caller has it already."""
    week = week_preview(rule) if week is None else week
    grid = week.pivot(index="weekday", columns="hour", values="landmark")
    return grid.reindex(list(WEEKDAYS)).astype(bool)


def hour_runs(grid: pd.DataFrame) -> str:
    """A :func:`week_grid` in words, one weekday after another: "Sun 09:00–12:00" (runs of landmark hours; "none" for
    a day without one)."""
    lines = []
    for day, row in grid.iterrows():
        hours = np.flatnonzero(row.to_numpy(dtype=bool))
        starts = hours[np.r_[True, np.diff(hours) > 1]] if hours.size else hours
        ends = hours[np.r_[np.diff(hours) > 1, True]] + 1 if hours.size else hours
        runs = ", ".join(f"{a:02d}:00–{b:02d}:00" for a, b in zip(starts.tolist(), ends.tolist(), strict=True))
        lines.append(f"{day} {runs or 'none'}")
    return " · ".join(lines)


def clock_fields(wall: pd.DatetimeIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weekday 0–6, second of the day, calendar day as datetime64[D]) of naive wall-clock times: what
    :meth:`CalendarRule.holds` reads."""
    index = pd.DatetimeIndex(wall)
    if index.tz is not None:  # the fields of zone-aware times are those of their own wall clock
        index = index.tz_localize(None)
    per_second = _PER_SECOND[index.unit]
    ticks = index.to_numpy().view(np.int64)  # in the index's own unit (no overflow outside 1677–2262)
    days = ticks // (86_400 * per_second)  # whole days since 1970-01-01 (a Thursday), floored before 1970 too
    return (days + 3) % 7, (ticks - days * (86_400 * per_second)) // per_second, days.astype("datetime64[D]")


def wall_clock(timestamps, tz: str | None = None) -> pd.DatetimeIndex:
    """The timestamps as naive wall-clock times: naive ones as they stand, zone-aware ones in their own zone (or
    in ``tz``). A ``tz`` for naive timestamps names their zone and changes nothing on the wall clock."""
    try:
        index = pd.DatetimeIndex(timestamps)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"calendar rule: the timestamps cannot be read as date/times ({exc})") from None
    if tz is not None:
        check_zone(tz)
    if index.tz is None:
        return index
    return (index.tz_convert(tz) if tz else index).tz_localize(None)


def series_wall_clock(series, tz: str | None = None) -> pd.DatetimeIndex:
    """A series' times as naive wall-clock times: in ``tz`` when given, else the offset each reading carried in its
    file (``lmdk.data.Series.wall_times``), else the index's own zone, else as they stand."""
    if tz is not None:
        check_zone(tz)
    wall_times = getattr(series, "wall_times", None)
    if callable(wall_times):
        return wall_times(tz)
    return wall_clock(series.timestamps, tz)


def clock_name(series, tz: str | None = None) -> str:
    """The clock a declared rule is read on in words (the statements' and JSON's ``landmark_clock``)."""
    if tz is not None:
        return f"the wall clock of {tz}"
    index = getattr(series, "timestamps", None)
    zone = getattr(index, "tz", None)
    offsets = getattr(series, "utc_offsets", ())
    if zone is not None and offsets:
        shown = sorted({offset for _, offset in offsets})
        listed = " and ".join(f"{'+' if s >= 0 else '-'}{abs(s) // 3600:02d}:{abs(s) % 3600 // 60:02d}"
                              for s in shown)
        return f"each reading's local wall clock (the UTC offset it carried: {listed})"
    if zone is not None and str(zone) != "UTC":
        return f"the wall clock of {zone}"
    if zone is not None:
        return "UTC (the input's times carried no offset; give --tz ZONE to read the rule on a local clock)"
    return "the timestamps' own wall clock (times without a zone)"


def rule_clock(rule, series, tz: str | None = None) -> str | None:
    """The clock a ``calendar:`` rule (its text) is read on for ``series`` (:func:`clock_name`); None for any other
    rule and for positions given as such."""
    if not isinstance(rule, str) or not rule.strip().lower().startswith(PREFIX):
        return None
    return clock_name(series, tz)


def _wall_ns(wall: pd.DatetimeIndex) -> np.ndarray:
    """int64 nanoseconds of naive wall-clock times (counted as if UTC)."""
    return wall.to_numpy().astype("datetime64[ns]").view(np.int64)


def check_zone(tz: str) -> None:
    """Refuse an unknown time zone, naming an example of a valid one."""
    try:
        pd.Timestamp("2000-01-01").tz_localize(tz)
    except Exception:
        raise ParameterError(f"unknown time zone {tz!r}; use an IANA name such as 'Europe/Berlin' or 'UTC'") from None


def _clock(text: str, rule: str, allow_24: bool) -> int:
    """Seconds after midnight of 'HH:MM' (24:00 only as an end)."""
    match = _CLOCK.match(text.strip())
    if not match:
        raise ParameterError(f"calendar rule {rule!r}: {text!r} is not a time; use HH:MM, e.g. 09:00")
    hours, minutes = int(match.group(1)), int(match.group(2))
    if minutes > 59 or hours > 24 or (hours == 24 and (minutes or not allow_24)):
        raise ParameterError(f"calendar rule {rule!r}: {text!r} is not a time of day (00:00–23:59"
                             f"{', or 24:00 as an end' if allow_24 else ''})")
    return hours * 3600 + minutes * 60


def _day(name: str, rule: str) -> int:
    """Index 0..6 of a weekday name (mon..sun; full names accepted)."""
    key = name.strip().lower()
    if key[:3] not in DAY_NAMES or key not in (key[:3], _FULL_NAMES[DAY_NAMES.index(key[:3])]):
        raise ParameterError(f"calendar rule {rule!r}: {name!r} is not a weekday; use mon, tue, …, sun or daily")
    return DAY_NAMES.index(key[:3])


def _days(text: str, rule: str) -> tuple[bool, ...]:
    """The weekdays of 'daily', 'sun', 'mon-fri' or 'sat,sun' (ranges may wrap: 'fri-mon')."""
    chosen = [False] * 7
    if text.strip().lower() in ("daily", "every", "all"):
        return (True,) * 7
    for part in text.split(","):
        first, dash, last = part.partition("-")
        a = _day(first, rule)
        b = _day(last, rule) if dash else a
        for k in range(((b - a) % 7) + 1):
            chosen[(a + k) % 7] = True
    return tuple(chosen)


def _date(text: str, rule: str) -> np.datetime64:
    """A calendar day from 'YYYY-MM-DD'."""
    if not _DATE.match(text.strip()):
        raise ParameterError(f"calendar rule {rule!r}: {text!r} is not a date; use YYYY-MM-DD")
    try:
        return np.datetime64(pd.Timestamp(text.strip()).date(), "D")
    except ValueError:
        raise ParameterError(f"calendar rule {rule!r}: {text!r} is not a valid date") from None


def _window(text: str, rule: str) -> Weekly | Dates:
    """One window: 'DAYS@HH:MM-HH:MM' or 'DATE[..DATE]'."""
    if "@" in text:
        days, _, times = text.partition("@")
        start, dash, end = times.partition("-")
        if not dash:
            raise ParameterError(f"calendar rule {rule!r}: {times!r} needs a start and an end, e.g. 09:00-12:00")
        begin, finish = _clock(start, rule, False), _clock(end, rule, True)
        if begin == finish:
            raise ParameterError(f"calendar rule {rule!r}: the window {times!r} is empty; for a whole day use "
                                 "00:00-24:00")
        return Weekly(_days(days, rule), begin, finish)
    first, dots, last = text.partition("..")
    start_day = _date(first, rule)
    end_day = _date(last, rule) if dots else start_day
    if end_day < start_day:
        raise ParameterError(f"calendar rule {rule!r}: {last!r} comes before {first!r}")
    return Dates(start_day, end_day)


def parse(text: str) -> CalendarRule:
    """Parse a ``calendar:`` rule (``HELP`` lists the forms); errors name the rule and the fix."""
    return _parsed(str(text).strip())


@lru_cache(maxsize=4096)
def _parsed(raw: str) -> CalendarRule:
    """:func:`parse` of a stripped text, remembered (a CalendarRule is immutable; a population's users repeat a few
    dozen rules in every policy, batch and statement)."""
    body = raw[len(PREFIX):] if raw.lower().startswith(PREFIX) else raw
    if not body.strip():
        raise ParameterError(f"calendar rule {raw!r} names no window; use {HELP}")
    windows = tuple(_window(part.strip(), raw) for part in body.split("+"))
    return CalendarRule(raw, windows)
