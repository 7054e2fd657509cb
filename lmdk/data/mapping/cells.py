"""What a column's cells hold, judged from their text: numbers, whole numbers, dates (and d/m/y dates), a
date and a time column read together, units in a header. Detection guesses with these; reading applies them."""
from __future__ import annotations

import re
import warnings

import pandas as pd

SAMPLE_CELLS = 5000  # type guesses (numbers? dates?) look at this many cells of a column
DMY = re.compile(r"^\s*(\d{1,2})([./-])(\d{1,2})\2(\d{2}|\d{4})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*$")


def looks_like_data(cell: str, decimal: str) -> bool:
    """A cell that is a number or a date/time (so its row is data, not a header)."""
    cell = cell.strip().strip('"')
    if decimal == ",":
        cell = cell.replace(",", ".")
    if re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", cell):
        return True
    return bool(re.match(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}", cell))


def is_number_column(column: pd.Series) -> bool:
    """At least 90 % of the non-empty cells are numbers (decimal comma allowed), judged on the first cells."""
    text = column.head(SAMPLE_CELLS).astype(str).str.strip()
    text = text[(text != "") & (text != "?") & (text.str.lower() != "nan")]
    if text.empty:
        return False
    numbers = pd.to_numeric(text.str.replace(",", ".", regex=False), errors="coerce")
    return bool(numbers.notna().mean() >= 0.9)


def is_integer_column(column: pd.Series) -> bool:
    """Whole numbers only (ids)."""
    text = column.astype(str).str.strip()
    return bool(len(text)) and bool(text.str.fullmatch(r"-?\d+").mean() >= 0.99)


def parses_as_dates(column: pd.Series) -> bool:
    """Most non-empty cells look like dates/times (not plain numbers)."""
    text = column.head(SAMPLE_CELLS).astype(str).str.strip()
    text = text[text != ""].head(200)
    if text.empty or is_number_column(text):
        return False
    if text.str.match(DMY).mean() >= 0.9:
        return True
    if not text.str.contains(r"\d", regex=True).all():
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parsed = pd.to_datetime(text, errors="coerce", format="mixed")
    return bool(parsed.notna().mean() >= 0.9)


def datetime_text(frame: pd.DataFrame, time_col: str, date_col: str | None) -> pd.Series:
    """The text to parse: the time column, or 'date time' from two columns."""
    time = frame[time_col].astype(object).astype(str).str.strip()  # via object: a Parquet datetime64[s] column's
    if date_col is None:                                            # astype(str) can stay a DatetimeArray
        return time
    return frame[date_col].astype(object).astype(str).str.strip() + " " + time


UNIT_WORDS = {"kwh", "wh", "mwh", "kw", "w", "mw", "v", "a", "va", "var", "m", "km", "c", "°c", "%", "l", "m3"}


def units_of(column: str | None) -> str:
    """Units from a header such as 'Verbrauch (kWh)' or 'energy_kWh' (a suffix only when it is a unit)."""
    from lmdk.data.columns import units_in_name

    found = units_in_name(column) if column else ""
    bracketed = column is not None and column.rstrip().endswith((")", "]"))
    return found if bracketed or found.lower() in UNIT_WORDS else ""
