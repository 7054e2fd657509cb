"""The ``Series`` dataclass: one user's events with a sorted DatetimeIndex, a kind and units.

Index conventions (§4.1.1 data sets):
- the index is a sorted ``DatetimeIndex`` named ``"timestamp"`` with nanosecond resolution;
- naive for files without time-zone information; UTC for files whose timestamps carry an offset (the offset
  each reading carried is kept in ``Series.utc_offsets``, so declared windows read the person's wall clock);
  ``America/Vancouver`` for the HUE ``date,hour`` layout (BC Hydro local time with daylight saving);
- values and trajectories have unique timestamps; contacts may repeat a timestamp when one
  Bluetooth scan discovered several devices (one event per discovered device, as in the
  Copenhagen data).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from lmdk.data.import_spec import KINDS
from lmdk.errors import DataError, ParameterError

if TYPE_CHECKING:
    from lmdk.data.import_spec import ImportSpec

COLUMNS = {"values": ("value",), "trajectory": ("lat", "lon"), "contacts": ("contact",)}
UNITS = {"values": "", "trajectory": "degrees", "contacts": "contact id"}

NOTHING_FOUND = -1
"""Contact id of a scan that discovered no device (Copenhagen convention)."""
NON_PARTICIPANT = -2
"""Contact id of a scan that discovered a device outside the study (Copenhagen convention)."""


def epoch_ns(index) -> np.ndarray:
    """int64 nanoseconds since 1970-01-01 UTC of datetimes (a DatetimeIndex of any unit, tz-aware or naive).

    Not ``DatetimeIndex.asi8``: that counts in the index's own unit (seconds for datetime64[s]).
    """
    return pd.DatetimeIndex(index).to_numpy(dtype="datetime64[ns]").view(np.int64)


def local_ns(utc_ns: np.ndarray, offsets: tuple[tuple[int, int], ...]) -> np.ndarray:
    """Wall-clock nanoseconds (counted as if UTC) of UTC instants under change points of UTC offsets (see
    ``Series.utc_offsets``); an instant before the first change point takes the first offset."""
    starts = np.array([at for at, _ in offsets], dtype=np.int64)
    seconds = np.array([off for _, off in offsets], dtype=np.int64)
    which = np.maximum(np.searchsorted(starts, utc_ns, side="right") - 1, 0)
    return utc_ns + seconds[which] * 10**9


def offset_points(utc_ns: np.ndarray, seconds: np.ndarray) -> tuple[tuple[int, int], ...]:
    """Change points ``(UTC ns, offset s)`` of readings at ``utc_ns`` that carried ``seconds`` east of UTC (any
    order; the offset of an instant read twice is its first reading's)."""
    order = np.argsort(utc_ns, kind="stable")
    at, off = np.asarray(utc_ns, dtype=np.int64)[order], np.asarray(seconds, dtype=np.int64)[order]
    keep = np.r_[True, off[1:] != off[:-1]] if at.size else np.zeros(0, dtype=bool)
    return tuple(zip(at[keep].tolist(), off[keep].tolist(), strict=True))


def frame_hash(frame: pd.DataFrame) -> str:
    """sha256 over a frame's index and columns (the content hash of an in-memory series)."""
    digest = hashlib.sha256()
    digest.update(",".join(map(str, frame.columns)).encode())
    digest.update(np.ascontiguousarray(epoch_ns(frame.index)).tobytes())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class Series:
    """One user's time series: ``frame`` holds the events (see module docstring for the index).

    ``warnings`` says in words what loading did to the file's rows (dropped, averaged, sorted, converted) and
    which choices it made; ``mapping`` is the import mapping (``lmdk.data.import_spec.ImportSpec``) the file was
    read with, None for ``load_series(..., strict=True)`` and for series built in memory.
    """

    frame: pd.DataFrame
    kind: str
    units: str = ""
    name: str = ""
    warnings: tuple[str, ...] = ()
    source_hash: str = ""
    mapping: ImportSpec | None = None  # imported for the checker only
    utc_offsets: tuple[tuple[int, int], ...] = ()
    """The UTC offsets the file's timestamps carried, as change points (UTC nanoseconds from which an offset holds,
    seconds east of UTC), earliest first; empty when they carried none. Keyed by instant, so slices, resamples and
    views of the series keep them (:meth:`wall_times`)."""
    interval: str | None = None
    """The time each event stands for, from its timestamp on (an aggregate's bin width, e.g. '1h'): a declared window
    then marks every event whose interval it touches (``lmdk.declared.calendar.CalendarRule.indices``). None: each
    event is an instant."""

    def __post_init__(self) -> None:
        """Check the invariants every consumer relies on."""
        if self.kind not in KINDS:
            raise ParameterError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        index = self.frame.index
        if not isinstance(index, pd.DatetimeIndex) or index.name != "timestamp":
            raise ParameterError("Series.frame needs a DatetimeIndex named 'timestamp'")
        if not index.is_monotonic_increasing:
            raise ParameterError("Series.frame's timestamps must be sorted ascending")
        if index.hasnans:
            raise ParameterError("Series.frame's timestamps must not contain NaT")
        missing = [c for c in COLUMNS[self.kind] if c not in self.frame.columns]
        if missing:
            raise ParameterError(f"a {self.kind} Series needs the column(s) {missing}")
        if self.kind != "contacts" and index.has_duplicates:
            raise ParameterError(f"a {self.kind} Series needs unique timestamps")
        if index.unit != "ns":
            try:
                frame = self.frame.set_axis(index.as_unit("ns"))
            except (ValueError, OverflowError):
                raise ParameterError("Series timestamps must lie between the years 1677 and 2262") from None
            object.__setattr__(self, "frame", frame)
        if self.interval is not None:
            from lmdk.data.bins import parse_bin

            try:
                parse_bin(self.interval)
            except ParameterError:
                raise ParameterError(f"Series.interval must be a positive time width such as '1h' or '1month', not "
                                     f"{self.interval!r}") from None
        if not isinstance(self.warnings, tuple):
            object.__setattr__(self, "warnings", tuple(self.warnings))
        if not self.source_hash:
            object.__setattr__(self, "source_hash", frame_hash(self.frame))

    def __len__(self) -> int:
        """Number of events n."""
        return len(self.frame)

    def __repr__(self) -> str:
        """One line: n, kind, units, time span, name and the import mapping in short (the frame can be large)."""
        index = self.frame.index
        span = f"{index[0]} to {index[-1]}" if len(index) else "no events"
        how = "None" if self.mapping is None else f"<{self.mapping.summary()}>"
        return (f"Series(n={len(self)}, kind={self.kind!r}, units={self.units!r}, {span}, name={self.name!r}, "
                f"mapping={how})")

    @property
    def timestamps(self) -> pd.DatetimeIndex:
        """The sorted timestamps of the events."""
        return cast(pd.DatetimeIndex, self.frame.index)  # __post_init__ checked it is one

    def wall_times(self, tz: str | None = None) -> pd.DatetimeIndex:
        """The events' times on the person's wall clock, naive: in ``tz`` when given, else in the offset each
        reading carried (``utc_offsets``), else in the index's own zone, else as they stand."""
        index = self.timestamps
        if tz is not None and index.tz is not None:
            return index.tz_convert(tz).tz_localize(None)
        if index.tz is None:
            return index
        if not self.utc_offsets:
            return index.tz_localize(None)
        return pd.DatetimeIndex(local_ns(epoch_ns(index), self.utc_offsets).view("datetime64[ns]"),
                                name=index.name)

    @property
    def seconds(self) -> np.ndarray:
        """Event times as float seconds since 1970-01-01 (UTC for tz-aware indexes)."""
        return epoch_ns(self.frame.index).astype(np.float64) / 1e9

    @property
    def values(self) -> np.ndarray:
        """The 1-D float array of a values series."""
        self._require("values")
        return self.frame["value"].to_numpy(dtype=np.float64)

    @property
    def contacts(self) -> np.ndarray:
        """The contact id per event of a contacts series (−1 nothing found, −2 non-participant)."""
        self._require("contacts")
        return self.frame["contact"].to_numpy()

    def latlon(self) -> np.ndarray:
        """The (n, 2) array of [lat, lon] degrees of a trajectory."""
        self._require("trajectory")
        return self.frame[["lat", "lon"]].to_numpy(dtype=np.float64)

    def xy(self, origin=None):
        """Trajectory in metres on a local plane: ``(xy, origin)`` via ``lmdk.mechanisms.latlon_to_metres``."""
        from lmdk.mechanisms import latlon_to_metres  # lazy: mechanisms is a sibling module

        latlon = self.latlon()
        return latlon_to_metres(latlon[:, 0], latlon[:, 1], origin=origin)

    def head(self, n: int) -> Series:
        """The first ``n`` events (the paper uses the first 1,000 entries, §4.1.1)."""
        return self.slice(0, n)

    def slice(self, start: int, stop: int | None = None) -> Series:
        """Events ``start:stop`` by position, as a new Series with its own content hash."""
        frame = self.frame.iloc[start:stop]
        if len(frame) == 0:
            raise ParameterError(f"slice {start}:{stop} of a series of {len(self)} events is empty")
        return replace(self, frame=frame, source_hash=frame_hash(frame))

    def _require(self, kind: str) -> None:
        """Raise unless this series has ``kind``."""
        if self.kind != kind:
            raise ParameterError(f"this is a {self.kind} series, not a {kind} series")


def _index(timestamps) -> pd.DatetimeIndex:
    """Turn timestamps (datetimes or float seconds since 1970) into a named DatetimeIndex."""
    ts = np.asarray(timestamps) if not isinstance(timestamps, pd.Index) else timestamps
    if isinstance(ts, np.ndarray) and ts.dtype.kind in "if":
        index = pd.to_datetime(ts, unit="s")
    else:
        index = pd.DatetimeIndex(ts)
    return index.rename("timestamp")


def _build(frame: pd.DataFrame, kind: str, units: str, name: str) -> Series:
    """Shared tail of the in-memory constructors."""
    if not frame.index.is_monotonic_increasing:
        frame = frame.sort_index(kind="stable")
    return Series(frame=frame, kind=kind, units=units, name=name)


def from_values(values, timestamps=None, *, units: str = "", name: str = "", freq: str = "h") -> Series:
    """A values Series from an array (timestamps default to hourly from 1970-01-01)."""
    vals = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(vals)):
        raise DataError("values must be finite numbers (found NaN or infinity)")
    index = _index(timestamps) if timestamps is not None else pd.date_range(
        "1970-01-01", periods=len(vals), freq=freq, name="timestamp")
    if len(index) != len(vals):
        raise DataError(f"{len(index)} timestamps for {len(vals)} values: give one timestamp per value")
    return _build(pd.DataFrame({"value": vals}, index=index), "values", units, name)


def from_trajectory(timestamps, lat, lon, *, name: str = "") -> Series:
    """A trajectory Series from timestamps and latitude/longitude arrays in degrees."""
    lat = np.asarray(lat, dtype=np.float64).reshape(-1)
    lon = np.asarray(lon, dtype=np.float64).reshape(-1)
    index = _index(timestamps)
    if not (len(index) == len(lat) == len(lon)):
        raise DataError("timestamps, lat and lon must have the same length")
    if not (np.all(np.abs(lat) <= 90) and np.all(np.abs(lon) <= 180)):
        raise DataError("lat must lie in [-90, 90] and lon in [-180, 180] degrees")
    return _build(pd.DataFrame({"lat": lat, "lon": lon}, index=index), "trajectory", "degrees", name)


def from_contacts(timestamps, contacts, *, name: str = "") -> Series:
    """A contacts Series from timestamps and one contact id per event (−1/−2 as in Copenhagen)."""
    ids = np.asarray(contacts).reshape(-1)
    index = _index(timestamps)
    if len(index) != len(ids):
        raise DataError("timestamps and contacts must have the same length")
    return _build(pd.DataFrame({"contact": ids}, index=index), "contacts", "contact id", name)
