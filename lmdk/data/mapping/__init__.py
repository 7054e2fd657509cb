"""The import mapping: how a user's file becomes a series, proposed by ``detect`` and applied by ``apply``.

An :class:`ImportSpec` names every choice the import step shows — delimiter, decimal mark, header row,
the time column (or a date column plus a time column) and its format, the time zone, the kind of series and
its columns, and which entity (taxi, user, device) of a multi-entity file. ``detect`` fills every field from
the bytes and says which fields were guesses (``Detection.questions``); nothing ambiguous is resolved
silently: day/month order is decided once per column over all rows, relative seconds are flagged.
Recognised layouts (HUE, GeoLife .plt, T-drive, Copenhagen) keep their own readers (``lmdk.data.columns``)
and only take the entity from the mapping.

By concern: :mod:`lmdk.data.import_spec` (the choices, ``ImportSpec``, ``Detection``; below ``Series``),
``detection`` (bytes → a proposed mapping), ``reading`` (cells as text, times under a format and zone),
``applying`` (cells → a ``Series`` and its warnings), ``cells`` (what a column's cells hold). Every public name
is importable from here.
"""
from lmdk.data.import_spec import (
    DECIMALS,
    DEFAULT_RELATIVE_START,
    DELIMITERS,
    KINDS,
    LAYOUT_NAMES,
    LAYOUTS,
    TIME_FORMATS,
    Detection,
    ImportSpec,
)
from lmdk.data.mapping.applying import ADVICE, AUDIENCES, MISSING_MARKS, apply, apply_frame, apply_parsed
from lmdk.data.mapping.cells import UNIT_WORDS
from lmdk.data.mapping.detection import (
    RELATIVE_LIMIT_S,
    day_month_order,
    detect,
    detect_bytes,
    detect_parsed,
    propose_bytes,
    with_entity_column,
)
from lmdk.data.mapping.reading import (
    CALENDAR_FORMATS,
    calendar_format,
    calendar_times,
    parse_dmy,
    parse_times,
    read_table,
    table_frame,
)

__all__ = [
    "ADVICE", "AUDIENCES", "CALENDAR_FORMATS", "DECIMALS", "DEFAULT_RELATIVE_START", "DELIMITERS", "KINDS", "LAYOUTS",
    "LAYOUT_NAMES", "MISSING_MARKS", "RELATIVE_LIMIT_S", "TIME_FORMATS", "UNIT_WORDS", "Detection", "ImportSpec",
    "apply", "apply_frame", "apply_parsed", "calendar_format", "calendar_times", "day_month_order", "detect",
    "detect_bytes", "detect_parsed", "parse_dmy", "parse_times", "propose_bytes", "read_table", "table_frame",
    "with_entity_column",
]
