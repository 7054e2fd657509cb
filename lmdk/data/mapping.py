"""The import mapping: how a user's file becomes a series, proposed by ``detect`` and applied by ``apply``.

An :class:`ImportSpec` names every choice the import step shows — delimiter, decimal mark, header row,
the time column (or a date column plus a time column) and its format, the time zone, the kind of series and
its columns, and which entity (taxi, user, device) of a multi-entity file. ``detect`` fills every field from
the bytes and says which fields were guesses (``Detection.questions``); nothing ambiguous is resolved
silently: day/month order is decided once per column over all rows, relative seconds are flagged.
Recognised layouts (HUE, GeoLife .plt, T-drive, Copenhagen) keep their own readers (``lmdk.data.columns``)
and only take the entity from the mapping.
"""
from __future__ import annotations

import io
import re
import warnings
from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np
import pandas as pd

from lmdk.data.read import (
    MAX_BYTES,
    MAX_ROWS,
    DataTooLargeError,
    RawTable,
    check_not_binary_format,
    check_text,
    normalise_name,
    parse_raw,
    read_source,
    too_many_rows,
)
from lmdk.data.series import KINDS, Series
from lmdk.errors import DataError

DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", " ": "spaces", "|": "vertical bar"}
DECIMALS = {".": "point (1.5)", ",": "comma (1,5)"}
TIME_FORMATS = {
    "auto": "as written (ISO 8601 and other unambiguous forms)",
    "dayfirst": "day first (31/12/2024, 31.12.2024)",
    "monthfirst": "month first (12/31/2024)",
    "epoch_s": "seconds since 1970-01-01 (Unix time)",
    "epoch_ms": "milliseconds since 1970-01-01",
    "relative_s": "seconds from a start you choose",
}
LAYOUTS = ("table", "hue", "geolife", "tdrive")
LAYOUT_NAMES = {"table": "table", "hue": "HUE", "geolife": "GeoLife", "tdrive": "T-drive"}
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
DEFAULT_RELATIVE_START = "2000-01-01 00:00:00"
RELATIVE_LIMIT_S = 1e8  # numbers below ~3 years of seconds are not plausible Unix times for sensor exports
_PREVIEW_ROWS = 8
_REPEAT_QUESTION = "choose it below as the user/device column"
_SNIFF_BYTES = 65536
_SAMPLE_CELLS = 5000  # type guesses (numbers? dates?) look at this many cells of a column
_DMY = re.compile(r"^\s*(\d{1,2})([./-])(\d{1,2})\2(\d{2}|\d{4})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*$")
_ID_PAIR = re.compile(r"^(id|user|node|person|device|i|j|source|target|from|to)_?([12ab])?$")


@dataclass(frozen=True)
class ImportSpec:
    """How to read one file: every field the import step shows (column names as written in the file)."""

    layout: str = "table"
    delimiter: str = ","
    decimal: str = "."
    header: bool = True
    skip_rows: int = 0
    time_column: str | None = None
    date_column: str | None = None
    time_format: str = "auto"
    start: str = DEFAULT_RELATIVE_START
    timezone: str | None = None
    kind: str = "values"
    value_column: str | None = None
    lat_column: str | None = None
    lon_column: str | None = None
    contact_column: str | None = None
    entity_column: str | None = None
    entity: str | None = None
    both_directions: bool = False  # contacts: the entity may stand in either id column (undirected pairs)
    units: str = ""

    def __post_init__(self) -> None:
        """Check the fields that have a fixed set of values; each message names the field."""
        checks = (("layout", self.layout, LAYOUTS), ("delimiter", self.delimiter, tuple(DELIMITERS)),
                  ("decimal", self.decimal, tuple(DECIMALS)), ("time_format", self.time_format, tuple(TIME_FORMATS)),
                  ("kind", self.kind, KINDS))
        for name, value, allowed in checks:
            if value not in allowed:
                raise DataError(f"import mapping: {name} must be one of {', '.join(map(repr, allowed))}, "
                                f"not {value!r}")
        if self.delimiter == self.decimal:
            raise DataError("import mapping: the decimal mark cannot also be the delimiter")
        if not isinstance(self.skip_rows, int) or not 0 <= self.skip_rows <= 1000:
            raise DataError(f"import mapping: skip_rows must be a whole number in 0..1000, not {self.skip_rows!r}")
        if self.timezone:
            try:
                pd.Timestamp("2000-01-01").tz_localize(self.timezone)
            except Exception:
                raise DataError(f"import mapping: unknown time zone {self.timezone!r}; use an IANA name such as "
                                "'Europe/Berlin' or 'UTC'") from None
        if self.time_format == "relative_s":
            try:
                pd.Timestamp(self.start)
            except (ValueError, TypeError):
                raise DataError(f"import mapping: start {self.start!r} is not a date/time; use e.g. "
                                "'2024-03-01 08:00'") from None

    def to_dict(self) -> dict:
        """Plain JSON-ready dict (stored in a RunConfig)."""
        return asdict(self)

    def summary(self) -> str:
        """The mapping in one short line: "delimiter ';', time 'tracked_at', lat 'latitude', lon 'longitude'"."""
        entity = f", entity {self.entity_column!r}={self.entity!r}" if self.entity_column and self.entity is not None \
            else ""
        if self.layout != "table":
            return f"{LAYOUT_NAMES[self.layout]} layout{entity}"
        parts = [f"delimiter {self.delimiter!r}"]
        if self.decimal != ".":
            parts.append(f"decimal {self.decimal!r}")
        if not self.header:
            parts.append("no header")
        time = f"time {self.time_column!r}"
        if self.date_column:
            time = f"date {self.date_column!r} + {time}"
        if self.time_format == "relative_s":
            time += f" (seconds from {self.start})"
        elif self.time_format != "auto":
            time += f" ({self.time_format})"
        if self.timezone:
            time += f" in {self.timezone}"
        parts.append(time)
        if self.kind == "values":
            parts.append(f"value {self.value_column!r}")
        elif self.kind == "trajectory":
            parts.append(f"lat {self.lat_column!r}, lon {self.lon_column!r}")
        else:
            parts.append(f"contact {self.contact_column!r}")
        return ", ".join(parts) + entity

    @classmethod
    def from_dict(cls, data: dict) -> ImportSpec:
        """Build from a dict; unknown fields are rejected by name."""
        if not isinstance(data, dict):
            raise DataError("an import mapping must be a JSON object {…}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise DataError(f"import mapping: unknown field(s) {unknown}; allowed: {sorted(names)}")
        return cls(**data)


@dataclass(frozen=True)
class Detection:
    """What ``detect`` proposes: the mapping, the file's columns, a preview, entities and open questions."""

    spec: ImportSpec
    columns: tuple[str, ...]
    preview: pd.DataFrame
    entities: pd.Series | None = None  # entity id → rows, largest first
    questions: tuple[str, ...] = ()  # choices detection could not make for sure (shown as warnings)
    notes: tuple[str, ...] = field(default=())  # the same choices worded for Python callers (load_series)
    entity_candidates: tuple[str, ...] = ()  # text columns whose values make timestamps repeat (users/devices)


# --------------------------------------------------------------------------- detection
def detect(source, *, max_bytes: int = MAX_BYTES, max_rows: int = MAX_ROWS, kind: str | None = None) -> Detection:
    """Propose an import mapping for a file (path, bytes or file-like), reading it once (``kind``: the kind of
    series wanted, when not the one the columns suggest)."""
    raw, filename = read_source(source, max_bytes)
    return detect_bytes(raw, filename, max_rows=max_rows, kind=kind)


def detect_bytes(raw: bytes, filename: str = "", *, max_rows: int = MAX_ROWS, kind: str | None = None) -> Detection:
    """``detect`` for bytes already in memory."""
    return detect_parsed(raw, filename, max_rows=max_rows, kind=kind)[0]


def detect_parsed(raw: bytes, filename: str = "", *, max_rows: int = MAX_ROWS,
                  kind: str | None = None) -> tuple[Detection, RawTable | pd.DataFrame | None]:
    """``detect_bytes`` plus what it parsed — the recognised layout's RawTable, or the table's text cells — so
    ``apply_parsed`` need not read the file again (``load_series``)."""
    if kind is not None and kind not in KINDS:
        raise DataError(f"kind must be 'auto' or one of {', '.join(KINDS)}, not {kind!r}")
    check_not_binary_format(raw)
    layout_table = _known_layout(raw, filename, max_rows)
    if layout_table is not None:
        parsed = layout_table if layout_table.layout != "table" else None  # Parquet is read again as text
        return _detect_layout(layout_table, kind), parsed
    body = check_text(raw)
    text = body[:65536].decode("utf-8", errors="ignore")
    lines = [ln for ln in re.split(r"\r\n|\r|\n", text)]
    skip = next((i for i, ln in enumerate(lines) if ln.strip()), 0)
    first = lines[skip]
    delimiter = _delimiter(lines[skip:], filename)
    decimal = _decimal(lines[skip:skip + 50], delimiter)
    fields_ = _split(first, delimiter)
    header = not all(_looks_like_data(f, decimal) for f in fields_)
    spec = ImportSpec(delimiter=delimiter, decimal=decimal, header=header, skip_rows=skip)
    frame = read_table(body, spec, max_rows)
    return _propose(frame, spec, kind), frame


def propose_bytes(raw: bytes, spec: ImportSpec, *, max_rows: int = MAX_ROWS) -> Detection:
    """Re-read with ``spec``'s delimiter, decimal mark, header and skipped lines and propose the columns again."""
    if raw[:4] == b"PAR1":
        return detect_bytes(raw, max_rows=max_rows)
    base = ImportSpec(delimiter=spec.delimiter, decimal=spec.decimal, header=spec.header, skip_rows=spec.skip_rows)
    return _propose(read_table(check_text(raw), base, max_rows), base)


def _known_layout(raw: bytes, filename: str, max_rows: int) -> RawTable | None:
    """A RawTable when the file is one of the recognised layouts (HUE, GeoLife, T-drive, Copenhagen)."""
    try:
        if len(raw) > 2 * _SNIFF_BYTES and raw[:4] != b"PAR1":  # a long text file: its first lines tell the layout
            head = raw[:raw.rfind(b"\n", 0, _SNIFF_BYTES) + 1] or raw[:_SNIFF_BYTES]
            if parse_raw(head, filename, max_rows).layout not in ("hue", "geolife", "tdrive"):
                return None
        table = parse_raw(raw, filename, max_rows)
    except DataTooLargeError:
        raise
    except DataError:
        if raw[:4] == b"PAR1":  # Parquet has no other reader: its error is the answer
            raise
        return None
    return table if table.layout in ("hue", "geolife", "tdrive") or table.first_line is None else None


def _detect_layout(table: RawTable, wanted: str | None = None) -> Detection:
    """Detection for a recognised layout: only the entity is a choice."""
    entity_col = {"tdrive": "id"}.get(table.layout)
    kind = {"hue": "values", "geolife": "trajectory", "tdrive": "trajectory"}.get(table.layout, "values")
    entities = _entity_counts(table.frame[entity_col]) if entity_col else None
    entity = None if entities is None or len(entities) < 2 else str(entities.index[0])
    spec = ImportSpec(layout=table.layout if table.layout in LAYOUTS else "table", kind=wanted or kind,
                      entity_column=table.original.get(entity_col, entity_col) if entity_col else None, entity=entity)
    frame = table.frame.rename(columns=table.original)
    if table.layout == "table":  # Parquet: map its columns like a text table
        return _propose(frame, spec, wanted)
    questions, notes = (), ()
    if entities is not None and len(entities) > 1:
        questions = (f"The file holds {len(entities)} taxis; "
                     f"using {entity} ({entities.iloc[0]:,} rows). Choose another below.",)
        notes = (f"the file holds {len(entities)} taxis (column {spec.entity_column!r}); kept taxi {entity} (the one "
                 f"with most rows, {entities.iloc[0]:,}); pass entity=... to choose another",)
    return Detection(spec, tuple(frame.columns), frame.head(_PREVIEW_ROWS), entities, questions, notes)


def _propose(frame: pd.DataFrame, spec: ImportSpec, wanted: str | None = None) -> Detection:
    """Fill the column choices of ``spec`` from the parsed ``frame`` (``wanted``: a kind asked for)."""
    cols = [str(c) for c in frame.columns]
    norm = {normalise_name(c): c for c in cols}
    questions: list[str] = []
    notes: list[str] = []
    time_col, date_col = _time_columns(frame, norm)
    if time_col is None:
        raise DataError(f"no column holds dates or times among {', '.join(map(repr, cols))}; add one, or name it "
                        "in the import mapping (time_column; in the app: the import settings)")
    time_format, question = _time_format(frame, time_col, date_col, spec)
    if question:
        questions.append(question)
        if time_format in ("dayfirst", "monthfirst"):
            other = "monthfirst" if time_format == "dayfirst" else "dayfirst"
            notes.append(f"every date in {date_col or time_col!r} fits both day/month orders; read them "
                         f"{'day' if time_format == 'dayfirst' else 'month'} first — pass mapping= with "
                         f"time_format={other!r} if that is wrong")
    used = {time_col, date_col}
    lat = _named(norm, ("lat", "latitude"), used)
    lon = _named(norm, ("lon", "lng", "long", "longitude"), used)
    entity_col, contact_col, both = _contact_columns(frame, norm, used | {lat, lon})
    trajectory_ids = ("user_id", "user", "id", "taxi", "taxi_id", "device", "device_id")
    kind = wanted or ("trajectory" if lat and lon else "contacts" if contact_col else "values")
    if kind == "trajectory":
        if not (lat and lon):
            raise DataError(f"kind='trajectory' but no latitude/longitude columns among {', '.join(map(repr, cols))}; "
                            "name them 'lat' and 'lon' (decimal degrees)")
        if contact_col and wanted:
            entity_col, contact_col, both = None, None, False
        entity_col = entity_col or _named(norm, trajectory_ids, used | {lat, lon})
    elif kind == "contacts":
        if contact_col is None:
            entity_col = _named(norm, trajectory_ids, used | {lat, lon})
            rest = [c for c in cols if c not in used | {lat, lon, entity_col}]
            if len(rest) != 1:
                raise DataError(f"kind='contacts' but no contact column among {', '.join(map(repr, cols))}; name "
                                "the column holding the discovered device's id 'contact'")
            contact_col, both = rest[0], False
    else:
        contact_col, both = None, False
        entity_col = _named(norm, trajectory_ids + ("meter", "meter_id", "entity"), used)
    value_col = None
    if kind == "values":
        value_col, question = _value_column(frame, norm, used | {entity_col})
        if question:
            questions.append(question)
    entities = None
    entity = None
    if entity_col:
        ids = frame[entity_col] if not both else pd.concat([frame[entity_col], frame[contact_col]])
        entities = _entity_counts(ids)
        if len(entities) > 1:
            entity = str(entities.index[0])
            what = "people" if kind == "contacts" else "entities"
            questions.append(f"The file holds {len(entities):,} {what} (column {entity_col!r}); using {entity} "
                             f"({entities.iloc[0]:,} rows), the one with most rows. Choose another below.")
            notes.append(f"the file holds {len(entities):,} {what} (column {entity_col!r}); kept {entity} (the one "
                         f"with most rows, {entities.iloc[0]:,}); pass entity=... to choose another")
        else:
            entity_col, entities = None, None
    candidates: tuple[str, ...] = ()
    if kind != "contacts":
        from lmdk.data.columns import repeat_columns

        times = frame[time_col] if date_col is None else frame[date_col] + " " + frame[time_col]
        skip = used | {value_col, lat, lon}
        candidates = tuple(repeat_columns(frame[[c for c in cols if c not in skip]], times))
        if candidates and entity_col is None:
            repeats = int(times.duplicated().sum())
            fate = "averaged" if kind == "values" else "dropped but the first"
            questions.append(f"{repeats:,} rows repeat an earlier timestamp, and the column {candidates[0]!r} looks "
                             f"like an entity (user/device): {_REPEAT_QUESTION} to read one of its series; otherwise "
                             f"rows sharing a timestamp are {fate}.")
    units = _units_of(value_col) if value_col else ""
    spec = replace(spec, time_column=time_col, date_column=date_col, time_format=time_format, kind=kind,
                   value_column=value_col, lat_column=lat if kind == "trajectory" else None,
                   lon_column=lon if kind == "trajectory" else None,
                   contact_column=contact_col,
                   entity_column=entity_col, entity=entity, both_directions=both, units=units)
    return Detection(spec, tuple(cols), frame.head(_PREVIEW_ROWS), entities, tuple(questions), tuple(notes),
                     candidates)


def table_frame(raw: bytes, spec: ImportSpec, *, filename: str = "", max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """A table-layout file's cells as text, read with ``spec``'s delimiter, decimal mark, header and skipped lines
    (Parquet: its columns as text)."""
    if raw[:4] == b"PAR1":
        return _parquet_frame(raw, filename, max_rows)
    return read_table(check_text(raw), spec, max_rows)


def with_entity_column(raw: bytes, detection: Detection, column: str | None, *, filename: str = "",
                       max_rows: int = MAX_ROWS) -> Detection:
    """``detection`` with ``column`` as the entity (user/device) column — its ids counted, the one with most rows
    chosen — or with no entity column (None): how a user picks one of ``detection.entity_candidates``."""
    spec = detection.spec
    if spec.layout != "table":
        raise DataError(f"the entity column of the {LAYOUT_NAMES[spec.layout]} layout is fixed")
    if column is None:
        questions = tuple(q for q in detection.questions if not q.startswith("The file holds"))
        return replace(detection, spec=replace(spec, entity_column=None, entity=None, both_directions=False),
                       entities=None, questions=questions)
    if column not in detection.columns:
        raise DataError(f"entity column {column!r} is not a column of the file; its columns are "
                        f"{', '.join(map(repr, detection.columns))}")
    if column in (spec.time_column, spec.date_column, spec.value_column, spec.lat_column, spec.lon_column,
                  spec.contact_column):
        raise DataError(f"entity column {column!r} is already used for the times or the readings; choose another")
    counts = _entity_counts(table_frame(raw, spec, filename=filename, max_rows=max_rows)[column])
    if counts.empty:
        raise DataError(f"entity column {column!r} is empty; choose another")
    spec = replace(spec, entity_column=column, entity=str(counts.index[0]), both_directions=False)
    questions = [q for q in detection.questions if _REPEAT_QUESTION not in q and not q.startswith("The file holds")]
    questions.append(f"The file holds {len(counts):,} entities (column {column!r}); using {spec.entity} "
                     f"({counts.iloc[0]:,} rows), the one with most rows. Choose another below.")
    return replace(detection, spec=spec, entities=counts, questions=tuple(questions))


def _time_columns(frame: pd.DataFrame, norm: dict) -> tuple[str | None, str | None]:
    """(time column, separate date column or None): by name first, then by content."""
    names = ("timestamp", "datetime", "date_time", "time_stamp", "tracked_at", "time", "ts", "t", "zeitstempel",
             "zeit", "horodatage", "fecha_hora")
    date = norm.get("date") or norm.get("datum")
    time = norm.get("time") or norm.get("zeit")
    if date and time and date != time and _parses_as_dates(frame[date]) and not _is_number_column(frame[time]):
        return time, date
    for name in names:
        col = norm.get(name)
        if col is not None and (_parses_as_dates(frame[col]) or _is_number_column(frame[col])):
            return col, None
    if date is not None and _parses_as_dates(frame[date]):
        return date, None
    for col in frame.columns:
        if frame[col].dtype == object and _parses_as_dates(frame[col]):
            return col, None
    for col in frame.columns:  # headerless epoch times (REDD's 'seconds value' lines)
        if _is_number_column(frame[col]):
            values = pd.to_numeric(frame[col], errors="coerce").dropna()
            if len(values) and 1e8 <= values.min() and values.max() < 1e13 and values.is_monotonic_increasing:
                return col, None
    named = _named(norm, names + ("date", "datum"), set())  # named so, but cells that are not dates: reading it
    return named, None  # names the first bad row (None: no time column at all)


def _time_format(frame, time_col: str, date_col: str | None, spec: ImportSpec) -> tuple[str, str | None]:
    """The time format, and a question when detection had to guess (day/month order, relative seconds)."""
    column = frame[time_col]
    if date_col is None and _is_number_column(column):
        values = pd.to_numeric(column, errors="coerce").dropna()
        if values.empty:
            return "epoch_s", None
        top = float(values.abs().max())
        if top >= 1e11:
            return "epoch_ms", None
        if top < RELATIVE_LIMIT_S:
            return "relative_s", (f"The times in {time_col!r} are small numbers ({values.iloc[0]:g} … {top:g}): read "
                                  f"as seconds from a start you choose (now {DEFAULT_RELATIVE_START}), not as dates "
                                  "in 1970. Set the real start below if you know it.")
        return "epoch_s", None
    if _datetime_text(frame.head(_SAMPLE_CELLS), time_col, date_col).str.match(_DMY).mean() < 0.5:
        return "auto", None  # ISO 8601 and other forms: no day/month order to decide
    text = _datetime_text(frame, time_col, date_col)
    order = day_month_order(text)
    if order == "ambiguous":
        guess = "dayfirst" if (spec.delimiter == ";" or spec.decimal == ","
                               or text.str.contains(r"\d\.\d", regex=True).any()) else "monthfirst"
        label = "day first" if guess == "dayfirst" else "month first"
        return guess, (f"Every date in {time_col if date_col is None else date_col!r} fits both day/month orders; "
                       f"reading them {label} (what this file's conventions suggest). Change the time format if "
                       "that is wrong.")
    return order, None


def day_month_order(text: pd.Series) -> str:
    """'dayfirst', 'monthfirst', 'auto' (not d/m/y numbers) or 'ambiguous', decided over the whole column."""
    sample = text.dropna().head(_SAMPLE_CELLS).astype(str)
    if sample.empty or sample.str.match(_DMY).mean() < 0.5:  # ISO 8601 and other forms: no d/m order to decide
        return "auto"
    parts = text.dropna().astype(str).str.extract(_DMY)
    matched = parts[0].notna()
    if not matched.any() or matched.sum() < 0.9 * len(parts):
        return "auto"
    first = parts.loc[matched, 0].astype(int)
    second = parts.loc[matched, 2].astype(int)
    day_first, month_first = bool((first > 12).any()), bool((second > 12).any())
    if day_first and month_first:
        raise DataError("the dates mix day-first and month-first forms (e.g. 13/01 and 01/13 in one column); "
                        "use one order for the whole column")
    return "dayfirst" if day_first else "monthfirst" if month_first else "ambiguous"


def _value_column(frame, norm: dict, used: set) -> tuple[str | None, str | None]:
    """The value column: 'value' or the only numeric one; else the first numeric one and a question."""
    rest = [c for c in frame.columns if c not in used]
    if "value" in norm and norm["value"] in rest:
        return norm["value"], None
    numeric = [c for c in rest if _is_number_column(frame[c])]
    if not numeric:
        raise DataError("no column of numbers to use as the value; choose the value column in the import step")
    if len(numeric) == 1:
        return numeric[0], None
    return numeric[0], (f"{len(numeric)} columns hold numbers ({', '.join(map(repr, numeric[:6]))}"
                        f"{', …' if len(numeric) > 6 else ''}); using {numeric[0]!r} as the value. "
                        "Choose another below.")


def _contact_columns(frame, norm: dict, used: set) -> tuple[str | None, str | None, bool]:
    """(entity column, contact column, both directions) for contact files: a named contact column or an id pair."""
    contact = _named(norm, ("contact", "contact_id", "user_b", "device_b", "peer", "peer_id"), used)
    if contact:
        entity = _named(norm, ("user_a", "device_a", "id", "user", "user_id", "device", "device_id"), used | {contact})
        return entity, contact, False
    pair = [c for c in frame.columns if c not in used and _ID_PAIR.match(normalise_name(c))
            and _is_integer_column(frame[c])]
    if len(pair) >= 2:
        return pair[0], pair[1], True
    return None, None, False


def _entity_counts(ids: pd.Series) -> pd.Series:
    """Rows per entity id (as text), largest first, ties in order of appearance."""
    text = ids.dropna().astype(str).str.strip()
    counts = text.value_counts(sort=False)
    order = pd.Index(pd.unique(text))
    counts = counts.reindex(order)
    return counts.sort_values(ascending=False, kind="stable")


# --------------------------------------------------------------------------- reading
def read_table(body: bytes, spec: ImportSpec, max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """Parse text ``body`` (after any BOM) with the mapping's delimiter, decimal mark, header and skipped rows."""
    sep = r"\s+" if spec.delimiter == " " else spec.delimiter
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


# --------------------------------------------------------------------------- applying
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
    from lmdk.data.columns import _clean, _Mapper, column_examples, entity_advice, repeat_columns

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
    mapper = _Mapper(table, notes)
    col = normalise_name
    times = parse_times(frame, spec, mapper)
    used = {spec.time_column, spec.date_column, spec.value_column, spec.lat_column, spec.lon_column,
            spec.contact_column, spec.entity_column}
    if spec.kind == "values":
        if spec.value_column is None:
            raise DataError("choose the value column (the import mapping names none)")
        built = pd.DataFrame({"timestamp": times, "value": mapper._numeric(col(spec.value_column))})
        ignored = [c for c in frame.columns if c not in used and _is_number_column(frame[c].head(1000))]
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
    cleaned = _clean(built, spec.kind, notes, table, explain=explain)
    if spec.time_format == "relative_s":
        if audience == "app":
            notes.append(f"times are seconds from {pd.Timestamp(spec.start)} ({advice['start']})")
        else:
            notes.append(f"the times in {spec.time_column!r} are small numbers, read as seconds from "
                         f"{pd.Timestamp(spec.start)} (not as dates in 1970) — {advice['start']}")
    units = spec.units or (_units_of(spec.value_column) if spec.value_column else "")
    units = units if spec.kind == "values" else {"trajectory": "degrees", "contacts": "contact id"}[spec.kind]
    label = name
    if spec.entity is not None:
        label = f"{label} — {spec.entity}"
    return Series(frame=cleaned, kind=spec.kind, units=units, name=label, warnings=tuple(notes),
                  source_hash=source_hash, mapping=spec)


def _parquet_frame(raw: bytes, filename: str, max_rows: int) -> pd.DataFrame:
    """A Parquet file's columns as text (names as stored), so one mapping path serves every format."""
    table = parse_raw(raw, filename, max_rows)
    frame = table.frame.rename(columns=table.original)
    return frame.apply(lambda c: c.astype("string").fillna("")).astype(object)


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
    return frame[keep.to_numpy()].reset_index(drop=True)


def parse_times(frame: pd.DataFrame, spec: ImportSpec, mapper) -> pd.Series:
    """The time column(s) under the mapping's format and zone (UTC inside when a zone is known)."""
    col = normalise_name(spec.time_column)
    raw = frame[spec.time_column]
    if spec.time_format in ("epoch_s", "epoch_ms", "relative_s"):
        numbers = pd.to_numeric(raw.str.strip().str.replace(",", ".", regex=False), errors="coerce")
        bad = numbers.isna() & (raw.str.strip() != "")
        if bad.any():
            unit = "milliseconds" if spec.time_format == "epoch_ms" else "seconds"
            mapper._fail(col, bad, f"is not a number of {unit}")
        scale = 1e6 if spec.time_format == "epoch_ms" else 1e9
        base = pd.Timestamp(spec.start).value if spec.time_format == "relative_s" else 0
        nanos = np.round(numbers.to_numpy(dtype=float) * scale)
        if np.nanmax(np.abs(nanos), initial=0.0) + abs(base) > 9.2e18:
            mapper._fail(col, numbers.abs() == numbers.abs().max(), "lies beyond the year 2262")
        values = np.where(np.isnan(nanos), np.iinfo(np.int64).min, nanos.astype(np.int64) + base)
        parsed = pd.Series(values.astype(np.int64).view("datetime64[ns]"), index=frame.index)
        zone = spec.timezone if spec.time_format == "relative_s" else "UTC"
        return _zoned(parsed, zone if zone else None, already_utc=spec.time_format != "relative_s")
    text = _datetime_text(frame, spec.time_column, spec.date_column)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec.time_format in ("dayfirst", "monthfirst"):
            parsed = _parse_dmy(text, dayfirst=spec.time_format == "dayfirst")
        else:
            mixed = False
            try:
                parsed = pd.to_datetime(text, errors="coerce", format="ISO8601")
            except ValueError:  # newer pandas refuses mixed UTC offsets without utc=True
                parsed, mixed = None, True
            if mixed or parsed.dtype == object:  # several UTC offsets (daylight saving): all to UTC
                mixed = True
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
    return _zoned(parsed, spec.timezone, already_utc=isinstance(parsed.dtype, pd.DatetimeTZDtype))


def _zoned(parsed: pd.Series, zone: str | None, *, already_utc: bool) -> pd.Series:
    """Naive times in ``zone`` → UTC; aware times → UTC; no zone and naive → naive."""
    if isinstance(parsed.dtype, pd.DatetimeTZDtype):
        return parsed.dt.tz_convert("UTC")
    if zone:
        return parsed.dt.tz_localize(zone, ambiguous="NaT", nonexistent="NaT").dt.tz_convert("UTC")
    if already_utc:
        return parsed.dt.tz_localize("UTC")
    return parsed


def _parse_dmy(text: pd.Series, *, dayfirst: bool) -> pd.Series:
    """d/m/y or m/d/y with an optional time, one order for the whole column (vectorised)."""
    parts = text.str.extract(_DMY)
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


def _datetime_text(frame: pd.DataFrame, time_col: str, date_col: str | None) -> pd.Series:
    """The text to parse: the time column, or 'date time' from two columns."""
    time = frame[time_col].astype(str).str.strip()
    if date_col is None:
        return time
    return frame[date_col].astype(str).str.strip() + " " + time


# --------------------------------------------------------------------------- small helpers
def _delimiter(lines: list[str], filename: str) -> str:
    """Tab for .tsv; else the separator splitting the first lines into the same number (> 1) of fields —
    ; tab | before a comma, which may be a decimal mark; else runs of spaces."""
    if filename.lower().endswith((".tsv", ".tab")):
        return "\t"
    sample = [ln for ln in lines if ln.strip()][:20]
    for sep in (";", "\t", "|", ","):
        counts = {ln.count(sep) for ln in sample}
        if len(counts) == 1 and counts.pop() > 0:
            return sep
    first = sample[0] if sample else ""
    counts = {sep: first.count(sep) for sep in (",", ";", "\t", "|")}
    best = max(counts, key=counts.get)
    if counts[best]:
        return best
    return " " if len(first.split()) > 1 else ","


def _decimal(lines: list[str], delimiter: str) -> str:
    """Comma when numbers are written 1,5 (only possible when the delimiter is not a comma)."""
    if delimiter == ",":
        return "."
    cells = [c.strip() for ln in lines[1:] for c in _split(ln, delimiter)]
    comma = sum(bool(re.fullmatch(r"[-+]?\d+,\d+", c)) for c in cells)
    point = sum(bool(re.fullmatch(r"[-+]?\d+\.\d+", c)) for c in cells)
    return "," if comma > point else "."


def _split(line: str, delimiter: str) -> list[str]:
    return line.split() if delimiter == " " else line.split(delimiter)


def _looks_like_data(cell: str, decimal: str) -> bool:
    """A cell that is a number or a date/time (so its row is data, not a header)."""
    cell = cell.strip().strip('"')
    if decimal == ",":
        cell = cell.replace(",", ".")
    if re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", cell):
        return True
    return bool(re.match(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}", cell))


def _is_number_column(column: pd.Series) -> bool:
    """At least 90 % of the non-empty cells are numbers (decimal comma allowed), judged on the first cells."""
    text = column.head(_SAMPLE_CELLS).astype(str).str.strip()
    text = text[(text != "") & (text != "?") & (text.str.lower() != "nan")]
    if text.empty:
        return False
    numbers = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
    return bool(numbers.notna().mean() >= 0.9)


def _is_integer_column(column: pd.Series) -> bool:
    """Whole numbers only (ids)."""
    text = column.astype(str).str.strip()
    return bool(len(text)) and bool(text.str.fullmatch(r"-?\d+").mean() >= 0.99)


def _parses_as_dates(column: pd.Series) -> bool:
    """Most non-empty cells look like dates/times (not plain numbers)."""
    text = column.head(_SAMPLE_CELLS).astype(str).str.strip()
    text = text[text != ""].head(200)
    if text.empty or _is_number_column(text):
        return False
    if text.str.match(_DMY).mean() >= 0.9:
        return True
    if not text.str.contains(r"\d", regex=True).all():
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parsed = pd.to_datetime(text, errors="coerce", format="mixed")
    return bool(parsed.notna().mean() >= 0.9)


def _named(norm: dict, names, used: set) -> str | None:
    """The first column (as written) whose normalised name is in ``names`` and not used yet."""
    return next((norm[n] for n in names if n in norm and norm[n] not in used), None)


UNIT_WORDS = {"kwh", "wh", "mwh", "kw", "w", "mw", "v", "a", "va", "var", "m", "km", "c", "°c", "%", "l", "m3"}


def _units_of(column: str | None) -> str:
    """Units from a header such as 'Verbrauch (kWh)' or 'energy_kWh' (a suffix only when it is a unit)."""
    from lmdk.data.columns import _units

    found = _units(column) if column else ""
    bracketed = bool(column) and column.rstrip().endswith((")", "]"))
    return found if bracketed or found.lower() in UNIT_WORDS else ""
