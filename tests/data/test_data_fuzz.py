"""Fuzzing load_series: random bytes and random CSVs give a valid Series or a DataError, nothing else."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk.data import DataError, Series, load_series

COLUMNS = ["timestamp", "time", "value", "lat", "lon", "contact", "date", "hour", "energy_kWh", "id",
           "user_a", "user_b", "rssi", "x", "Latitude", "power (W)"]
CELLS = st.one_of(
    st.text(max_size=10),
    st.integers(-10**13, 10**13).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["2012-06-01", "6/1/2012", "11/4/2012", "2012-06-01 01:00:00+02:00", "2008-02-02 15:36:08",
                     "nan", "", " ", "inf", "-1", "-2", "0", "1", "23", "24", "90.5", "-180", "1e308", "true",
                     "9999-12-31", "4/11/2262", "1/1/1677", "\"a,b\"", "\"", "1,5",
                     "9.223372036854775e+18", "-9223372036854775809", "1e20"]),
)


@st.composite
def random_csv(draw) -> bytes:
    """A header from plausible column names and rows of adversarial cells."""
    header = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=5))
    width = len(header) if draw(st.booleans()) else None
    rows = draw(st.lists(st.lists(CELLS, min_size=width or 0, max_size=width or 6), max_size=8))
    sep = draw(st.sampled_from([",", "\t", ";"]))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    lines = [sep.join(header)] + [sep.join(row) for row in rows]
    return end.join(lines).encode("utf-8")


def assert_valid_or_data_error(source, **kwargs) -> None:
    """The property: a well-formed Series, or DataError — no other exception escapes."""
    try:
        series = load_series(source, **kwargs)
    except DataError as exc:
        assert str(exc)  # a message for the user
        return
    assert isinstance(series, Series) and len(series) > 0
    index = series.frame.index
    assert isinstance(index, pd.DatetimeIndex) and index.is_monotonic_increasing and not index.hasnans
    if series.kind == "values":
        assert np.all(np.isfinite(series.values)) and index.is_unique
    elif series.kind == "trajectory":
        latlon = series.latlon()
        assert np.all(np.abs(latlon[:, 0]) <= 90) and np.all(np.abs(latlon[:, 1]) <= 180) and index.is_unique
    else:
        assert not series.frame["contact"].isna().any()


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_random_bytes(raw):
    assert_valid_or_data_error(raw)


@settings(max_examples=300)
@given(random_csv(), st.sampled_from(["auto", "values", "trajectory", "contacts"]))
def test_random_csv(raw, kind):
    assert_valid_or_data_error(raw, kind=kind)


@settings(max_examples=150)
@given(st.lists(st.lists(CELLS, min_size=2, max_size=4), min_size=1, max_size=5))
def test_random_headerless_lines(rows):
    assert_valid_or_data_error("\n".join(",".join(r) for r in rows).encode())


@settings(max_examples=100)
@given(st.binary(min_size=0, max_size=200))
def test_random_bytes_after_parquet_magic(tail):
    assert_valid_or_data_error(io.BytesIO(b"PAR1" + tail + b"PAR1"))


@settings(max_examples=100)
@given(st.binary(max_size=120), st.sampled_from(["x.plt", "x.tsv", "x.csv", "x.parquet"]))
def test_random_bytes_with_file_names(raw, name):
    stream = io.BytesIO(raw)
    stream.name = name
    assert_valid_or_data_error(stream)


PARQUET_COLUMNS = st.one_of(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=3, max_size=3),
    st.lists(st.integers(-2**63, 2**63 - 1), min_size=3, max_size=3),
    st.lists(st.one_of(st.none(), st.text(max_size=6), st.sampled_from(["2020-01-01", "-1", "7"])),
             min_size=3, max_size=3),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.lists(st.integers(-2**40, 2**40).map(lambda s: np.datetime64(s, "s")), min_size=3, max_size=3),
)


@settings(max_examples=80)
@given(st.dictionaries(st.sampled_from(COLUMNS), PARQUET_COLUMNS, min_size=1, max_size=4))
def test_random_parquet_tables(columns):
    buffer = io.BytesIO()
    pd.DataFrame(columns).to_parquet(buffer)
    assert_valid_or_data_error(buffer.getvalue())
