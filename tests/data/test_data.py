"""Loaders, the Series dataclass and the bundled samples (lmdk.data, issue #5)."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from lmdk import data
from lmdk.data import DataError, Series, load_series, sample
from lmdk.data.samples import HUE_FILE
from lmdk.errors import ParameterError


def csv(text: str) -> bytes:
    """Test files are written inline as text."""
    return text.encode()


# -- HUE -------------------------------------------------------------------------------------
def test_hue_layout_gives_local_hourly_timestamps_and_kwh():
    s = load_series(csv("date,hour,energy_kWh\n6/1/2012,1,1.011\n6/1/2012,2,0.451\n6/1/2012,23,4.188\n"
                        "6/2/2012,0,0.613\n"))
    assert s.kind == "values" and s.units == "kWh"
    assert str(s.frame.index.tz) == data.HUE_TIMEZONE
    assert list(s.frame.index.strftime("%Y-%m-%d %H:%M%z")) == [
        "2012-06-01 01:00-0700", "2012-06-01 02:00-0700", "2012-06-01 23:00-0700", "2012-06-02 00:00-0700"]
    np.testing.assert_array_equal(s.values, [1.011, 0.451, 4.188, 0.613])
    assert s.warnings == ()


def test_hue_hour_24_is_midnight_of_the_next_day():
    s = load_series(csv("date,hour,energy_kWh\n6/1/2012,23,1\n6/1/2012,24,2\n"))
    assert s.frame.index[1] == pd.Timestamp("2012-06-02 00:00", tz=data.HUE_TIMEZONE)


def test_hue_repeated_hour_at_the_end_of_daylight_saving_is_two_events():
    s = load_series(csv("date,hour,energy_kWh\n11/4/2012,0,1\n11/4/2012,1,2\n11/4/2012,1,3\n11/4/2012,2,4\n"))
    assert len(s) == 4 and s.frame.index.is_unique
    assert np.all(np.diff(s.frame.index.asi8) == 3600 * 10**9)  # four consecutive real hours
    assert s.warnings == ()


def test_hue_real_file_matches_the_paper():
    s = load_series(HUE_FILE)
    assert len(s) == 29_230  # 29,231 rows, one exact duplicate (2013-04-01 01:00) averaged
    assert any("averaged" in w for w in s.warnings)
    first = s.values[:1000]
    assert round(first.mean(), 2) == 0.88 and round(first.max(), 2) == 4.45  # §4.1.1
    assert s.frame.index[0] == pd.Timestamp("2012-06-01 01:00", tz=data.HUE_TIMEZONE)
    assert len(s.source_hash) == 64


# -- trajectories ----------------------------------------------------------------------------
TDRIVE = "2,2008-02-02 15:36:08,116.51172,39.92123\n2,2008-02-02 15:46:08,116.51135,39.93883\n"


def test_tdrive_headerless_lines():
    s = load_series(csv(TDRIVE))
    assert s.kind == "trajectory"
    np.testing.assert_allclose(s.latlon(), [[39.92123, 116.51172], [39.93883, 116.51135]])
    assert s.frame.index[1] == pd.Timestamp("2008-02-02 15:46:08")


def test_tdrive_several_taxis_keeps_the_first_or_the_chosen_one():
    text = TDRIVE + "7,2008-02-02 15:50:00,116.4,39.9\n"
    s = load_series(csv(text))
    assert len(s) == 2 and any("kept taxi 2" in w for w in s.warnings)
    t = load_series(csv(text), entity=7)
    assert len(t) == 1 and t.latlon()[0, 0] == 39.9


def test_geolife_plt():
    plt = ("Geolife trajectory\nWGS 84\nAltitude is in Feet\nReserved 3\n0,2,255,My Track,0,0,2,8421376\n0\n"
           "39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04\n"
           "39.984683,116.31845,0,492,39744.1202546296,2008-10-23,02:53:10\n")
    s = load_series(io.BytesIO(csv(plt)))
    assert s.kind == "trajectory" and len(s) == 2
    assert s.frame.index[0] == pd.Timestamp("2008-10-23 02:53:04")
    np.testing.assert_allclose(s.latlon()[1], [39.984683, 116.31845])


def test_generic_trajectory_tsv_with_utc_offsets():
    s = load_series(csv("time\tlatitude\tlongitude\n2020-01-01T00:00:00Z\t1\t2\n2020-01-01T02:00:00+01:00\t3\t4\n"))
    assert s.kind == "trajectory" and str(s.frame.index.tz) == "UTC"
    assert s.frame.index[1] == pd.Timestamp("2020-01-01 01:00", tz="UTC")


def test_trajectory_duplicate_timestamp_keeps_first_fix_and_warns():
    s = load_series(csv("timestamp,lat,lon\n2020-01-01,1,2\n2020-01-01,5,6\n2020-01-02,3,4\n"))
    np.testing.assert_array_equal(s.latlon(), [[1, 2], [3, 4]])
    assert any("kept the first fix" in w for w in s.warnings)


def test_xy_uses_the_local_projection():
    s = sample("taxi", n=50)
    xy, origin = s.xy()
    assert xy.shape == (50, 2) and len(origin) == 2
    assert np.all(np.abs(xy) < 100_000)


# -- contacts --------------------------------------------------------------------------------
COPENHAGEN = "timestamp,user_a,user_b,rssi\n0,449,-1,0\n300,449,12,-80\n300,449,-2,-75\n600,449,12,-70\n600,3,12,-70\n"


def test_copenhagen_layout_keeps_sentinels_and_several_contacts_per_scan():
    s = load_series(csv(COPENHAGEN), strict=True)  # the strict reader: seconds since 1970
    assert s.kind == "contacts"
    np.testing.assert_array_equal(s.contacts, [data.NOTHING_FOUND, 12, data.NON_PARTICIPANT, 12])
    assert s.frame.index[0] == pd.Timestamp("1970-01-01 00:00:00")  # seconds since the study start
    assert s.frame.index[1] == s.frame.index[2]  # one scan found two devices
    assert s.contacts.dtype == np.int64
    assert any("kept device 449" in w for w in s.warnings)


def test_copenhagen_layout_by_default_reads_relative_seconds_like_the_app():
    s = load_series(csv(COPENHAGEN))
    assert s.kind == "contacts" and s.mapping.time_format == "relative_s"
    assert s.frame.index[0] == pd.Timestamp("2000-01-01 00:00:00")
    assert any("seconds from 2000-01-01" in w and "start" in w for w in s.warnings)
    assert any("449" in w and "entity=" in w for w in s.warnings)  # the device kept, and how to choose another


def test_contacts_repeated_pair_is_dropped_and_counted():
    s = load_series(csv("timestamp,contact\n2020-01-01,5\n2020-01-01,5\n2020-01-02,7\n"))
    np.testing.assert_array_equal(s.contacts, [5, 7])
    assert any("dropped the repeats" in w for w in s.warnings)


def test_contacts_with_text_labels():
    s = load_series(csv("timestamp,contact\n2020-01-01,alice\n2020-01-02, bob\n"))
    assert list(s.contacts) == ["alice", "bob"]


# -- generic values --------------------------------------------------------------------------
def test_values_policy_drops_missing_and_averages_repeated_timestamps():
    s = load_series(csv("timestamp,power (W)\n2020-01-01 02:00,3\n2020-01-01 00:00,1\n2020-01-01 01:00,\n"
                        "2020-01-01 00:00,2\n"))
    assert s.units == "W"
    np.testing.assert_array_equal(s.values, [1.5, 3.0])
    joined = " | ".join(s.warnings)
    assert "1 row with a missing timestamp or value dropped (rows 3)" in joined
    assert "averaged" in joined and "sorted" in joined


def test_numeric_timestamps_are_seconds_since_1970():
    s = load_series(csv("timestamp,value\n0,1\n3600,2\n"), strict=True)
    assert s.frame.index[1] == pd.Timestamp("1970-01-01 01:00")
    s = load_series(csv("timestamp,value\n1300000000,1\n1300003600,2\n"))  # detected: Unix time
    assert s.frame.index[1] == pd.Timestamp("2011-03-13 08:06:40", tz="UTC")
    s = load_series(csv("timestamp,value\n0,1\n3600,2\n"))  # detected: small numbers are relative seconds
    assert s.frame.index[1] == pd.Timestamp("2000-01-01 01:00") and "not as dates in 1970" in s.warnings[0]


def test_headerless_timestamp_value_pairs():
    s = load_series(csv("2020-01-01,5\n2020-01-02,6\n"))
    np.testing.assert_array_equal(s.values, [5, 6])


def test_semicolon_separated_and_bom_and_crlf():
    s = load_series(b"\xef\xbb\xbftimestamp;value\r\n2020-01-01;1.5\r\n2020-01-02;2\r\n")
    np.testing.assert_array_equal(s.values, [1.5, 2.0])


def test_parquet_from_memory_with_timestamp_index_and_tz():
    frame = pd.DataFrame({"lat": [1.0, 2.0], "lon": [3.0, 4.0]},
                         index=pd.date_range("2020-01-01", periods=2, freq="h", tz="Europe/Paris", name="timestamp"))
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    s = load_series(buffer.getvalue())
    assert s.kind == "trajectory" and s.frame.index[0] == pd.Timestamp("2019-12-31 23:00", tz="UTC")


def test_explicit_kind_and_path_source(tmp_path):
    path = tmp_path / "meter.csv"
    path.write_bytes(csv("timestamp,contact\n2020-01-01,3\n2020-01-02,4\n"))
    s = load_series(path, kind="values")
    assert s.kind == "values" and s.name == "meter.csv"
    assert load_series(str(path)).kind == "contacts"


def test_source_hash_is_sha256_of_the_raw_bytes():
    import hashlib

    raw = csv("timestamp,value\n2020-01-01,1\n")
    assert load_series(raw).source_hash == hashlib.sha256(raw).hexdigest()
    assert load_series(io.BytesIO(raw)).source_hash == hashlib.sha256(raw).hexdigest()


# -- Series ----------------------------------------------------------------------------------
def test_series_invariants_are_checked():
    frame = pd.DataFrame({"value": [1.0, 2.0]}, index=pd.DatetimeIndex(["2020-01-02", "2020-01-01"], name="timestamp"))
    with pytest.raises(ParameterError, match="sorted"):
        Series(frame=frame, kind="values")
    with pytest.raises(ParameterError, match="kind"):
        Series(frame=frame.sort_index(), kind="other")
    with pytest.raises(ParameterError, match="lat"):
        Series(frame=frame.sort_index(), kind="trajectory")
    with pytest.raises(ParameterError, match="not a trajectory"):
        Series(frame=frame.sort_index(), kind="values").latlon()


def test_constructors_and_head():
    s = data.from_values([1, 2, 3], units="kWh")
    assert len(s) == 3 and s.units == "kWh" and len(s.head(2)) == 2
    assert s.head(2).source_hash != s.source_hash
    with pytest.raises(DataError):
        data.from_values([1.0, np.nan])
    with pytest.raises(DataError):
        data.from_trajectory([0, 1], [91, 0], [0, 0])
    c = data.from_contacts(np.array(["2020-01-01", "2020-01-01"], dtype="datetime64[ns]"), [1, 2])
    assert c.frame.index.has_duplicates  # allowed for contacts only


# -- samples ---------------------------------------------------------------------------------
def test_samples_are_described_and_flag_synthetic_ones():
    assert set(data.SAMPLES) == {"hue", "taxi", "contacts"}
    assert not data.SAMPLES["hue"].synthetic
    for name in ("taxi", "contacts"):
        info = data.SAMPLES[name]
        assert info.synthetic and "synthetic" in info.description.lower() + info.title.lower()


def test_hue_sample_is_the_first_1000_rows_or_all():
    s = sample("hue")
    assert len(s) == 1000 and s.warnings == ()
    assert len(sample("hue", n=None)) == 29_230


def test_taxi_sample_has_t_drive_statistics():
    s = sample("taxi")
    assert len(s) == 1000 and s.kind == "trajectory"
    assert np.diff(s.seconds).mean() == pytest.approx(177, rel=0.01)
    xy, _ = s.xy()
    steps = np.hypot(*np.diff(xy, axis=0).T)
    assert steps.mean() == pytest.approx(623, rel=0.01)
    assert np.mean(steps < 50) > 0.2  # stops exist …
    assert np.quantile(steps, 0.9) > 1000  # … and so does driving


def test_synthetic_samples_are_deterministic_per_seed():
    for name in ("taxi", "contacts"):
        a, b, c = sample(name, seed=3), sample(name, seed=3), sample(name, seed=4)
        assert a.frame.equals(b.frame) and not a.frame.equals(c.frame)


def test_contact_sample_mixes_sentinels_and_repeated_contacts():
    s = sample("contacts")
    ids = s.contacts
    assert len(s) == 1000
    steps = np.diff(s.seconds)
    assert np.median(steps) == pytest.approx(300, abs=8)  # 5-minute scans
    for sentinel in (data.NOTHING_FOUND, data.NON_PARTICIPANT):
        assert 0.03 < np.mean(ids == sentinel) < 0.3
    valid, counts = np.unique(ids[ids >= 0], return_counts=True)
    assert counts.max() >= 50 and np.sum(counts == 1) >= 5  # close contacts and rare ones


def test_unknown_sample_and_bad_n():
    with pytest.raises(ParameterError, match="unknown sample"):
        sample("geolife")
    with pytest.raises(ParameterError, match="n must"):
        sample("taxi", n=0)
