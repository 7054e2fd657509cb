"""What one frame of whole users adds to an aggregate (:mod:`lmdk.aggregate.build`): per group its bins and sums.

In process or in a Dask task (:mod:`lmdk.aggregate.engine`), a frame of whole users (canonical columns) becomes a
:class:`Partial`; the builder adds the partials up. The public region of a location count lives here too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk.data.bins import Grid, check_bin_count
from lmdk.errors import DataError, ParameterError

ALL = "all"
"""The group name of an aggregate over every user (no ``by``)."""
EARTH_RADIUS_M = 6_371_008.8


@dataclass(frozen=True)
class Region:
    """A public region for location counts: a circle of ``radius_m`` metres around (lat, lon)."""

    lat: float
    lon: float
    radius_m: float

    def __post_init__(self) -> None:
        """Refuse a centre off the globe or a radius that is not positive."""
        if not (-90 <= self.lat <= 90 and -180 <= self.lon <= 180):
            raise ParameterError(f"region centre ({self.lat}, {self.lon}) is not a latitude/longitude in degrees")
        if not (np.isfinite(self.radius_m) and self.radius_m > 0):
            raise ParameterError(f"region radius must be a positive number of metres, not {self.radius_m!r}")

    def holds(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        """Which points lie inside (great-circle distance ≤ radius)."""
        p1, p2 = np.radians(self.lat), np.radians(lat)
        dphi, dlmb = p2 - p1, np.radians(lon - self.lon)
        a = np.sin(dphi / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlmb / 2) ** 2
        return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(a, 0, 1))) <= self.radius_m



def time_bounds(time_range: tuple[str, str], width: Grid, tz: str | None = None) -> tuple[int, int]:
    """The public time range [START, END) as bin numbers [first, stop), widened outward to whole bins (calendar
    bins: whole days, weeks, months… of the grid's zone): naive times are wall-clock times in ``tz`` (none: as they
    stand, the series' own clock), times with an offset are instants (bins of zone-aware input are UTC instants)."""
    stamps = []
    for name, text in zip(("START", "END"), time_range, strict=True):
        try:
            stamp = pd.Timestamp(str(text).strip())
            readable = not pd.isna(stamp)
        except (TypeError, ValueError):
            readable = False
        if not readable:
            raise ParameterError(f"--time-range {name} {text!r} is not a date/time; use e.g. 2024-01-01 or "
                                 "'2024-01-01 08:00' (END exclusive)")
        if stamp.tzinfo is None and tz is not None:
            from lmdk.declared.calendar import check_zone

            check_zone(tz)
            stamp = stamp.tz_localize(tz, ambiguous=True, nonexistent="shift_forward")
        stamps.append(stamp)
    start, end = stamps
    if (start.tzinfo is None) != (end.tzinfo is None):  # one with an offset: the other is read on UTC
        start, end = (s if s.tzinfo is not None else s.tz_localize("UTC") for s in (start, end))
    if end <= start:
        raise ParameterError(f"--time-range needs START before END (END exclusive), got {time_range[0]} to "
                             f"{time_range[1]}")
    first = int(width.numbers(pd.DatetimeIndex([start]))[0])
    stop = int(width.numbers(pd.DatetimeIndex([end - pd.Timedelta(1, "ns")]))[0]) + 1
    check_bin_count(first, stop - 1, width.bin)
    return first, stop


def reading_offsets(frame: pd.DataFrame) -> np.ndarray | None:
    """The UTC offset (seconds east) each row's time carried: the input's ``utc_offset`` column (a reading's own, as
    written in its file), else the offset of the times' zone when it is not UTC; None for naive times and for UTC
    times that carried no offset (the rule is then read on UTC, and says so)."""
    from lmdk.population.input import OFFSET_COLUMN

    stamps = frame["timestamp"] if "timestamp" in frame else None
    zone = getattr(getattr(stamps, "dtype", None), "tz", None)
    if stamps is None or zone is None:
        return None
    if OFFSET_COLUMN in frame.columns:
        carried = pd.to_numeric(frame[OFFSET_COLUMN], errors="coerce").to_numpy(dtype=float)
        return np.where(np.isfinite(carried), carried, 0).astype(np.int64)  # a reading without one: UTC
    if str(zone) == "UTC":
        return None
    utc = stamps.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy(dtype="datetime64[ns]").view(np.int64)
    wall = stamps.dt.tz_localize(None).to_numpy(dtype="datetime64[ns]").view(np.int64)
    return (wall - utc) // 10**9


def frame_numbers(frame: pd.DataFrame, width: Grid, offsets: np.ndarray | None = None) -> np.ndarray:
    """The bin number of every row of ``frame`` (calendar bins without a zone: on the offset each reading carried,
    :func:`reading_offsets` unless given)."""
    if offsets is None and width.bin.calendar and width.tz is None:
        offsets = reading_offsets(frame)
    return width.numbers(frame["timestamp"], offsets)


def bin_offsets(frame: pd.DataFrame, width: Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(bin numbers, UTC ns of each bin's first reading, the offset in seconds that reading carried) of a frame's
    bins: a bin is read on the offset its readings carried at its start; None when the times carried none (or
    ``tz`` is given: the bins are then read on its clock)."""
    offsets = reading_offsets(frame) if width.tz is None and len(frame) else None
    if offsets is None:
        return None
    bins = frame_numbers(frame, width, offsets)
    utc = frame["timestamp"].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy(dtype="datetime64[ns]").view(np.int64)
    return first_per_bin(bins, utc, offsets)


def first_per_bin(bins: np.ndarray, utc: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct bin number, the earliest reading's UTC ns and offset (ties: the first row)."""
    order = np.lexsort((utc, bins))
    bins, utc, offsets = bins[order], utc[order], offsets[order]
    first = np.r_[True, bins[1:] != bins[:-1]] if bins.size else np.zeros(0, dtype=bool)
    return bins[first], utc[first], offsets[first]


def without_user(users: np.ndarray) -> np.ndarray:
    """Which rows have no user id (missing, or empty text): they belong to no one the statistic can count."""
    ids = pd.Series(users)
    missing = ids.isna().to_numpy()
    if ids.dtype == object or pd.api.types.is_string_dtype(ids.dtype):
        missing |= (ids.astype(str).str.strip() == "").to_numpy()
    return missing


def _value_runs(frame: pd.DataFrame, width: Grid, low: float, high: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int, int]:
    """One reading per (user, bin) of a frame of whole users — the mean of the user's clamped readings in the
    bin — as (users, first row of each user's run, run bins, run means), plus how many rows were averaged away,
    how many were dropped for a missing value and how many were clamped to [low, high]. Vectorised: users come
    contiguous (user_frames), bins are sorted within a user when they are not already."""
    values = frame["value"].to_numpy(dtype=float)
    keep = np.isfinite(values)
    missing = int((~keep).sum())
    user = frame["user"].to_numpy()
    bins = frame_numbers(frame, width)
    x = np.clip(values, low, high)
    clamped = int(np.count_nonzero(keep & (x != values)))
    new_user = np.empty(user.size, dtype=bool)
    new_user[:1] = True
    np.not_equal(user[1:], user[:-1], out=new_user[1:])
    code = np.cumsum(new_user) - 1
    users = user[new_user]  # every user of the frame, one without a usable value too (kept in N, adds nothing)
    if missing:
        user, code, bins, x = user[keep], code[keep], bins[keep], x[keep]
    if user.size > 1 and np.any((code[1:] == code[:-1]) & (bins[1:] < bins[:-1])):
        order = np.lexsort((bins, code))
        code, bins, x = code[order], bins[order], x[order]
    run = np.empty(user.size, dtype=bool)
    run[:1] = True
    run[1:] = (code[1:] != code[:-1]) | (bins[1:] != bins[:-1])
    starts = np.flatnonzero(run)
    if starts.size == user.size:  # one reading per user and bin: nothing to average
        return users, code, bins, x, 0, missing, clamped
    sizes = np.diff(np.append(starts, user.size))
    means = np.add.reduceat(x, starts) / sizes if starts.size else x[:0]
    return users, code[starts], bins[starts], means, int(user.size - starts.size), missing, clamped



def _groups_of(users: np.ndarray, groups: pd.DataFrame | None) -> np.ndarray:
    """The group of every user id (``ALL`` without groups)."""
    if groups is None:
        return np.full(len(users), ALL, dtype=object)
    table = groups.set_index("user")["group"]
    found = table.reindex(pd.Index(users))
    if found.isna().any():
        missing = pd.Index(users)[found.isna().to_numpy()][:5].tolist()
        raise DataError(f"users without a group: {missing}; every user needs one value in the group column")
    return found.astype(str).to_numpy(dtype=object)



@dataclass
class Partial:
    """What one frame of whole users adds: per group the bins and their sums, the users, the rows averaged away
    or missing, and the first and last bin of its events."""

    sums: dict[str, tuple[np.ndarray, np.ndarray]]
    users: dict[str, list]
    averaged: int
    missing: int
    span: tuple[int, int]
    clamped: int = 0
    silent: int = 0  # users with no usable value (kept in N, adding nothing)
    no_user: int = 0  # rows without a user id, dropped (the builder refuses them unless told to drop them)
    outside: int = 0  # rows outside the public time range, dropped
    zoned: bool = False  # whether the timestamps carried a zone or an offset (the bins are then UTC instants)
    offsets: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # per bin: first reading's ns and its offset


def frame_partial(frame: pd.DataFrame, kind: str, width: Grid, low: float, high: float,
                  member: pd.DataFrame | None, region: Region | None,
                  bounds: tuple[int, int] | None = None) -> Partial:
    """The contribution of a frame of whole users (canonical columns) to every group's per-bin sums; rows without
    a user id and (``bounds``: the public time range as bin numbers [first, stop)) rows outside it are dropped and
    counted."""
    no_user = outside = 0
    if len(frame):
        nobody = without_user(frame["user"].to_numpy())
        no_user = int(nobody.sum())
        keep = ~nobody
        if bounds is not None:
            number = frame_numbers(frame, width)
            inside = (number >= bounds[0]) & (number < bounds[1])
            outside = int((keep & ~inside).sum())
            keep &= inside
        if not keep.all():
            frame = frame[keep]
    part = _frame_partial(frame, kind, width, low, high, member, region)
    part.no_user, part.outside = no_user, outside
    part.zoned = getattr(frame["timestamp"].dtype, "tz", None) is not None if "timestamp" in frame else False
    part.offsets = bin_offsets(frame, width) if part.zoned else None
    return part


def _frame_partial(frame: pd.DataFrame, kind: str, width: Grid, low: float, high: float,
                   member: pd.DataFrame | None, region: Region | None) -> Partial:
    """The contribution of a frame of whole users with a user id each, inside the time range."""
    if not len(frame):
        return Partial({}, {}, 0, 0, (np.iinfo(np.int64).max, np.iinfo(np.int64).min))
    averaged = missing = clamped = 0
    if kind == "values":
        ids, run_user, bins, means, averaged, missing, clamped = _value_runs(frame, width, low, high)
        every = bins
    else:
        assert region is not None  # _check refused a location count without a region
        every = frame_numbers(frame, width)
        inside = region.holds(frame["lat"].to_numpy(float), frame["lon"].to_numpy(float))
        ids = pd.unique(frame["user"].to_numpy())
        code = pd.Index(ids).get_indexer(frame["user"].to_numpy()[inside])
        hits = np.unique(np.stack([code, every[inside]]), axis=1)
        run_user, bins, means = hits[0], hits[1], np.ones(hits.shape[1])
    span = (int(every.min()), int(every.max())) if every.size else (np.iinfo(np.int64).max, np.iinfo(np.int64).min)
    group_of = _groups_of(np.asarray(ids), member)
    users: dict[str, list] = {}
    for g, u in zip(group_of, ids, strict=True):
        users.setdefault(g, []).append(u)
    silent = len(ids) - len(np.unique(run_user)) if kind == "values" else 0
    if member is None:
        return Partial({ALL: (bins, means)}, users, averaged, missing, span, clamped, silent)
    run_group = group_of[run_user]
    sums = {g: (bins[run_group == g], means[run_group == g]) for g in users}
    return Partial(sums, users, averaged, missing, span, clamped, silent)


