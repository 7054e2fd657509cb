"""A series written in any supported dialect reads back equal with the detected mapping (hypothesis)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmdk.data import mapping
from lmdk.errors import DataError

FORMATS = ("iso", "dayfirst", "monthfirst", "epoch_s", "epoch_ms")


@st.composite
def dialects(draw):
    n = draw(st.integers(3, 40))
    values = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 3)), min_size=n, max_size=n))
    delimiter = draw(st.sampled_from([",", ";", "\t", " "]))
    decimal = draw(st.sampled_from([".", ","])) if delimiter != "," else "."
    fmt = draw(st.sampled_from(FORMATS))
    day = draw(st.integers(1, 28))
    start = pd.Timestamp(year=draw(st.integers(2001, 2030)), month=draw(st.integers(1, 12)), day=day,
                         hour=draw(st.integers(0, 23)))
    step = draw(st.sampled_from(["15min", "1h", "1D"]))
    return dict(values=values, delimiter=delimiter, decimal=decimal, fmt=fmt, start=start, step=step,
                bom=draw(st.booleans()), crlf=draw(st.booleans()), header=draw(st.booleans()) or delimiter == " ")


def write(d) -> tuple[bytes, pd.DatetimeIndex]:
    times = pd.date_range(d["start"], periods=len(d["values"]), freq=d["step"])
    fmt = d["fmt"]
    if fmt == "iso":
        stamps = times.strftime("%Y-%m-%dT%H:%M:%S")
    elif fmt == "dayfirst":
        stamps = times.strftime("%d.%m.%Y %H:%M" if d["decimal"] == "," else "%d/%m/%Y %H:%M")
    elif fmt == "monthfirst":
        stamps = times.strftime("%m/%d/%Y %H:%M")
    else:
        seconds = times.asi8 // 10**9
        stamps = [str(s * 1000 if fmt == "epoch_ms" else s) for s in seconds]
    if d["delimiter"] == " ":
        stamps = [s.replace(" ", "T") for s in stamps]  # a space-separated file cannot hold spaces in a cell
    cells = [repr(v).replace(".", ",") if d["decimal"] == "," else repr(v) for v in d["values"]]
    rows = [f"{t}{d['delimiter']}{v}" for t, v in zip(stamps, cells, strict=True)]
    if d["header"]:
        rows.insert(0, f"timestamp{d['delimiter']}value")
    text = ("\r\n" if d["crlf"] else "\n").join(rows) + "\n"
    raw = text.encode("utf-8")
    return (b"\xef\xbb\xbf" + raw if d["bom"] else raw), times


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dialects())
def test_written_dialect_reads_back_equal(d):
    raw, times = write(d)
    detection = mapping.detect(raw)
    spec = detection.spec
    order = {"dayfirst": "dayfirst", "monthfirst": "monthfirst"}.get(d["fmt"])
    if order and spec.time_format != order:
        # only allowed when every date fits both orders, and then detection must have asked
        assert any("day/month" in q for q in detection.questions), (spec, detection.questions)
        spec = replace(spec, time_format=order)  # the user's one choice
    series = mapping.apply(raw, spec)
    np.testing.assert_array_equal(series.values, np.asarray(d["values"]))
    got = series.timestamps.tz_localize(None) if series.timestamps.tz is not None else series.timestamps
    expected = times.floor("min") if d["fmt"] in ("dayfirst", "monthfirst") else times
    assert (got == expected).all()
    assert spec.delimiter == d["delimiter"] and spec.decimal == d["decimal"]


def test_ambiguous_day_month_is_asked_and_defaults_to_the_files_conventions():
    text = "Zeit;Wert\n01.02.2024 10:00;1,5\n03.04.2024 11:00;2,5\n"
    detection = mapping.detect(text.encode())
    assert detection.spec.time_format == "dayfirst" and any("day/month" in q for q in detection.questions)
    us = "time,value\n01/02/2024 10:00,1.5\n03/04/2024 11:00,2.5\n"
    assert mapping.detect(us.encode()).spec.time_format == "monthfirst"


def test_mixed_day_month_orders_are_refused():
    text = "time,value\n13/01/2024,1\n01/13/2024,2\n"
    with pytest.raises(DataError, match="mix day-first and month-first"):
        mapping.detect(text.encode())


def test_a_wrong_choice_gets_a_message_naming_the_fix():
    raw = b"time,value\n2024-01-31 10:00,1\n2024-02-01 10:00,2\n"
    spec = replace(mapping.detect(raw).spec, time_format="epoch_s")
    with pytest.raises(DataError, match="is not a number of seconds"):
        mapping.apply(raw, spec)
    with pytest.raises(DataError, match="time_format must be one of"):
        replace(spec, time_format="julian")
