"""Applying a mapping: a file (or its cells read as text) → a validated ``Series``, with warnings that say how to
change a choice — worded for Python callers or for the app's import step."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from lmdk.data.import_spec import ImportSpec
from lmdk.data.mapping.cells import is_number_column, units_of
from lmdk.data.mapping.reading import parse_times, table_frame
from lmdk.data.read import MAX_BYTES, MAX_ROWS, RawTable, normalise_name, parse_raw, read_source
from lmdk.data.series import Series
from lmdk.errors import DataError

AUDIENCES = ("api", "app")
ADVICE = {  # how a reader changes a choice, in the warnings of a Series: Python callers vs the app's import step
    "api": {"entity": "choose one with entity=...",
            "value": "pass mapping= with another value_column to use one of them",
            "start": "pass mapping= with the real start (e.g. lmdk.data.detect(path).spec with start=...) if you "
                     "know it"},
    "app": {"entity": "choose it as the user/device column in the import settings",
            "value": "choose another value column in the import settings",
            "start": "the start chosen in the import step"},
}
MISSING_MARKS = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None", "-")


def apply(source, spec: ImportSpec | dict, *, name: str = "", max_bytes: int = MAX_BYTES,
          max_rows: int = MAX_ROWS, audience: str = "api") -> Series:
    """Read ``source`` with the mapping ``spec`` into a validated ``Series`` (its ``mapping`` is ``spec``).

    ``audience`` words the warnings' advice for Python callers ("api": entity=…, mapping=…) or for the app's
    import step ("app": the import settings)."""
    if isinstance(spec, dict):
        spec = ImportSpec.from_dict(spec)
    if not isinstance(spec, ImportSpec):
        raise DataError(f"mapping must be an ImportSpec, its dict or 'detect', not {type(spec).__name__}")
    raw, filename = read_source(source, max_bytes)
    return apply_parsed(raw, filename, spec, name=name, max_rows=max_rows, audience=audience)


def apply_parsed(raw: bytes, filename: str, spec: ImportSpec, parsed=None, *, name: str = "",
                 max_rows: int = MAX_ROWS, audience: str = "api") -> Series:
    """``apply`` for bytes in memory; ``parsed`` is what ``detect_parsed`` read from them (None: read them)."""
    from lmdk.data.read import decode_input

    raw, filename = decode_input(raw, filename)  # .csv.gz, UTF-16 ("Unicode text") → UTF-8 text
    import hashlib

    from lmdk.data.columns import to_series

    digest = hashlib.sha256(raw).hexdigest()
    default = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if spec.layout != "table":
        table = parsed if isinstance(parsed, RawTable) else parse_raw(raw, filename, max_rows)
        if table.layout != spec.layout:
            raise DataError(f"this file is not in the {spec.layout} layout the mapping names; detect it again")
        series = to_series(table, kind=spec.kind, entity=spec.entity, name=name or default, source_hash=digest)
        return replace(series, mapping=spec)
    frame = parsed if isinstance(parsed, pd.DataFrame) else table_frame(raw, spec, filename=filename,
                                                                         max_rows=max_rows)
    return apply_frame(frame, spec, filename=filename, source_hash=digest, name=name or default, audience=audience)


def apply_frame(frame: pd.DataFrame, spec: ImportSpec, *, filename: str = "", source_hash: str = "",
                name: str = "", audience: str = "api") -> Series:
    """``apply`` after reading: a table-layout file's text cells (``read_table``) → the mapped ``Series``
    (lmdk.population reads a multi-entity file once and maps each entity's rows with this)."""
    from lmdk.data.columns import ColumnMapper, clean_frame, column_examples, entity_advice, repeat_columns

    if audience not in AUDIENCES:
        raise DataError(f"audience must be one of {', '.join(map(repr, AUDIENCES))}, not {audience!r}")
    advice = ADVICE[audience]
    missing = [c for c in (spec.time_column, spec.date_column, spec.value_column, spec.lat_column, spec.lon_column,
                           spec.contact_column, spec.entity_column) if c is not None and c not in frame.columns]
    if missing:
        raise DataError(f"the file has no column {missing[0]!r}; the columns are {', '.join(map(repr, frame.columns))}")
    if spec.time_column is None:
        raise DataError("choose the time column (the import mapping names none)")
    frame = _normalise_cells(_select_entity(frame, spec), spec)
    notes: list[str] = []
    table = RawTable(frame=frame.rename(columns=normalise_name), layout="table",
                     first_line=spec.skip_rows + (2 if spec.header else 1), filename=filename,
                     original={normalise_name(c): c for c in frame.columns})
    mapper = ColumnMapper(table, notes)
    col = normalise_name
    times = parse_times(frame, spec, mapper)
    used = {spec.time_column, spec.date_column, spec.value_column, spec.lat_column, spec.lon_column,
            spec.contact_column, spec.entity_column}
    if spec.kind == "values":
        if spec.value_column is None:
            raise DataError("choose the value column (the import mapping names none)")
        built = pd.DataFrame({"timestamp": times, "value": mapper._numeric(col(spec.value_column))})
        ignored = [c for c in frame.columns if c not in used and is_number_column(frame[c].head(1000))]
        if ignored:
            plural = "s" if len(ignored) > 1 else ""
            notes.append(f"used column {spec.value_column!r} as the value; ignored the other numeric column{plural} "
                         f"{', '.join(map(repr, ignored))} — {advice['value']}")
    elif spec.kind == "trajectory":
        if spec.lat_column is None or spec.lon_column is None:
            raise DataError("choose the latitude and longitude columns (the import mapping names none)")
        built = mapper._trajectory(times, col(spec.lat_column), col(spec.lon_column))
    else:
        if spec.contact_column is None:
            raise DataError("choose the column that holds the contact's id (the import mapping names none)")
        built = mapper._contacts(times, col(spec.contact_column))
    explain = ""
    if spec.kind != "contacts" and times.duplicated().any():
        rest = frame[[c for c in frame.columns if c not in used - {spec.entity_column}]]
        found = repeat_columns(rest, times)
        explain = entity_advice(found, advice["entity"], column_examples(rest[found[0]]) if found else ())
    cleaned = clean_frame(built, spec.kind, notes, table, explain=explain)
    if spec.time_format == "relative_s":
        if audience == "app":
            notes.append(f"times are seconds from {pd.Timestamp(spec.start)} ({advice['start']})")
        else:
            notes.append(f"the times in {spec.time_column!r} are small numbers, read as seconds from "
                         f"{pd.Timestamp(spec.start)} (not as dates in 1970) — {advice['start']}")
    units = spec.units or (units_of(spec.value_column) if spec.value_column else "")
    units = units if spec.kind == "values" else {"trajectory": "degrees", "contacts": "contact id"}[spec.kind]
    label = name
    if spec.entity is not None:
        label = f"{label} — {spec.entity}"
    return Series(frame=cleaned, kind=spec.kind, units=units, name=label, warnings=tuple(notes),
                  source_hash=source_hash, mapping=spec, utc_offsets=mapper.utc_offsets)


def _normalise_cells(frame: pd.DataFrame, spec: ImportSpec) -> pd.DataFrame:
    """Missing-value marks ('?', 'NA', …) become empty cells; a decimal comma becomes a point in number columns."""
    numeric = [c for c in (spec.value_column, spec.lat_column, spec.lon_column) if c is not None]
    frame = frame.copy()
    for col in numeric:
        text = frame[col].astype(str).str.strip()
        text = text.where(~text.isin(MISSING_MARKS), "")
        frame[col] = text.str.replace(",", ".", regex=False) if spec.decimal == "," else text
    return frame


def _select_entity(frame: pd.DataFrame, spec: ImportSpec) -> pd.DataFrame:
    """Keep one entity's rows (both id columns for undirected contacts, with the peer moved to the contact)."""
    if spec.entity_column is None or spec.entity is None:
        return frame
    ids = frame[spec.entity_column].astype(str).str.strip()
    wanted = str(spec.entity).strip()
    if spec.both_directions and spec.contact_column is not None:
        peers = frame[spec.contact_column].astype(str).str.strip()
        as_second = peers == wanted
        keep = (ids == wanted) | as_second
        frame = frame.copy()
        frame.loc[as_second, spec.contact_column] = frame.loc[as_second, spec.entity_column]
        frame.loc[as_second, spec.entity_column] = wanted
    else:
        keep = ids == wanted
    if not keep.any():
        shown = ", ".join(pd.unique(ids)[:5])
        raise DataError(f"no rows for {wanted!r} in column {spec.entity_column!r}; it holds e.g. {shown}")
    return frame[keep.to_numpy()]  # the file's row numbers kept: an error names the row's line in the file
