"""Data in: ``load_series`` for uploads, ``Series``, bundled samples (exports live in :mod:`lmdk.exports`).

Recognised layouts (§4.1.1 of the landmark-privacy paper):
- HUE ``date,hour,energy_kWh`` (hour 0..24 in BC local time → tz-aware hourly timestamps);
- T-drive headerless ``id,datetime,longitude,latitude`` lines;
- GeoLife ``.plt`` (6 header lines; lat, lon, 0, altitude, days, date, time in GMT);
- Copenhagen Networks Study Bluetooth ``timestamp,user_a,user_b,rssi`` (timestamps are seconds,
  read as seconds since 1970-01-01, so the study starts on 1970-01-01; ``user_b`` is the contact:
  −1 = nothing found and −2 = a non-participating device are kept as those integer ids);
- any CSV/TSV/Parquet table with a header naming a timestamp column plus one value column, or
  ``lat``/``lon`` columns, or a ``contact`` column.
"""
from __future__ import annotations

from lmdk.data import mapping, mechanism_input, resample
from lmdk.data.columns import HUE_TIMEZONE
from lmdk.data.load import load_series
from lmdk.data.mapping import Detection, ImportSpec, detect
from lmdk.data.read import MAX_BYTES, MAX_ROWS, DataTooLargeError
from lmdk.data.samples import SAMPLES, sample
from lmdk.data.series import KINDS, NON_PARTICIPANT, NOTHING_FOUND, Series, from_contacts, from_trajectory, from_values
from lmdk.errors import DataError

__all__ = [
    "DataError", "DataTooLargeError", "Detection", "ImportSpec", "detect", "HUE_TIMEZONE", "KINDS", "MAX_BYTES",
    "MAX_ROWS",
    "NON_PARTICIPANT", "NOTHING_FOUND", "SAMPLES", "Series",
    "from_contacts", "from_trajectory", "from_values", "load_series", "sample",
    # modules of the API reference: import mappings, mechanism inputs, resampling
    "mapping", "mechanism_input", "resample",
]
