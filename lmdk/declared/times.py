"""``times:PATH``: explicit times a person declares as landmarks, one per line (a header line is allowed).

Each line is an instant (``2024-05-01 14:30``) or a span ``START/END`` (ISO 8601 interval notation,
``2024-05-01T09:00/2024-05-01T12:00``). A time with an offset or ``Z`` is absolute (compared as a UTC instant); one
without is a wall-clock time of the series, as ``calendar:`` windows are. Which readings a time marks is
:mod:`lmdk.declared.spans`' rule: an instant marks the reading whose interval holds it, a span every reading it
overlaps; times outside the series are ignored.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from lmdk.declared.files import read_text
from lmdk.declared.spans import Spans, mask
from lmdk.errors import ParameterError

PREFIX = "times:"
_OFFSET = re.compile(r"(Z|[+-]\d{2}:?\d{2})$", re.IGNORECASE)
_EMPTY = np.zeros(0, dtype=np.int64)


def _entries(path: str) -> list[str]:
    """The file's non-empty lines (a first line that is no date/time, e.g. 'time', is a header)."""
    lines = [line.strip().strip('"').strip(",") for line in read_text(path, "times file").splitlines()]
    lines = [line for line in lines if line]
    if lines and not lines[0][:1].isdigit():
        lines = lines[1:]
    return lines


def _parse(values: list[str], path: str, utc: bool) -> np.ndarray:
    """int64 ns of date/times (UTC instants when ``utc``), naming the first that cannot be read."""
    if not values:
        return _EMPTY
    try:
        parsed = pd.DatetimeIndex(pd.to_datetime(values, format="ISO8601", utc=utc))
    except (ValueError, TypeError):
        bad = next((v for v in values if pd.isna(pd.to_datetime(v, format="ISO8601", errors="coerce"))), values[0])
        raise ParameterError(f"landmark rule 'times:{path}': {bad!r} is not a date/time; write one per line as "
                             "2024-05-01 14:30 (wall clock), 2024-05-01T14:30+02:00 (absolute) or START/END") from None
    from lmdk.data.series import epoch_ns

    return epoch_ns(parsed)


def spans(path: str) -> Spans:
    """The declared instants and spans of the file ``path`` (:class:`lmdk.declared.spans.Spans`)."""
    starts: dict[bool, list[str]] = {True: [], False: []}
    ends: dict[bool, list[str]] = {True: [], False: []}
    for entry in _entries(path):
        first, slash, last = entry.partition("/")
        first, last = first.strip(), (last.strip() if slash else first.strip())
        absolute = bool(_OFFSET.search(first))
        if absolute != bool(_OFFSET.search(last)):
            raise ParameterError(f"landmark rule 'times:{path}': {entry!r} mixes a time with an offset and one "
                                 "without; give both ends in the same clock")
        starts[absolute].append(first)
        ends[absolute].append(last)
    pairs = {flag: (_parse(starts[flag], path, flag), _parse(ends[flag], path, flag)) for flag in (True, False)}
    for flag, (s, e) in pairs.items():
        if np.any(e < s):
            at = int(np.flatnonzero(e < s)[0])
            raise ParameterError(f"landmark rule 'times:{path}': the span {starts[flag][at]}/{ends[flag][at]} ends "
                                 "before it starts")
    return Spans(pairs[True], pairs[False], f"{PREFIX}{path}")


def validate(path: str) -> int:
    """Check the file ``path``; returns how many times or spans it declares."""
    return spans(path).count


def times_mask(path: str, timestamps, tz: str | None = None, wall=None) -> np.ndarray:
    """Which ``timestamps`` the times declared in ``path`` mark (see the module docstring)."""
    return mask(spans(path), timestamps, tz, wall)
