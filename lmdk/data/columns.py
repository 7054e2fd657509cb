"""Raw table → validated ``Series``: column detection, type checks and the clean-up policy.

Policy (counted in ``Series.warnings`` so the app can show it):
- rows with a missing (empty/NaN) timestamp or value are dropped;
- values: rows sharing a timestamp are averaged into one event;
- trajectory: of fixes sharing a timestamp the first is kept, the others dropped;
  (both warnings name a categorical column whose values make the timestamps repeat — several users or
  devices in one table — as the entity to choose, see ``repeat_columns``);
- timestamps with different UTC offsets (daylight saving) are converted to UTC, with a warning; the offset each
  reading carried is kept (``Series.utc_offsets``: declared windows read the person's wall clock);
- contacts: identical (timestamp, contact) rows are dropped; different contacts found in the same
  scan stay separate events (so a contacts index may repeat a timestamp);
- rows out of time order are sorted (stable);
- non-numeric values, unparseable timestamps and coordinates out of range are errors, not dropped.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from lmdk.data.read import RawTable
from lmdk.data.series import KINDS, Series, epoch_ns, offset_points
from lmdk.errors import DataError, ParameterError

HUE_TIMEZONE = "America/Vancouver"
"""HUE's date,hour columns are BC Hydro local wall-clock time (25-hour days in November)."""

TIME_NAMES = ("timestamp", "time", "datetime", "date_time", "time_stamp", "date", "ts", "t")
LAT_NAMES = ("lat", "latitude")
LON_NAMES = ("lon", "lng", "long", "longitude")
CONTACT_NAMES = ("contact", "contact_id", "user_b", "device_b", "peer", "peer_id")
ENTITY_NAMES = ("id", "user", "user_id", "user_a", "taxi", "taxi_id", "device", "device_id", "entity")
MAX_ABS_VALUE = 1e15
"""Largest |value| accepted: beyond it sums and errors overflow (and no meter reads 10^15 units)."""
MAX_ABS_LATITUDE = 85.0
"""lmdk.mechanisms' local projection (planar Laplace in metres) is valid within ±85° latitude."""
_SHOWN_ROWS = 5
_MAX_SECONDS = 9.2e9  # pandas' nanosecond timestamps end in 2262


def to_series(table: RawTable, kind: str = "auto", entity=None, name: str = "",
              source_hash: str = "") -> Series:
    """Map a RawTable's columns onto a Series of ``kind`` ("auto" detects it) and validate them."""
    if kind not in ("auto",) + KINDS:
        raise DataError(f"kind must be 'auto' or one of {', '.join(KINDS)}, not {kind!r}")
    notes: list[str] = []
    mapper = ColumnMapper(table, notes)
    frame, kind, units, default_name = mapper.build(kind, entity)
    explain = ""
    if kind != "contacts" and frame["timestamp"].duplicated().any():
        found = repeat_columns(mapper.table.frame, frame["timestamp"])
        explain = entity_advice([mapper.original.get(c, c) for c in found],
                                "load the file without strict=True and choose one with entity=...",
                                column_examples(mapper.table.frame[found[0]]) if found else ())
    frame = clean_frame(frame, kind, notes, table, explain=explain)
    return Series(frame=frame, kind=kind, units=units, name=name or default_name,
                  warnings=tuple(notes), source_hash=source_hash, utc_offsets=mapper.utc_offsets)


class ColumnMapper:
    """Finds the timestamp and payload columns of one raw table and converts them."""

    def __init__(self, table: RawTable, notes: list[str]):
        """Work on ``table`` (its frame may be narrowed to one entity); append warnings to ``notes``."""
        self.table, self.notes = table, notes
        self.utc_offsets: tuple[tuple[int, int], ...] = ()  # the offsets the time strings carried (carried_offsets)
        self.original = {c: table.original.get(c, c) for c in table.frame.columns}

    def build(self, kind: str, entity):
        """Return (frame with 'timestamp' + payload columns, kind, units, default name)."""
        layout = self.table.layout
        if layout == "hue":
            return self._hue(kind)
        if layout == "tdrive":
            self._want(kind, "trajectory", "T-drive (id,datetime,longitude,latitude)")
            self._entity("id", entity, "taxi")
            return self._trajectory(self._times("datetime"), "lat", "lon"), "trajectory", "degrees", "T-drive taxi"
        if layout == "geolife":
            self._want(kind, "trajectory", "GeoLife .plt")
            text = self.table.frame["date"].str.strip() + " " + self.table.frame["time"].str.strip()
            frame = self._trajectory(self._times(text, label="date + time", column="date"))
            return frame, "trajectory", "degrees", "GeoLife trajectory"
        if layout == "copenhagen":
            self._want(kind, "contacts", "Copenhagen (timestamp,user_a,user_b,rssi)")
            self._entity("user_a", entity, "device")
            times = self._times("timestamp")
            return self._contacts(times, "user_b"), "contacts", "contact id", "Bluetooth contacts"
        return self._table(kind, entity)

    # -- layouts -------------------------------------------------------------------------
    def _hue(self, kind: str):
        """HUE: date + hour (0..24) in BC local time → tz-aware hourly timestamps (§4.1.1)."""
        self._want(kind, "values", "HUE (date,hour,energy)")
        frame = self.table.frame
        value_col = self._value_column(exclude={"date", "hour"})
        hours = self._numeric("hour")
        bad = hours.notna() & ((hours % 1 != 0) | (hours < 0) | (hours > 24))
        if bad.any():
            self._fail("hour", bad, "is not a whole hour between 0 and 24")
        codes, uniques = pd.factorize(frame["date"])
        days = self._times(pd.Series(uniques, dtype=object), label="date", column="date", codes=codes)
        if isinstance(days.dtype, pd.DatetimeTZDtype):
            days = days.dt.tz_localize(None)
        day_values = np.append(days.to_numpy(dtype="datetime64[ns]"), np.datetime64("NaT", "ns"))
        day_of_row = day_values[codes]  # code −1 (missing date) picks the appended NaT
        day_ns = day_of_row.view(np.int64)
        missing = hours.isna().to_numpy() | np.isnat(day_of_row)
        hour_ns = np.nan_to_num(hours.to_numpy()).astype(np.int64) * 3_600_000_000_000
        with np.errstate(over="ignore"):
            summed = day_ns + hour_ns
        overflow = ~missing & (summed < day_ns)
        if overflow.any():
            self._fail("date", pd.Series(overflow, index=frame.index), "plus the hour lies beyond the year 2262")
        wall_ns = np.where(missing, np.iinfo(np.int64).min, summed)  # int64 min is NaT
        wall = pd.DatetimeIndex(wall_ns.view("datetime64[ns]"))
        first_time = np.logical_not(wall.duplicated(keep="first"))  # repeated 01:00 in November: 1st is daylight time
        local = wall.tz_localize(HUE_TIMEZONE, ambiguous=first_time, nonexistent="NaT")
        skipped = int(np.count_nonzero(np.asarray(local.isna()) & np.asarray(wall.notna())))
        if skipped:
            self.notes.append(f"{_count(skipped, 'row')} in the hour skipped by daylight saving time "
                              "dropped")
        times = pd.Series(local, index=frame.index)
        values = self._numeric(value_col)
        units = units_in_name(self.original[value_col])
        return pd.DataFrame({"timestamp": times, "value": values}), "values", units, "HUE residence"

    def _table(self, kind: str, entity):
        """A generic table with a header: find timestamp, lat/lon, contact or value columns."""
        cols = list(self.table.frame.columns)
        time_col = _first(cols, TIME_NAMES)
        if time_col is None:
            raise DataError(
                f"no timestamp column among {self._names(cols)}; name the time column 'timestamp'")
        lat, lon = _first(cols, LAT_NAMES), _first(cols, LON_NAMES)
        contact = _first(cols, CONTACT_NAMES)
        if kind == "auto":
            kind = "trajectory" if lat and lon else "contacts" if contact else "values"
        entity_col = _first([c for c in cols if c not in (contact,)], ENTITY_NAMES)
        if entity_col is not None:
            self._entity(entity_col, entity, "entity")
        elif entity is not None:
            raise DataError(f"entity={entity!r} given but the file has no id column "
                            f"({'/'.join(ENTITY_NAMES[:4])}); drop the entity argument")
        times = self._times(time_col)
        if kind == "trajectory":
            if not (lat and lon):
                raise DataError(f"no latitude/longitude columns among {self._names(cols)}; "
                                "name them 'lat' and 'lon' (decimal degrees)")
            return self._trajectory(times, lat, lon), kind, "degrees", "trajectory"
        if kind == "contacts":
            if contact is None:
                rest = [c for c in cols if c not in (time_col, entity_col)]
                if len(rest) != 1:
                    raise DataError(f"no contact column among {self._names(cols)}; name the column "
                                    "holding the discovered device's id 'contact'")
                contact = rest[0]
            return self._contacts(times, contact), kind, "contact id", "contacts"
        value_col = self._value_column(exclude={time_col, entity_col})
        values = self._numeric(value_col)
        frame = pd.DataFrame({"timestamp": times, "value": values})
        return frame, kind, units_in_name(self.original[value_col]), self.original[value_col]

    # -- payloads ------------------------------------------------------------------------
    def _trajectory(self, times: pd.Series, lat: str = "lat", lon: str = "lon") -> pd.DataFrame:
        """Latitude/longitude columns checked against [-90, 90] and [-180, 180]."""
        lat_v, lon_v = self._numeric(lat), self._numeric(lon)
        swap = " (are latitude and longitude swapped?)"
        bad_lat = lat_v.abs() > 90
        if bad_lat.any():
            hint = swap if (lon_v[bad_lat].abs() <= 90).all() else ""
            self._fail(lat, bad_lat, f"is not a latitude in [-90, 90] degrees{hint}")
        bad_lon = lon_v.abs() > 180
        if bad_lon.any():
            self._fail(lon, bad_lon, "is not a longitude in [-180, 180] degrees")
        polar = lat_v.abs() > MAX_ABS_LATITUDE
        if polar.any():
            self._fail(lat, polar, f"lies within {90 - MAX_ABS_LATITUDE:g}° of a pole; trajectories must stay within "
                                   f"±{MAX_ABS_LATITUDE:g}° latitude (the local projection of the mechanisms)")
        return pd.DataFrame({"timestamp": times, "lat": lat_v, "lon": lon_v})

    def _contacts(self, times: pd.Series, col: str) -> pd.DataFrame:
        """Contact ids: integers (−1 nothing found, −2 non-participant) or, failing that, labels."""
        raw = self.table.frame[col]
        numbers = raw if raw.dtype.kind in "iuf" else pd.to_numeric(raw, errors="coerce")
        convertible = numbers.notna() | raw.isna()
        ids: pd.Series
        if convertible.all():
            fractional = numbers.notna() & (numbers % 1 != 0)
            if fractional.any():
                self._fail(col, fractional, "is not a whole-number contact id")
            huge = numbers.notna() & (numbers.abs() > 2**53)
            if huge.any():
                self._fail(col, huge, "is too large for a contact id (at most 2^53)")
            ids = numbers.astype("Int64")
        elif self.table.layout == "copenhagen":
            self._fail(col, ~convertible, "is not an integer device id (−1 none found, −2 non-participant)")
        else:
            ids = raw.astype("string").str.strip().replace("", pd.NA)
        return pd.DataFrame({"timestamp": times, "contact": ids})

    # -- conversions ---------------------------------------------------------------------
    def _numeric(self, col: str) -> pd.Series:
        """A float column; non-numbers and infinities are errors, empty cells stay NaN (dropped later)."""
        raw = self.table.frame[col]
        if raw.dtype.kind in "iuf":
            values = raw.astype(np.float64)
        elif raw.dtype.kind == "b":
            self._fail(col, raw.notna(), "is a true/false flag, not a number")
        else:
            text = raw.astype("string").str.strip()
            values = pd.to_numeric(text, errors="coerce").astype(np.float64)
            bad = values.isna() & raw.notna() & (text != "")
            if bad.any():
                comma = text[bad].str.contains(",", regex=False).fillna(False).iloc[0]
                hint = " (use '.' as the decimal mark)" if comma else ""
                self._fail(col, bad, f"is not a number{hint}; fix or empty the cell (empty cells are dropped)")
        infinite = values.abs() == np.inf
        if infinite.any():
            self._fail(col, infinite, "is not a finite number")
        huge = values.abs() > MAX_ABS_VALUE
        if huge.any():
            self._fail(col, huge, f"is too large for a reading (at most ±{MAX_ABS_VALUE:g}); check its unit and "
                                  "decimal mark")
        return values

    def _times(self, col_or_text, *, label: str | None = None, column: str | None = None,
               codes=None) -> pd.Series:
        """Parse timestamps (datetime strings, or numbers = seconds since 1970-01-01 UTC)."""
        if isinstance(col_or_text, str):
            column = col_or_text
            raw = self.table.frame[col_or_text]
        else:
            raw = col_or_text
        if column is None:
            raise ParameterError("timestamps parsed from values need column= (the column their errors name)")
        label = label or column
        if pd.api.types.is_datetime64_any_dtype(raw.dtype):
            parsed = pd.to_datetime(raw)
        elif raw.dtype.kind in "iuf" or raw.dtype.kind == "b":
            if raw.dtype.kind == "b":
                self._fail(column, raw.notna(), "is a true/false flag, not a timestamp")
            seconds = raw.astype(np.float64)
            bad = seconds.abs() > _MAX_SECONDS  # ±inf too (NaN is an empty cell)
            if bad.any():
                self._fail(column, bad, "is not a timestamp (numbers are read as seconds since 1970)")
            values = seconds.to_numpy()
            nat = np.isnan(values)
            values = np.where(nat, 0.0, values)
            whole = np.floor(values)  # |seconds| ≤ 9.2e9 keeps the nanoseconds inside int64
            nanos = whole.astype(np.int64) * 10**9 + np.round((values - whole) * 1e9).astype(np.int64)
            nanos[nat] = np.iinfo(np.int64).min  # NaT
            parsed = pd.Series(nanos.view("datetime64[ns]"), index=raw.index)
        else:
            parsed, mixed = _parse_strings(raw)
            if mixed:
                note = offsets_note(raw)
                if note:
                    self.notes.append(note)
            bad = parsed.isna() & raw.notna()
            if bad.any():
                bad[bad] = raw[bad].astype("string").str.strip() != ""  # blank cells count as missing
            if bad.any():
                if codes is not None:  # bad is over unique values: map back to the first row using it
                    first_code = int(np.flatnonzero(bad.to_numpy())[0])
                    bad = pd.Series(codes == first_code, index=self.table.frame.index)
                shown = raw if codes is None and not isinstance(col_or_text, str) else None
                self._fail(column, bad, f"cannot be read as a date/time ({label}); use one format for "
                           "the whole column, e.g. ISO 8601 '2012-06-01 13:00:00'", shown=shown)
        if isinstance(parsed.dtype, pd.DatetimeTZDtype):
            parsed = parsed.dt.tz_convert("UTC")
            if not pd.api.types.is_numeric_dtype(raw.dtype) and not pd.api.types.is_datetime64_any_dtype(raw.dtype):
                self.utc_offsets = carried_offsets(raw, parsed) or self.utc_offsets
        return parsed

    def _value_column(self, exclude: set) -> str:
        """The single numeric value column (a column named 'value' wins)."""
        frame = self.table.frame
        rest = [c for c in frame.columns if c not in exclude]
        if "value" in rest:
            return "value"
        if not rest:
            raise DataError(f"no value column next to the timestamp in {self._names(frame.columns)}; "
                            "add a numeric column, e.g. 'value'")
        if len(rest) == 1:
            return rest[0]
        numeric = [c for c in rest if frame[c].dtype.kind in "iuf"]
        if len(numeric) == 1:
            self.notes.append(f"used column {self.original[numeric[0]]!r} as the value; ignored "
                              f"{self._names([c for c in rest if c != numeric[0]])}")
            return numeric[0]
        raise DataError(f"ambiguous value column: {self._names(rest)} could all be the value; keep "
                        "one, or name the one to use 'value'")

    def _entity(self, col: str, entity, what: str) -> None:
        """Keep one entity's rows when the file holds several (default: the first in the file)."""
        frame = self.table.frame
        ids = frame[col]
        if entity is None:
            distinct = pd.unique(ids.dropna())
            if len(distinct) <= 1:
                return
            entity = distinct[0]
            self.notes.append(f"the file holds {len(distinct)} {what}s (column {self.original[col]!r}); "
                              f"kept {what} {entity} (the first) — pass entity=… to choose another")
        keep = ids.astype("string").str.strip() == str(entity).strip()
        if not keep.any():
            shown = ", ".join(map(str, pd.unique(ids.dropna())[:_SHOWN_ROWS]))
            raise DataError(f"column {self.original[col]!r} has no rows for entity {entity!r}; "
                            f"the file holds e.g. {shown}")
        self.table.frame = frame[keep.to_numpy()]

    # -- messages ------------------------------------------------------------------------
    def _want(self, kind: str, layout_kind: str, layout: str) -> None:
        """Reject an explicit kind that contradicts a recognised layout."""
        if kind not in ("auto", layout_kind):
            raise DataError(f"kind={kind!r} but the file has the {layout} layout, which holds "
                            f"{layout_kind}; use kind='{layout_kind}' or 'auto'")

    def _fail(self, col: str, bad: pd.Series, problem: str, shown: pd.Series | None = None):
        """Raise a DataError naming the first offending row, the column and the value (or ``shown``'s)."""
        label = bad.index[np.flatnonzero(bad.to_numpy())[0]]
        name = self.original.get(col, col)
        value = (shown if shown is not None else self.table.frame[col]).at[label]
        where = self.table.where(label)
        count = int(bad.sum())
        more = f" ({count - 1} more rows like it)" if count > 1 else ""
        raise DataError(f"column {name!r}, {where}: {_shorten(value)!r} {problem}{more}")

    def _names(self, cols) -> str:
        """Column names as they appear in the file."""
        return ", ".join(repr(self.original.get(c, c)) for c in cols)


def _parse_strings(raw: pd.Series) -> tuple[pd.Series, bool]:
    """Parse date/time strings: a fast inferred-format pass, then a lenient pass for the rest.

    Returns (parsed, mixed): ``mixed`` is True when the strings carry different UTC offsets (daylight saving),
    which are then all converted to UTC.
    """
    mixed = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            parsed = pd.to_datetime(raw, errors="coerce")
        except ValueError as exc:  # newer pandas refuses mixed offsets without utc=True
            parsed = pd.Series(pd.NaT, index=raw.index, dtype="datetime64[ns]")
            mixed = "utc" in str(exc).lower() or "time zone" in str(exc).lower()
        except (TypeError, OverflowError):
            parsed = pd.Series(pd.NaT, index=raw.index, dtype="datetime64[ns]")
        if parsed.dtype == object or mixed:  # mixed UTC offsets
            mixed = True
            parsed = pd.to_datetime(raw, errors="coerce", utc=True, format="mixed")
        retry = parsed.isna() & raw.notna()
        if retry.any() and retry.sum() < len(raw):
            again = pd.to_datetime(raw[retry], errors="coerce", format="mixed",
                                   utc=isinstance(parsed.dtype, pd.DatetimeTZDtype))
            if again.dtype == parsed.dtype:
                parsed = parsed.copy()
                parsed[retry] = again
    return parsed, mixed


_OFFSET = re.compile(r"(Z|[+-]\d{2}(?::?\d{2})?)\s*$")
_TIME_OFFSET = re.compile(r"\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?\s*(Z|[+-]\d{2}(?::?\d{2})?)\s*$")


def carried_offsets(text: pd.Series, times: pd.Series) -> tuple[tuple[int, int], ...]:
    """The UTC offsets the time strings ``text`` carried ('…T18:00-07:00', '…Z') at the instants ``times`` they were
    read as, as change points (``Series.utc_offsets``); () when the times are naive or no string carried one."""
    if not isinstance(times.dtype, pd.DatetimeTZDtype):
        return ()
    found = text.astype("string").str.extract(_TIME_OFFSET, expand=False)
    has = found.notna().to_numpy() & times.notna().to_numpy()
    if not has.any():
        return ()
    minutes = {o: _offset_minutes(o) for o in pd.unique(found[has])}
    seconds = found[has].map(minutes).to_numpy(np.int64) * 60
    return offset_points(epoch_ns(pd.DatetimeIndex(times[has])), seconds)


def offsets_note(text: pd.Series) -> str:
    """'timestamps carried UTC offsets +01:00 and +02:00 (daylight saving); converted to UTC', or '' when the
    strings carry at most one offset."""
    found = text.dropna().astype(str).drop_duplicates().str.extract(_OFFSET)[0].dropna()
    minutes = sorted({_offset_minutes(o) for o in found})
    if len(minutes) < 2:
        return ""
    shown = [_offset_text(m) for m in minutes]
    listed = shown[0] + " and " + shown[1] if len(shown) == 2 else ", ".join(shown[:-1]) + " and " + shown[-1]
    dst = " (daylight saving)" if len(minutes) == 2 and minutes[1] - minutes[0] in (30, 60) else ""
    return f"timestamps carried UTC offsets {listed}{dst}; converted to UTC"


def _offset_minutes(offset: str) -> int:
    """'+01:00' / '+0100' / '+01' / 'Z' → minutes east of UTC."""
    if offset == "Z":
        return 0
    digits = offset[1:].replace(":", "")
    minutes = int(digits[:2]) * 60 + (int(digits[2:4]) if len(digits) >= 4 else 0)
    return minutes if offset[0] == "+" else -minutes


def _offset_text(minutes: int) -> str:
    """Minutes east of UTC → '+01:00'."""
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def repeat_columns(frame: pd.DataFrame, times) -> list[str]:
    """Categorical columns of ``frame`` whose values make ``times`` repeat (several users or devices in one
    table): columns of text (not numbers) with 2 … n/2 distinct values such that (time, column) pairs repeat at
    most half as often as the times do; best first. Empty when no time repeats."""
    key = pd.Series(np.asarray(times), index=frame.index)
    present = key.notna().to_numpy()
    key, frame = key[present], frame[present]
    repeats = int(key.duplicated().sum())
    if repeats == 0:
        return []
    found = []
    for col in frame.columns:
        column = frame[col]
        if column.dtype.kind in "iufbmM" or _mostly_numbers(column):
            continue
        text = column.astype("string").str.strip().fillna("")
        distinct = text.nunique()
        if distinct < 2 or distinct > len(text) / 2:
            continue
        within = int(pd.DataFrame({"t": key.to_numpy(), "c": text.to_numpy()}).duplicated().sum())
        if 2 * within <= repeats:
            found.append((within, col))
    return [col for _, col in sorted(found, key=lambda pair: pair[0])]


def entity_advice(columns: list[str], how: str, examples=()) -> str:
    """"the column 'source' (e.g. 'Coal', 'Wind') looks like an entity (user/device): <how>", or '' for no
    columns (``examples``: a few values of the first column)."""
    if not columns:
        return ""
    shown = [str(v) for v in list(examples)[:3]]
    eg = f" (e.g. {', '.join(map(repr, shown))}{', …' if len(examples) > 3 else ''})" if shown else ""
    if len(columns) == 1:
        return f"the column {columns[0]!r}{eg} looks like an entity (user/device): {how}"
    names = ", ".join(map(repr, columns[:-1])) + f" or {columns[-1]!r}"
    return f"the columns {names} look like an entity (user/device): {how}"


def column_examples(column: pd.Series) -> list:
    """The distinct values of a column, most frequent first (for messages)."""
    return list(column.astype("string").str.strip().value_counts(sort=True).index)


def _mostly_numbers(column: pd.Series) -> bool:
    """At least 90 % of the first 1,000 non-empty cells are numbers (decimal comma allowed)."""
    text = column.astype("string").str.strip()
    text = text[text.notna() & (text != "")].head(1000)
    if text.empty:
        return False
    numbers = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
    return bool(numbers.notna().mean() >= 0.9)


def clean_frame(frame: pd.DataFrame, kind: str, notes: list[str], table: RawTable, explain: str = "") -> pd.DataFrame:
    """Apply the module's missing/duplicate/order policy and set the timestamp index (``explain``: why the
    timestamps may repeat, added to the warning about them)."""
    missing = frame.isna().any(axis=1).to_numpy()
    if missing.any():
        labels = frame.index[missing][:_SHOWN_ROWS]
        rows = ", ".join(str(int(lab) + 1) for lab in labels)
        more = ", …" if missing.sum() > _SHOWN_ROWS else ""
        notes.append(f"{_count(int(missing.sum()), 'row')} with a missing timestamp or value "
                     f"dropped (rows {rows}{more})")
        frame = frame[~missing]
    if len(frame) == 0:
        raise DataError("no usable rows: every row misses its timestamp or value; fill them in")
    frame = frame.set_index("timestamp")
    index = pd.DatetimeIndex(frame.index).rename("timestamp")
    if index.unit != "ns":  # Parquet may carry s/ms/us timestamps; the Series contract is nanoseconds
        try:
            index = index.as_unit("ns")
        except (ValueError, OverflowError):
            raise DataError("timestamps must lie between the years 1677 and 2262 (nanosecond "
                            "timestamps); check the timestamp column") from None
    frame.index = index
    if not frame.index.is_monotonic_increasing:
        notes.append("rows were not in time order; sorted them by timestamp")
        frame = frame.sort_index(kind="stable")
    if frame.index.has_duplicates:
        frame = _deduplicate(frame, kind, notes, explain)
    if kind == "contacts" and not pd.api.types.is_string_dtype(frame["contact"].dtype):
        frame["contact"] = frame["contact"].astype(np.int64)
    return frame


def repeated_hour_note(index) -> str:
    """Words for naive timestamps whose repeats all lie in one early-morning hour of one day — the hour an autumn
    clock change writes twice in a local-time export — else ""."""
    index = pd.DatetimeIndex(index)
    if index.tz is not None:
        return ""
    repeated = index[index.duplicated(keep=False)]
    if not len(repeated):
        return ""
    hours = repeated.floor("h").unique()
    if len(hours) != 1 or hours[0].hour > 3 or hours[0].weekday() != 6 or hours[0].month not in (3, 4, 9, 10, 11):
        return ""  # clocks go back early on a Sunday: October/November in the north, March/April in the south
    hour = hours[0]
    inside = index[(index >= hour) & (index < hour + pd.Timedelta(hours=1))]
    if set(inside.unique()) != set(repeated.unique()):  # the whole hour repeats, not a few readings of it
        return ""
    return (f"the hour {hour:%H:00}–{hour:%H:59} on {hour:%Y-%m-%d} appears twice, as the autumn clock change writes "
            "it in a local-time export: give the file's time zone (--tz, e.g. Europe/Berlin; the import step's time "
            "zone) to keep both hours as distinct times instead of merging them")


def _repeated_times(index: pd.Index, shown: int = 3) -> str:
    """The first repeated timestamps of ``index`` in ISO 8601, for a note that names them."""
    times = index[index.duplicated(keep="first")].unique()
    text = ", ".join(t.isoformat() for t in times[:shown])
    return text + (f" and {len(times) - shown:,} more" if len(times) > shown else "")


def _deduplicate(frame: pd.DataFrame, kind: str, notes: list[str], explain: str = "") -> pd.DataFrame:
    """Repeated timestamps: average values, keep the first fix, drop repeated (time, contact) pairs."""
    before = len(frame)
    tail = f"; {explain}" if explain else ""
    clock = repeated_hour_note(frame.index)
    if clock:
        tail += f"; {clock}"
    named = _repeated_times(frame.index)
    if kind == "values":
        repeated = int(frame.index.duplicated(keep=False).sum())
        frame = frame.groupby(level=0, sort=True).mean()
        notes.append(f"{_count(repeated, 'row')} shared {_count(repeated - (before - len(frame)), 'timestamp')}; "
                     f"averaged them ({_count(before - len(frame), 'row')} fewer; repeated: {named}){tail}")
    elif kind == "trajectory":
        frame = frame[~frame.index.duplicated(keep="first")]
        notes.append(f"{_count(before - len(frame), 'fix', 'fixes')} repeated an earlier timestamp; "
                     f"kept the first fix (repeated: {named}){tail}")
    else:
        keys = pd.DataFrame({"t": epoch_ns(frame.index), "c": frame["contact"].to_numpy()})
        dropped = keys.duplicated(keep="first").to_numpy()
        if dropped.any():
            frame = frame.loc[~dropped]
            notes.append(f"{_count(before - len(frame), 'row')} repeated the same contact at the "
                         "same timestamp; dropped the repeats")
    return frame


def _first(columns, names) -> str | None:
    """The first of ``names`` present in ``columns``."""
    present = set(columns)
    return next((n for n in names if n in present), None)


def units_in_name(column: str) -> str:
    """Units from a column name such as 'energy_kWh', 'energy (kWh)' or 'power [W]'."""
    bracket = re.search(r"[\(\[]([^\)\]]{1,12})[\)\]]\s*$", column)
    if bracket:
        return bracket.group(1).strip()
    suffix = re.search(r"_([A-Za-z°%/²]{1,6})$", column.strip())
    return suffix.group(1) if suffix else ""


def _count(k: int, singular: str, plural: str | None = None) -> str:
    """'1 row', '3 rows'."""
    return f"{k} {singular if k == 1 else plural or singular + 's'}"


def _shorten(value) -> str:
    """A cell value, cut for messages."""
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "…"
