"""Every real export in ../shared/data/realworld/ loads with the detected import mapping plus at most one choice.

Expected lengths, spans and first/last values were read off the files by hand (head/tail of each file; see
../shared/data/realworld/NOTES.md for their sources). The choice documented per file is the one click the
import step needs; None = the detected mapping is used as proposed.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk.data import DataError, load_series, mapping

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "realworld"
pytestmark = pytest.mark.skipif(not REALWORLD.is_dir(), reason="../shared/data/realworld is absent")

# file → (choice, kind, n, first time, last time, first payload, last payload)
CASES = {
    "geolife_000_20081024020959.plt": (None, "trajectory", 244, "2008-10-24 02:09:59", "2008-10-24 02:47:06",
                                       None, (40.009209, 116.321162)),
    "geolife_000_20081023025304_crlf.plt": (None, "trajectory", 908, "2008-10-23 02:53:04", "2008-10-23 11:11:12",
                                            None, (40.009328, 116.320887)),
    "geolife_001_20081024234405_crlf.plt": (None, "trajectory", 7075, "2008-10-24 23:44:05", "2008-10-25 11:30:01",
                                            None, (40.013816, 116.306483)),
    "trackintel_geolife_trajectory_semicolon.csv": (None, "trajectory", 2293, "2008-10-26 05:59:34+00:00",
                                                    "2008-10-26 13:22:30+00:00", (39.979984, 116.324016),
                                                    (39.954421, 116.362646)),
    # times in descending order in the file: sorted, so the file's last row comes first
    "trackintel_google_trajectory_semicolon.csv": (None, "trajectory", 416, "2012-12-18 11:53:30+00:00",
                                                   "2012-12-18 21:30:35+00:00", (47.3661502, 8.5493352),
                                                   (47.3766094, 8.5484732)),
    "trackintel_posmo_trajectory_semicolon.csv": (None, "trajectory", 1327, "2019-01-25 20:00:16.178999901",
                                                  "2019-01-25 20:52:13", (47.0516249, 7.0389004),
                                                  (46.5169352, 6.6274571)),
    # 16 rows of taxi 1, two exact duplicates dropped (kept the first fix)
    "tdrive_taxi1_benchtsdb.txt": (None, "trajectory", 14, "2008-02-02 15:36:08", "2008-02-02 21:10:33",
                                   (39.92123, 116.51172), (39.90798, 116.59512)),
    "tdrive_taxi2_iotbenchmark.txt": (None, "trajectory", 18, "2008-02-02 13:33:52", "2008-02-02 14:19:07",
                                      (39.88781, 116.36422), (39.88109, 116.4578)),
    # one choice: taxi 1 (the proposal is taxi 2, the one with more rows)
    "tdrive_taxi1_and_2_combined.txt": ({"entity": "1"}, "trajectory", 14, "2008-02-02 15:36:08",
                                        "2008-02-02 21:10:33", (39.92123, 116.51172), (39.90798, 116.59512)),
    "redd_house1_channel1_epoch.dat": (None, "values", 48, "2011-04-18 13:22:09+00:00", "2011-04-18 13:22:56+00:00",
                                       224.19, 223.58),
    "redd_house1_channel1_epoch_header.csv": (None, "values", 48, "2011-04-18 13:22:09+00:00",
                                              "2011-04-18 13:22:56+00:00", 224.19, 223.58),
    # one choice would pick another of the 7 numeric columns; the proposal (Global_active_power, kW) is used
    "uci_household_power_consumption_subset.txt": (None, "values", 2203, "2006-12-16 17:24:00",
                                                   "2006-12-18 06:06:00", 4.216, 0.390),
    "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv": (None, "values", 38, "2006-12-16 17:00:00",
                                                               "2006-12-18 06:00:00", 2.534, 0.033),
    # relative seconds: the proposal reads them from 2000-01-01; the one choice here is the child (1558)
    "sociopatterns_primaryschool.csv": ({"entity": "1558"}, "contacts", 2119, "2000-01-01 08:40:20",
                                        "2000-01-02 17:03:00", None, None),
    "sociopatterns_primaryschool_user1558_userab.csv": (None, "contacts", 2119, "2000-01-01 08:40:20",
                                                        "2000-01-02 17:03:00", 1567, 1685),
}


def load(name: str):
    detection = mapping.detect(REALWORLD / name)
    choice = CASES[name][0]
    spec = replace(detection.spec, **choice) if choice else detection.spec
    return detection, mapping.apply(REALWORLD / name, spec)


def test_every_real_file_is_covered():
    present = {p.name for p in REALWORLD.iterdir() if p.name != "NOTES.md"}
    assert present == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_real_file_loads_with_the_detected_mapping_plus_at_most_one_choice(name):
    choice, kind, n, first, last, first_payload, last_payload = CASES[name]
    detection, series = load(name)
    assert series.kind == kind and len(series) == n
    assert series.timestamps[0] == pd.Timestamp(first) and series.timestamps[-1] == pd.Timestamp(last)
    payload = {"values": lambda s: s.values, "trajectory": lambda s: s.latlon(), "contacts": lambda s: s.contacts}
    data = payload[kind](series)
    if first_payload is not None:
        np.testing.assert_allclose(data[0], first_payload)
    if last_payload is not None:
        np.testing.assert_allclose(data[-1], last_payload)
    assert "entity=" not in " ".join(detection.questions + series.warnings)


def test_german_excel_export_reads_decimal_comma_day_first_and_units():
    detection, series = load("uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv")
    spec = detection.spec
    assert (spec.delimiter, spec.decimal, spec.time_format) == (";", ",", "dayfirst")
    assert spec.time_column == "Zeitstempel" and spec.value_column == "Verbrauch (kWh)" and series.units == "kWh"
    lines = (REALWORLD / "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv").read_text(encoding="utf-8-sig")
    by_hand = [float(line.split(";")[1].replace(",", ".")) for line in lines.splitlines()[1:] if line.strip()]
    np.testing.assert_array_equal(series.values, by_hand)


def test_uci_date_and_time_columns_are_combined_not_dated_today():
    detection, series = load("uci_household_power_consumption_subset.txt")
    assert (detection.spec.date_column, detection.spec.time_column) == ("Date", "Time")
    assert series.timestamps.normalize().unique().size == 3  # 16, 17 and 18 December 2006
    assert any("Global_reactive_power" in q for q in detection.questions)  # the value column is offered as a choice


def test_relative_seconds_are_flagged_and_take_the_chosen_start():
    detection = mapping.detect(REALWORLD / "sociopatterns_primaryschool_user1558_userab.csv")
    assert detection.spec.time_format == "relative_s" and any("1970" in q for q in detection.questions)
    series = mapping.apply(REALWORLD / "sociopatterns_primaryschool_user1558_userab.csv",
                           replace(detection.spec, start="2009-10-01 00:00"))
    assert series.timestamps[0] == pd.Timestamp("2009-10-01 08:40:20")


def test_full_sociopatterns_file_gives_the_same_contacts_as_the_per_child_cut():
    _, full = load("sociopatterns_primaryschool.csv")
    _, cut = load("sociopatterns_primaryschool_user1558_userab.csv")
    def key(s):
        return sorted(zip(s.timestamps.asi8.tolist(), s.contacts.tolist(), strict=True))
    assert key(full) == key(cut)


def test_multi_entity_files_list_their_entities_with_row_counts():
    detection = mapping.detect(REALWORLD / "tdrive_taxi1_and_2_combined.txt")
    assert detection.entities.to_dict() == {"2": 19, "1": 16}
    detection = mapping.detect(REALWORLD / "sociopatterns_primaryschool.csv")
    assert len(detection.entities) == 242 and detection.entities["1558"] == 2119


def test_load_series_detect_is_the_same_as_detect_then_apply():
    path = REALWORLD / "trackintel_posmo_trajectory_semicolon.csv"
    a = load_series(path, mapping="detect")
    b = mapping.apply(path, mapping.detect(path).spec)
    pd.testing.assert_frame_equal(a.frame, b.frame)


# the strict reader (load_series(..., strict=True)) refuses these; the default call detects their mapping
STRICT_REFUSES = {"redd_house1_channel1_epoch.dat", "sociopatterns_primaryschool.csv",
                  "trackintel_geolife_trajectory_semicolon.csv", "trackintel_google_trajectory_semicolon.csv",
                  "trackintel_posmo_trajectory_semicolon.csv", "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv",
                  "uci_household_power_consumption_subset.txt"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_real_file_loads_by_the_default_call_like_the_app(name):
    choice, kind, n, first, last, _, _ = CASES[name]
    series = load_series(REALWORLD / name)
    detection = mapping.detect(REALWORLD / name)
    assert series.kind == kind and series.mapping == detection.spec  # the app's proposal, no click
    pd.testing.assert_frame_equal(series.frame, mapping.apply(REALWORLD / name, detection.spec).frame)
    if choice is None:
        assert len(series) == n and series.timestamps[0] == pd.Timestamp(first)
    else:  # the entity with most rows; the file's other entities are one argument away
        entity = choice["entity"]
        assert any("entity=" in w for w in series.warnings)
        chosen = load_series(REALWORLD / name, entity=entity)
        assert len(chosen) == n and chosen.mapping.entity == entity
    text = repr(series)
    assert "\n" not in text and f"n={len(series)}" in text and series.mapping.summary() in text
    assert str(series.timestamps[0]) in text and str(series.timestamps[-1]) in text


@pytest.mark.parametrize("name", sorted(CASES))
def test_strict_reading_refuses_what_it_refused_before(name):
    if name in STRICT_REFUSES:
        with pytest.raises(DataError):
            load_series(REALWORLD / name, strict=True)
    else:
        series = load_series(REALWORLD / name, strict=True)
        assert series.mapping is None and "mapping=None" in repr(series)
