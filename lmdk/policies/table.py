"""The policy table: one row per user — declared landmarks, ε and scheme — read by ``lmdk population --policies``.

Columns ``user, landmarks, epsilon, scheme`` (required) and ``mechanism, w, dummies`` (optional; ``dummies`` as
JSON text such as ``{"share": 0.05}`` in a CSV cell). CSV, Parquet or JSON (a list of row objects, or
``{"policies": [...]}``). ``landmarks`` is a landmark rule (:data:`lmdk.landmarks.RULE_HELP`); the declared kinds
are ``calendar:`` windows, ``ics:PATH`` (the person's own calendar) and ``times:PATH`` (explicit times), and a
relative PATH is read next to the table. Rules that read the data (``place:``, ``contacts:``, thresholds) are
accepted and follow :mod:`lmdk.selection.export` (refused unless allowed). Every error names the row, the column
and the fix; rows count from 1 after the header, in the file's order.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lmdk.data.ids import user_keys
from lmdk.errors import DataError, ParameterError

REQUIRED = ("user", "landmarks", "epsilon", "scheme")
OPTIONAL = ("mechanism", "w", "dummies")
COLUMNS = REQUIRED + OPTIONAL
MAX_ROWS = 1_000_000
_FILE_KINDS = ("ics", "times", "contacts", "file")


class PolicyTableError(DataError):
    """A policy table (or one of its rows) is malformed; the message names the row, the column and the fix."""


@dataclass(frozen=True)
class PolicyRow:
    """One user's policy: ``row`` its number in the table (1 = first after the header); ``user`` as text."""

    row: int
    user: str
    landmarks: str
    epsilon: float
    scheme: str
    mechanism: str | None = None
    w: int | None = None
    dummies: dict | None = None

    @property
    def label(self) -> str:
        """How messages name the row: 'policy table row 3 (user alice)'."""
        return f"policy table row {self.row} (user {self.user})"

    def to_record(self) -> dict:
        """The row as table cells (``dummies`` as JSON text, empty cells None)."""
        return {"user": self.user, "landmarks": self.landmarks, "epsilon": self.epsilon, "scheme": self.scheme,
                "mechanism": self.mechanism, "w": self.w,
                "dummies": json.dumps(self.dummies, sort_keys=True) if self.dummies is not None else None}


@dataclass(frozen=True)
class PolicyTable:
    """The validated rows of a policy table, one per user (users compared as text: 7 and "7" are one user)."""

    rows: tuple[PolicyRow, ...]
    source: str = "the policy table"

    def for_user(self, user) -> PolicyRow | None:
        """The row of ``user`` (any type; compared as text), or None."""
        return self._index().get(user_key(user))

    def _index(self) -> dict[str, PolicyRow]:
        """Rows by user key (built once per table)."""
        cached = self.__dict__.get("_by_user")
        if cached is None:
            cached = {row.user: row for row in self.rows}
            object.__setattr__(self, "_by_user", cached)
        return cached

    def to_frame(self) -> pd.DataFrame:
        """The table as a DataFrame with the columns :data:`COLUMNS`."""
        return pd.DataFrame([row.to_record() for row in self.rows], columns=list(COLUMNS))

    def to_csv(self) -> str:
        """The table as CSV text (what ``--policies`` reads back; ids a spreadsheet would run as a formula get a
        leading ``'`` that :func:`read_frame` removes again)."""
        from lmdk.exports.cells import csv_text

        return csv_text(self.to_frame().astype({"w": "Int64"}))


def user_key(user) -> str:
    """How a user id is compared between the data and the table: its key (:func:`lmdk.data.ids.lookup_key`: a number
    as its integer text where integral, else stripped NFC text)."""
    from lmdk.data.ids import lookup_key

    return lookup_key(user)


def _blank(value) -> bool:
    """An empty cell (None, NaN, '')."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def _fail(where: str, column: str, problem: str, fix: str) -> PolicyTableError:
    """An error naming the row, the column, the problem and the fix."""
    return PolicyTableError(f"{where}, column '{column}': {problem}; {fix}")


def _epsilon(value, where: str) -> float:
    """A finite ε > 0."""
    try:
        eps = float(value)
    except (TypeError, ValueError):
        eps = math.nan
    if isinstance(value, bool) or not math.isfinite(eps) or eps <= 0:
        raise _fail(where, "epsilon", f"{value!r} is not a budget", "write a number > 0 such as 1 or 0.5")
    return eps


def _whole(value, where: str) -> int | None:
    """The optional w-event window: a whole number ≥ 1."""
    if _blank(value):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or not number.is_integer() or number < 1:
        raise _fail(where, "w", f"{value!r} is not a window length", "write a whole number ≥ 1 (events) or leave "
                                                                     "it empty")
    return int(number)


def _dummies(value, where: str) -> dict | None:
    """The optional dummy-landmark options: a JSON object (text in CSV cells), checked by the RunConfig rules."""
    if _blank(value):
        return None
    data = value
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except json.JSONDecodeError:
            raise _fail(where, "dummies", f"{value!r} is not JSON", 'write an object such as {"share": 0.05} or leave '
                                                                    "it empty") from None
    from lmdk.exports.runconfig import RunConfig

    try:
        return RunConfig.dummy_options(dict(data) if isinstance(data, dict) else data)
    except (ValueError, TypeError) as exc:
        raise _fail(where, "dummies", str(exc), 'write an object such as {"share": 0.05} or leave it empty') from None


def _landmarks(value, where: str, base: Path | None, files: bool = True) -> str:
    """A landmark rule, its file (ics:, times:, contacts:, file:) resolved next to the table and checked (unless
    ``files`` is False: a table edited where the files are not, e.g. the app)."""
    from lmdk.landmarks import RULE_HELP, parse_rule

    if _blank(value):
        raise _fail(where, "landmarks", "the cell is empty", "write a landmark rule such as "
                                                             "calendar:mon-fri@18:00-22:00 or none")
    text = str(value).strip()
    kind, _, rest = text.partition(":")
    if kind.lower() in _FILE_KINDS and rest and files:
        path = Path(rest)
        if base is not None and not path.is_absolute():
            path = base / path
        if not path.is_file():
            raise _fail(where, "landmarks", f"the file {rest!r} of {text!r} does not exist",
                        "give a path relative to the policy table's folder, or an absolute one")
        text = f"{kind.lower()}:{path}"
    try:
        rule = parse_rule(text)
        if rule.kind in ("ics", "times") and files:
            from lmdk.declared import ics, times

            (ics if rule.kind == "ics" else times).validate(rule.path or "")
    except ParameterError as exc:
        message = str(exc)
        raise _fail(where, "landmarks", message, "fix the rule" if RULE_HELP in message else
                    f"use one of: {RULE_HELP}") from None
    return text


def _choice(value, where: str, column: str, allowed: tuple[str, ...], optional: bool) -> str | None:
    """A scheme or a mechanism name from its list."""
    if optional and _blank(value):
        return None
    name = "" if _blank(value) else str(value).strip().lower()
    if name not in allowed:
        raise _fail(where, column, f"{value!r} is not one of {', '.join(allowed)}",
                    f"write one of them{' or leave it empty' if optional else ''}")
    return name


def _row(number: int, cells: dict, base: Path | None, files: bool = True) -> PolicyRow:
    """One validated row."""
    from lmdk.policies.policy import MECHANISM_NAMES, SCHEME_NAMES

    if _blank(cells.get("user")):
        raise _fail(f"policy table row {number}", "user", "the cell is empty", "write the user's id as in the data")
    user = user_key(cells["user"])
    where = f"policy table row {number} (user {user})"
    return PolicyRow(number, user, _landmarks(cells.get("landmarks"), where, base, files),
                     _epsilon(cells.get("epsilon"), where),
                     str(_choice(cells.get("scheme"), where, "scheme", SCHEME_NAMES, False)),
                     _choice(cells.get("mechanism"), where, "mechanism", MECHANISM_NAMES, True),
                     _whole(cells.get("w"), where), _dummies(cells.get("dummies"), where))


def table_from_frame(frame: pd.DataFrame, source: str = "the policy table", base: str | Path | None = None,
                     files: bool = True) -> PolicyTable:
    """Validate a DataFrame of policy rows (``base``: the folder relative rule files are read from; ``files``
    False: rule files are named but not read, as where the table is edited without them)."""
    columns = [str(c).strip().lower() for c in frame.columns]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise PolicyTableError(f"{source} lacks the column(s) {', '.join(missing)}; a policy table has the columns "
                               f"{', '.join(REQUIRED)} (and optionally {', '.join(OPTIONAL)})")
    unknown = [c for c in columns if c not in COLUMNS]
    if unknown:
        raise PolicyTableError(f"{source} has unknown column(s) {', '.join(unknown)}; allowed: {', '.join(COLUMNS)} "
                               "(other settings — what ε protects, the seed — belong to --config or the flags)")
    if len(frame) > MAX_ROWS:
        raise PolicyTableError(f"{source} has {len(frame):,} rows, over {MAX_ROWS:,}")
    records = frame.set_axis(columns, axis=1).to_dict("records")
    folder = Path(base) if base is not None else None
    for i, cells in enumerate(records, start=1):
        if _blank(cells.get("user")):
            raise _fail(f"policy table row {i}", "user", "the cell is empty", "write the user's id as in the data")
    try:  # one key per person: a column of numbers is read as numbers (7, 7.0 → "7"), other ids as NFC text
        keys = user_keys([cells.get("user") for cells in records], "policy table column 'user',")
    except DataError as exc:
        raise PolicyTableError(str(exc)) from None
    rows = tuple(_row(i, {**cells, "user": key}, folder, files) for i, (cells, key)
                 in enumerate(zip(records, keys, strict=True), start=1))
    seen: dict[str, int] = {}
    for row in rows:
        if row.user in seen:
            raise PolicyTableError(f"policy table rows {seen[row.user]} and {row.row}, column 'user': user "
                                   f"{row.user} has two policies; keep one row per user")
        seen[row.user] = row.row
    return PolicyTable(rows, source)


def _json_frame(raw: bytes, name: str) -> pd.DataFrame:
    """Rows of a JSON policy table: a list of objects or {"policies": [...]}."""
    _check_json_size(raw, name)
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise PolicyTableError(f"policy table {name!r} is not valid JSON; give a list of rows "
                               '[{"user": …, "landmarks": …, "epsilon": …, "scheme": …}, …]') from None
    rows = data.get("policies") if isinstance(data, dict) else data
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise PolicyTableError(f"policy table {name!r} must be a JSON list of row objects (or {{\"policies\": "
                               "[…]})")
    if len(rows) > MAX_ROWS:  # before the DataFrame
        raise PolicyTableError(f"policy table {name!r} has {len(rows):,} rows, over {MAX_ROWS:,}; split the table")
    return pd.DataFrame(rows, columns=sorted({k for r in rows for k in r}, key=lambda c: (c not in COLUMNS, c)))


def _outside_strings(raw: bytes, chunk: int = 1 << 23) -> tuple[int, int]:
    """The braces and commas of JSON text outside its strings, counted in chunks (no Python object per token)."""
    import numpy as np

    bare = raw.replace(b"\\\\", b"").replace(b'\\"', b"")  # escaped backslashes, then escaped quotes
    objects = commas = parity = 0
    for start in range(0, len(bare), chunk):
        part = np.frombuffer(bare, np.uint8, count=min(chunk, len(bare) - start), offset=start)
        outside = ((np.cumsum(part == ord('"'), dtype=np.uint8) + parity) & 1) == 0  # uint8 keeps the parity
        objects += int(np.count_nonzero(outside & (part == ord("{"))))
        commas += int(np.count_nonzero(outside & (part == ord(","))))
        parity = (parity + int(np.count_nonzero(part == ord('"')))) & 1
    return objects, commas


def _check_json_size(raw: bytes, name: str) -> None:
    """Refuse a JSON policy table of more objects than MAX_ROWS rows (each with its ``dummies`` object) or more
    values than its objects' columns, from a count of braces and commas outside strings, before any object is
    built."""
    most = 2 * MAX_ROWS + 1  # a row and its dummies object, and the {"policies": […]} wrapper
    objects, commas = raw.count(b"{"), raw.count(b",")
    if objects > most or commas > len(COLUMNS) * objects:  # upper bounds: count outside strings only then
        objects, commas = _outside_strings(raw)
    if objects > most:
        raise PolicyTableError(f"policy table {name!r} has more than {most:,} JSON objects, so more than the limit "
                               f"of {MAX_ROWS:,} rows; split the table")
    if commas > len(COLUMNS) * max(objects, 1):
        raise PolicyTableError(f"policy table {name!r} has more values than its {objects:,} rows can hold (at most "
                               f"the columns {', '.join(COLUMNS)} per row object); give a list of row objects")


def read_frame(raw: bytes, name: str) -> pd.DataFrame:
    """The cells of a policy table file's bytes (CSV, Parquet or JSON, told by the name or the content)."""
    import io

    lower = name.lower()
    if lower.endswith(".parquet") or raw[:4] == b"PAR1":
        from lmdk.data.read import read_parquet

        try:  # rows, columns and decoded size checked (metadata, then a running count) before all is decoded
            return read_parquet(raw, MAX_ROWS, max_columns=len(COLUMNS) + 1)  # + a stored index
        except DataError as exc:
            raise PolicyTableError(f"policy table {name!r}: {exc}") from None
    if lower.endswith(".json") or raw.lstrip()[:1] in (b"[", b"{"):
        return _json_frame(raw, name)
    _check_widths(raw, name)
    from lmdk.exports.cells import plain_cells

    try:  # a cell written as '=… (a formula neutralised by PolicyTable.to_csv) is read back as =…
        return plain_cells(pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False, skipinitialspace=True,
                                       index_col=False))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise PolicyTableError(f"policy table {name!r} is not a readable CSV file ({exc}); give one row per user "
                               f"with the columns {', '.join(REQUIRED)}") from None


def _check_widths(raw: bytes, name: str) -> None:
    """Refuse a CSV row with more cells than the header (an unquoted comma), naming the row."""
    import csv
    import io

    try:
        lines = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise PolicyTableError(f"policy table {name!r} is not a readable CSV file ({exc})") from None
    width = len(lines[0]) if lines else 0
    if width > len(COLUMNS):  # before pandas reads the header: a policy table has no other column
        raise PolicyTableError(f"policy table {name!r} has {width:,} columns; a policy table has at most the "
                               f"columns {', '.join(COLUMNS)}")
    for number, cells in enumerate(lines[1:], start=1):
        if len(cells) > width:
            raise PolicyTableError(f"policy table {name!r} row {number}: {len(cells)} cells under a header of "
                                   f"{width}; quote a cell that holds commas (\"place:52.52,13.40,200\")")


def read_table(path: str | Path) -> PolicyTable:
    """A validated policy table from a CSV, Parquet or JSON file; rule files are read next to it."""
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise ParameterError(f"--policies {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    return table_from_frame(read_frame(raw, file.name), f"policy table {file.name!r}", file.parent)
