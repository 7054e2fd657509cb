"""``load_series``: path/bytes/file-like → validated ``Series`` (see ``lmdk.data`` for the layouts)."""
from __future__ import annotations

import hashlib
from dataclasses import replace

from lmdk.data.columns import to_series
from lmdk.data.read import MAX_BYTES, MAX_ROWS, parse_raw, read_source
from lmdk.data.series import KINDS, Series
from lmdk.errors import DataError, LmdkError


def load_series(source, *, strict: bool = False, mapping=None, kind: str = "auto", entity=None, name: str = "",
                max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES) -> Series:
    """Load and validate one user's series from a path, bytes or file-like object (CSV/TSV/Parquet, any delimiter).

    By default the import mapping is detected exactly as the app's import step and the ``lmdk`` command do
    (``lmdk.data.mapping.detect``: delimiter, decimal mark, time column(s) and format, kind, value or
    latitude/longitude or contact column, entity), so real exports — semicolon/decimal-comma files, separate date
    and time columns, epoch or relative seconds, GPS tables with ``tracked_at`` — load without arguments.
    The returned ``Series.mapping`` is the mapping used and ``Series.warnings`` says every choice and clean-up.

    - ``mapping``: an explicit ``ImportSpec`` or its dict (e.g. a RunConfig's), or "detect" (the default).
    - ``strict=True``: the strict reader of earlier versions instead — a header naming ``timestamp`` (or
      time/date/…), one ``value`` column or ``lat``/``lon`` or ``contact``, or a recognised layout (HUE, GeoLife,
      T-drive, Copenhagen); ``Series.mapping`` is then None.
    - ``kind``: "auto", "values", "trajectory" or "contacts" (the kind of series wanted).
    - ``entity``: which user/device/taxi of a file holding several (default: the one with most rows, or with
      ``strict=True`` the first), also a value of a column that only makes timestamps repeat (e.g. ``source``).

    Any bad input raises ``DataError`` naming the row and column and the fix.
    """
    if not isinstance(max_rows, int) or max_rows < 1:
        raise DataError(f"max_rows must be a positive integer, not {max_rows!r}")
    if not isinstance(max_bytes, int) or max_bytes < 1:
        raise DataError(f"max_bytes must be a positive integer, not {max_bytes!r}")
    if kind not in ("auto",) + KINDS:
        raise DataError(f"kind must be 'auto' or one of {', '.join(KINDS)}, not {kind!r}")
    if not isinstance(strict, bool):
        raise DataError(f"strict must be True or False, not {strict!r}")
    if strict and mapping is not None:
        raise DataError("strict=True reads the file without an import mapping; drop mapping=… or strict=True")
    raw, filename = read_source(source, max_bytes)
    try:
        if strict:
            digest = hashlib.sha256(raw).hexdigest()
            default = filename.replace("\\", "/").rsplit("/", 1)[-1]
            table = parse_raw(raw, filename, max_rows)
            return to_series(table, kind=kind, entity=entity, name=name or default, source_hash=digest)
        return _load_mapped(raw, filename, mapping, kind=kind, entity=entity, name=name, max_rows=max_rows)
    except LmdkError:
        raise
    except (ValueError, OverflowError) as exc:  # e.g. pandas' OutOfBoundsDatetime at the year 2262
        raise DataError(f"could not interpret the file: {exc}; check its timestamps and numbers") from None


def _load_mapped(raw: bytes, filename: str, mapping, *, kind: str, entity, name: str, max_rows: int) -> Series:
    """Detect (or take) the import mapping, apply ``kind`` and ``entity`` to it, and read the file with it."""
    from lmdk.data import mapping as import_mapping

    wanted = None if kind == "auto" else kind
    notes: tuple[str, ...] = ()
    parsed = None
    if mapping is None or (isinstance(mapping, str) and mapping == "detect"):
        detection, parsed = import_mapping.detect_parsed(raw, filename, max_rows=max_rows, kind=wanted)
        spec = detection.spec
        if entity is not None:
            spec = _choose_entity(raw, filename, detection, entity, max_rows)
            notes = tuple(n for n in detection.notes if not n.startswith("the file holds "))
        else:
            notes = detection.notes
    elif isinstance(mapping, str):
        raise DataError(f"mapping must be an ImportSpec, its dict or 'detect', not {mapping!r}")
    else:
        spec = import_mapping.ImportSpec.from_dict(mapping) if isinstance(mapping, dict) else mapping
        if not isinstance(spec, import_mapping.ImportSpec):
            raise DataError(f"mapping must be an ImportSpec, its dict or 'detect', not {type(mapping).__name__}")
        if wanted is not None and wanted != spec.kind:
            raise DataError(f"kind={kind!r} but the mapping reads a {spec.kind} series; drop kind= or change the "
                            "mapping's kind")
        if entity is not None:
            if spec.entity_column is None:
                raise DataError(f"entity={entity!r} given but the mapping names no entity column; set its "
                                "entity_column or drop entity=")
            spec = replace(spec, entity=str(entity))
    if not name and not filename and spec.layout == "table":  # bytes: named after what they hold, as strict reading
        name = (spec.value_column or "") if spec.kind == "values" else spec.kind
    series = import_mapping.apply_parsed(raw, filename, spec, parsed, name=name, max_rows=max_rows, audience="api")
    return replace(series, warnings=notes + series.warnings)


def _choose_entity(raw: bytes, filename: str, detection, entity, max_rows: int):
    """The detected mapping with ``entity`` chosen: in the detected entity column, else in the one candidate
    column (``Detection.entity_candidates``) that holds this value."""
    from lmdk.data import mapping as import_mapping

    spec = detection.spec
    wanted = str(entity).strip()
    if spec.entity_column is not None:
        return replace(spec, entity=wanted)
    candidates = list(detection.entity_candidates)
    if not candidates:
        raise DataError(f"entity={entity!r} given but the file has no column of users or devices (no id column, and "
                        "no column whose values make the timestamps repeat); drop the entity argument")
    held = []
    for column in candidates:
        chosen = import_mapping.with_entity_column(raw, detection, column, filename=filename, max_rows=max_rows)
        ids = [] if chosen.entities is None else chosen.entities.index.tolist()
        if wanted in ids:
            return replace(chosen.spec, entity=wanted)
        held.append(f"{column!r} holds e.g. {', '.join(map(str, ids[:5]))}")
    raise DataError(f"entity={entity!r} is in none of the columns that look like an entity ({'; '.join(held)}); "
                    "pass one of their values")
