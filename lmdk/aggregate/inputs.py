"""What a statistic over users reads besides the readings: the input's import mapping with its timestamps placed in
a zone (and relative seconds at a start), and the (user, group) pairs of a group column — one function each, for
the command line (a file or folder) and the app (an upload) alike."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lmdk.errors import DataError, ParameterError

if TYPE_CHECKING:
    from lmdk.data.mapping import ImportSpec
    from lmdk.population.input import Source


@dataclass(frozen=True)
class Upload:
    """A file uploaded to the app: its bytes and its name."""

    raw: bytes
    filename: str


def placed_spec(spec: ImportSpec, tz: str | None = None, start: str | None = None) -> ImportSpec:
    """``spec`` (an import mapping) with ``tz`` (the zone of naive times) and ``start`` (the date/time relative
    seconds count from) applied."""
    changes: dict = {}
    if tz is not None:
        changes["timezone"] = tz
    if start is not None:
        try:
            stamp = pd.Timestamp(start)
        except (TypeError, ValueError):
            raise ParameterError(f"--start {start!r} is not a date/time; use e.g. 2009-10-01 or "
                                 "'2009-10-01 08:00'") from None
        changes.update(start=str(stamp.tz_localize(None) if stamp.tzinfo else stamp), time_format="relative_s")
    return replace(spec, **changes)


COLUMN_KEYS = {"user": "entity_column", "time": "time_column", "value": "value_column"}
"""The import mapping's key each column named on the command line sets (--user-column → entity_column, …)."""


def population_spec(path: Path, spec: ImportSpec | None, tz: str | None = None, start: str | None = None,
                    columns: dict | None = None) -> ImportSpec | None:
    """The import mapping of a population file or folder with ``columns`` ({user|time|value: column name}, over the
    mapping's keys) and ``tz``/``start`` applied (None: none given, the reader detects it as ``lmdk population``
    does)."""
    named = {COLUMN_KEYS[role]: name for role, name in (columns or {}).items() if name is not None}
    if named:
        spec = replace(spec, **named) if spec is not None else detected_spec(path, named)
    if spec is not None:
        spec = completed_spec(path, spec)
    if start is None and tz is None:
        return spec
    if spec is None:
        spec = detected_spec(path)
    return placed_spec(spec, tz, start)


def completed_spec(path: Path, spec: ImportSpec) -> ImportSpec:
    """``spec`` (a mapping that may name only some columns, e.g. entity_column and time_column) with the columns it
    leaves out detected around the ones it names; a complete mapping as it is."""
    if spec.layout != "table" or not path.is_file() or (spec.time_column is not None and (
            spec.kind != "values" or spec.value_column is not None)):
        return spec
    named = {key: getattr(spec, key) for key in ("entity_column", "time_column", "value_column")
             if getattr(spec, key) is not None}
    if spec.time_format != "auto":
        named["time_format"] = spec.time_format
    found = detected_spec(path, named)
    return replace(found, timezone=spec.timezone, start=spec.start, units=spec.units or found.units)


def detected_spec(path: Path, named: dict | None = None) -> ImportSpec:
    """The mapping of a population file as the population reader would find it: detected for a text file, or the
    columns of a Parquet/large CSV long table named explicitly (so a zone or start changes nothing else);
    ``named``: import-mapping keys given (entity_column, time_column, value_column), kept."""
    from lmdk.data import mapping as mp
    from lmdk.data.district import DISTRICT_NAME
    from lmdk.data.mapping import ImportSpec
    from lmdk.data.read import MAX_BYTES, read_source
    from lmdk.population.input import open_source

    if str(path) == DISTRICT_NAME:  # the bundled population: its columns are known
        return ImportSpec(kind="values", entity_column="user", time_column="timestamp", value_column="value",
                          **{k: v for k, v in (named or {}).items() if k == "time_format"})
    if path.is_file() and path.suffix.lower() not in (".parquet", ".pq") and path.stat().st_size <= MAX_BYTES:
        raw, filename = read_source(str(path), MAX_BYTES)
        detection = mp.detect_bytes(raw, filename, named=named)
        if detection.spec.entity_column is None:
            from lmdk.population.input import no_user_column

            raise no_user_column(path.name, detection.columns)
        return detection.spec
    src = open_source(str(path), ImportSpec(**named) if named else None)
    layout = src.layout
    if layout is None:
        raise ParameterError("--start/--tz apply to a long table or a multi-user file; for a folder of per-user "
                             "files give --mapping FILE with start/timezone")
    cols = layout.columns
    time_format = (named or {}).get("time_format", "auto")
    if time_format == "auto" and "time_column" in (named or {}) and src.parquet:  # a named column of years, …
        import pyarrow.parquet as pq

        handle = pq.ParquetFile(src.parquet[0])
        cells = handle.read_row_group(0, columns=[cols["timestamp"]]).column(0).to_pandas() \
            if handle.metadata.num_row_groups else pd.Series([], dtype=object)
        if not pd.api.types.is_datetime64_any_dtype(cells.dtype):
            time_format = mp.calendar_format(cells.astype(str)) or "auto"
    return ImportSpec(kind=layout.kind, entity_column=cols["user"], time_column=cols["timestamp"],
                      value_column=cols.get("value"), lat_column=cols.get("lat"), lon_column=cols.get("lon"),
                      contact_column=cols.get("contact"), time_format=time_format)


def one_key_per_user(source: Source, rows: int = 2_000_000) -> tuple[Source, dict]:
    """``source`` (an opened population input) with every user id read as the first id of its key
    (:func:`lmdk.data.ids.key_map`: ``7`` and ``7.0`` of one table are one user, so N counts keys and a person's
    rows meet in one bin), and {id: the id it is now read as} of the ids renamed (user and contact columns); with
    none renamed, ``source`` itself. Rows without a user id are left for the builder to refuse or drop."""
    from dataclasses import replace as changed

    import numpy as np

    from lmdk.aggregate.partial import without_user
    from lmdk.data.ids import key_map
    from lmdk.population.users import user_ids

    ids = user_ids(source, rows)
    present = [user for user, gone in zip(ids, without_user(np.asarray(ids, dtype=object)), strict=True)
               if not gone]
    first: dict[str, object] = {}
    aliases: dict = {}
    for user, key in key_map(present, "the user column").items():
        if key in first:
            aliases[user] = first[key]
        else:
            first[key] = user
    if not aliases:
        return source, {}
    renamed = list(aliases)

    def rename(frame: pd.DataFrame) -> pd.DataFrame:
        for column in ("user", "contact"):
            if column in frame.columns:
                hit = frame[column].isin(renamed)
                if hit.any():
                    frame = frame.assign(**{column: frame[column].where(~hit, frame[column].map(aliases))})
        return frame

    def chunks(size: int):
        return (rename(chunk) for chunk in source.chunks(size))

    scan = source.users

    def users(size: int):
        assert scan is not None
        return (rename(pd.DataFrame({"user": np.asarray(column, dtype=object)}))["user"].to_numpy()
                for column in scan(size))

    return changed(source, chunks=chunks, users=users if scan is not None else None, parquet=(),
                   clustered=None), aliases


def group_pairs(source: Path | Upload, by: str, spec: ImportSpec | None = None) -> pd.DataFrame:
    """(user, group) rows of the column ``by``, users named as the population reader names them: of a long table
    on disk (Parquet or text; ``--by`` of the command line) or of an upload (the app's group column)."""
    if isinstance(source, Upload):
        return _upload_pairs(source, by, spec)
    from lmdk.data.district import DISTRICT_NAME, district_sample

    if str(source) == DISTRICT_NAME:
        frame = district_sample()
        if by not in frame.columns:
            raise ParameterError(f"--by {by!r}: {DISTRICT_NAME} has no such column; its columns are "
                                 f"{', '.join(map(str, frame.columns))}")
        return pd.DataFrame({"user": frame["user"].to_numpy(), "group": frame[by].astype(str).to_numpy()})
    return _file_pairs(source, by, spec)


def _file_pairs(path: Path, by: str, spec: ImportSpec | None) -> pd.DataFrame:
    """(user, group) rows of a long table in Parquet or text (users as the reader sees them)."""
    from lmdk.population.input import PARQUET_SUFFIXES, open_source

    src = open_source(str(path), spec)
    if src.parquet:
        import pyarrow.parquet as pq

        user = src.parquet_layout().columns["user"]
        names = pq.ParquetFile(src.parquet[0]).schema_arrow.names
        if by not in names:
            raise ParameterError(f"--by {by!r}: the input has no such column; its columns are {', '.join(names)}")
        frames = [pq.read_table(f, columns=[user, by]).to_pandas() for f in src.parquet]
        frame = pd.concat(frames, ignore_index=True)
        groups = frame[by].astype(str).where(frame[by].notna(), "")
        refuse_empty_groups(groups, by, lambda row: f"row {row + 1}")
        return pd.DataFrame({"user": frame[user].to_numpy(), "group": groups.to_numpy()})
    if path.is_dir() or path.suffix.lower() in PARQUET_SUFFIXES:
        raise ParameterError("--by needs a long table with the group column (Parquet or CSV); a folder of per-user "
                             "files has none")
    from lmdk.data import mapping as mp
    from lmdk.data.read import MAX_BYTES, check_text, read_source

    raw, filename = read_source(str(path), max(MAX_BYTES, path.stat().st_size))
    found = spec if spec is not None else mp.detect_bytes(raw[:MAX_BYTES], filename).spec
    frame = mp.read_table(check_text(raw), found, max_rows=10**9)
    user = found.entity_column if src.layout is None else src.layout.columns["user"]
    if by not in frame.columns:
        raise ParameterError(f"--by {by!r}: the input has no such column; its columns are "
                             f"{', '.join(map(str, frame.columns))}")
    first_line = found.skip_rows + (2 if found.header else 1)
    refuse_empty_groups(frame[by].astype(str).str.strip(), by, lambda row: f"line {row + first_line}")
    ids = frame[user].astype(str).str.strip()
    if src.layout is not None:  # a large CSV read by pyarrow: ids keep the type pyarrow gives them
        first = next(src.chunks(1024))["user"]
        if pd.api.types.is_numeric_dtype(first.dtype):
            ids = pd.to_numeric(ids)
    return pd.DataFrame({"user": ids.to_numpy(), "group": frame[by].astype(str).str.strip().to_numpy()})


def refuse_empty_groups(groups: pd.Series, by: str, where) -> None:
    """Refuse a group column with empty cells, naming the first rows (``where``: row position → "line 7")."""
    empty = np.flatnonzero((groups.str.strip() == "").to_numpy())
    if empty.size:
        shown = ", ".join(where(int(row)) for row in empty[:5]) + (", …" if empty.size > 5 else "")
        raise DataError(f"--by {by!r}: {empty.size:,} row(s) have an empty group ({shown}); every row needs its "
                        "user's group — fill them in, or drop those rows")


def _upload_pairs(upload: Upload, by: str, spec: ImportSpec | None) -> pd.DataFrame:
    """(user, group) rows of an upload's column ``by``, users named as the multi-user reader names them."""
    if spec is None:
        raise DataError("a group column needs the upload's import mapping with its user / device column")
    frame = _upload_frame(upload.raw, upload.filename, spec)
    if by not in frame.columns:
        raise ParameterError(f"group column {by!r}: the file has no such column; its columns are "
                             f"{', '.join(map(str, frame.columns))}")
    if spec.entity_column not in frame.columns:
        raise DataError(f"{Path(upload.filename).name}: no user column {spec.entity_column!r} to group")
    users = frame[spec.entity_column]
    users = users.astype(str).str.strip() if upload.raw[:4] != b"PAR1" else users
    groups = frame[by].astype(str).where(frame[by].notna(), "").str.strip()
    refuse_empty_groups(groups, by, lambda row: f"row {row + 1}")
    return pd.DataFrame({"user": users.to_numpy(), "group": groups.to_numpy()})


def _upload_frame(raw: bytes, filename: str, spec: ImportSpec) -> pd.DataFrame:
    """An upload's rows as a table (Parquet, or text read with the import mapping ``spec``)."""
    from lmdk.data import mapping as mp
    from lmdk.data.read import check_text, decode_input

    if raw[:4] == b"PAR1":
        from lmdk.data.read import read_parquet

        return read_parquet(raw)  # rows, columns and decoded size checked before the whole file is decoded
    raw, filename = decode_input(raw, filename)
    return mp.read_table(check_text(raw), spec)
