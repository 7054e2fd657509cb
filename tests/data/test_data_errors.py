"""Every bad input of issue #5 raises DataError naming the row/column (or the limit) and the fix."""
from __future__ import annotations

import io

import pytest

from lmdk.data import DataError, DataTooLargeError, load_series
from lmdk.errors import TooLargeError

CASES = [  # (file content, kind, words the message must contain)
    ("timestamp,value\n2020-01-01,1\n2020-01-02,abc\n", "auto", ["'value'", "row 2 (line 3)", "'abc'", "not a number"]),
    ("timestamp,value\n2020-01-01,1\n2020-01-02,inf\n", "auto", ["'value'", "row 2", "finite"]),
    ("timestamp;value\n2020-01-01;1,5\n", "auto", ["'value'", "row 1", "decimal mark"]),
    ("timestamp,lat,lon\n2020-01-01,1,2\n2020-01-02,120,30\n", "auto",
     ["'lat'", "row 2 (line 3)", "[-90, 90]", "swapped"]),
    ("timestamp,lat,lon\n2020-01-01,1,200\n", "auto", ["'lon'", "row 1", "[-180, 180]"]),
    ("timestamp,value\n2020-01-01,1\nnotadate,2\n", "auto",
     ["'timestamp'", "row 2 (line 3)", "'notadate'", "ISO 8601"]),
    ("when,value\n2020-01-01,1\n", "auto", ["no timestamp column", "'when'", "'timestamp'"]),
    ("timestamp,a,b\n2020-01-01,1,2\n", "auto", ["ambiguous value column", "'a'", "'b'", "'value'"]),
    ("timestamp,value\n2020-01-01,1\n", "trajectory", ["latitude/longitude", "'lat'", "'lon'"]),
    ("timestamp,a,b\n2020-01-01,1,2\n", "contacts", ["contact column", "'contact'"]),
    ("timestamp,value\n", "auto", ["no data rows"]),
    ("timestamp,value\n2020-01-01,1\n2020-01-02,1,3\n", "auto", ["line 3", "3 fields", "header has 2"]),
    ("timestamp,value,Value\n2020-01-01,1,2\n", "auto", ["'Value'", "more than once"]),
    ("timestamp,value,value\n2020-01-01,1,2\n", "auto", ["'value'", "more than once"]),
    ("1,2,3\n4,5,6\n", "auto", ["line 1", "header"]),
    ("date,hour,energy_kWh\n6/1/2012,25,1\n", "auto", ["'hour'", "row 1", "0 and 24"]),
    ("date,hour,energy_kWh\n6/1/2012,1,1\n", "trajectory", ["HUE", "kind='values'"]),
    ("timestamp,user_a,user_b,rssi\n0,1,x,0\n", "auto", ["'user_b'", "row 1", "integer device id"]),
    ("timestamp,contact\n2020-01-01,1.5\n", "auto", ["'contact'", "whole-number"]),
    ("timestamp,contact\n2020-01-01,1e19\n", "auto", ["'contact'", "too large"]),
    ("timestamp,value\n2020-01-01,\n", "auto", ["no usable rows"]),
    ("timestamp,value\n2020-01-01,true\n", "auto", ["'value'", "true/false"]),
]


@pytest.mark.parametrize("text,kind,words", CASES)
def test_bad_file_names_field_and_fix(text, kind, words):
    with pytest.raises(DataError) as err:
        load_series(text.encode(), kind=kind, strict=True)
    for word in words:
        assert word in str(err.value)


DETECTED_CASES = [  # the default call (detected mapping) refuses these too, naming the field and the fix
    ("timestamp,value\n2020-01-01,1\n2020-01-02,abc\n", "auto", ["'value'", "row 2 (line 3)", "'abc'", "not a number"]),
    ("timestamp,value\n2020-01-01,1\n2020-01-02,inf\n", "auto", ["'value'", "row 2", "finite"]),
    ("timestamp,lat,lon\n2020-01-01,1,2\n2020-01-02,120,30\n", "auto",
     ["'lat'", "row 2 (line 3)", "[-90, 90]", "swapped"]),
    ("timestamp,lat,lon\n2020-01-01,1,200\n", "auto", ["'lon'", "row 1", "[-180, 180]"]),
    ("timestamp,value\n2020-01-01,1\nnotadate,2\n", "auto",
     ["'timestamp'", "row 2 (line 3)", "'notadate'", "ISO 8601"]),
    ("when,value\nsoon,1\n", "auto", ["no column holds dates", "'when'", "time_column"]),
    ("timestamp,value\n2020-01-01,1\n", "trajectory", ["latitude/longitude", "'lat'", "'lon'"]),
    ("timestamp,a,b\n2020-01-01,1,2\n", "contacts", ["contact column", "'contact'"]),
    ("timestamp,value\n", "auto", ["no data rows"]),
    ("timestamp,value\n2020-01-01,1\n2020-01-02,1,3\n", "auto", ["line 3", "3 fields", "first row has 2"]),
    ("timestamp,value,Value\n2020-01-01,1,2\n", "auto", ["'Value'", "more than once"]),
    ("timestamp,value,value\n2020-01-01,1,2\n", "auto", ["'value'", "more than once"]),
    ("date,hour,energy_kWh\n6/1/2012,25,1\n", "auto", ["'hour'", "row 1", "0 and 24"]),
    ("date,hour,energy_kWh\n6/1/2012,1,1\n", "trajectory", ["HUE", "kind='values'"]),
    ("timestamp,contact\n2020-01-01,1.5\n", "auto", ["'contact'", "whole-number"]),
    ("timestamp,value\n2020-01-01,\n", "auto", ["no usable rows"]),
    ("timestamp,value\n2020-01-01,true\n", "auto", ["'value'", "not a number"]),
]


@pytest.mark.parametrize("text,kind,words", DETECTED_CASES)
def test_bad_file_names_field_and_fix_with_the_detected_mapping(text, kind, words):
    with pytest.raises(DataError) as err:
        load_series(text.encode(), kind=kind)
    for word in words:
        assert word in str(err.value)


@pytest.mark.parametrize("text", [
    "timestamp;value\n2020-01-01;1,5\n",  # decimal comma
    "when,value\n2020-01-01,1\n",  # a time column not named so
    "timestamp,a,b\n2020-01-01,1,2\n",  # several number columns: the first, with a warning
    "Zeitstempel;Verbrauch (kWh)\n01.02.2020 00:00;1,5\n",
])
def test_what_strict_reading_refuses_the_default_call_reads(text):
    with pytest.raises(DataError):
        load_series(text.encode(), strict=True)
    assert len(load_series(text.encode())) == 1


@pytest.mark.parametrize("raw,words", [
    (b"", ["empty"]),
    (b"   \n\n", ["empty"]),
    (b"timestamp,value\n2020-01-01,\x001\n", ["line 2", "NUL", "binary"]),
    (b"timestamp,value\n2020-01-01,\xe91\n", ["line 2", "0xe9", "UTF-8"]),
    (b"timestamp,value\n2020-01-01,\x07\n", ["line 2", "U+0007", "binary"]),
    (b"PK\x03\x04rest", ["Excel", "CSV"]),
    (b"\x1f\x8b\x08rest", ["gzip"]),
    (b"PAR1notreallyparquetPAR1", ["Parquet"]),
])
def test_binary_and_encoding_errors(raw, words):
    with pytest.raises(DataError) as err:
        load_series(raw)
    for word in words:
        assert word in str(err.value)


def test_row_limit_is_enforced_and_configurable():
    raw = b"timestamp,value\n" + b"".join(f"2020-01-01 00:{m:02d},1\n".encode() for m in range(20))
    with pytest.raises(DataTooLargeError, match="more than 10 data rows"):
        load_series(raw, max_rows=10)
    assert len(load_series(raw, max_rows=20)) == 20


def test_byte_limit_for_bytes_path_and_stream(tmp_path):
    raw = b"timestamp,value\n2020-01-01,1\n" * 10
    for source in (raw, io.BytesIO(raw)):
        with pytest.raises(DataError, match="max_bytes") as err:
            load_series(source, max_bytes=50)
        assert isinstance(err.value, TooLargeError)
    path = tmp_path / "big.csv"
    path.write_bytes(raw)
    with pytest.raises(DataTooLargeError, match=f"{len(raw)} bytes"):
        load_series(path, max_bytes=50)


def test_bad_arguments():
    with pytest.raises(DataError, match="kind"):
        load_series(b"timestamp,value\n2020-01-01,1\n", kind="audio")
    with pytest.raises(DataError, match="source"):
        load_series(12345)
    with pytest.raises(DataError, match="cannot read file"):
        load_series("/nonexistent/file.csv")
    with pytest.raises(DataError, match="max_rows"):
        load_series(b"x", max_rows=0)


def test_unknown_entity_lists_what_the_file_holds():
    raw = b"2,2008-02-02 15:36:08,116.5,39.9\n3,2008-02-02 15:37:08,116.5,39.9\n"
    with pytest.raises(DataError, match="'id'.*entity 9.*2, 3"):
        load_series(raw, entity=9, strict=True)
    with pytest.raises(DataError, match="'id'.*entity '9'.*2, 3"):
        load_series(raw, entity=9)


def test_strict_and_mapping_together_are_refused():
    with pytest.raises(DataError, match="strict=True.*mapping"):
        load_series(b"timestamp,value\n2020-01-01,1\n", strict=True, mapping="detect")
    with pytest.raises(DataError, match="mapping must be"):
        load_series(b"timestamp,value\n2020-01-01,1\n", mapping="guess")


def test_text_mode_stream_is_accepted():
    assert len(load_series(io.StringIO("timestamp,value\n2020-01-01,1\n"))) == 1
