"""The positions a declared file marks in a series: ``ics:`` calendars (:mod:`lmdk.declared.ics`) and ``times:``
files (:mod:`lmdk.declared.times`), both by :mod:`lmdk.declared.spans`' rule."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError


def positions(kind: str, path: str, series, tz: str | None = None) -> np.ndarray:
    """Positions an ``ics:`` calendar or a ``times:`` file marks in ``series`` (an ``lmdk.data.Series``; naive
    timestamps are wall-clock times in ``tz``; floating events are matched on the person's wall clock,
    :func:`lmdk.declared.calendar.series_wall_clock`)."""
    from lmdk.declared.calendar import series_wall_clock

    index = getattr(series, "timestamps", None)
    if not isinstance(index, pd.DatetimeIndex):
        raise ParameterError(f"landmark rule '{kind}:{path}' needs a series with timestamps (an lmdk Series)")
    if kind == "ics":
        from lmdk.declared.ics import ics_mask

        return np.flatnonzero(ics_mask(path, index, tz, series_wall_clock(series, tz))).astype(np.int64)
    from lmdk.declared.times import times_mask

    return np.flatnonzero(times_mask(path, index, tz, series_wall_clock(series, tz))).astype(np.int64)
