"""Aggregate streams: one series built from many users' events — per time bin the sum, mean or count over users.

The landmark paper's model already holds it: each timestamp's data is a data set D_t of individuals (§2,
Definition 2), and protecting "all data sets corresponding to L ∪ {t}" (§3.1) means protecting one user's
contributions at those timestamps. This module builds the statistic; :mod:`lmdk.relation` states what a
release of it protects, and every scheme, the exact sampler, the temporal loss, dummy landmarks, the audit and
the planner then work on the aggregate series unchanged.

What each statistic counts (all choices public, none read from the data):

- ``sum`` (values): per bin, the sum over users of each user's reading clamped to the public range
  [low, high]. A user without a reading in a bin contributes 0; several readings of one user in one bin are
  averaged first (at most one contribution per user and bin), with a warning that counts them. One user's
  contribution lies in [min(0, low), max(0, high)], so one user moves the sum of a bin by at most
  Δ = max(0, high) − min(0, low), and the sum lies in [N·min(0, low), N·max(0, high)]
  (:func:`lmdk.relation.aggregate_sensitivity`: the one place Δ is computed).
- ``mean`` (values): the sum divided by N, the number of users counted from the input's user ids, which is public
  under this relation (rows without a user id are refused, or dropped and counted when asked).
- ``count`` (contacts): per bin, the number of contact rows; a row belongs to both people it joins, and each
  person contributes at most K rows per bin (``max_per_user``, public): later rows of a person past K are
  dropped, with a warning that counts them. One user moves a bin's count by at most K (Δ = K).
- ``count`` (locations): per bin, the number of users with at least one location inside a public region
  (a circle: centre and radius in metres). Δ = 1.

Groups (``by`` a column: district, feeder, school class): each user belongs to exactly one group (a user in two
groups is an error naming them) and membership is treated as public; groups are disjoint sets of users, so
their releases compose in parallel; a group of fewer than ``SMALL_GROUP`` users gets a warning (its total is
nearly one person's series).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from lmdk.aggregate.partial import (
    ALL,
    Region,
    bin_offsets,
    first_per_bin,
    frame_numbers,
    frame_partial,
    time_bounds,
    without_user,
)
from lmdk.data.bins import Grid, check_bin_count, parse_bin
from lmdk.errors import DataError, ParameterError

STATISTICS = ("sum", "mean", "count")
SMALL_GROUP = 10
"""A group with fewer users than this is warned about: its statistic is nearly one person's series."""


@dataclass(frozen=True)
class Aggregate:
    """A statistic per time bin over users, per group (``ALL`` without groups), with what it counted."""

    statistic: str
    kind: str  # the users' series kind: values, contacts or trajectory
    bin: str
    series: dict[str, pd.Series]  # group → statistic per bin (index: bin starts, a complete grid)
    users: dict[str, int]  # group → N
    sensitivity: float  # Δ: how far one user moves one bin's statistic (before dividing a mean by N)
    value_range: tuple[float, float] | None  # the public range of one user's reading (values)
    max_per_user: int = 1
    warnings: tuple[str, ...] = field(default=())
    dropped_rows: int = 0  # rows without a user id, dropped (--drop-rows-without-user)
    outside_rows: int = 0  # readings outside the public time range, dropped
    time_range: tuple[str, str] | None = None  # the public time range's first bin start and end; None: the data's
    zoned: bool = False  # the input's times carried a zone or offset: the bins are UTC instants
    utc_offsets: tuple[tuple[int, int], ...] = ()  # the offsets the readings carried at the bins' starts, as change
    # points (bin start UTC ns, seconds east; lmdk.data.Series.utc_offsets): declared windows are read on them
    users_without_readings: int = 0  # users in N with no usable value: they contribute nothing

    def statistic_range(self, group: str = ALL) -> tuple[float, float]:
        """The public range of one bin's statistic (:func:`lmdk.relation.aggregate_statistic_range`), [0, N·K]."""
        from lmdk.relation import aggregate_statistic_range

        n = self.users[group]
        if self.statistic == "count":
            return 0.0, float(n * (self.max_per_user if self.kind == "contacts" else 1))
        low, high = self.value_range if self.value_range is not None else (0.0, 1.0)
        return aggregate_statistic_range(self.statistic, n, low, high)

    def to_series(self, group: str = ALL, units: str = "", tz: str | None = None):
        """The statistic of ``group`` as an lmdk Series of values (every concept of the papers applies to it).

        ``tz``: show the bins in this zone — the bins of zone-aware input are UTC instants (naive input's bins
        are taken as UTC here); calendar landmark rules then read the wall clock of ``tz``. Without ``tz``, bins of
        readings that carried UTC offsets are UTC instants read on those offsets (``Series.utc_offsets``)."""
        from lmdk.data.series import Series

        if group not in self.series:
            raise ParameterError(f"no group {group!r}; the groups are {sorted(self.series)}")
        data = self.series[group]
        index = pd.DatetimeIndex(data.index, name="timestamp")
        if tz is not None:
            from lmdk.declared.calendar import check_zone

            check_zone(tz)
            index = index.tz_localize("UTC").tz_convert(tz)
        elif self.utc_offsets:
            index = index.tz_localize("UTC")
        frame = pd.DataFrame({"value": data.to_numpy(dtype=float)}, index=index)
        name = f"{self.statistic} over {self.users[group]:,} users" + ("" if group == ALL else f" ({group})")
        return Series(frame, "values", units=units, name=name, warnings=self.warnings, interval=self.bin,
                      utc_offsets=self.utc_offsets if tz is None else ())


def _bin_width(bin: str, tz: str | None = None) -> Grid:
    """The time grid of ``bin`` ('30min', '1h', '1d', '1w', '1month', '1quarter', '1year':
    :func:`lmdk.data.bins.parse_bin`), calendar bins at local midnight in ``tz``."""
    if tz is not None:
        from lmdk.declared.calendar import check_zone

        check_zone(tz)
    return Grid(parse_bin(bin), tz)


def _check(statistic: str, kind: str, value_range, max_per_user: int, region: Region | None) -> None:
    """Refuse a statistic that does not fit the kind of series, or missing public parameters."""
    if statistic not in STATISTICS:
        raise ParameterError(f"statistic must be one of {', '.join(STATISTICS)}, not {statistic!r}")
    if statistic in ("sum", "mean"):
        if kind != "values":
            raise ParameterError(f"a {statistic} needs readings (values); this input holds {kind}: use --statistic "
                                 "count")
        if value_range is None:
            raise ParameterError("a sum or mean needs the public range of one reading (--range LOW HIGH, from the "
                                 "device, never from the data)")
    elif kind == "values":
        raise ParameterError("count applies to contacts (rows per bin) or locations (users inside a region); for "
                             "readings use sum or mean")
    elif kind == "trajectory" and region is None:
        raise ParameterError("a count of locations needs a public region (centre lat, lon and a radius in metres)")
    if isinstance(max_per_user, bool) or not isinstance(max_per_user, (int, np.integer)) or max_per_user < 1:
        raise ParameterError(f"max_per_user must be a whole number ≥ 1, not {max_per_user!r}")


class _Totals:
    """Per-group sums over absolute bin numbers (bin start // width), grown as bins arrive; with ``bounds`` (the
    public time range's bins [first, stop)) the grid is exactly those bins."""

    def __init__(self, bounds: tuple[int, int] | None = None, grid: Grid | None = None) -> None:
        self.grid = grid
        self.offset: int | None = None
        self.sums: dict[str, np.ndarray] = {}
        self.fixed = bounds is not None
        self.first = np.iinfo(np.int64).max if bounds is None else int(bounds[0])
        self.last = np.iinfo(np.int64).min if bounds is None else int(bounds[1]) - 1

    def span(self, bins: np.ndarray) -> None:
        """Widen the grid to cover ``bins`` (every event's bin, contributing or not), unless the range is public."""
        if bins.size and not self.fixed:
            self.first, self.last = min(self.first, int(bins.min())), max(self.last, int(bins.max()))
            if self.grid is not None:
                check_bin_count(self.first, self.last, self.grid.bin)

    def add(self, group: str, bins: np.ndarray, weights: np.ndarray) -> None:
        """Add ``weights`` at ``bins`` to the group's sums."""
        if not bins.size:
            return
        lo = int(bins.min())
        if self.offset is None:
            self.offset = lo
        if lo < self.offset:
            shift = self.offset - lo
            self.sums = {g: np.concatenate([np.zeros(shift), a]) for g, a in self.sums.items()}
            self.offset = lo
        part = np.bincount(bins - self.offset, weights=weights)
        have = self.sums.get(group, np.zeros(0))
        if have.size < part.size:
            have = np.concatenate([have, np.zeros(part.size - have.size)])
        have[:part.size] += part
        self.sums[group] = have

    def series(self, group: str, width: Grid, zoned: bool = False,
               offsets: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(bin starts in ns, sums) of ``group`` on the grid from the first to the last event's bin (UTC instants
        when the input's times carried a zone; ``offsets``: each bin's UTC offset, :func:`grid_offsets`)."""
        starts = np.arange(self.first, self.last + 1)
        out = np.zeros(starts.size)
        have = self.sums.get(group)
        if have is not None and self.offset is not None:
            idx = starts - self.offset
            inside = (idx >= 0) & (idx < have.size)
            out[inside] = have[idx[inside]]
        return width.starts(starts, zoned, offsets), out


def grid_offsets(found: list, first: int, last: int) -> np.ndarray | None:
    """The UTC offset (seconds east) of every bin ``first``..``last`` from the partials' (bins, first ns, offset)
    triples: the offset of a bin's earliest reading, a bin without readings the one before it (the first bins: the
    first known); None when no reading carried one."""
    found = [f for f in found if f is not None and f[0].size]
    if not found:
        return None
    bins, _, offsets = first_per_bin(*(np.concatenate(parts) for parts in zip(*found, strict=True)))
    inside = (bins >= first) & (bins <= last)
    if not inside.any():
        return np.full(last - first + 1, int(offsets[0]), dtype=np.int64)
    bins, offsets = bins[inside], offsets[inside]
    which = np.searchsorted(bins, np.arange(first, last + 1), side="right") - 1
    return offsets[np.maximum(which, 0)].astype(np.int64)


def _capped_contacts(frame: pd.DataFrame, width: Grid, k: int) -> tuple[np.ndarray, int]:
    """Bins of the contact rows kept when each person contributes at most k rows per bin (a row counts for both
    people it joins; rows in time order, the first k of a person kept), and how many rows were dropped."""
    order = np.argsort(frame["timestamp"].to_numpy(), kind="stable")
    bins = frame_numbers(frame.iloc[order], width)
    a = frame["user"].to_numpy()[order]
    b = frame["contact"].to_numpy()[order]
    codes, _ = pd.factorize(np.concatenate([a, b]))
    keep = _cap_rows(bins, codes[:len(a)], codes[len(a):], k)
    return bins[keep], int((~keep).sum())


def _cap_rows(bins: np.ndarray, a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Keep a row while both its people have fewer than k kept rows in its bin (rows sorted by bin)."""
    from lmdk.aggregate.kernels import cap_rows

    return cap_rows(np.ascontiguousarray(bins), np.ascontiguousarray(a, dtype=np.int64),
                    np.ascontiguousarray(b, dtype=np.int64), int(k), int(max(a.max(initial=0), b.max(initial=0))) + 1)


def membership(pairs: pd.DataFrame) -> pd.DataFrame:
    """One group per user from (user, group) rows; a user in two groups is an error naming them."""
    distinct = pairs.dropna().drop_duplicates()
    twice = distinct[distinct.duplicated("user", keep=False)]
    if len(twice):
        names = ", ".join(f"{u!r} ({', '.join(map(str, g['group']))})" for u, g in twice.groupby("user", sort=True))
        raise DataError(f"each user must belong to exactly one group; in two or more: {names[:400]}")
    return distinct.reset_index(drop=True)


def build(source, statistic: str, *, value_range: tuple[float, float] | None = None, bin: str = "1h",
          groups: pd.DataFrame | None = None, max_per_user: int = 1, region: Region | None = None,
          rows: int = 2_000_000, scheduler: str | None = None, workers: int | None = None,
          time_range: tuple[str, str] | None = None, tz: str | None = None,
          drop_rows_without_user: bool = False) -> Aggregate:
    """The ``statistic`` per ``bin`` over the users of ``source`` (a long table, Parquet, a multi-user file or a
    folder of per-user files: :func:`lmdk.population.input.open_source`; see the module docstring).

    ``groups``: (user, group) rows (:func:`membership`), or None for one aggregate over every user. In process,
    a frame of whole users at a time (:func:`lmdk.population.partition.user_frames`); with ``scheduler`` (an
    address) or ``workers`` (a LocalCluster) on Dask, the population's engine (:mod:`lmdk.aggregate.engine`).
    ``time_range``: the public (START, END) of the released bins (END exclusive; naive times in ``tz``), widened to
    whole bins: readings outside are dropped and counted; without it the span is read from the data (the statement
    says so). Rows without a user id are refused unless ``drop_rows_without_user`` (then dropped and counted).
    """
    from lmdk.population.input import open_source
    from lmdk.population.partition import user_frames

    src = open_source(source)
    _check(statistic, src.kind, value_range, max_per_user, region)
    width = _bin_width(bin, tz)
    low, high = (float(value_range[0]), float(value_range[1])) if value_range is not None else (0.0, 1.0)
    if value_range is not None and not low < high:
        raise ParameterError(f"the public range needs low < high, got [{low:g}, {high:g}]")
    from lmdk.aggregate.inputs import one_key_per_user

    src, aliases = one_key_per_user(src, rows)  # one key per person: 7 and 7.0 are one user, N counts keys
    if groups is not None and aliases:
        groups = groups.assign(user=groups["user"].map(lambda user: aliases.get(user, user)))
    member = membership(groups) if groups is not None else None
    bounds = time_bounds(time_range, width, tz) if time_range is not None else None
    if src.kind == "contacts":
        if member is not None:
            raise ParameterError("per-group contact counts are not supported: a contact joins two people who may be "
                                 "in different groups; count over all users")
        return _contact_count(src, bin, width, max_per_user, rows, bounds, drop_rows_without_user)
    parts = _partials_dask(src, width, low, high, member, region, rows, scheduler, workers, bounds) \
        if scheduler is not None or workers is not None else \
        (frame_partial(frame, src.kind, width, low, high, member, region, bounds) for frame in user_frames(src, rows))
    totals = _Totals(bounds, width)
    users: dict[str, set] = {}
    averaged = missing = clamped = no_user = outside = silent = 0
    zoned = False
    found: list = []  # per partial: its bins' first readings and the UTC offsets they carried
    for part in parts:
        no_user, outside, zoned = no_user + part.no_user, outside + part.outside, zoned or part.zoned
        found.append(part.offsets)
        if not part.users:  # an empty partition
            continue
        if part.span[0] <= part.span[1]:  # users with readings (a frame of users without any has no span)
            totals.span(np.asarray(part.span, dtype=np.int64))
        for g, ids in part.users.items():
            users.setdefault(g, set()).update(ids)
        for g, (bins, weights) in part.sums.items():
            totals.add(g, bins, weights)
        averaged, missing, clamped = averaged + part.averaged, missing + part.missing, clamped + part.clamped
        silent += part.silent
    refuse_rows_without_user(no_user, drop_rows_without_user)
    if not users:
        raise DataError("the input holds no events to aggregate" + (" inside --time-range" if outside else ""))
    warnings = _warnings(averaged, missing, 0, max_per_user, {g: len(u) for g, u in users.items()}, clamped,
                         (low, high)) + _row_notes(no_user, outside)
    read = getattr(src, "read_counts", {})
    if read.get("averaged"):
        warnings += (f"{read['averaged']:,} rows repeated a timestamp of their user and were averaged into one "
                     "reading first",)
    if read.get("empty"):
        warnings += (f"{read['empty']:,} rows had no value and were left out",)
    if silent:
        warnings += (f"{silent:,} user{'s' if silent != 1 else ''} had no usable value: counted in N, they "
                     "contribute nothing (0 to a sum) — see users_without_readings",)
    agg = _finish(statistic, src.kind, width.bin.text, width, totals, users, value_range, max_per_user, warnings,
                  zoned, found)
    return replace(_placed(agg, no_user, outside, bounds, width, zoned, found), zoned=zoned,
                   users_without_readings=silent)


def refuse_rows_without_user(count: int, drop: bool) -> None:
    """Refuse rows without a user id (they would count as one more user, moving N and the bins), unless told to
    drop them."""
    if count and not drop:
        raise DataError(f"{count:,} rows have no user id: they would count as one extra user (N and the mean move, and "
                        "a user whose rows they are moves a bin by more than Δ); fix the input, or pass "
                        "--drop-rows-without-user to drop them (the summary reports dropped_rows)")


def _row_notes(no_user: int, outside: int) -> tuple[str, ...]:
    """The warnings on rows dropped for a missing user id or outside the public time range."""
    out = []
    if no_user:
        out.append(f"{no_user:,} rows without a user id were dropped (--drop-rows-without-user)")
    if outside:
        out.append(f"{outside:,} readings lay outside --time-range and were dropped")
    return tuple(out)


def _placed(agg: Aggregate, no_user: int, outside: int, bounds: tuple[int, int] | None,
            width: Grid, zoned: bool = False, found: list | None = None) -> Aggregate:
    """``agg`` with the rows dropped and the public time range (first bin start, end) recorded (``found``: the bins'
    UTC offsets, :func:`grid_offsets`)."""
    span = None
    if bounds is not None:
        per_bin = grid_offsets(found or [], bounds[0], bounds[1] - 1)
        edges = width.starts(np.asarray(bounds, dtype=np.int64), zoned,
                             None if per_bin is None else per_bin[[0, -1]])
        span = (str(pd.Timestamp(int(edges[0]))), str(pd.Timestamp(int(edges[1]))))
    return replace(agg, dropped_rows=no_user, outside_rows=outside, time_range=span)


def _partials_dask(src, width: Grid, low: float, high: float, member, region, rows: int,
                   scheduler: str | None, workers: int | None, bounds: tuple[int, int] | None):
    """The partials of a Dask run (:mod:`lmdk.aggregate.engine`), as they complete."""
    from lmdk.aggregate.engine import partials

    return partials(src, width, low, high, member, region, rows, scheduler, workers, bounds)


def _contact_count(src, bin: str, width: Grid, k: int, rows: int, bounds: tuple[int, int] | None = None,
                   drop_rows_without_user: bool = False) -> Aggregate:
    """Contact rows per bin, each person capped at k rows per bin over the whole table (a person's rows appear
    under both columns, so the cap cannot be applied one user's frame at a time)."""
    from lmdk.population.input import OFFSET_COLUMN

    frame = pd.concat([c[[col for col in ("user", "contact", "timestamp", OFFSET_COLUMN) if col in c.columns]]
                       for c in src.chunks(rows)], ignore_index=True)
    nobody = without_user(frame["user"].to_numpy()) | without_user(frame["contact"].to_numpy())
    no_user, outside = int(nobody.sum()), 0
    refuse_rows_without_user(no_user, drop_rows_without_user)
    keep = ~nobody
    if bounds is not None:
        number = frame_numbers(frame, width)
        inside = (number >= bounds[0]) & (number < bounds[1])
        outside, keep = int((keep & ~inside).sum()), keep & inside
    frame = frame[keep].reset_index(drop=True)
    if not len(frame):
        raise DataError("the input holds no contacts to count" + (" inside --time-range" if outside else ""))
    # one row per contact: ids compared as text (a file's entity column reads as text, its contact column as
    # numbers), and a contact listed under both people (each person's own series holds it) counted once
    a, b = frame["user"].astype(str).to_numpy(), frame["contact"].astype(str).to_numpy()
    first, second = np.where(a <= b, a, b), np.where(a <= b, b, a)
    frame = pd.DataFrame({"user": first, "contact": second, "timestamp": frame["timestamp"].to_numpy(),
                          **({OFFSET_COLUMN: frame[OFFSET_COLUMN].to_numpy()} if OFFSET_COLUMN in frame else {})})
    frame = frame.drop_duplicates(subset=["user", "contact", "timestamp"], ignore_index=True)
    bins, dropped = _capped_contacts(frame, width, k)
    people = set(pd.unique(frame["user"].to_numpy())) | set(pd.unique(frame["contact"].to_numpy()))
    totals = _Totals(bounds, width)
    totals.span(frame_numbers(frame, width))
    totals.add(ALL, bins, np.ones(bins.size))
    zoned = getattr(frame["timestamp"].dtype, "tz", None) is not None
    found = [bin_offsets(frame, width)] if zoned else []
    agg = _finish("count", "contacts", width.bin.text, width, totals, {ALL: people}, None, k,
                  _warnings(0, 0, dropped, k, {ALL: len(people)}) + _row_notes(no_user, outside), zoned, found)
    return replace(_placed(agg, no_user, outside, bounds, width, zoned, found), zoned=zoned)


def _warnings(averaged: int, missing: int, dropped: int, k: int, sizes: dict[str, int], clamped: int = 0,
              value_range: tuple[float, float] = (0.0, 1.0)) -> tuple[str, ...]:
    """What building the statistic did to the rows, in words."""
    out = []
    if clamped:
        out.append(f"{clamped:,} readings lay outside the public range [{value_range[0]:g}, {value_range[1]:g}] and "
                   "were clamped to it (a reading beyond the range is protected only as the range's end)")
    if averaged:
        out.append(f"{averaged:,} readings shared a bin with another reading of the same user and were averaged "
                   "(at most one contribution per user and bin)")
    if missing:
        out.append(f"{missing:,} rows had no readable value and were left out")
    if dropped:
        out.append(f"{dropped:,} contact rows were dropped: each person contributes at most {k} per bin "
                   f"(--max-per-user {k})")
    small = sorted(g for g, n in sizes.items() if n < SMALL_GROUP)
    if small:
        out.append(f"groups with fewer than {SMALL_GROUP} users: {', '.join(small[:10])} — their statistic is nearly "
                   "one person's series")
    return tuple(out)


def _finish(statistic: str, kind: str, bin: str, width: Grid, totals: _Totals, users: dict[str, set],
            value_range, k: int, warnings: tuple[str, ...], zoned: bool = False,
            found: list | None = None) -> Aggregate:
    """Every group's series on the common grid from the first to the last event's bin (a bin nobody contributed
    to is 0), means divided by N; ``found``: the partials' bin offsets (:func:`grid_offsets`)."""
    series = {}
    per_bin = grid_offsets(found or [], totals.first, totals.last)
    starts = np.zeros(0, dtype=np.int64)
    for group in sorted(users):
        starts, full = totals.series(group, width, zoned, per_bin)
        if statistic == "mean":
            full = full / len(users[group])
        series[group] = pd.Series(full, index=pd.DatetimeIndex(starts.view("datetime64[ns]"), name="timestamp"),
                                  name=statistic)
    from lmdk.relation import aggregate_sensitivity

    if statistic == "count":
        delta = float(k if kind == "contacts" else 1)
    else:  # before dividing a mean by N: a user without a reading contributes 0
        delta = aggregate_sensitivity("sum", 1, float(value_range[0]), float(value_range[1]))
    from lmdk.data.series import offset_points

    points = offset_points(starts, per_bin) if per_bin is not None and starts.size == per_bin.size else ()
    return Aggregate(statistic, kind, bin, series, {g: len(u) for g, u in users.items()}, delta,
                     None if value_range is None else (float(value_range[0]), float(value_range[1])), k, warnings,
                     utc_offsets=points)
