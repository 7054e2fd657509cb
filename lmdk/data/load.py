"""``load_series``: path/bytes/file-like → validated ``Series`` (see ``lmdk.data`` for the layouts)."""
from __future__ import annotations

import hashlib
import io

from lmdk.data.columns import to_series
from lmdk.data.read import MAX_BYTES, MAX_ROWS, parse_raw, read_source
from lmdk.data.series import Series
from lmdk.errors import DataError, LmdkError


def load_series(source, *, kind: str = "auto", max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES,
                entity=None, name: str = "", mapping=None) -> Series:
    """Load and validate one user's series from a path, bytes or file-like object (CSV/TSV/Parquet).

    ``mapping``: an import mapping (``lmdk.data.mapping.ImportSpec`` or its dict) saying how to read the file,
    or "detect" to propose one and apply it (what the app's import step does; real exports such as
    semicolon/decimal-comma files, separate date and time columns, relative seconds load this way).
    Without it, ``kind`` is "auto", "values", "trajectory" or "contacts" and ``entity`` picks one taxi/device
    when the file holds several (default: the first, with a warning). Any bad input raises ``DataError``
    naming the row and column; dropped or merged rows are counted in ``Series.warnings``.
    """
    if mapping is not None:
        from lmdk.data import mapping as import_mapping

        raw, filename = read_source(source, max_bytes)
        if isinstance(mapping, str):
            if mapping != "detect":
                raise DataError(f"mapping must be an ImportSpec, its dict or 'detect', not {mapping!r}")
            mapping = import_mapping.detect_bytes(raw, filename, max_rows=max_rows).spec
        named = io.BytesIO(raw)
        named.name = filename
        return import_mapping.apply(named, mapping, name=name, max_bytes=max_bytes, max_rows=max_rows)
    if not isinstance(max_rows, int) or max_rows < 1:
        raise DataError(f"max_rows must be a positive integer, not {max_rows!r}")
    if not isinstance(max_bytes, int) or max_bytes < 1:
        raise DataError(f"max_bytes must be a positive integer, not {max_bytes!r}")
    raw, filename = read_source(source, max_bytes)
    digest = hashlib.sha256(raw).hexdigest()
    default = filename.replace("\\", "/").rsplit("/", 1)[-1]
    try:
        table = parse_raw(raw, filename, max_rows)
        return to_series(table, kind=kind, entity=entity, name=name or default, source_hash=digest)
    except LmdkError:
        raise
    except (ValueError, OverflowError) as exc:  # e.g. pandas' OutOfBoundsDatetime at the year 2262
        raise DataError(f"could not interpret the file: {exc}; check its timestamps and numbers") from None
