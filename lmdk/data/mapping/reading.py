"""Reading a table-layout file's cells as text under a mapping (delimiter, decimal mark, header, skipped lines;
Parquet's columns as text), and its times under the mapping's format and zone."""
from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pandas as pd

from lmdk.data.import_spec import TIME_FORMATS, ImportSpec
from lmdk.data.mapping.cells import DMY, datetime_text
from lmdk.data.read import MAX_ROWS, check_columns, check_text, check_width, normalise_name, parse_raw, too_many_rows
from lmdk.errors import DataError

_HEAD_BYTES = 65536  # the first line is looked for in the file's head


def read_table(body: bytes, spec: ImportSpec, max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """Parse text ``body`` (after any BOM) with the mapping's delimiter, decimal mark, header and skipped rows."""
    sep = r"\s+" if spec.delimiter == " " else spec.delimiter
    lines = re.split(r"\r\n|\r|\n", body[:_HEAD_BYTES].decode("utf-8", errors="ignore"),
                     maxsplit=spec.skip_rows + 1)
    check_width(lines[min(spec.skip_rows, len(lines) - 1)], spec.delimiter)  # before the parser and detection
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = pd.read_csv(
                io.BytesIO(body), sep=sep, decimal=spec.decimal, header=0 if spec.header else None,
                skiprows=spec.skip_rows, nrows=max_rows + 1, dtype=str, keep_default_na=False,
                engine="python" if spec.delimiter == " " else "c", skipinitialspace=True, index_col=False,
                on_bad_lines="error", encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise DataError("the file has no data rows below the header") from None
    except pd.errors.ParserError as exc:
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if found:
            expected, line, saw = (int(g) for g in found.groups())
            raise DataError(f"line {line + spec.skip_rows}: {saw} fields where the first row has {expected}; "
                            "check the delimiter, or quote fields that contain it") from None
        raise DataError(f"could not split the file into columns ({str(exc).strip()}); check the delimiter") from None
    if len(frame) > max_rows:
        raise too_many_rows(max_rows)
    check_columns(frame.shape[1])  # a first line longer than the head looked at: still before detection
    if not spec.header:
        frame.columns = [f"column {i + 1}" for i in range(frame.shape[1])]
    frame.columns = [str(c).strip() for c in frame.columns]
    if len(set(frame.columns)) != len(frame.columns):
        raise DataError("two columns have the same name in the header; rename one")
    if spec.header:
        seen: dict[str, str] = {}
        for name in frame.columns:
            base = name.rsplit(".", 1)[0] if re.search(r"\.\d+$", name) else None
            if base is not None and base in frame.columns:  # pandas renamed a repeated name 'x' to 'x.1'
                raise DataError(f"column {base!r} appears more than once in the header; rename or delete the "
                                "repeated column")
            if normalise_name(name) in seen:
                raise DataError(f"column {name!r} appears more than once in the header (as "
                                f"{seen[normalise_name(name)]!r}, ignoring case); rename or delete the repeated column")
            seen[normalise_name(name)] = name
    if frame.empty:
        raise DataError("the file has a header but no data rows")
    return frame


def table_frame(raw: bytes, spec: ImportSpec, *, filename: str = "", max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """A table-layout file's cells as text, read with ``spec``'s delimiter, decimal mark, header and skipped lines
    (Parquet: its columns as text)."""
    from lmdk.data.read import decode_input

    raw, filename = decode_input(raw, filename)
    if raw[:4] == b"PAR1":
        return _parquet_frame(raw, filename, max_rows)
    return read_table(check_text(raw), spec, max_rows)


def _parquet_frame(raw: bytes, filename: str, max_rows: int) -> pd.DataFrame:
    """A Parquet file's columns as text (names as stored), so one mapping path serves every format."""
    table = parse_raw(raw, filename, max_rows)
    frame = table.frame.rename(columns=table.original)
    return frame.apply(lambda c: c.astype("string").fillna("")).astype(object)


def parse_times(frame: pd.DataFrame, spec: ImportSpec, mapper) -> pd.Series:
    """The time column(s) under the mapping's format and zone (UTC inside when a zone is known; the offsets the
    strings carried go to ``mapper.utc_offsets``)."""
    time_column = spec.time_column
    if time_column is None:
        raise DataError("choose the time column (the import mapping names none)")
    col = normalise_name(time_column)
    raw = frame[time_column]
    if spec.time_format in ("epoch_s", "epoch_ms", "relative_s"):
        numbers = pd.to_numeric(raw.str.strip().str.replace(",", ".", regex=False), errors="coerce")
        bad = numbers.isna() & (raw.str.strip() != "")
        if bad.any():
            unit = "milliseconds" if spec.time_format == "epoch_ms" else "seconds"
            mapper._fail(col, bad, f"is not a number of {unit}")
        scale = 1e6 if spec.time_format == "epoch_ms" else 1e9
        base = pd.Timestamp(spec.start).value if spec.time_format == "relative_s" else 0
        with np.errstate(over="ignore"):  # 1e308 seconds overflows to inf, refused just below as past 2262
            nanos = np.round(numbers.to_numpy(dtype=float) * scale)
        if np.nanmax(np.abs(nanos), initial=0.0) + abs(base) > 9.2e18:
            mapper._fail(col, numbers.abs() == numbers.abs().max(), "lies beyond the year 2262")
        values = np.full(nanos.shape, np.iinfo(np.int64).min, dtype=np.int64)  # NaT where the cell is empty
        known = ~np.isnan(nanos)  # cast only numbers: NaN has no int64 (numpy warned on every empty cell)
        values[known] = nanos[known].astype(np.int64) + base
        parsed = pd.Series(values.view("datetime64[ns]"), index=frame.index)
        zone = spec.timezone if spec.time_format == "relative_s" else "UTC"
        return _zoned(parsed, zone if zone else None, already_utc=spec.time_format != "relative_s")
    calendar = spec.time_format if spec.time_format in CALENDAR_FORMATS else (
        calendar_format(raw) if spec.time_format == "auto" and spec.date_column is None else None)
    if calendar is not None:  # a named time column of years, year-months or Excel serial dates
        parsed = calendar_times(raw, calendar)
        bad = parsed.isna() & (raw.astype(str).str.strip() != "")
        if bad.any():
            mapper._fail(col, bad, f"is not {TIME_FORMATS[calendar]}")
        return _zoned(parsed, spec.timezone, already_utc=False)
    text = datetime_text(frame, time_column, spec.date_column)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec.time_format in ("dayfirst", "monthfirst"):
            parsed = parse_dmy(text, dayfirst=spec.time_format == "dayfirst")
        else:
            try:
                parsed = pd.to_datetime(text, errors="coerce", format="ISO8601")
                mixed = parsed.dtype == object  # several UTC offsets (daylight saving): all to UTC
            except ValueError:  # newer pandas refuses mixed UTC offsets without utc=True
                mixed = True
            if mixed:
                parsed = pd.to_datetime(text, errors="coerce", format="ISO8601", utc=True)
            retry = parsed.isna() & (text.str.strip() != "")
            if retry.any():
                parsed = pd.to_datetime(text, errors="coerce", format="mixed", utc=True)
                mixed = True
            if mixed:
                from lmdk.data.columns import offsets_note

                note = offsets_note(text)
                if note:
                    mapper.notes.append(note)
    bad = parsed.isna() & (text.str.strip() != "")
    if bad.any():
        what = f"{spec.date_column} + {spec.time_column}" if spec.date_column else spec.time_column
        mapper.table.frame = mapper.table.frame.assign(**{col: text})
        mapper._fail(col, bad, f"cannot be read as a date/time ({what}, {TIME_FORMATS[spec.time_format]}); "
                              "change the time format in the import step")
    zoned = _zoned(parsed, spec.timezone, already_utc=isinstance(parsed.dtype, pd.DatetimeTZDtype))
    if isinstance(parsed.dtype, pd.DatetimeTZDtype):
        from lmdk.data.columns import carried_offsets

        mapper.utc_offsets = carried_offsets(text, zoned)  # the wall clock each reading carried
    return zoned


CALENDAR_FORMATS = ("year", "year-month", "excel")
"""Time formats of calendar cells that are not instants: whole years, years and months, Excel serial dates."""
EXCEL_EPOCH = pd.Timestamp("1899-12-30")  # Excel's day 0 (its 1900 leap-year bug folded in)


def calendar_times(cells: pd.Series, time_format: str) -> pd.Series:
    """Naive times of cells in a :data:`CALENDAR_FORMATS` format (NaT where a cell does not fit): 2001 → 2001-01-01,
    2024-01 → 2024-01-01, 45292.5 (Excel) → 2024-01-01 12:00."""
    text = cells.astype(str).str.strip()
    if time_format == "year":
        number = pd.to_numeric(text, errors="coerce")
        ok = (number % 1 == 0) & number.between(1, 9999)
        return pd.to_datetime(number.where(ok).astype("Int64").astype(str).str.zfill(4).where(ok),
                              format="%Y", errors="coerce")
    if time_format == "year-month":
        parts = text.str.extract(r"^(\d{4})[-/.](\d{1,2})$")
        months = pd.to_numeric(parts[1], errors="coerce")
        ok = parts[0].notna() & months.between(1, 12)
        stamp = parts[0] + "-" + parts[1].str.zfill(2)
        return pd.to_datetime(stamp.where(ok), format="%Y-%m", errors="coerce")
    if time_format == "excel":
        number = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
        ok = number.between(1, 2_958_465)  # Excel's last day is 9999-12-31
        days = pd.Series(pd.to_timedelta(number.where(ok), unit="D"), index=cells.index).dt.round("s")
        return pd.Series(EXCEL_EPOCH + days, index=cells.index)
    raise DataError(f"time_format {time_format!r} is not one of {', '.join(CALENDAR_FORMATS)}")


def calendar_format(cells: pd.Series) -> str | None:
    """The :data:`CALENDAR_FORMATS` format a named time column's cells fit (whole years 1000–2999, YYYY-MM, or Excel
    serial dates 10000–99999: 1927–2173), or None."""
    text = cells.dropna().astype(str).str.strip()
    text = text[text != ""].head(5000)
    if text.empty:
        return None
    if text.str.fullmatch(r"\d{4}[-/.]\d{1,2}").all():
        return "year-month"
    number = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
    if number.isna().any():
        return None
    if ((number % 1 == 0) & number.between(1000, 2999)).all():
        return "year"
    if number.between(10_000, 99_999).all():
        return "excel"
    return None


def _zoned(parsed: pd.Series, zone: str | None, *, already_utc: bool) -> pd.Series:
    """Naive times in ``zone`` → UTC; aware times → UTC; no zone and naive → naive."""
    if isinstance(parsed.dtype, pd.DatetimeTZDtype):
        return parsed.dt.tz_convert("UTC")
    if zone:
        # an autumn clock change repeats an hour on the wall clock: a time's first row is daylight time, its second
        # standard time (as a local-time export writes them); the hour skipped in spring does not exist (NaT)
        first = ~parsed.duplicated(keep="first").to_numpy()
        return parsed.dt.tz_localize(zone, ambiguous=first, nonexistent="NaT").dt.tz_convert("UTC")
    if already_utc:
        return parsed.dt.tz_localize("UTC")
    return parsed


def parse_dmy(text: pd.Series, *, dayfirst: bool) -> pd.Series:
    """d/m/y or m/d/y with an optional time, one order for the whole column (vectorised)."""
    parts = text.str.extract(DMY)
    day, month = (parts[0], parts[2]) if dayfirst else (parts[2], parts[0])
    year = parts[3].where(parts[3].str.len() == 4, "20" + parts[3])
    frame = pd.DataFrame({"year": pd.to_numeric(year, errors="coerce"), "month": pd.to_numeric(month, errors="coerce"),
                          "day": pd.to_numeric(day, errors="coerce"),
                          "hour": pd.to_numeric(parts[4], errors="coerce").fillna(0),
                          "minute": pd.to_numeric(parts[5], errors="coerce").fillna(0),
                          "second": pd.to_numeric(parts[6], errors="coerce").fillna(0)})
    frac = pd.to_numeric("0" + parts[7].fillna(""), errors="coerce").fillna(0.0)
    ok = frame[["year", "month", "day"]].notna().all(axis=1)
    out = pd.Series(pd.NaT, index=text.index, dtype="datetime64[ns]")
    if ok.any():
        out[ok] = pd.to_datetime(frame[ok], errors="coerce") + pd.to_timedelta(frac[ok], unit="s")
    return out
