"""A window of a long series, or its aggregation to hourly or daily events — what to do with a series that is
longer than a tool takes, instead of a silent cut.

Smart meters report every 15 or 30 minutes (35,040 or 17,520 readings a year), a GPS logger at 1 Hz writes
86,400 fixes a day. Two honest ways to make such a series shorter:

* ``window(series, start, n)``: the events ``start … start + n − 1`` as they are. The release and its guarantee
  concern these events only; the rest of the file is neither released nor protected by it.
* ``aggregate(series, "hourly" | "daily", how)``: one event per clock hour or day (in the series' own time
  zone) that holds the ``how`` ("sum" or "mean"; for locations "mean" = the centroid, or "last" fix) of its
  readings; hours/days without readings have no event.

What aggregating means for privacy. An aggregated event *is* the sum (or mean) of the readings of its hour or
day, and ε then protects one aggregated event: any change of all the readings of one hour (or day) that keeps
their sum (mean) inside the public range. That is stronger per reading — a whole hour or day is protected
where before only one reading was — but the released series is coarser (hourly or daily values), and landmarks
mark whole hours or days. The public range of a *sum* grows with the number of readings in a bin
(``aggregated_range``: k readings in [low, high] sum to [k·low, k·high], k from the public reading interval,
never from the data), so the noise grows with it; a mean keeps the range of one reading. A sum reports
what a bill reports (kWh per day), a mean what a gauge shows (average kW, temperature).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from lmdk.data.series import Series, epoch_ns, frame_hash
from lmdk.errors import ParameterError

FREQUENCIES = {"hourly": "h", "daily": "D"}
"""Aggregation periods and their pandas frequency (bins are clock hours / calendar days in the series' zone)."""
PERIOD_SECONDS = {"hourly": 3_600.0, "daily": 86_400.0}
HOW = {"values": ("sum", "mean"), "trajectory": ("mean", "last")}
"""What an aggregated event holds, per kind (contacts cannot be aggregated into one id: use a window)."""
UNIT_WORD = {"hourly": "hour", "daily": "day"}


def window(series: Series, start: int, n: int) -> Series:
    """At most ``n`` events of ``series`` from position ``start`` on (fewer when the series ends first).

    A window keeps the events as they are; ε then protects these events only, and nothing outside the window
    is released. Raises ParameterError for ``start`` outside the series or ``n < 1``.
    """
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or not 0 <= start < len(series):
        raise ParameterError(f"start must be an event position in 0..{len(series) - 1}, not {start!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n (events in the window) must be a positive integer, not {n!r}")
    if start == 0 and n >= len(series):
        return series
    return series.slice(int(start), int(start) + int(n))


def aggregate(series: Series, period: str, how: str | None = None) -> Series:
    """One event per clock hour or calendar day (``period`` "hourly" | "daily") holding ``how`` of its readings.

    values: "sum" (default; energy per hour or day) or "mean"; trajectory: "mean" (default; the centroid of the
    fixes, in degrees — fine within a city) or "last" (the last fix of the period). Bins follow the series' own
    time zone (a daylight-saving day has 23 or 25 hours); a bin's event carries the bin's start as its timestamp;
    bins without readings have no event. Contacts are refused (an hour's contacts are a set, not one id).

    Privacy: ε then protects one aggregated event — a whole hour or day of readings (see the module docstring);
    for a sum the public range is ``aggregated_range`` of one reading's.
    """
    if period not in FREQUENCIES:
        raise ParameterError(f"period must be one of {', '.join(FREQUENCIES)}, not {period!r}")
    if series.kind not in HOW:
        raise ParameterError(f"a {series.kind} series cannot be aggregated (one event per {UNIT_WORD[period]} would "
                             "need one contact id for many scans): use a window instead")
    allowed = HOW[series.kind]
    how = allowed[0] if how is None else how
    if how not in allowed:
        raise ParameterError(f"a {series.kind} series aggregates by {' or '.join(allowed)}, not {how!r}")
    index = series.timestamps
    bins = index.floor(FREQUENCIES[period], ambiguous=_ambiguous(index), nonexistent="shift_backward") \
        if index.tz is not None else index.floor(FREQUENCIES[period])
    columns = ["value"] if series.kind == "values" else ["lat", "lon"]
    grouped = series.frame[columns].groupby(bins, sort=True)
    frame = getattr(grouped, how)()
    counts = grouped.size().to_numpy()
    frame.index = pd.DatetimeIndex(frame.index, name="timestamp")
    per = UNIT_WORD[period]
    what = {"sum": "sum", "mean": "mean" if series.kind == "values" else "centroid", "last": "last fix"}[how]
    note = (f"aggregated {len(series):,} events into {len(frame):,} {period} events (the {what} of each {per}'s "
            f"{int(np.median(counts)):,} readings in the median; {int(counts.min()):,} to {int(counts.max()):,})")
    name = f"{series.name or 'series'} — {period} {what}s"
    return replace(series, frame=frame, name=name, warnings=series.warnings + (note,), source_hash=frame_hash(frame))


def _ambiguous(index: pd.DatetimeIndex) -> np.ndarray:
    """For the repeated hour of a daylight-saving fall-back: which readings are in the first (summer) one."""
    offset = epoch_ns(index.tz_localize(None)) - epoch_ns(index)  # local − UTC
    return offset == offset.max() if offset.size else np.zeros(0, dtype=bool)  # the larger offset: summer time


def readings_per_period(step_seconds: float, period: str) -> int:
    """The most readings one bin can hold at a public reading interval of ``step_seconds`` (a meter's 900 s);
    a daily bin counts a 25-hour daylight-saving day."""
    if period not in PERIOD_SECONDS:
        raise ParameterError(f"period must be one of {', '.join(PERIOD_SECONDS)}, not {period!r}")
    if not step_seconds or not np.isfinite(step_seconds) or step_seconds <= 0:
        raise ParameterError(f"the reading interval must be a positive number of seconds, not {step_seconds!r}")
    length = PERIOD_SECONDS[period] + (3_600.0 if period == "daily" else 0.0)
    return max(1, int(np.ceil(length / step_seconds - 1e-9)))


def aggregated_range(low: float, high: float, how: str, readings: int) -> tuple[float, float]:
    """The public range of an aggregated value: k·[low, high] for a sum of at most k = ``readings`` readings
    (k·low when low > 0 assumes all k are present; a missing reading only lowers a sum of non-negative values,
    so the range becomes [min(0, low), k·high]); [low, high] for a mean."""
    if how == "mean":
        return float(low), float(high)
    if how != "sum":
        raise ParameterError(f"how must be 'sum' or 'mean' for values, not {how!r}")
    k = int(readings)
    return float(min(low, 0.0) if low >= 0 else k * low), float(k * high if high > 0 else max(high, 0.0))


def privacy_meaning(period: str, how: str, kind: str = "values") -> str:
    """The privacy meaning of aggregating, in words for a privacy officer."""
    per = UNIT_WORD[period]
    what = {"sum": "sum", "mean": "mean" if kind == "values" else "centroid", "last": "last fix"}[how]
    change = ("changing all of them together within the public range of the " + what) if kind == "values" else \
        "moving all of them together so that the " + what + " moves within the protected radius"
    return (f"Each event is now the {what} of one {per}'s readings. ε protects one aggregated event — a whole "
            f"{per}: {change} — which is stronger per reading than protecting one reading, but the release is "
            f"coarser ({period} values only) and landmarks mark whole {per}s."
            + (f" The public range of a sum grows with the readings per {per}, and the noise with it."
               if how == "sum" else ""))
