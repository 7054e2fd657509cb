"""Time bins of an aggregate, one parser for ``lmdk aggregate``, ``lmdk plan --statistic`` and the app's upload panel.

``--bin`` takes a whole number and a unit: seconds, minutes and hours (``30s``, ``30min``, ``1h``) are fixed widths
aligned on multiples of the width from 1970-01-01 (zone-aware times as UTC instants, naive times as they stand);
days, weeks, months, quarters and years (``1d``, ``1w``, ``1month``, ``1quarter``, ``1year``) are calendar bins
that start at local midnight in the series' zone (``--tz``; naive times are wall clock; without a zone, times with
an offset start at the midnight of the offset they carried, one offset per bin), weeks on Monday, so a day across a
clock change lasts 23 or 25 hours. Spellings that mean two things (``1m``, ``1M``, ``MS``, ``ms``) are refused,
naming the spelling to use.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lmdk.errors import ParameterError

MAX_BINS = 1_000_000
"""The most bins one aggregate may have: more is refused before anything is allocated."""
FIXED_SECONDS = {"s": 1, "min": 60, "h": 3600}
CALENDAR = ("d", "w", "month", "quarter", "year")
UNITS = {"s": "s", "sec": "s", "second": "s", "seconds": "s", "min": "min", "mins": "min", "minute": "min",
         "minutes": "min", "h": "h", "hr": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d",
         "w": "w", "week": "w", "weeks": "w", "month": "month", "months": "month", "quarter": "quarter",
         "quarters": "quarter", "year": "year", "years": "year"}
AMBIGUOUS = {"m": "minute or month", "M": "minute or month (pandas: month end)", "MS": "month start or milliseconds",
             "ms": "milliseconds or month start", "ME": "month end", "Q": "quarter end", "QS": "quarter start",
             "Y": "year end", "YS": "year start", "A": "year end", "AS": "year start"}
SPELLINGS = "30s, 5min, 30min, 1h, 1d, 1w, 1month, 1quarter, 1year"
NAMES = {"s": "second", "min": "minute", "h": "hour", "d": "day", "w": "week", "month": "month",
         "quarter": "quarter", "year": "year"}
ADJECTIVES = {"h": "hourly", "d": "daily", "w": "weekly", "month": "monthly", "quarter": "quarterly",
              "year": "yearly"}


@dataclass(frozen=True)
class Bin:
    """A bin width: ``count`` units (s, min, h fixed; d, w, month, quarter, year on the calendar)."""

    count: int
    unit: str

    @property
    def text(self) -> str:
        """The canonical spelling: 30min, 1d, 1month."""
        return f"{self.count}{self.unit}"

    @property
    def calendar(self) -> bool:
        """Whether bins start at local midnight (days and longer) rather than on multiples of a fixed width."""
        return self.unit in CALENDAR

    @property
    def seconds(self) -> int:
        """The width of a fixed bin in seconds (calendar bins: their nominal length, a month 30 days)."""
        nominal = {"d": 86_400, "w": 7 * 86_400, "month": 30 * 86_400, "quarter": 91 * 86_400,
                   "year": 365 * 86_400}
        return self.count * (FIXED_SECONDS.get(self.unit) or nominal[self.unit])

    def words(self) -> str:
        """The bins in words: "monthly bins", "daily bins", "30-minute bins"."""
        if self.count == 1 and self.unit in ADJECTIVES:
            return f"{ADJECTIVES[self.unit]} bins"
        return f"{self.count}-{NAMES[self.unit]} bins"

    def noun(self) -> str:
        """One bin as the statement calls it: "hour", "minute", "30-minute bin", "daily bin", "monthly bin"."""
        if self.count == 1 and self.unit in ("h", "min", "s"):
            return NAMES[self.unit]
        return self.words()[:-1]


def parse_bin(text) -> Bin:
    """The bin of a ``--bin`` spelling (see the module docstring); a spelling that is no width, or means two
    things, is refused naming the one to use."""
    if isinstance(text, Bin):
        return text
    raw = str(text if text is not None else "").strip()
    match = re.fullmatch(r"(\d*)\s*([A-Za-z]+)", raw)
    if match is None:
        raise ParameterError(f"--bin {raw!r} is not a bin width; use a whole number and a unit, e.g. {SPELLINGS}")
    number, unit = match.group(1), match.group(2)
    count = int(number) if number else 1
    if unit in AMBIGUOUS and unit not in UNITS:
        use = {"m": f"{count}min or {count}month", "M": f"{count}month (or {count}min for minutes)",
               "MS": f"{count}month", "ms": f"{count}month (bins shorter than a second are not supported)",
               "ME": f"{count}month", "Q": f"{count}quarter", "QS": f"{count}quarter", "Y": f"{count}year",
               "YS": f"{count}year", "A": f"{count}year", "AS": f"{count}year"}[unit]
        raise ParameterError(f"--bin {raw!r} is ambiguous ({AMBIGUOUS[unit]}); write {use}")
    if unit != unit.lower() and unit.lower() in UNITS:
        raise ParameterError(f"--bin {raw!r}: write the unit in lower case, {count}{UNITS[unit.lower()]}")
    if unit not in UNITS:
        raise ParameterError(f"--bin {raw!r} is not a time width (unknown unit {unit!r}); use e.g. {SPELLINGS}")
    if count < 1:
        raise ParameterError(f"--bin {raw!r} must be a positive width, e.g. {SPELLINGS}")
    return Bin(count, UNITS[unit])


def bin_offset(text):
    """What one bin adds to its start: a ``pd.Timedelta`` for fixed bins, a ``pd.DateOffset`` (wall clock) for
    calendar bins."""
    import pandas as pd

    b = parse_bin(text)
    if not b.calendar:
        return pd.Timedelta(seconds=b.seconds)
    return {"d": pd.DateOffset(days=b.count), "w": pd.DateOffset(weeks=b.count),
            "month": pd.DateOffset(months=b.count), "quarter": pd.DateOffset(months=3 * b.count),
            "year": pd.DateOffset(years=b.count)}[b.unit]


DAY_NS = 86_400 * 10**9


def bin_numbers(timestamps, b: Bin, tz: str | None = None, offsets=None):
    """The bin number (int64) of every timestamp (a Series or DatetimeIndex): fixed bins count widths from
    1970-01-01 (zone-aware times as UTC instants); calendar bins count days, Monday weeks, months, quarters or years
    of the wall clock of ``tz`` (zone-aware times; none: each time's UTC offset in ``offsets``, seconds east, one
    per timestamp, else UTC), naive times as they stand."""
    import numpy as np
    import pandas as pd

    index = pd.DatetimeIndex(timestamps)
    local = index.tz is not None and b.calendar and tz is None and offsets is not None
    if index.tz is not None:
        index = index.tz_convert("UTC" if not b.calendar or tz is None else tz).tz_localize(None)
    ns = np.asarray(index.as_unit("ns").to_numpy(), dtype="datetime64[ns]").view(np.int64)
    if local:  # the wall clock of the offset each reading carried
        ns = ns + np.asarray(offsets, dtype=np.int64) * 10**9
    if not b.calendar:
        return ns // (b.seconds * 10**9)
    if b.unit in ("d", "w"):
        days = ns // DAY_NS
        return (days if b.unit == "d" else (days + 3) // 7) // b.count  # 1970-01-01 was a Thursday
    months = ns.view("datetime64[ns]").astype("datetime64[M]").astype(np.int64)
    return (months // {"month": 1, "quarter": 3, "year": 12}[b.unit]) // b.count


def bin_start_ns(numbers, b: Bin, tz: str | None = None, zoned: bool = False):
    """The start (int64 ns) of every bin number: fixed bins on multiples of the width; calendar bins at local
    midnight — as UTC instants when the input's times carried a zone (``zoned``; in ``tz``, none: UTC), as wall
    clock otherwise."""
    import numpy as np
    import pandas as pd

    numbers = np.asarray(numbers, dtype=np.int64)
    if not b.calendar:
        return numbers * (b.seconds * 10**9)
    k = numbers * b.count
    if b.unit in ("d", "w"):
        wall = (k if b.unit == "d" else k * 7 - 3) * DAY_NS
    else:
        months = k * {"month": 1, "quarter": 3, "year": 12}[b.unit]
        wall = months.astype("datetime64[M]").astype("datetime64[ns]").astype(np.int64)
    if not zoned or tz is None:
        return wall
    local = pd.DatetimeIndex(wall.view("datetime64[ns]")).tz_localize(
        tz, ambiguous=np.ones(wall.size, dtype=bool), nonexistent="shift_forward")
    return np.asarray(local.tz_convert("UTC").tz_localize(None).to_numpy(), dtype="datetime64[ns]").view(np.int64)


def check_bin_count(first: int, last: int, b: Bin) -> None:
    """Refuse more than :data:`MAX_BINS` bins (bin numbers ``first`` to ``last``) before any is allocated."""
    count = int(last) - int(first) + 1
    if count > MAX_BINS:
        raise ParameterError(f"--bin {b.text} makes {count:,} bins; at most {MAX_BINS:,}: choose wider bins (e.g. "
                             "1h, 1d, 1month) or a shorter --time-range")


@dataclass(frozen=True)
class Grid:
    """An aggregate's time grid: the bin and the zone whose midnight calendar bins start at (None: UTC for times
    with a zone, wall clock for naive times)."""

    bin: Bin
    tz: str | None = None

    def numbers(self, timestamps, offsets=None):
        """The bin number of every timestamp (:func:`bin_numbers`; ``offsets``: the UTC offset each carried)."""
        return bin_numbers(timestamps, self.bin, self.tz, offsets)

    def starts(self, numbers, zoned: bool = False, offsets=None):
        """The start (int64 ns) of every bin number (:func:`bin_start_ns`): UTC instants when ``zoned``; with
        ``offsets`` (seconds east, one per bin, no ``tz``) calendar bins start at the midnight of that offset."""
        import numpy as np

        starts = bin_start_ns(numbers, self.bin, self.tz, zoned)
        if offsets is None or not self.bin.calendar or self.tz is not None:
            return starts
        return starts - np.asarray(offsets, dtype=np.int64) * 10**9
