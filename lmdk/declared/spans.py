"""Declared spans of time (an appointment, an explicit time) turned into the landmarks of a series.

A reading at time t_i stands for the interval [t_i, t_{i+1}) up to the next reading (the last one for as long as
the step before it). A declared span [s, e) marks every reading whose interval overlaps it; a declared instant
(s = e) marks the reading whose interval holds it. Spans outside the series are ignored: a person's calendar
covers a year while one day's file is released. Whether a reading is marked depends on the timestamps and the
declaration only — never on a value —, so neighbouring series share the landmark set and Theorem 2 of the
landmark paper (§3.1) holds as stated.

Spans come in two clocks: *absolute* (a zone or an offset was given: compared as UTC instants, so each is read
in its own zone) and *wall-clock* (floating times, whole days: compared with the series' wall clock, as the
``calendar:`` windows are).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError


@dataclass(frozen=True)
class Spans:
    """Declared spans as int64 nanoseconds: ``absolute`` UTC (starts, ends), ``wall`` wall-clock (starts, ends)."""

    absolute: tuple[np.ndarray, np.ndarray]
    wall: tuple[np.ndarray, np.ndarray]
    what: str  # e.g. "ics:alice.ics", named in errors

    @property
    def count(self) -> int:
        """How many spans were declared."""
        return int(self.absolute[0].size + self.wall[0].size)


def _ns(index: pd.DatetimeIndex) -> np.ndarray:
    """Nanoseconds since the epoch of a DatetimeIndex (UTC instants when zone-aware, wall clock when naive)."""
    from lmdk.data.series import epoch_ns

    return epoch_ns(index)


def _marked(times: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Which readings at ``times`` (int64 ns, any order) overlap a span [start, end) or hold an instant."""
    out = np.zeros(times.size, dtype=bool)
    if times.size == 0 or starts.size == 0:
        return out
    order = np.argsort(times, kind="stable")
    t = times[order]
    last_step = int(t[-1] - t[-2]) if t.size > 1 else 1
    nxt = np.r_[t[1:], t[-1] + max(last_step, 1)]  # the end of each reading's interval
    lo = np.searchsorted(nxt, starts, side="right")  # first reading whose interval ends after the start
    hi = np.where(ends > starts, np.searchsorted(t, ends, side="left"), np.searchsorted(t, starts, side="right"))
    keep = hi > lo
    marks = np.zeros(t.size + 1, dtype=np.int64)
    np.add.at(marks, lo[keep], 1)
    np.add.at(marks, hi[keep], -1)
    out[order] = np.cumsum(marks)[:-1] > 0
    return out


def mask(spans: Spans, timestamps, tz: str | None = None, wall=None) -> np.ndarray:
    """Which ``timestamps`` are landmarks under ``spans``; naive timestamps are wall-clock times in ``tz`` (needed
    only when some span is absolute, to place it on the series' clock). ``wall``: the timestamps on the person's
    wall clock (:func:`lmdk.declared.calendar.series_wall_clock`), where floating spans are matched."""
    index = pd.DatetimeIndex(timestamps)
    out = np.zeros(len(index), dtype=bool)
    if spans.wall[0].size:
        from lmdk.declared.calendar import wall_clock

        out |= _marked(_ns(wall_clock(index, tz) if wall is None else pd.DatetimeIndex(wall)), *spans.wall)
    if spans.absolute[0].size:
        if index.tz is None:
            if tz is None:
                raise ParameterError(f"landmark rule {spans.what!r} names times in a time zone, but the series' "
                                     "timestamps have none; give the data's zone (\"timezone\" in the import mapping, "
                                     "--mapping FILE, or --tz ZONE) so the two clocks can be compared")
            index = index.tz_localize(tz, ambiguous="NaT", nonexistent="NaT")  # a clock change's lost hour
        placed = ~np.asarray(index.isna())
        out[placed] |= _marked(_ns(index[placed].tz_convert("UTC")), *spans.absolute)
    return out


def span_range(timestamps, margin_days: int = 1) -> tuple[pd.Timestamp, pd.Timestamp]:
    """The wall-clock range a declaration must be expanded over to cover ``timestamps`` (± a margin that covers
    any zone's offset and the last reading's interval)."""
    index = pd.DatetimeIndex(timestamps)
    wall = index.tz_localize(None) if index.tz is not None else index
    margin = pd.Timedelta(days=margin_days)
    return wall.min() - margin, wall.max() + margin

