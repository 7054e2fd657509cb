"""``ics:PATH``: the appointments a person exports from their own calendar (RFC 5545 iCalendar) as landmarks.

Read with ``icalendar``; recurring events (RRULE, RDATE, EXDATE, moved occurrences) are expanded by
``recurring-ical-events`` over the span of the series being released. Each event keeps its own time zone: an
event with a TZID (or in UTC) is an instant on the absolute clock, so "09:00 America/New_York" marks the readings
of 15:00 in Berlin, and a weekly 18:00 Europe/Berlin appointment stays at 18:00 on the wall clock across a clock
change; floating times and all-day events are wall-clock times of the series (as ``calendar:`` windows are).
An event without an end lasts its DURATION, or one day when it is all-day, or is an instant (RFC 5545 §3.6.1).
Which readings an event marks is :mod:`lmdk.declared.spans`' rule.
"""
from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from lmdk.declared.files import read_bytes
from lmdk.declared.spans import Spans, mask, span_range
from lmdk.errors import ParameterError

PREFIX = "ics:"
MAX_BYTES = 20_000_000  # a personal calendar export is a few MB at most
_EMPTY = np.zeros(0, dtype=np.int64)


def read_calendar(path: str):
    """The parsed ``icalendar.Calendar`` of a file, with errors naming the file and the fix."""
    import icalendar

    try:  # a regular file only, at most MAX_BYTES + 1 bytes read: never /dev/zero or a FIFO
        raw = read_bytes(path, MAX_BYTES, "calendar file")
    except ParameterError as exc:
        raise ParameterError(f"landmark rule 'ics:{path}': {exc}; give the path of an .ics file exported from a "
                             "calendar") from None
    try:
        calendar = icalendar.Calendar.from_ical(raw)
    except (ValueError, IndexError, KeyError) as exc:
        raise ParameterError(f"landmark rule 'ics:{path}': not an iCalendar file ({exc}); export the calendar as "
                             ".ics (BEGIN:VCALENDAR …)") from None
    if not isinstance(calendar, icalendar.Calendar):
        raise ParameterError(f"landmark rule 'ics:{path}': the file holds no VCALENDAR")
    return calendar


def validate(path: str) -> int:
    """Check that ``path`` is a readable iCalendar file; returns how many VEVENTs (series counted once) it holds."""
    calendar = read_calendar(path)
    events = calendar.walk("VEVENT")
    for event in events:
        if event.get("DTSTART") is None:
            raise ParameterError(f"landmark rule 'ics:{path}': the event {str(event.get('SUMMARY', '?'))!r} has no "
                                 "DTSTART; every appointment needs a start")
    return len(events)


def _stamp(value) -> tuple[pd.Timestamp, bool]:
    """(time, absolute?) of a DTSTART/DTEND value: a zoned date-time is absolute, a floating one or a date is not."""
    if isinstance(value, dt.datetime):
        stamp = pd.Timestamp(value)
        return stamp, stamp.tzinfo is not None
    return pd.Timestamp(value), False


def _span(event) -> tuple[pd.Timestamp, pd.Timestamp, bool]:
    """(start, end, absolute?) of one expanded occurrence."""
    begin = event["DTSTART"].dt
    start, absolute = _stamp(begin)
    if event.get("DTEND") is not None:
        end, _ = _stamp(event["DTEND"].dt)
    elif event.get("DURATION") is not None:
        end = start + pd.Timedelta(event["DURATION"].dt)
    else:
        end = start + pd.Timedelta(days=1) if not isinstance(begin, dt.datetime) else start
    if absolute and end.tzinfo is None:
        end = end.tz_localize(start.tzinfo)
    return start, end, absolute


def spans(path: str, first, last) -> Spans:
    """The occurrences of every event of the calendar ``path`` between the wall-clock times ``first`` and ``last``
    (recurring events expanded), as :class:`lmdk.declared.spans.Spans`."""
    import recurring_ical_events

    calendar = read_calendar(path)
    try:
        occurrences = recurring_ical_events.of(calendar).between(pd.Timestamp(first).to_pydatetime(),
                                                                pd.Timestamp(last).to_pydatetime())
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"landmark rule 'ics:{path}': its recurring events cannot be expanded ({exc})") from None
    absolute: list[tuple[int, int]] = []
    wall: list[tuple[int, int]] = []
    for event in occurrences:
        start, end, is_absolute = _span(event)
        if is_absolute:
            absolute.append((start.tz_convert("UTC").as_unit("ns").value, end.tz_convert("UTC").as_unit("ns").value))
        else:
            wall.append((start.as_unit("ns").value, end.tz_localize(None).as_unit("ns").value))
    return Spans(_pairs(absolute), _pairs(wall), f"{PREFIX}{path}")


def _pairs(items: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) int64 arrays of a list of (start, end) pairs."""
    if not items:
        return _EMPTY, _EMPTY
    arr = np.asarray(items, dtype=np.int64)
    return arr[:, 0], arr[:, 1]


def ics_mask(path: str, timestamps, tz: str | None = None, wall=None) -> np.ndarray:
    """Which ``timestamps`` the appointments of the calendar ``path`` mark (see the module docstring)."""
    if len(timestamps) == 0:
        return np.zeros(0, dtype=bool)
    first, last = span_range(timestamps)
    return mask(spans(path, first, last), timestamps, tz, wall)
