"""Keys: one key per person and one per dataset, so a budget cannot be dodged by spelling a name another way.

**Users.** :func:`user_keys` turns a user column into keys, :func:`user_key` one id (``lmdk release --user``):

- a column whose every value is a number (a numeric column, or texts that all read as finite numbers) is read
  as numbers, and an integral value becomes its integer text: ``7``, ``7.0``, ``7.00`` and ``"7.0"`` are all
  ``"7"`` (another number is its shortest text, ``7.5``);
- any other id is text, stripped of surrounding spaces and NFC-normalised;
- an empty id, a control or invisible formatting character (NUL, tab, line breaks, U+2028, U+200B…) is refused,
  and so are the ledger's own keys ``series`` (a single series released without ``--user``) and ``*`` (every user
  of an entry from before per-user budgets).

**Datasets.** :func:`dataset_name` checks a ``--dataset`` NAME: NFKC-normalised, case-folded and stripped, it must
consist of lowercase ASCII letters, digits, ``-``, ``_`` and ``.`` (``Meter``, ``ｍｅｔｅｒ`` and ``meter `` are
all ``meter``; ``me\\u200bter`` is refused). :func:`dataset_key` normalises a name already stored in a ledger the
same way without refusing it, so an existing ledger keeps its budgets.

**A single series without a dataset name** is keyed by its content (:func:`series_key`): the parsed timestamps
and values, not the file's bytes, so a copy saved again (CRLF, a trailing newline, another column order, CSV or
Parquet) shares the budget, and a changed row is a new key.
"""
from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable

from lmdk.errors import DataError, ParameterError

RESERVED_USERS = ("series", "*")
"""The ledger's own user keys: ``series`` (one series without ``--user``) and ``*`` (every user, legacy entries)."""
DATASET_RULE = ("a dataset name is NFKC-normalised and case-folded, then may hold only lowercase letters a-z, digits, "
                "'-', '_' and '.' (e.g. meters-2026)")
"""The dataset alphabet in words (the messages and the docs)."""
USER_RULE = ("a user id is a number (7, 7.0 and 7.00 are one user, '7') or a text (stripped, NFC-normalised) without "
             "control characters; 'series' and '*' are reserved by the ledger")
"""The user key rule in words (the messages and the docs)."""

_DATASET = re.compile(r"[a-z0-9._-]+")
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _bad_character(text: str) -> str | None:
    """The first control, formatting, surrogate, unassigned or line/paragraph-separator character, or None."""
    return next((ch for ch in text if unicodedata.category(ch) in _REFUSED_CATEGORIES), None)


def _number(value) -> float | None:
    """``value`` as a finite float when it is a number or a text that reads as one, else None (bools are not)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not text or not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
            return None
        value = text
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _is_missing(value) -> bool:
    """None, NaN or NaT (an empty cell)."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, NaT
    except (TypeError, ValueError):
        return type(value).__name__ == "NAType"  # pandas' NA: its comparison is NA, whose truth is ambiguous


def _numeric_text(number: float, value) -> str:
    """An integral number as its integer text, another as its shortest float text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu":
        return str(int(value))
    if number.is_integer():
        return str(int(number))
    return repr(number)


def _text_key(value, where: str) -> str:
    """A text id stripped and NFC-normalised; empty, control characters and reserved keys refused."""
    text = unicodedata.normalize("NFC", str(value)).strip()
    bad = _bad_character(text)
    if bad is not None:
        raise DataError(f"{where}: the user id {text!r} holds the control character U+{ord(bad):04X}; {USER_RULE}")
    if not text:
        raise DataError(f"{where}: the user id is empty; write each user's id")
    if text in RESERVED_USERS:
        raise DataError(f"{where}: the user id {text!r} is reserved by the ledger; {USER_RULE}")
    return text


def _numeric_array(values):
    """``values`` as an int64, uint64 or float64 numpy array when every value is a number (a numeric, non-boolean
    array or Series, or a list of ints and floats that the array holds exactly), else None."""
    import numpy as np

    dtype = getattr(values, "dtype", None)
    if dtype is not None and getattr(dtype, "kind", "O") in "iuf":
        if hasattr(values, "isna"):  # pandas (nullable dtypes too): an empty cell is the per-value rule's error
            if values.isna().any():
                return None
            values = values.to_numpy(dtype={"f": np.float64, "i": np.int64, "u": np.uint64}[dtype.kind])
        array = np.asarray(values)
        return array.astype(np.float64) if array.dtype.kind == "f" else array
    if dtype is not None and getattr(dtype, "kind", "") != "O":
        return None  # booleans, texts, times: not numbers
    column = values if isinstance(values, list) else list(values)
    if not column:
        return None
    kinds = set(map(type, column))
    integers = {k for k in kinds if issubclass(k, (int, np.integer)) and not issubclass(k, (bool, np.bool_))}
    floats = {k for k in kinds if issubclass(k, (float, np.floating))}
    if not kinds or kinds - integers - floats:
        return None
    try:
        array = np.asarray(column, dtype=np.float64 if floats else np.int64)
    except (OverflowError, TypeError, ValueError):
        return None
    if floats and integers and not all(-2**53 < v < 2**53 for v in column if type(v) in integers):
        return None  # an int the float64 array would round
    return array


def _int_texts(array) -> list[str]:
    """The decimal text of every integer of an int64/uint64 array (Arrow's cast: twice Python's ``str`` speed)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.cast(pa.array(array), pa.string()).to_pylist()


def numeric_keys(values) -> list[str] | None:
    """The keys of a column whose every value is a finite number, computed with numpy (:func:`user_keys`' rule:
    integral → integer text, another number → its shortest text), or None when the per-value rule must decide
    (text ids, an empty or non-finite value, booleans, an int beyond int64)."""
    import numpy as np

    array = _numeric_array(values)
    if array is None or array.ndim != 1:
        return None
    if array.dtype.kind in "iu":
        return _int_texts(array)
    if not np.isfinite(array).all():
        return None
    array = array + 0.0  # -0.0 → 0.0
    integral = np.floor(array) == array
    small = integral & (np.abs(array) < 2.0 ** 63)
    if small.all():
        return _int_texts(array.astype(np.int64))
    keys = np.empty(len(array), dtype=object)
    keys[small] = _int_texts(array[small].astype(np.int64))
    keys[~small] = [str(int(x)) if x.is_integer() else repr(x) for x in array[~small].tolist()]
    return keys.tolist()


def user_keys(values: Iterable, where: str = "user column") -> list[str]:
    """The key of every id of one user column: all numbers → integer text where integral, else stripped NFC text;
    an empty id, a control character or a reserved key raises DataError naming the row (1 = the first value).
    A column of numbers takes the vectorised path (:func:`numeric_keys`), with the same keys."""
    fast = numeric_keys(values)
    if fast is not None:
        return fast
    column = list(values)
    for row, value in enumerate(column, start=1):
        if _is_missing(value):
            raise DataError(f"{where} row {row}: the user id is empty; write each user's id")
    numbers = [number for number in map(_number, column) if number is not None]
    if column and len(numbers) == len(column):
        return [_numeric_text(number, value) for number, value in zip(numbers, column, strict=True)]
    return [_text_key(value, f"{where} row {row}") for row, value in enumerate(column, start=1)]


def user_key(value, where: str = "--user") -> str:
    """The key of one user id (a column of one value: ``"7.0"`` and ``7`` are ``"7"``); DataError when refused."""
    if _is_missing(value):
        raise DataError(f"{where}: the user id is empty; write the user's id")
    number = _number(value)
    return _numeric_text(number, value) if number is not None else _text_key(value, where)


def lookup_key(value) -> str:
    """The key ``value`` is looked up by, never refusing (comparing the data with a policy table or a ledger's
    keys): a number as :func:`user_key` gives it, anything else its stripped NFC text."""
    number = None if _is_missing(value) else _number(value)
    if number is not None:
        return _numeric_text(number, value)
    return unicodedata.normalize("NFC", str(value)).strip()


def key_map(values: Iterable, where: str = "user column") -> dict:
    """{id as it appears: its key} of one user column (the column rule of :func:`user_keys`)."""
    dtype = getattr(values, "dtype", None)
    if dtype is not None and getattr(dtype, "kind", "O") in "iuf":  # numbers: distinct values by a hash table
        import numpy as np
        import pandas as pd

        column = pd.unique(np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)).tolist()
    else:
        column = list(dict.fromkeys(values))
    return dict(zip(column, user_keys(column, where), strict=True))


def dataset_key(name: str) -> str:
    """A dataset name as stored, normalised as :func:`dataset_name` normalises (NFKC, case-folded, stripped) without
    refusing it: an existing ledger's names keep their budgets."""
    return unicodedata.normalize("NFKC", str(name)).casefold().strip()


def dataset_name(name: str, flag: str = "--dataset") -> str:
    """A dataset name checked and normalised (:data:`DATASET_RULE`); anything else raises ParameterError."""
    if not isinstance(name, str):
        raise ParameterError(f"{flag} must be a text; {DATASET_RULE}")
    key = dataset_key(name)
    if not _DATASET.fullmatch(key):
        bad = next((ch for ch in key if not _DATASET.fullmatch(ch)), None)
        what = "is empty" if not key else f"holds {bad!r} (U+{ord(bad):04X})" if bad is not None else "is not allowed"
        raise ParameterError(f"{flag} {name!r} {what}: {DATASET_RULE}")
    return key


def series_key(series) -> str:
    """``sha256:<hex>`` of a series' parsed content: its kind, canonical timestamps (UTC nanoseconds) and each
    event column's values (numbers as float64), whatever the file's bytes, column order or format."""
    import numpy as np

    frame = series.frame
    digest = hashlib.sha256()
    digest.update(f"lmdk-series-v1\0{series.kind}\0".encode())
    index = frame.index
    stamps = index.tz_convert("UTC") if getattr(index, "tz", None) is not None else index
    digest.update(np.ascontiguousarray(stamps.as_unit("ns").asi8, dtype="<i8").tobytes())
    from lmdk.data.series import COLUMNS

    for column in sorted(COLUMNS[series.kind]):
        values = frame[column].to_numpy()
        digest.update(f"\0{column}\0".encode())
        if values.dtype.kind in "iufb":
            canonical = np.ascontiguousarray(values, dtype="<f8") + 0.0  # -0.0 → 0.0
            canonical[np.isnan(canonical)] = np.nan
            digest.update(canonical.tobytes())
        else:
            digest.update("\0".join(map(str, values.tolist())).encode("utf-8", "surrogatepass"))
    return "sha256:" + digest.hexdigest()
