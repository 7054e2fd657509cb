"""The default ``load_series(path)``: detected mapping, one-line repr, and complete warnings in plain words.

Small synthetic files mimic real tables: Seattle weather (several numeric columns), Iowa electricity by source
(a long table whose 'source' column makes every date repeat), a GPS log with repeated fixes, and timestamps
whose UTC offset changes at the daylight-saving switches.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lmdk.data import DataError, ImportSpec, load_series, mapping


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


SEATTLE = ("date,temp_max,temp_min,precipitation\n2012-01-01,12.8,5.0,0.0\n2012-01-02,10.6,2.8,10.9\n"
           "2012-01-03,11.7,7.2,0.8\n2012-01-04,12.2,5.6,20.3\n")


def iowa(sources=("Coal", "Wind", "Nuclear"), months=17) -> str:
    days = pd.date_range("2001-01-01", periods=months, freq="MS").strftime("%Y-%m-%d")
    rows = [f"{day},{source},{1000 + 10 * m + i}" for m, day in enumerate(days) for i, source in enumerate(sources)]
    return "date,source,megawatthours\n" + "\n".join(rows) + "\n"


def test_several_numeric_columns_the_warning_names_the_one_taken_and_the_ones_ignored(tmp_path):
    series = load_series(write(tmp_path, "seattle.csv", SEATTLE))
    assert series.mapping.value_column == "temp_max" and series.values.tolist() == [12.8, 10.6, 11.7, 12.2]
    assert series.warnings == ("used column 'temp_max' as the value; ignored the other numeric columns 'temp_min', "
                               "'precipitation' — pass mapping= with another value_column to use one of them",)
    other = load_series(tmp_path / "seattle.csv", mapping={**series.mapping.to_dict(), "value_column": "temp_min"})
    assert other.values[0] == 5.0 and "'temp_min' as the value" in other.warnings[0]
    with pytest.raises(DataError, match="ambiguous value column"):
        load_series(tmp_path / "seattle.csv", strict=True)


def test_long_table_averaging_names_the_entity_column_and_detection_lists_it(tmp_path):
    path = write(tmp_path, "iowa.csv", iowa())
    series = load_series(path)
    assert len(series) == 17 and series.values[0] == pytest.approx(1001)  # mean of 1000, 1001, 1002
    assert series.warnings == ("51 rows shared 17 timestamps; averaged them (34 rows fewer; repeated: "
                               "2001-01-01T00:00:00, 2001-02-01T00:00:00, 2001-03-01T00:00:00 and 14 more); the "
                               "column 'source' "
                               "(e.g. 'Coal', 'Wind', 'Nuclear') looks like an entity (user/device): choose one with "
                               "entity=...",)
    detection = mapping.detect(path)
    assert detection.entity_candidates == ("source",) and detection.spec.entity_column is None
    assert any("'source'" in q and "averaged" in q for q in detection.questions)
    strict = load_series(path, strict=True)  # the strict reader says it too, and how to choose
    assert any("'source'" in w and "without strict=True" in w for w in strict.warnings)


def test_long_table_entity_picks_one_source(tmp_path):
    path = write(tmp_path, "iowa.csv", iowa())
    wind = load_series(path, entity="Wind")
    assert len(wind) == 17 and wind.values[0] == 1001 and wind.warnings == ()
    assert (wind.mapping.entity_column, wind.mapping.entity) == ("source", "Wind")
    assert "entity 'source'='Wind'" in repr(wind)
    with pytest.raises(DataError, match="entity='Gas'.*'source' holds e.g. Coal, Wind, Nuclear"):
        load_series(path, entity="Gas")
    with pytest.raises(DataError, match="entity=.*no column of users or devices"):
        load_series(write(tmp_path, "seattle.csv", SEATTLE), entity="x")


def test_numeric_columns_do_not_count_as_entities(tmp_path):
    text = "date,reading,quality\n2020-01-01,1,5\n2020-01-01,2,6\n2020-01-02,3,5\n2020-01-02,4,6\n"
    detection = mapping.detect(write(tmp_path, "m.csv", text))
    assert detection.entity_candidates == ()


def test_gps_repeated_timestamps_keep_the_first_fix(tmp_path):
    times = pd.date_range("2020-01-01", periods=60, freq="min").strftime("%Y-%m-%d %H:%M:%S").tolist()
    times = sorted(times + times[:53])
    rng = np.random.default_rng(0)
    lat, lon = 40 + rng.random(len(times)) / 100, 116 + rng.random(len(times)) / 100
    lines = [f"{t},{a:.6f},{o:.6f}" for t, a, o in zip(times, lat, lon, strict=True)]
    path = write(tmp_path, "gps.csv", "timestamp,latitude,longitude\n" + "\n".join(lines) + "\n")
    series = load_series(path)
    assert series.kind == "trajectory" and len(series) == 60
    assert series.warnings == ("53 fixes repeated an earlier timestamp; kept the first fix (repeated: "
                               "2020-01-01T00:00:00, 2020-01-01T00:01:00, 2020-01-01T00:02:00 and 50 more)",)
    np.testing.assert_allclose(series.latlon()[0], [round(lat[0], 6), round(lon[0], 6)])


def test_gps_of_two_devices_names_the_device_column(tmp_path):
    text = ("time,lat,lon,phone\n2020-01-01 00:00,40.0,116.0,a\n2020-01-01 00:00,41.0,117.0,b\n"
            "2020-01-01 00:01,40.1,116.1,a\n2020-01-01 00:01,41.1,117.1,b\n")
    series = load_series(write(tmp_path, "two.csv", text))
    assert len(series) == 2 and "kept the first fix" in series.warnings[0] and "'phone'" in series.warnings[0]
    assert load_series(tmp_path / "two.csv", entity="b").latlon()[0, 0] == 41.0


SPRING = ("timestamp,value\n2024-03-31 00:00+01:00,1\n2024-03-31 01:00+01:00,2\n2024-03-31 03:00+02:00,3\n"
          "2024-03-31 04:00+02:00,4\n")
AUTUMN = ("timestamp,value\n2024-10-27 01:00+02:00,1\n2024-10-27 02:00+02:00,2\n2024-10-27 02:00+01:00,3\n"
          "2024-10-27 03:00+01:00,4\n")
DST_NOTE = "timestamps carried UTC offsets +01:00 and +02:00 (daylight saving); converted to UTC"


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("text,first", [(SPRING, "2024-03-30 23:00"), (AUTUMN, "2024-10-26 23:00")])
def test_daylight_saving_offsets_are_converted_to_utc(tmp_path, text, first, strict):
    series = load_series(write(tmp_path, "dst.csv", text), strict=strict)
    assert str(series.timestamps.tz) == "UTC" and series.timestamps[0] == pd.Timestamp(first, tz="UTC")
    assert np.all(np.diff(series.timestamps.asi8) == 3600 * 10**9)  # four consecutive real hours
    assert series.values.tolist() == [1, 2, 3, 4] and series.warnings == (DST_NOTE,)


def test_daylight_saving_offsets_in_a_trajectory_with_a_t_separator(tmp_path):
    text = ("tracked_at;latitude;longitude\n2024-10-27T02:30:00+02:00;47.1;8.5\n2024-10-27T02:10:00+01:00;47.2;8.6\n")
    series = load_series(write(tmp_path, "walk.csv", text))
    assert series.timestamps.tolist() == [pd.Timestamp("2024-10-27 00:30", tz="UTC"),
                                          pd.Timestamp("2024-10-27 01:10", tz="UTC")]
    assert DST_NOTE in series.warnings


def test_one_offset_is_no_warning(tmp_path):
    series = load_series(write(tmp_path, "utc.csv", "timestamp,value\n2024-01-01T00:00Z,1\n2024-01-01T01:00Z,2\n"))
    assert series.warnings == () and str(series.timestamps.tz) == "UTC"


def test_repr_is_one_line_with_n_kind_units_span_and_the_mapping(tmp_path):
    path = write(tmp_path, "meter;1.csv", "Zeitstempel;Verbrauch (kWh)\n01.02.2020 00:00;1,5\n01.02.2020 01:00;2\n")
    series = load_series(path)
    text = repr(series)
    assert text == ("Series(n=2, kind='values', units='kWh', 2020-02-01 00:00:00 to 2020-02-01 01:00:00, "
                    "name='meter;1.csv', mapping=<delimiter ';', decimal ',', time 'Zeitstempel' (dayfirst), "
                    "value 'Verbrauch (kWh)'>)")
    assert isinstance(series.mapping, ImportSpec)


def test_repr_makes_no_python_warnings(tmp_path, recwarn):
    series = load_series(write(tmp_path, "dst.csv", SPRING))
    assert "\n" not in repr(series) and "\n" not in str(series)
    assert len(recwarn) == 0


def test_kind_and_explicit_mapping_options(tmp_path):
    path = write(tmp_path, "c.csv", "timestamp,contact\n2020-01-01,3\n2020-01-02,4\n")
    assert load_series(path).kind == "contacts"
    values = load_series(path, kind="values")
    assert values.kind == "values" and values.values.tolist() == [3, 4]
    spec = mapping.detect(path).spec
    assert load_series(path, mapping=spec).mapping == spec
    assert load_series(path, mapping=spec.to_dict()).mapping == spec
    with pytest.raises(DataError, match="kind='trajectory' but the mapping reads a contacts series"):
        load_series(path, mapping=spec, kind="trajectory")
