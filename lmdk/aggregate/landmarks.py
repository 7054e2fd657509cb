"""The landmarks of an aggregate's bins: which bins a rule marks, on which clock, and what is said when a declared
rule marks none — one function for the release (:mod:`lmdk.aggregate.release`), the planner
(:mod:`lmdk.aggregate.planning`) and the app's upload panel.

A bin stands for the interval [start, start + width): under a declared ``calendar:`` rule it is a landmark if any
part of it lies in a declared window (conservative: a landmark protects more), so a 1-day bin holds the weekday
office hours it contains and a 365-day bin the months a window names. ``ics:`` and ``times:`` rules already mark
every reading whose interval overlaps a declared span (:mod:`lmdk.declared.spans`). A declared rule that marks no
bin is said in a warning naming the rule and the bins' width: the release then protects one bin at ε and nothing
more.

The windows are read on the person's wall clock: ``--tz``'s when given; else, when the readings carried UTC offsets,
each bin on the offset its readings carried at its start (``Aggregate.utc_offsets``, a fixed offset per change
point); naive times as they stand.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from lmdk.landmarks import LandmarkRule


@dataclass(frozen=True)
class BinLandmarks:
    """The landmark bins of a rule, the clock its windows were read on, and the warnings about them."""

    indices: np.ndarray
    clock: str
    warnings: tuple[str, ...]


def landmark_clock(tz: str | None, zoned: bool, offsets: tuple[tuple[int, int], ...] = ()) -> str:
    """The clock a declared rule is read on: ``tz``'s wall clock, the UTC offsets the readings carried (``offsets``:
    change points, seconds east), UTC (zone-aware times that carried none), or the timestamps' own wall clock (times
    without a zone)."""
    if tz is not None:
        return f"the wall clock of {tz}"
    if offsets:
        shown = ", ".join(offset_text(s) for s in sorted({offset for _, offset in offsets}))
        return f"the offsets the readings carried ({shown}; each bin on the offset at its start)"
    if zoned:
        return "UTC (the input's times carried an offset; give --tz ZONE to read the rule on the local clock)"
    return "the timestamps' own wall clock (times without a zone)"


def offset_text(seconds: int) -> str:
    """A UTC offset in words: UTC−07:00, UTC+05:30, UTC+00:00."""
    sign = "+" if seconds >= 0 else "−"
    return f"UTC{sign}{abs(seconds) // 3600:02d}:{abs(seconds) % 3600 // 60:02d}"


def bin_landmarks(rule: LandmarkRule, series, bin: str, tz: str | None = None, zoned: bool = False) -> BinLandmarks:
    """The landmark bins of ``series`` (an aggregate's :meth:`~lmdk.aggregate.build.Aggregate.to_series`, bins of
    width ``bin``) under ``rule`` (see the module docstring)."""
    offsets = tuple(getattr(series, "utc_offsets", ())) if tz is None else ()
    if rule.kind == "calendar":
        from lmdk.data.bins import bin_offset
        from lmdk.declared.calendar import parse, series_wall_clock

        starts = series_wall_clock(series) if offsets else series.timestamps  # each bin on its start's offset
        mask = parse(rule.spec or "").bin_mask(starts, bin_offset(bin), tz)
        L = np.flatnonzero(mask).astype(np.int64)
    else:
        L = np.asarray(rule.indices(series, tz), dtype=np.int64)
    clock = landmark_clock(tz, zoned, offsets)
    warnings: list[str] = []
    if not rule.data_dependent and rule.kind != "none" and L.size == 0 and len(series):
        stamps = series.timestamps
        warnings.append(f"declared rule {rule_text(rule)!r} marks no bin of {bin} (the {len(series):,} bins from "
                        f"{stamps[0]} to {stamps[-1]}, read on {clock.split(' (')[0]}): no landmark is protected "
                        "beyond one bin at ε; check the rule's windows against the bins' width and time range")
    if zoned and tz is None and not offsets and rule.kind == "calendar":
        warnings.append(f"declared rule {rule_text(rule)!r} was read on UTC: the input's times carried an offset; "
                        "give --tz ZONE to read it on the local wall clock")
    return BinLandmarks(L, clock, tuple(warnings))


def rule_text(rule: LandmarkRule) -> str:
    """The rule as written (calendar: its text, a file rule its kind and path)."""
    if rule.kind == "calendar":
        return rule.spec or "calendar:"
    return f"{rule.kind}:{rule.path}" if rule.path else rule.kind
