"""Detection: a file's bytes → a proposed :class:`ImportSpec` (delimiter, decimal mark, header, the time, value,
position, contact and entity columns), with a question for every choice it could not make for sure."""
from __future__ import annotations

import re
from dataclasses import replace

import pandas as pd

from lmdk.data.import_spec import DEFAULT_RELATIVE_START, LAYOUT_NAMES, LAYOUTS, Detection, ImportSpec
from lmdk.data.mapping.cells import (
    DMY,
    SAMPLE_CELLS,
    datetime_text,
    is_integer_column,
    is_number_column,
    looks_like_data,
    parses_as_dates,
    units_of,
)
from lmdk.data.mapping.reading import calendar_format, read_table, table_frame
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
)
from lmdk.data.series import KINDS
from lmdk.errors import DataError

RELATIVE_LIMIT_S = 1e8  # numbers below ~3 years of seconds are not plausible Unix times for sensor exports
_PREVIEW_ROWS = 8
_REPEAT_QUESTION = "choose it below as the user/device column"
_SNIFF_BYTES = 65536
_ID_PAIR = re.compile(r"^(id|user|node|person|device|i|j|source|target|from|to)_?([12ab])?$")


def detect(source, *, max_bytes: int = MAX_BYTES, max_rows: int = MAX_ROWS, kind: str | None = None) -> Detection:
    """Propose an import mapping for a file (path, bytes or file-like), reading it once (``kind``: the kind of
    series wanted, when not the one the columns suggest)."""
    raw, filename = read_source(source, max_bytes)
    return detect_bytes(raw, filename, max_rows=max_rows, kind=kind)


def detect_bytes(raw: bytes, filename: str = "", *, max_rows: int = MAX_ROWS, kind: str | None = None,
                 named: dict | None = None) -> Detection:
    """``detect`` for bytes already in memory (``named``: columns given by name — ``entity_column``,
    ``time_column``, ``value_column`` and ``time_format`` as :class:`ImportSpec` spells them — kept as given)."""
    return detect_parsed(raw, filename, max_rows=max_rows, kind=kind, named=named)[0]


def detect_parsed(raw: bytes, filename: str = "", *, max_rows: int = MAX_ROWS,
                  kind: str | None = None, named: dict | None = None,
                  ) -> tuple[Detection, RawTable | pd.DataFrame | None]:
    """``detect_bytes`` plus what it parsed — the recognised layout's RawTable, or the table's text cells — so
    ``apply_parsed`` need not read the file again (``load_series``)."""
    if kind is not None and kind not in KINDS:
        raise DataError(f"kind must be 'auto' or one of {', '.join(KINDS)}, not {kind!r}")
    from lmdk.data.read import decode_input

    raw, filename = decode_input(raw, filename)  # .csv.gz, UTF-16 ("Unicode text") → UTF-8 text
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
    header = not all(looks_like_data(f, decimal) for f in fields_)
    spec = ImportSpec(delimiter=delimiter, decimal=decimal, header=header, skip_rows=skip)
    frame = read_table(body, spec, max_rows)
    return _propose(frame, spec, kind, named), frame


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
    questions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    if entities is not None and len(entities) > 1:
        questions = (f"The file holds {len(entities)} taxis; "
                     f"using {entity} ({entities.iloc[0]:,} rows). Choose another below.",)
        notes = (f"the file holds {len(entities)} taxis (column {spec.entity_column!r}); kept taxi {entity} (the one "
                 f"with most rows, {entities.iloc[0]:,}); pass entity=... to choose another",)
    return Detection(spec, tuple(frame.columns), frame.head(_PREVIEW_ROWS), entities, questions, notes)


def _propose(frame: pd.DataFrame, spec: ImportSpec, wanted: str | None = None,
             named: dict | None = None) -> Detection:
    """Fill the column choices of ``spec`` from the parsed ``frame`` (``wanted``: a kind asked for; ``named``:
    columns given by name, kept)."""
    cols = [str(c) for c in frame.columns]
    norm = {normalise_name(c): c for c in cols}
    questions: list[str] = []
    notes: list[str] = []
    named = {k: v for k, v in (named or {}).items() if v is not None}
    for key in ("entity_column", "time_column", "value_column"):
        if key in named and named[key] not in cols:
            raise DataError(f"{key} {named[key]!r}: the file has no such column; its columns are "
                            f"{', '.join(map(repr, cols))}")
    if "time_column" in named:
        time_col, date_col = named["time_column"], None
    else:
        time_col, date_col = _time_columns(frame, norm)
    if time_col is None:
        raise DataError(f"no column holds dates or times among {', '.join(map(repr, cols))}; add one, or name it "
                        "in the import mapping (time_column; in the app: the import settings; in lmdk aggregate, "
                        "population and plan: --time-column COLUMN)")
    if named.get("time_format", "auto") != "auto":
        time_format, question = named["time_format"], None
    elif "time_column" in named and calendar_format(frame[time_col]) is not None:
        time_format, question = calendar_format(frame[time_col]), None
    else:
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
    entity_col = named.get("entity_column", entity_col)
    value_col = None
    if kind == "values":
        if "value_column" in named:
            value_col = named["value_column"]
        else:
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
        elif "entity_column" not in named:
            entity_col, entities = None, None
    candidates: tuple[str, ...] = ()
    if kind != "contacts":
        from lmdk.data.columns import repeat_columns
        from lmdk.data.mapping.cells import datetime_text

        times = datetime_text(frame, time_col, date_col)
        skip = used | {value_col, lat, lon}
        candidates = tuple(repeat_columns(frame[[c for c in cols if c not in skip]], times))
        if candidates and entity_col is None:
            repeats = int(times.duplicated().sum())
            fate = "averaged" if kind == "values" else "dropped but the first"
            questions.append(f"{repeats:,} rows repeat an earlier timestamp, and the column {candidates[0]!r} looks "
                             f"like an entity (user/device): {_REPEAT_QUESTION} to read one of its series; otherwise "
                             f"rows sharing a timestamp are {fate}.")
    units = units_of(value_col) if value_col else ""
    spec = replace(spec, time_column=time_col, date_column=date_col, time_format=time_format, kind=kind,
                   value_column=value_col, lat_column=lat if kind == "trajectory" else None,
                   lon_column=lon if kind == "trajectory" else None,
                   contact_column=contact_col,
                   entity_column=entity_col, entity=entity, both_directions=both, units=units)
    return Detection(spec, tuple(cols), frame.head(_PREVIEW_ROWS), entities, tuple(questions), tuple(notes),
                     candidates)


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
    kept = [q for q in detection.questions if _REPEAT_QUESTION not in q and not q.startswith("The file holds")]
    kept.append(f"The file holds {len(counts):,} entities (column {column!r}); using {spec.entity} "
                f"({counts.iloc[0]:,} rows), the one with most rows. Choose another below.")
    return replace(detection, spec=spec, entities=counts, questions=tuple(kept))


def _time_columns(frame: pd.DataFrame, norm: dict) -> tuple[str | None, str | None]:
    """(time column, separate date column or None): by name first, then by content."""
    names = ("timestamp", "datetime", "date_time", "time_stamp", "tracked_at", "time", "ts", "t", "zeitstempel",
             "zeit", "horodatage", "fecha_hora")
    date = norm.get("date") or norm.get("datum")
    time = norm.get("time") or norm.get("zeit")
    if date and time and date != time and parses_as_dates(frame[date]) and not is_number_column(frame[time]):
        return time, date
    for name in names:
        col = norm.get(name)
        if col is not None and (parses_as_dates(frame[col]) or is_number_column(frame[col])):
            return col, None
    if date is not None and parses_as_dates(frame[date]):
        return date, None
    for col in frame.columns:
        if frame[col].dtype == object and parses_as_dates(frame[col]):
            return col, None
    for col in frame.columns:  # headerless epoch times (REDD's 'seconds value' lines)
        if is_number_column(frame[col]):
            values = pd.to_numeric(frame[col], errors="coerce").dropna()
            if len(values) and 1e8 <= values.min() and values.max() < 1e13 and values.is_monotonic_increasing:
                return col, None
    named = _named(norm, names + ("date", "datum"), set())  # named so, but cells that are not dates: reading it
    return named, None  # names the first bad row (None: no time column at all)


def _time_format(frame, time_col: str, date_col: str | None, spec: ImportSpec) -> tuple[str, str | None]:
    """The time format, and a question when detection had to guess (day/month order, relative seconds)."""
    column = frame[time_col]
    if date_col is None and is_number_column(column):
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
    if datetime_text(frame.head(SAMPLE_CELLS), time_col, date_col).str.match(DMY).mean() < 0.5:
        return "auto", None  # ISO 8601 and other forms: no day/month order to decide
    text = datetime_text(frame, time_col, date_col)
    order = day_month_order(text)
    if order == "ambiguous":
        european = spec.delimiter == ";" or spec.decimal == "," or text.str.contains(r"\d\.\d", regex=True).any()
        guess = "dayfirst" if european else "monthfirst"
        label = "day first" if guess == "dayfirst" else "month first"
        return guess, (f"Every date in {time_col if date_col is None else date_col!r} fits both day/month orders; "
                       f"reading them {label} (what this file's conventions suggest). Change the time format if "
                       "that is wrong.")
    return order, None


def day_month_order(text: pd.Series) -> str:
    """'dayfirst', 'monthfirst', 'auto' (not d/m/y numbers) or 'ambiguous', decided over the whole column."""
    sample = text.dropna().head(SAMPLE_CELLS).astype(str)
    if sample.empty or sample.str.match(DMY).mean() < 0.5:  # ISO 8601 and other forms: no d/m order to decide
        return "auto"
    parts = text.dropna().astype(str).str.extract(DMY)
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
    numeric = [c for c in rest if is_number_column(frame[c])]
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
            and is_integer_column(frame[c])]
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


def _delimiter(lines: list[str], filename: str) -> str:
    """Tab for .tsv; else the separator splitting the first lines into the same number (> 1) of fields —
    ; tab | before a comma, which may be a decimal mark; else runs of spaces."""
    if filename.lower().endswith((".tsv", ".tab")):
        return "\t"
    sample = [ln for ln in lines if ln.strip()][:20]
    for sep in (";", "\t", "|", ","):
        per_line = {ln.count(sep) for ln in sample}
        if len(per_line) == 1 and per_line.pop() > 0:
            return sep
    first = sample[0] if sample else ""
    counts = {sep: first.count(sep) for sep in (",", ";", "\t", "|")}
    best = max(counts, key=lambda sep: counts[sep])
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


def _named(norm: dict, names, used: set) -> str | None:
    """The first column (as written) whose normalised name is in ``names`` and not used yet."""
    return next((norm[n] for n in names if n in norm and norm[n] not in used), None)
