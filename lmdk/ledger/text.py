"""How the ledger writes text that must survive anything: one JSON record per line whatever its names and ids hold,
and times as UTC instants.

A JSON Lines ledger is split on ``\\n`` only. :func:`json_line` escapes, besides what JSON escapes (``\\n``, NUL and
every other C0 control), each character another reader could take for a line break or that hides in a name:
U+0085, U+2028, U+2029, the C1 controls, zero-width and direction marks. :func:`utc_text` makes every entry's time
one canonical UTC text, so comparing times compares instants.
"""
from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime

from lmdk.errors import ParameterError

_HIDDEN = re.compile("[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]")


def json_line(data: dict) -> str:
    """``data`` as one JSON line (keys sorted, no newline): every line-breaking or invisible character escaped as
    ``\\uXXXX``; NaN and infinities refused."""
    try:
        text = json.dumps(data, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except ValueError:
        raise ParameterError("ledger record: a number is not finite (NaN or infinity); ε and caps must be finite "
                             "numbers") from None
    return _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def utc_text(value: object, field: str = "time") -> str:
    """An ISO 8601 time as the ledger stores it: the UTC instant to the second (``2026-01-01T00:00:00+00:00``); a time
    without an offset is UTC. Anything else is refused naming ``field``."""
    if isinstance(value, datetime):
        moment = value
    else:
        if not isinstance(value, str):
            raise ParameterError(f"ledger entry: {field} must be an ISO 8601 time such as 2026-01-01T00:00:00+00:00, "
                                 f"not {value!r}")
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ParameterError(f"ledger entry: {field} must be an ISO 8601 time such as "
                                 f"2026-01-01T00:00:00+00:00, not {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC).replace(microsecond=0).isoformat(timespec="seconds")
    except (OverflowError, ValueError):
        raise ParameterError(f"ledger entry: {field} {value!r} is out of range") from None


def finite_sum(values) -> float:
    """Σ of ε values (``math.fsum``), refused when it is not a finite number: a NaN or an overflowing total never
    passes a cap check or reaches a report."""
    try:
        total = math.fsum(float(v) for v in values)
    except OverflowError:
        total = math.inf
    if not math.isfinite(total):
        raise ParameterError("ledger: a total ε is not a finite number (an ε or a charge is NaN, infinite or too "
                             "large); fix or delete the record that holds it")
    return total
