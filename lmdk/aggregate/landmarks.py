"""The landmarks of an aggregate's bins: which bins a rule marks, on which clock, and what is said when a declared
rule marks none — one function for the release (:mod:`lmdk.aggregate.release`), the planner
(:mod:`lmdk.aggregate.planning`) and the app's upload panel.

A bin stands for the interval [start, start + width): under a declared ``calendar:`` rule it is a landmark if any
part of it lies in a declared window (conservative: a landmark protects more), so a 1-day bin holds the weekday
office hours it contains and a 365-day bin the months a window names. ``ics:`` and ``times:`` rules already mark
every reading whose interval overlaps a declared span (:mod:`lmdk.declared.spans`). A declared rule that marks no
bin is said in a warning naming the rule and the bins' width: the release then protects one bin at ε and nothing
more.
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


def landmark_clock(tz: str | None, zoned: bool) -> str:
    """The clock a declared rule is read on: ``tz``'s wall clock, UTC (times with an offset and no ``tz``: the bins
    are UTC instants), or the timestamps' own wall clock (times without a zone)."""
    if tz is not None:
        return f"the wall clock of {tz}"
    if zoned:
        return "UTC (the input's times carried an offset; give --tz ZONE to read the rule on the local clock)"
    return "the timestamps' own wall clock (times without a zone)"


def bin_landmarks(rule: LandmarkRule, series, bin: str, tz: str | None = None, zoned: bool = False) -> BinLandmarks:
    """The landmark bins of ``series`` (an aggregate's :meth:`~lmdk.aggregate.build.Aggregate.to_series`, bins of
    width ``bin``) under ``rule`` (see the module docstring)."""
    if rule.kind == "calendar":
        from lmdk.data.bins import bin_offset
        from lmdk.declared.calendar import parse

        mask = parse(rule.spec or "").bin_mask(series.timestamps, bin_offset(bin), tz)
        L = np.flatnonzero(mask).astype(np.int64)
    else:
        L = np.asarray(rule.indices(series, tz), dtype=np.int64)
    clock = landmark_clock(tz, zoned)
    warnings: list[str] = []
    if not rule.data_dependent and rule.kind != "none" and L.size == 0 and len(series):
        stamps = series.timestamps
        warnings.append(f"declared rule {rule_text(rule)!r} marks no bin of {bin} (the {len(series):,} bins from "
                        f"{stamps[0]} to {stamps[-1]}, read on {clock.split(' (')[0]}): no landmark is protected "
                        "beyond one bin at ε; check the rule's windows against the bins' width and time range")
    if zoned and tz is None and rule.kind == "calendar":
        warnings.append(f"declared rule {rule_text(rule)!r} was read on UTC: the input's times carried an offset; "
                        "give --tz ZONE to read it on the local wall clock")
    return BinLandmarks(L, clock, tuple(warnings))


def rule_text(rule: LandmarkRule) -> str:
    """The rule as written (calendar: its text, a file rule its kind and path)."""
    if rule.kind == "calendar":
        return rule.spec or "calendar:"
    return f"{rule.kind}:{rule.path}" if rule.path else rule.kind
