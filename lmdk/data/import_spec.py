"""The import mapping's vocabulary: the kinds of series, the choices a file's reading can make (delimiters, decimal
marks, time formats, layouts), :class:`ImportSpec` that names every choice, and :class:`Detection`, what detection
proposes. Below :mod:`lmdk.data.series` (a ``Series`` records its ``ImportSpec``) and :mod:`lmdk.data.mapping`."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

import pandas as pd

from lmdk.errors import DataError

KINDS = ("values", "trajectory", "contacts")
"""The kinds of series: a value per event, a location per event, or the device a Bluetooth scan found."""

DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", " ": "spaces", "|": "vertical bar"}
DECIMALS = {".": "point (1.5)", ",": "comma (1,5)"}
TIME_FORMATS = {
    "auto": "as written (ISO 8601 and other unambiguous forms)",
    "dayfirst": "day first (31/12/2024, 31.12.2024)",
    "monthfirst": "month first (12/31/2024)",
    "epoch_s": "seconds since 1970-01-01 (Unix time)",
    "epoch_ms": "milliseconds since 1970-01-01",
    "relative_s": "seconds from a start you choose",
    "year": "whole years (2001: 1 January 2001)",
    "year-month": "years and months (2024-01, 2024/1: the month's first day)",
    "excel": "Excel serial dates (45292: 2024-01-01; a fraction is the time of day)",
}
LAYOUTS = ("table", "hue", "geolife", "tdrive")
LAYOUT_NAMES = {"table": "table", "hue": "HUE", "geolife": "GeoLife", "tdrive": "T-drive"}
DEFAULT_RELATIVE_START = "2000-01-01 00:00:00"


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
