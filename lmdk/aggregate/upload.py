"""One series from a multi-user upload (a table with a user/device column): one user's own readings, or a statistic
over all users (or over one group) per time bin — the Data page's choice, with the relation its release protects.

A statistic is built by :func:`lmdk.aggregate.build` and protected by :func:`lmdk.relation.aggregate`: any one
user's readings at every landmark bin and any one other bin, each anywhere in the public range (values clamped to it;
Δ = max(0, high) − min(0, low): a user without a reading in a bin contributes 0; a mean's ÷ N) or, for a count,
one user's contact rows (Δ = K) or presence in a public region (Δ = 1).
Every public parameter (range, K, region, groups, N) is chosen, never read from the data.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lmdk.aggregate.build import ALL, build, membership
from lmdk.aggregate.inputs import Upload, group_pairs
from lmdk.aggregate.partial import Region
from lmdk.errors import DataError, ParameterError

if TYPE_CHECKING:
    from lmdk.data import Series
    from lmdk.relation import Relation

CHOICES = ("one", "sum", "mean", "count")
"""What a multi-user upload can become: one user's own series, or a statistic over users."""
_BY_KIND = {"values": ("sum", "mean"), "contacts": ("count",), "trajectory": ("count",)}


def statistics_for(kind: str) -> tuple[str, ...]:
    """The statistics over users that a series kind has: readings sum or mean, contacts and locations count."""
    return _BY_KIND.get(kind, ())


@dataclass(frozen=True)
class UploadStatistic:
    """The public parameters of a statistic over the users of an upload (see the module docstring)."""

    statistic: str  # sum | mean | count
    low: float | None = None  # the public range of one reading (sum, mean)
    high: float | None = None
    bin: str = "1h"
    max_per_user: int = 1  # K: contact rows one person adds per bin at most
    by: str | None = None  # the group column; None: every user
    group: str | None = None  # the one group released (with ``by``)
    region: Region | None = None  # a count of locations: the public circle
    who: str = "user"
    time_range: tuple[str, str] | None = None  # the public (START, END) of the released bins, as --time-range
    drop_rows_without_user: bool = False  # drop rows without a user id (counted), as --drop-rows-without-user


@dataclass(frozen=True)
class Chosen:
    """The statistic's series, the relation its release protects, and how many users and groups it covers."""

    series: Series  # of values
    relation: Relation  # kind "aggregate"
    users: int
    groups: tuple[str, ...]
    notes: tuple[str, ...] = ()  # the statement's line on the time span (read from the data: not protected)


def group_columns(columns, spec) -> list[str]:
    """Columns that can name a group: every column but the user, time and reading ones."""
    used = {spec.entity_column, spec.time_column, spec.date_column, spec.value_column, spec.lat_column,
            spec.lon_column, spec.contact_column}
    return [str(c) for c in columns if c not in used]


def _clock_notes(raw: bytes, filename: str, spec) -> tuple[str, ...]:
    """The import's note on an hour written twice by an autumn clock change (naive local times, no zone given),
    read from one user's series: each user's repeated hour is averaged before the statistic is built, so say it."""
    from lmdk.data import mapping as mp

    if spec.timezone or spec.layout != "table":
        return ()
    buffer = io.BytesIO(raw)
    buffer.name = filename
    try:
        one = mp.apply(buffer, spec, name=filename)
    except ValueError:  # the statistic's own reading reports what is wrong with the file
        return ()
    return tuple(f"every user's times: {w}" for w in one.warnings if "clock change" in w)


def choose(raw: bytes, filename: str, spec, choice: UploadStatistic, *, units: str = "",
           tz: str | None = None) -> Chosen:
    """The statistic ``choice`` over the users of the upload (``spec``: its import mapping, with its user column)
    as a series and its relation; ``tz``: the zone its bins are shown in (calendar landmarks read its wall clock) and
    the zone of a naive public time range. The series' events stand for their bins (``Series.interval``): a declared
    window marks every bin it touches, as ``lmdk aggregate`` does (:mod:`lmdk.aggregate.landmarks`)."""
    from lmdk import relation
    from lmdk.population.input import upload_source

    if spec is None or spec.entity_column is None:
        raise DataError("a statistic over users needs the user / device column: choose it in the import settings")
    if choice.by is not None and choice.group is None:
        raise ParameterError(f"group column {choice.by!r}: choose which group to release")
    source = upload_source(raw, filename, spec)
    if choice.statistic not in statistics_for(source.kind):
        raise ParameterError(f"a {choice.statistic} does not apply to {source.kind}; this upload offers "
                             f"{', '.join(statistics_for(source.kind))}")
    value_range = None
    if choice.statistic in ("sum", "mean"):
        if choice.low is None or choice.high is None:
            raise ParameterError("a sum or mean needs the public range of one reading (low and high, from the "
                                 "device — never from the data)")
        value_range = (float(choice.low), float(choice.high))
    pairs = membership(group_pairs(Upload(raw, filename), choice.by, spec)) if choice.by is not None else None
    agg = build(source, choice.statistic, value_range=value_range, bin=choice.bin, groups=pairs,
                max_per_user=choice.max_per_user, region=choice.region, time_range=choice.time_range, tz=tz,
                drop_rows_without_user=choice.drop_rows_without_user)
    group = ALL if choice.by is None else str(choice.group)
    if group not in agg.series:
        raise ParameterError(f"group {group!r}: not in column {choice.by!r}; its groups are {sorted(agg.series)}")
    series = agg.to_series(group, units=units, tz=tz)
    clock = _clock_notes(raw, filename, spec)
    if clock:
        from dataclasses import replace

        series = replace(series, warnings=tuple(series.warnings) + clock)
    counted = None if choice.statistic != "count" else "contacts" if agg.kind == "contacts" else "region"
    protects = relation.aggregate(choice.statistic, users=agg.users[group],
                                  low=value_range[0] if value_range else None,
                                  high=value_range[1] if value_range else None, unit=units,
                                  max_per_user=choice.max_per_user if agg.kind == "contacts" else 1,
                                  groups=len(agg.series), who=choice.who, counted=counted)
    from lmdk.aggregate.release import time_range_line

    return Chosen(series=series, relation=protects, users=agg.users[group], groups=tuple(sorted(agg.series)),
                  notes=(time_range_line(agg.time_range),))
