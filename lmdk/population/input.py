"""Population input: a long table (user, timestamp, value | lat, lon | contact) or a folder of per-user files.

Every source yields *canonical frames*: columns ``user``, ``timestamp`` (datetime64) and the kind's columns
(``value``; ``lat``, ``lon``; ``contact``), in chunks of rows (a user may span chunks: ``lmdk.population.
partition`` regroups them). Sources:

- Parquet file or folder of Parquet files (large tables: streamed by row batches with pyarrow);
- a CSV/TSV long table larger than the single-series limit (streamed by pyarrow's CSV reader);
- any other file the single-series import understands (T-drive, GeoLife, SocioPatterns, semicolon exports
  …): read once with the same import mapping (``lmdk.data.mapping``: given, else detected) and split by its
  entity column (user, taxi, person);
- a folder of per-user files (``Data/<user>/Trajectory/*.plt``, one T-drive file per taxi): the user is the
  first path component below the folder, each file is loaded with ``lmdk.data.load_series``.

Columns are found by the mapping's names (``entity_column``, ``time_column``, ``value_column`` …) or by the
usual names (user/user_id/id/household/taxi, timestamp/time/datetime, value, lat/latitude, lon/longitude,
contact/peer). Numeric timestamps are seconds since 1970 unless the mapping says otherwise.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from lmdk.data.read import MAX_BYTES, normalise_name
from lmdk.errors import DataError

KIND_COLUMNS = {"values": ("value",), "trajectory": ("lat", "lon"), "contacts": ("contact",)}
ALIASES = {
    "user": ("user", "user_id", "userid", "id", "entity", "household", "meter", "taxi", "device", "person", "id1",
             "user_a"),
    "timestamp": ("timestamp", "time", "datetime", "date_time", "tracked_at", "date"),
    "value": ("value", "kwh", "energy", "energy_kwh", "consumption", "reading", "power"),
    "lat": ("lat", "latitude"),
    "lon": ("lon", "lng", "longitude"),
    "contact": ("contact", "peer", "id2", "user_b"),
}
USER_NAMES = tuple(dict.fromkeys(("user_id", "user", "id", "taxi", "taxi_id", "device", "device_id", "meter",
                                  "meter_id", *ALIASES["user"])))
"""The user column's names looked for when none is named (ignoring case, spaces and punctuation)."""
CHUNK_ROWS = 4_000_000
OFFSET_COLUMN = "utc_offset"
"""Optional canonical column: the UTC offset (seconds east) a reading's time carried in its file, so declared windows
read the person's wall clock (``lmdk.data.Series.utc_offsets``); absent when the times carried none."""
PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True)
class Layout:
    """Which input column plays which canonical role, the kind of series and how to read numeric times."""

    kind: str
    columns: dict  # canonical name → input column
    time_format: str = "auto"  # as lmdk.data.ImportSpec: auto/epoch_s/epoch_ms/relative_s
    start: str = "2000-01-01 00:00:00"
    timezone: str | None = None


def _find(names, role: str, named: str | None) -> str | None:
    """The input column for ``role``: the one the mapping names, else the first alias present."""
    if named is not None:
        if named not in names:
            raise DataError(f"the input has no column {named!r} (named by the mapping); its columns are "
                            f"{', '.join(map(repr, names))}")
        return named
    by_norm = {normalise_name(c): c for c in names}
    return next((by_norm[a] for a in ALIASES[role] if a in by_norm), None)


def layout_of(names, spec=None) -> Layout:
    """Resolve the canonical columns of a long table with header ``names`` (``spec``: an ImportSpec or None)."""
    names = list(names)
    get = (lambda field: getattr(spec, field)) if spec is not None else (lambda field: None)
    user = _find(names, "user", get("entity_column"))
    time = _find(names, "timestamp", get("time_column"))
    if user is None:
        raise no_user_column("the table", names)
    if time is None:
        raise DataError(f"a population table needs a timestamp column (tried {', '.join(ALIASES['timestamp'])}); "
                        f"found {', '.join(map(repr, names))} — name it with --time-column COLUMN, or time_column in "
                        "an import mapping (--mapping FILE)")
    found = {role: _find(names, role, get(f"{role}_column")) for role in ("value", "lat", "lon", "contact")}
    kind = spec.kind if spec is not None and spec.value_column is None and spec.lat_column is None \
        and spec.contact_column is None else None
    if kind is None:
        kind = ("trajectory" if found["lat"] and found["lon"] else "contacts" if found["contact"]
                else "values" if found["value"] else None)
    if kind is None:
        raise DataError("the table has no value column, no lat/lon columns and no contact column; name one "
                        "(value, lat+lon, contact) or give an import mapping")
    columns = {"user": user, "timestamp": time}
    for role in KIND_COLUMNS[kind]:
        column = found[role]
        if column is None:
            how = "--value-column COLUMN, or value_column" if role == "value" else f"{role}_column"
            raise DataError(f"a {kind} table needs a {role} column (tried {', '.join(ALIASES[role])}); its columns are "
                            f"{', '.join(map(repr, names))} — name it with {how} in an import mapping (--mapping "
                            "FILE)")
        columns[role] = column
    fmt = spec.time_format if spec is not None else "auto"
    return Layout(kind, columns, fmt, spec.start if spec is not None else Layout.start,
                  spec.timezone if spec is not None else None)


def no_user_column(what: str, columns) -> DataError:
    """The error of an input without a user column: the names tried, the columns found, the flag that names it."""
    return DataError(f"{what}: no user (entity) column found (tried {', '.join(USER_NAMES)}); its columns are "
                     f"{', '.join(map(repr, columns))} — name the user column with --user-column COLUMN (or "
                     "entity_column in --mapping FILE; in Python: mapping={'entity_column': …}), or give a folder "
                     "with one file per user")


def first_times(times: pd.Series, users=None) -> np.ndarray:
    """True for each row whose wall-clock time (per user) has not been seen before: in a clock change's repeated
    hour the first row is daylight time and the second standard time, as a local-time export writes them."""
    key = pd.DataFrame({"t": times.to_numpy()} if users is None else {"u": users, "t": times.to_numpy()})
    return ~key.duplicated(keep="first").to_numpy()


def to_timestamps(column: pd.Series, layout: Layout, first: np.ndarray | None = None) -> pd.Series:
    """Timestamps of a chunk: datetimes kept; numbers as epoch s/ms or seconds from the start; text parsed.
    Naive times in a layout with a time zone are localised to it (``first``: :func:`first_times` per user)."""
    from lmdk.data.mapping import CALENDAR_FORMATS, calendar_times

    if layout.time_format in CALENDAR_FORMATS and not pd.api.types.is_datetime64_any_dtype(column.dtype):
        out = calendar_times(column, layout.time_format)
        bad = out.isna() & column.notna()
        if bad.any():
            raise DataError(f"column {column.name!r}: {column[bad].iloc[0]!r} is not a time of the format "
                            f"{layout.time_format!r}")
    elif pd.api.types.is_datetime64_any_dtype(column.dtype):
        out = column
    elif pd.api.types.is_numeric_dtype(column.dtype):
        if layout.time_format == "relative_s":
            out = pd.Timestamp(layout.start) + pd.to_timedelta(column, unit="s")
        else:
            out = pd.to_datetime(column, unit="ms" if layout.time_format == "epoch_ms" else "s")
    elif (order := day_order(column, layout.time_format)) is not None:  # d/m/y: one order for the whole column
        from lmdk.data.mapping import parse_dmy

        out = parse_dmy(column.astype(str), dayfirst=order == "dayfirst")
        bad = out.isna() & column.notna()
        if bad.any():
            raise DataError(f"column {column.name!r}: {column[bad].iloc[0]!r} is not a date in the column's "
                            f"{'day' if order == 'dayfirst' else 'month'}-first order; give an import mapping with "
                            "time_format")
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pandas' UserWarnings (mixed zones, inferred formats): not shown raw
                out = pd.to_datetime(column, format="ISO8601")
        except (ValueError, TypeError):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = pd.to_datetime(column, format="mixed")
            except (ValueError, TypeError):
                raise DataError(f"column {column.name!r}: cannot read its times (e.g. {column.iloc[0]!r}); give an "
                                "import mapping with the time format") from None
        if out.dtype == object:  # several UTC offsets (a clock change): the instants, in UTC
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = pd.to_datetime(column, format="mixed", utc=True)
    if layout.timezone and getattr(out.dtype, "tz", None) is None:
        # the repeated hour of an autumn clock change: a time's first row is daylight time, its second standard
        out = out.dt.tz_localize(layout.timezone, ambiguous=first_times(out) if first is None else first,
                                 nonexistent="shift_forward")
    if getattr(out.dtype, "tz", None) is None and out.dtype != np.dtype("datetime64[ns]"):
        out = out.astype("datetime64[ns]")
    return out


def day_order(column: pd.Series, time_format: str = "auto") -> str | None:
    """'dayfirst' or 'monthfirst' for a column of d/m/y dates (``time_format`` when it names one; else decided over
    the whole column as the import does, an ambiguous column read day first when written with dots), or None."""
    if time_format in ("dayfirst", "monthfirst"):
        return time_format
    if time_format != "auto" or column.dtype != object:
        return None
    from lmdk.data.mapping import day_month_order

    order = day_month_order(column)
    if order == "ambiguous":
        return "dayfirst" if column.astype(str).str.contains(r"\d\.\d", regex=True).any() else "monthfirst"
    return order if order in ("dayfirst", "monthfirst") else None


def column_layout(layout: Layout, frame: pd.DataFrame) -> Layout:
    """``layout`` with its d/m/y order decided once over ``frame``'s time column (every chunk then reads it so)."""
    column = frame[layout.columns["timestamp"]]
    order = day_order(column, layout.time_format) if layout.time_format == "auto" else None
    return replace(layout, time_format=order) if order is not None else layout


def canonical(frame: pd.DataFrame, layout: Layout) -> pd.DataFrame:
    """A chunk with the canonical column names and types (user ids keep their type; payload as float/int)."""
    cols = layout.columns
    users = frame[cols["user"]].to_numpy()
    times = frame[cols["timestamp"]]
    first = None
    if layout.timezone and not isinstance(times.dtype, pd.DatetimeTZDtype):
        first = first_times(times, users)
    out = {"user": users, "timestamp": to_timestamps(times, layout, first).array}
    for role in KIND_COLUMNS[layout.kind]:
        data = frame[cols[role]]
        out[role] = data.to_numpy() if role == "contact" else pd.to_numeric(data, errors="coerce").to_numpy(np.float64)
    return pd.DataFrame(out, copy=False)


# --------------------------------------------------------------------------- sources
@dataclass(frozen=True)
class Source:
    """A population input: its kind, a way to stream canonical chunks, and whether users come clustered."""

    kind: str
    chunks: Callable[[int], Iterator[pd.DataFrame]]  # rows per chunk → canonical frames
    description: str
    clustered: bool | None = None  # True: each user's rows are contiguous; None: unknown (scanned)
    parquet: tuple[str, ...] = ()  # Parquet files (the Dask engine reads them itself)
    layout: Layout | None = None
    users: Callable[[int], Iterator[np.ndarray]] | None = None  # the user column alone, in chunks (a cheap scan)
    value_column: str | None = None  # the input's column read as the value (named in what a command prints)
    read_counts: dict = field(default_factory=dict)  # filled while reading: rows "averaged" (one user, one time),
    # rows without a value ("empty") — steps the per-user import takes before the canonical frames

    def parquet_layout(self) -> Layout:
        """The canonical columns of a Parquet source's files (every Parquet source has them)."""
        if self.layout is None:
            raise DataError(f"{self.description}: a Parquet source needs its column layout (open it with "
                            "lmdk.population.input.open_source)")
        return self.layout


def parquet_files(path: Path) -> list[str]:
    """The Parquet files of a file or a folder (sorted, recursive)."""
    if path.is_file():
        return [str(path)]
    return sorted(str(p) for p in path.rglob("*") if p.is_file() and p.suffix.lower() in PARQUET_SUFFIXES)


def _pieces(handle, columns: list[str], rows: int):
    """A Parquet file's row groups as tables; a row group much larger than ``rows`` in batches of ``rows``.

    Whole row groups, because ``iter_batches`` keeps ~8 MB of buffers alive per batch read (pyarrow 26): RSS
    grew by ~1 GB over a 87.6 M-row file; reading row groups keeps it flat.
    """
    for group in range(handle.metadata.num_row_groups):
        if handle.metadata.row_group(group).num_rows <= 4 * rows:
            yield handle.read_row_group(group, columns=columns)
            continue
        yield from handle.iter_batches(batch_size=rows, row_groups=[group], columns=columns)


def parquet_source(files: list[str], spec=None) -> Source:
    """Stream Parquet files by row batches, reading only the needed columns."""
    import pyarrow.parquet as pq

    try:
        names = pq.ParquetFile(files[0]).schema_arrow.names
    except Exception as exc:  # pyarrow raises several types for a broken file
        raise DataError(f"could not read the Parquet file {files[0]!r}: {exc}") from None
    layout = layout_of(names, spec)

    def chunks(rows: int) -> Iterator[pd.DataFrame]:
        import pyarrow as pa

        pending, size = [], 0
        for name in files:
            for piece in _pieces(pq.ParquetFile(name), list(layout.columns.values()), rows):
                pending.append(piece)
                size += piece.num_rows
                if size >= rows:
                    yield canonical(pa.concat_tables(pending).to_pandas(), layout)
                    pending, size = [], 0
        if pending:
            yield canonical(pa.concat_tables(pending).to_pandas(), layout)

    def users(rows: int) -> Iterator[np.ndarray]:
        for name in files:
            for piece in _pieces(pq.ParquetFile(name), [layout.columns["user"]], rows):
                yield piece.column(0).to_numpy(zero_copy_only=False)  # text ids cannot be zero-copy

    return Source(layout.kind, chunks, f"{len(files)} Parquet file(s)", parquet=tuple(files), layout=layout,
                  users=users, value_column=layout.columns.get("value"))


def csv_source(path: Path, spec=None) -> Source:
    """Stream a large delimited long table with pyarrow's CSV reader."""
    import pyarrow.csv as pcsv

    delimiter = spec.delimiter if spec is not None else ("\t" if path.suffix.lower() == ".tsv" else ",")
    parse = pcsv.ParseOptions(delimiter=delimiter)

    def reader(rows: int):
        block = max(1 << 20, min(rows * 40, 1 << 28))
        return pcsv.open_csv(path, parse_options=parse, read_options=pcsv.ReadOptions(block_size=block))

    layout = layout_of(reader(1024).schema.names, spec)

    def chunks(rows: int) -> Iterator[pd.DataFrame]:
        for batch in reader(rows):
            yield canonical(batch.to_pandas(), layout)

    return Source(layout.kind, chunks, f"CSV {path.name}", layout=layout, value_column=layout.columns.get("value"))


def _series_frame(user, series) -> pd.DataFrame:
    """One user's Series as a canonical frame."""
    frame = series.frame.reset_index()
    frame.insert(0, "user", user)
    frame = frame[["user", "timestamp", *KIND_COLUMNS[series.kind]]]
    if getattr(series, "utc_offsets", ()) and series.timestamps.tz is not None:
        from lmdk.data.series import epoch_ns, local_ns

        utc = epoch_ns(series.timestamps)
        frame = frame.assign(**{OFFSET_COLUMN: (local_ns(utc, series.utc_offsets) - utc) // 10**9})
    return frame


def _usable(cells: pd.Series) -> pd.Series:
    """Which cells of a text column are not empty or a missing-value mark ('NA', '?', …)."""
    from lmdk.data.mapping import MISSING_MARKS

    return ~cells.astype(str).str.strip().isin(MISSING_MARKS)


def _has_value(cells: pd.Series) -> bool:
    """Whether a text column holds any usable cell."""
    return bool(_usable(cells).any())


def _single_source(kind: str, pairs: Callable[[], Iterator[tuple]], description: str) -> Source:
    """A Source of (user, Series or canonical frame) pairs: each chunk holds whole users (clustered by
    construction)."""
    def chunks(rows: int) -> Iterator[pd.DataFrame]:
        pending, size = [], 0
        for user, series in pairs():
            pending.append(series if isinstance(series, pd.DataFrame) else _series_frame(user, series))
            size += len(series)
            if size >= rows:
                yield pd.concat(pending, ignore_index=True)
                pending, size = [], 0
        if pending:
            yield pd.concat(pending, ignore_index=True)

    return Source(kind, chunks, description, clustered=True)


def _entity_groups(frame: pd.DataFrame, spec) -> Iterator[tuple[str, pd.DataFrame]]:
    """Rows of each entity of a text table (both id columns for undirected contacts), in order of first row."""
    ids = frame[spec.entity_column].astype(str).str.strip()
    keys = ids
    if spec.both_directions and spec.contact_column is not None:
        peers = frame[spec.contact_column].astype(str).str.strip()
        both = pd.concat([pd.Series(frame.index, index=ids.to_numpy()), pd.Series(frame.index, index=peers.to_numpy())])
        for entity, rows in both.groupby(level=0, sort=False):
            yield entity, frame.loc[np.sort(rows.to_numpy())]
        return
    for entity, rows in frame.groupby(keys.to_numpy(), sort=False):
        yield entity, rows


def mapped_source(path: Path, spec=None) -> Source:
    """A file the single-series import reads (≤ its size limit), split into users by its entity column."""
    from lmdk.data.read import read_source

    raw, filename = read_source(str(path), MAX_BYTES)
    return mapped_bytes(raw, filename, spec)


def upload_source(raw: bytes, filename: str, spec=None) -> Source:
    """A multi-user file held in memory (the dashboard's upload): Parquet long table, or any mapped text file."""
    if raw[:4] == b"PAR1" or Path(filename).suffix.lower() in PARQUET_SUFFIXES:
        from lmdk.data.read import read_parquet

        # rows, columns and decoded size checked (metadata, then a running count) before the whole file is decoded
        return frame_source(read_parquet(raw), spec)
    if len(raw) > MAX_BYTES:
        raise DataError(f"{filename}: {len(raw) / 1e6:.0f} MB is over the {MAX_BYTES / 1e6:.0f} MB limit of an "
                        "upload; run larger populations with `lmdk population`")
    return mapped_bytes(raw, filename, spec)


def mapped_bytes(raw: bytes, filename: str, spec=None) -> Source:
    """The bytes of a file the single-series import reads, split into users by its entity column."""
    from lmdk.data import mapping as mp
    from lmdk.data.columns import to_series
    from lmdk.data.read import check_text, decode_input, parse_raw

    raw, filename = decode_input(raw, filename)

    path = Path(filename)
    detection = None
    if spec is None:
        detection = mp.detect_bytes(raw, filename)
        spec = detection.spec
        if spec.entity_column is None and spec.layout == "table":
            user = _find(list(detection.columns), "user", None)
            spec = replace(spec, entity_column=user) if user not in (None, spec.time_column) else spec
    if spec.entity_column is None:
        raise no_user_column(path.name, detection.columns if detection is not None else ())
    if spec.layout != "table":
        table = parse_raw(raw, filename)
        ids = table.frame[normalise_name(spec.entity_column)].astype(str).str.strip()

        def pairs():
            for user, rows in table.frame.groupby(ids.to_numpy(), sort=False):
                yield user, to_series(replace(table, frame=rows), kind=spec.kind, entity=user, name=path.name)
    else:
        frame = mp.read_table(check_text(raw), spec)
        counts: dict = {"averaged": 0, "empty": 0}

        def pairs():
            counts.update(averaged=0, empty=0)  # each pass over the file counts afresh
            for user, rows in _entity_groups(frame, spec):  # rows keep the file's row numbers (errors name lines)
                if spec.kind == "values" and not _has_value(rows[spec.value_column]):
                    # no usable value: kept in the roster (N counts the input's user ids), contributes nothing
                    times = mp.apply_frame(rows.assign(**{spec.value_column: "0"}), replace(spec, entity=user),
                                           filename=filename, name=path.name)
                    yield user, _series_frame(user, times).assign(value=np.nan)
                    continue
                series = mp.apply_frame(rows, replace(spec, entity=user), filename=filename, name=path.name)
                if spec.kind == "values":
                    usable = int(_usable(rows[spec.value_column]).sum())
                    counts["empty"] += len(rows) - usable
                    counts["averaged"] += usable - len(series)
                yield user, series
        return Source(spec.kind, _single_source(spec.kind, pairs, path.name).chunks, f"{path.name} ({spec.layout})",
                      clustered=True, value_column=spec.value_column if spec.kind == "values" else None,
                      read_counts=counts)
    return Source(spec.kind, _single_source(spec.kind, pairs, path.name).chunks, f"{path.name} ({spec.layout})",
                  clustered=True, value_column=spec.value_column if spec.kind == "values" else None)


def folder_source(path: Path, spec=None) -> Source:
    """A folder of per-user files: the user is the first component below ``path`` (file stem or subfolder)."""
    from lmdk.data import load_series

    files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    if not files:
        raise DataError(f"the folder {str(path)!r} holds no files")
    by_user: dict[str, list[Path]] = {}
    for f in files:
        top = f.relative_to(path).parts[0]
        by_user.setdefault(Path(top).stem if len(f.relative_to(path).parts) == 1 else top, []).append(f)
    mapping = spec.to_dict() if spec is not None else "detect"
    first = load_series(str(by_user[next(iter(by_user))][0]), mapping=mapping)

    def pairs():
        from lmdk.data.series import Series

        for user, paths in by_user.items():
            parts = [load_series(str(p), mapping=mapping) for p in paths]
            if len(parts) == 1:
                yield user, parts[0]
                continue
            frame = pd.concat([s.frame for s in parts]).sort_index(kind="stable")
            if parts[0].kind != "contacts":
                frame = frame[~frame.index.duplicated(keep="first")]
            offsets = sorted(point for part in parts for point in part.utc_offsets)  # each file's, by instant
            yield user, Series(frame=frame, kind=parts[0].kind, units=parts[0].units, name=user,
                               utc_offsets=tuple(offsets))

    return Source(first.kind, _single_source(first.kind, pairs, path.name).chunks,
                  f"folder {path.name} ({len(by_user)} users)", clustered=True)


def frame_source(frame: pd.DataFrame, spec=None) -> Source:
    """An in-memory long table (tests, the dashboard)."""
    layout = column_layout(layout_of(frame.columns, spec), frame)

    def chunks(rows: int) -> Iterator[pd.DataFrame]:
        for start in range(0, len(frame), rows):
            yield canonical(frame.iloc[start:start + rows], layout)

    return Source(layout.kind, chunks, f"table of {len(frame):,} rows", layout=layout,
                  value_column=layout.columns.get("value"))


def open_source(source, mapping=None) -> Source:
    """A Source for a DataFrame, a Parquet file/folder, a large CSV long table, a mapped file or a folder."""
    from lmdk.data.mapping import ImportSpec

    if isinstance(source, Source):
        return source
    spec = ImportSpec.from_dict(mapping) if isinstance(mapping, dict) else mapping
    if isinstance(source, pd.DataFrame):
        return frame_source(source, spec)
    if str(source).startswith("sample:"):
        from lmdk.data.district import DISTRICT_NAME, district_sample

        if str(source) != DISTRICT_NAME:
            raise DataError(f"INPUT {str(source)!r}: the population sample is {DISTRICT_NAME} (100 homes × 8,760 "
                            "hours); sample:hue, taxi and contacts are one person's series (lmdk release reads them)")
        return replace(frame_source(district_sample(), spec), description=DISTRICT_NAME)
    path = Path(source)
    if not path.exists():
        raise DataError(f"INPUT {str(source)!r} does not exist; give a file or a folder")
    if path.is_dir():
        files = parquet_files(path)
        return parquet_source(files, spec) if files else folder_source(path, spec)
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if path.suffix.lower() in PARQUET_SUFFIXES or magic == b"PAR1":
        return parquet_source([str(path)], spec)
    if path.stat().st_size > MAX_BYTES:
        return csv_source(path, spec)
    return mapped_source(path, spec)
