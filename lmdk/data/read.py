"""Bytes in, raw table out: size limits, binary/encoding checks and layout sniffing (§4.1.1).

Nothing here writes to disk, evaluates or unpickles anything: CSV/TSV go through pandas' C
parser, Parquet through pyarrow from an in-memory buffer.
"""
from __future__ import annotations

import io
import os
import re
import warnings
from dataclasses import dataclass, field

import pandas as pd

from lmdk.errors import DataError, TooLargeError

MAX_ROWS = 1_000_000
"""Default limit on data rows per file (``load_series(max_rows=...)``)."""
MAX_BYTES = 50_000_000
"""Default limit on the size of a file in bytes (``load_series(max_bytes=...)``)."""
MAX_COLUMNS = 1_000
"""Limit on a table's columns: a wider header is refused before any parser or detection sees the file."""

GEOLIFE_HEADER_LINES = 6
GEOLIFE_COLUMNS = ("lat", "lon", "zero", "altitude_ft", "days", "date", "time")
TDRIVE_COLUMNS = ("id", "datetime", "lon", "lat")

_CONTROL_TABLE = bytes(0 if (b < 32 and b not in (9, 10, 13)) or b == 127 else 1 for b in range(256))
_LINES = re.compile(r"\r\n|\r|\n")  # line ends as pandas' parser sees them
_HEAD_BYTES = 65536  # sniff the layout from the start of the file
_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")
_DATE = re.compile(r"^\s*\d{4}-\d{1,2}-\d{1,2}([ T].*)?$|^\s*\d{1,2}/\d{1,2}/\d{2,4}([ T].*)?$")
_FIELDS_IN_LINE = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_MAGIC = {
    b"PK\x03\x04": "a ZIP archive or an Excel workbook: export the sheet as CSV (UTF-8)",
    b"\x1f\x8b": "a gzip archive: decompress it first",
    b"\x89PNG": "a PNG image, not a data table",
    b"%PDF": "a PDF document, not a data table",
}


class DataTooLargeError(DataError, TooLargeError):
    """The input exceeds ``max_rows`` or ``max_bytes`` (both a DataError and a TooLargeError)."""


@dataclass
class RawTable:
    """A parsed file before column mapping: raw columns (normalised names) and where rows start."""

    frame: pd.DataFrame
    layout: str  # "hue" | "tdrive" | "geolife" | "copenhagen" | "table"
    first_line: int | None  # file line (1-based) of data row 0; None for Parquet
    filename: str = ""
    original: dict = field(default_factory=dict)  # normalised column name → name in the file

    def where(self, label) -> str:
        """Human description of the row with index ``label`` (its 0-based position in the file)."""
        position = int(label)
        if self.first_line is None:
            return f"row {position + 1}"
        return f"row {position + 1} (line {position + self.first_line})"


def read_source(source, max_bytes: int = MAX_BYTES) -> tuple[bytes, str]:
    """Read at most ``max_bytes`` from a path, bytes or file-like object; return (raw, filename)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw, filename = bytes(source), ""
    elif isinstance(source, (str, os.PathLike)):
        filename = os.fspath(source)
        try:
            size = os.path.getsize(filename)
            if size > max_bytes:
                raise _too_large_bytes(size, max_bytes, exact=True)
            with open(filename, "rb") as handle:
                raw = handle.read(max_bytes + 1)
        except OSError as exc:
            raise DataError(f"cannot read file {filename!r}: {exc.strerror or exc}; check the path") from exc
    elif hasattr(source, "read"):
        filename = str(getattr(source, "name", "") or "")
        try:
            raw = source.read(max_bytes + 1)
        except (OSError, ValueError) as exc:
            raise DataError(f"cannot read the uploaded file: {exc}") from exc
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        if not isinstance(raw, (bytes, bytearray)):
            raise DataError("the file-like object's read() must return bytes or str")
        raw = bytes(raw)
    else:
        raise DataError(
            f"source must be a file path, bytes or a file-like object, not {type(source).__name__}")
    if len(raw) > max_bytes:
        raise _too_large_bytes(len(raw), max_bytes, exact=not hasattr(source, "read"))
    raw, filename = decode_input(raw, filename, max_bytes)
    if not raw.strip():
        raise DataError("the file is empty: upload a CSV/TSV/Parquet file with a header and data rows")
    return raw, filename


def decode_input(raw: bytes, filename: str = "", max_bytes: int = MAX_BYTES) -> tuple[bytes, str]:
    """The bytes as the readers expect them: a gzip file (``.csv.gz``) decompressed (at most ``max_bytes``; the
    name loses its ``.gz``) and UTF-16 text (Excel's "Unicode text": a byte-order mark, or NUL every other byte)
    re-encoded as UTF-8. Anything else is returned as it is."""
    if raw[:2] == b"\x1f\x8b":
        import zlib

        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = inflate.decompress(raw, max_bytes + 1)
        except zlib.error as exc:
            raise DataError(f"{filename or 'the file'}: a damaged gzip archive ({exc}); decompress it and check "
                            "the file") from None
        if len(out) > max_bytes:
            raise _too_large_bytes(len(out), max_bytes, exact=False)
        raw = out
        filename = filename[:-3] if filename.lower().endswith(".gz") else filename
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or _utf16_without_bom(raw):
        encoding = "utf-16" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else (
            "utf-16-le" if raw[1:2] == b"\x00" else "utf-16-be")
        try:
            raw = raw.decode(encoding).encode("utf-8")
        except UnicodeDecodeError:
            raise DataError(f"{filename or 'the file'}: looks like UTF-16 text but does not decode; save it as "
                            "'CSV UTF-8'") from None
    return raw, filename


def _utf16_without_bom(raw: bytes) -> bool:
    """ASCII text stored as UTF-16 without a byte-order mark: NUL in every other byte of the first line."""
    head = raw[:200]
    if len(head) < 8:
        return False
    even, odd = head[0::2], head[1::2]
    return (odd.count(0) == len(odd) and even.count(0) == 0) or (even.count(0) == len(even) and odd.count(0) == 0)


def _too_large_bytes(size: int, max_bytes: int, *, exact: bool) -> DataTooLargeError:
    """The error for a file above the byte limit (a stream is only read up to the limit)."""
    shown = f"{size:,} bytes" if exact else f"more than {max_bytes:,} bytes"
    return DataTooLargeError(
        f"file size: {shown} exceeds the limit of {max_bytes:,} bytes; upload a shorter extract "
        "or raise max_bytes")


def too_many_rows(max_rows: int) -> DataTooLargeError:
    """The error for a file above the row limit."""
    return DataTooLargeError(
        f"rows: the file has more than {max_rows:,} data rows (the limit); upload a shorter extract "
        "or raise max_rows")


def parse_raw(raw: bytes, filename: str, max_rows: int = MAX_ROWS) -> RawTable:
    """Parse raw bytes (Parquet, CSV, TSV, GeoLife .plt, T-drive) into a RawTable."""
    if raw[:4] == b"PAR1":
        return _parse_parquet(raw, filename, max_rows)
    check_not_binary_format(raw)
    body = check_text(raw)
    lines = _LINES.split(body[:_HEAD_BYTES].decode("utf-8", errors="ignore"))
    if filename.lower().endswith(".plt") or lines[0].strip().lower().startswith("geolife trajectory"):
        return _read_text(body, filename, max_rows, layout="geolife", sep=",",
                          names=GEOLIFE_COLUMNS, skip=GEOLIFE_HEADER_LINES)
    nonblank = [line for line in lines if line.strip()]
    if not nonblank:
        raise DataError("the file starts with more than 64 KB of blank lines; delete them")
    first = nonblank[0]
    skip = lines.index(first)
    sep = _delimiter(first, filename)
    check_width(first, sep)
    fields = first.split(sep)
    if not _looks_like_header(fields):
        if len(fields) == 4 and _DATE.match(fields[1]) and all(_NUMBER.match(f) for f in fields[2:]):
            return _read_text(body, filename, max_rows, layout="tdrive", sep=sep,
                              names=TDRIVE_COLUMNS, skip=skip)
        if len(fields) == 2 and _NUMBER.match(fields[1]):
            return _read_text(body, filename, max_rows, layout="table", sep=sep,
                              names=("timestamp", "value"), skip=skip)
        raise DataError(
            f"line {skip + 1}: the first line looks like data, not a header; add a header row naming "
            "the columns, e.g. 'timestamp,value' or 'timestamp,lat,lon' or 'timestamp,contact'")
    return _read_text(body, filename, max_rows, layout="table", sep=sep, names=None, skip=skip)


def check_width(line: str, sep: str, max_columns: int = MAX_COLUMNS) -> None:
    """Refuse a first line (header) of more than ``max_columns`` fields before the file is parsed."""
    check_columns(len(line.split()) if sep in (" ", r"\s+") else line.count(sep) + 1, max_columns)


def check_columns(count: int, max_columns: int = MAX_COLUMNS) -> None:
    """Refuse a table of more than ``max_columns`` columns (DataTooLargeError naming the limit and the fix)."""
    if count > max_columns:
        raise DataTooLargeError(f"columns: the table has more than {max_columns:,} columns (the limit); "
                                "keep the columns you need (time, value, position, contact, user) and upload again")


def parquet_file(raw: bytes, max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES,
                 max_columns: int = MAX_COLUMNS):
    """A ``pyarrow.parquet.ParquetFile`` over ``raw`` whose metadata (rows, columns, values and uncompressed size)
    was checked against the limits before any page is decoded; DataTooLargeError names the limit passed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(pa.BufferReader(raw))
        meta = handle.metadata
        chunks = [meta.row_group(g).column(c) for g in range(meta.num_row_groups) for c in range(meta.num_columns)]
        size = sum(chunk.total_uncompressed_size for chunk in chunks)
        values = sum(chunk.num_values for chunk in chunks)
    except (pa.ArrowException, OSError, ValueError, TypeError, IndexError, OverflowError, MemoryError) as exc:
        raise DataError(f"could not read the Parquet file: {exc}; re-export it or upload CSV") from None
    if meta.num_rows > max_rows:
        raise too_many_rows(max_rows)
    check_columns(meta.num_columns, max_columns)
    if size > max_bytes or values > max(max_rows, 1) * max(meta.num_columns, 1):
        raise DataTooLargeError(f"file size: the Parquet file decodes to more than {max_bytes:,} bytes (or nested "
                                f"values beyond {max_rows:,} rows); upload a shorter extract")
    return handle


def read_parquet(raw: bytes, max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES,
                 max_columns: int = MAX_COLUMNS) -> pd.DataFrame:
    """The Parquet file's rows as a DataFrame, its metadata checked first (``parquet_file``) and its decoded size
    counted batch by batch (text kept dictionary-encoded while counted), refused past ``max_bytes``."""
    import pyarrow as pa

    handle = parquet_file(raw, max_rows, max_bytes, max_columns)
    schema = handle.schema_arrow
    _check_flat(handle)
    text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            or pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type)]
    batches, size = [], 0
    try:  # dictionary pages do not bound the decoded size: text stays encoded until its length is counted
        for batch in _reopen(raw, text).iter_batches(batch_size=max(1, _BATCH_CELLS // max(len(schema), 1))):
            size += sum(_decoded_bytes(column) for column in batch.columns)
            if size > max_bytes:
                break
            batches.append(batch)
        else:
            table = pa.Table.from_batches(batches, schema=batches[0].schema) if batches else schema.empty_table()
            return table.cast(schema).to_pandas()
    except (pa.ArrowException, OSError, ValueError, TypeError, KeyError, IndexError, OverflowError,
            MemoryError) as exc:
        raise DataError(f"could not read the Parquet file: {exc}; re-export it or upload CSV") from None
    raise DataTooLargeError(f"file size: the Parquet file decodes to more than {max_bytes:,} bytes; upload a "
                            "shorter extract")


_BATCH_CELLS = 1 << 20  # cells decoded per batch before the running size is checked


def _check_flat(handle) -> None:
    """Refuse nested columns and prefix-shared text (DELTA_BYTE_ARRAY): their decoded size is not bounded by what a
    batch of rows holds, so it could not be counted before decoding."""
    import pyarrow as pa

    for f in handle.schema_arrow:
        if pa.types.is_nested(f.type):
            raise DataError(f"column {f.name!r}: a nested Parquet column ({f.type}); flatten it into plain columns "
                            "or upload CSV")
    meta = handle.metadata
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            chunk = meta.row_group(g).column(c)
            if "DELTA_BYTE_ARRAY" in chunk.encodings:
                raise DataError(f"column {chunk.path_in_schema!r}: DELTA_BYTE_ARRAY encoding, whose decoded size "
                                "cannot be checked before decoding; write the file with dictionary or plain "
                                "encoding (e.g. pandas' to_parquet) or upload CSV")


def _reopen(raw: bytes, text: list[str]):
    """A ParquetFile over ``raw`` that reads the columns ``text`` as dictionary arrays."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pq.ParquetFile(pa.BufferReader(raw), read_dictionary=text or None)


def _decoded_bytes(column) -> int:
    """Bytes ``column`` takes once decoded: a dictionary array counted by its values' lengths, not materialised."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(column.type):
        return column.nbytes
    lengths = pc.take(pc.binary_length(column.dictionary), column.indices)
    return int(pc.sum(lengths).as_py() or 0) + 8 * len(column)


def check_not_binary_format(raw: bytes) -> None:
    """Refuse archives, images and documents by their first bytes, saying what the file is."""
    for magic, what in _MAGIC.items():
        if raw.startswith(magic):
            raise DataError(f"this file is {what}")


def check_text(raw: bytes) -> bytes:
    """Check for UTF-8 text (BOM allowed) without binary content; return the bytes after any BOM."""
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        raise DataError(
            f"line {line}: the file contains NUL bytes, so it is binary, not text; upload a CSV, TSV "
            "or Parquet file")
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = body.count(b"\n", 0, exc.start) + 1
        raise DataError(
            f"line {line}: byte 0x{body[exc.start]:02x} at offset {exc.start} is not valid UTF-8; "
            "save the file as UTF-8 text (e.g. 'CSV UTF-8' in a spreadsheet)") from None
    bad = body.translate(_CONTROL_TABLE).find(b"\x00")
    if bad >= 0:
        line = body.count(b"\n", 0, bad) + 1
        raise DataError(
            f"line {line}: control character U+{body[bad]:04X} found, so this looks like a "
            "binary file; upload plain CSV/TSV text or Parquet")
    return body


def _delimiter(first_line: str, filename: str) -> str:
    """Pick the field separator: tab for .tsv, else the most frequent of comma, tab, semicolon."""
    if filename.lower().endswith((".tsv", ".tab")):
        return "\t"
    counts = {sep: first_line.count(sep) for sep in (",", "\t", ";")}
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] else ","


def _looks_like_header(fields: list[str]) -> bool:
    """A header row has no field that looks like a number or a date."""
    return not any(_NUMBER.match(f) or _DATE.match(f) for f in fields)


def _read_text(body: bytes, filename: str, max_rows: int, *, layout: str, sep: str,
               names, skip: int) -> RawTable:
    """Run pandas' C parser on the text and translate its errors into DataError."""
    header = None if names is not None else 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = pd.read_csv(
                io.BytesIO(body), encoding="utf-8", sep=sep, header=header, names=list(names) if names else None,
                skiprows=skip, nrows=max_rows + 1, skip_blank_lines=False, skipinitialspace=True,
                dtype=str if layout == "geolife" else None, engine="c", low_memory=False,
                index_col=False, on_bad_lines="error")
    except pd.errors.EmptyDataError:
        raise DataError("the file has no data rows: add rows below the header") from None
    except pd.errors.ParserError as exc:
        raise _parser_error(exc, skip) from None
    except (ValueError, OverflowError, MemoryError) as exc:
        raise DataError(f"could not parse the file as {layout.upper()} text: {exc}") from None
    if len(frame) > max_rows:
        raise too_many_rows(max_rows)
    first_line = skip + (1 if names is not None else 2)
    frame, original = _tidy_columns(frame, has_header=names is None)
    if len(frame) == 0:
        raise DataError("the file has a header but no data rows: add rows below the header")
    if layout == "table":
        layout = _layout_from_names(frame.columns)
    return RawTable(frame=frame, layout=layout, first_line=first_line, filename=filename,
                    original=original)


def _parser_error(exc: Exception, skip: int) -> DataError:
    """Turn a pandas tokenizer error into a message naming the line and the fix."""
    found = _FIELDS_IN_LINE.search(str(exc))
    if found:
        expected, line, saw = (int(g) for g in found.groups())
        return DataError(
            f"line {line + skip}: {saw} fields but the header has {expected}; remove the extra "
            "separators or quote fields that contain the separator")
    return DataError(f"could not parse the file: {str(exc).strip()}; check quotes and separators")


def _tidy_columns(frame: pd.DataFrame, *, has_header: bool) -> tuple[pd.DataFrame, dict]:
    """Normalise column names, reject duplicates, drop empty unnamed columns."""
    if has_header:
        raw_names = {str(c) for c in frame.columns}  # a set: the check stays linear in the header's width
        for name in map(str, frame.columns):
            if re.search(r"\.\d+$", name) and name.rsplit(".", 1)[0] in raw_names:
                raise DataError(
                    f"column {name.rsplit('.', 1)[0]!r} appears more than once in the header; "
                    "rename or delete the repeated column")
        drop = [c for c in frame.columns if str(c).startswith("Unnamed:") and frame[c].isna().all()]
        frame = frame.drop(columns=drop)
    names = [normalise_name(c) for c in frame.columns]
    seen = set()
    for name, column in zip(names, frame.columns, strict=True):
        if name in seen:
            raise DataError(f"column {column!r} appears more than once in the header (ignoring case); "
                            "rename or delete the repeated column")
        seen.add(name)
    original = {name: str(c) for name, c in zip(names, frame.columns, strict=True)}
    frame.columns = names
    return frame, original


def normalise_name(name) -> str:
    """Column name for matching: stripped, lower case, spaces and dashes as underscores."""
    return re.sub(r"[\s\-]+", "_", str(name).strip()).lower()


def _layout_from_names(columns) -> str:
    """Recognise HUE (date,hour,…) and Copenhagen (timestamp,user_a,user_b[,rssi]) by their header."""
    names = set(columns)
    if {"date", "hour"} <= names:
        return "hue"
    if {"timestamp", "user_a", "user_b"} <= names:
        return "copenhagen"
    return "table"


def _parse_parquet(raw: bytes, filename: str, max_rows: int) -> RawTable:
    """Read Parquet from memory with pyarrow (``read_parquet`` bounds rows, columns and decoded size)."""
    frame = read_parquet(raw, max_rows)
    frame = frame.reset_index(drop=not _named_index(frame))
    if len(frame) == 0:
        raise DataError("the Parquet file has no rows")
    frame, original = _tidy_columns(frame, has_header=False)
    frame.index = pd.RangeIndex(len(frame))
    return RawTable(frame=frame, layout=_layout_from_names(frame.columns), first_line=None,
                    filename=filename, original=original)


def _named_index(frame: pd.DataFrame) -> bool:
    """True when a Parquet file stored a meaningful (named) index, e.g. a timestamp index."""
    return any(name is not None for name in frame.index.names)
