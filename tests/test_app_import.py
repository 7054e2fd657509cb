"""AppTest: the import step of the Data & landmarks page with real exports (../shared/data/realworld)."""
from __future__ import annotations

from functools import partial
from pathlib import Path

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui.session import state

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "data" / "realworld"
needs_realworld = pytest.mark.skipif(not REALWORLD.is_dir(), reason="../shared/data/realworld is absent")
open_page = partial(app_support.open_page, "pages/data_landmarks.py", 60)


def upload(at, name: str, data: bytes | None = None):
    """Upload ``data``, or the real export ``name`` of ../shared/data/realworld."""
    return app_support.upload(at, name, data if data is not None else (REALWORLD / name).read_bytes())


def submit(at):
    next(b for b in at.button if b.label == "Apply import settings").click().run()
    assert not at.exception, at.exception


shown = app_support.shown


@needs_realworld
def test_german_excel_export_loads_without_a_click():
    at = upload(open_page(source="upload"), "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv")
    series = at.session_state[state.SERIES_UPLOAD]
    assert len(series) == 38 and series.units == "kWh" and not at.error
    assert series.values[0] == 2.534


@needs_realworld
def test_value_column_of_uci_power_is_a_choice_in_the_form():
    at = upload(open_page(source="upload"), "uci_household_power_consumption_subset.txt")
    assert "Global_active_power" in shown(at)  # the proposal is stated, with the alternatives
    at.selectbox(key="imp_value_column").set_value("Voltage")
    submit(at)
    series = at.session_state[state.SERIES_UPLOAD]
    assert series.values[0] == 234.840 and at.session_state[state.IMPORT_SPEC].value_column == "Voltage"


@needs_realworld
def test_two_taxi_file_offers_a_taxi_select_box_not_an_api_argument():
    at = upload(open_page(source="upload"), "tdrive_taxi1_and_2_combined.txt")
    box = at.selectbox(key="imp_entity")
    assert set(box.options) == {"2 — 19 rows", "1 — 16 rows"}
    box.set_value("1")
    submit(at)
    assert len(at.session_state[state.SERIES_UPLOAD]) == 14
    assert "entity=" not in shown(at)


@needs_realworld
def test_redd_dat_is_accepted_and_long_uploads_say_what_part_is_used():
    at = upload(open_page(source="upload"), "redd_house1_channel1_epoch.dat")
    assert len(at.session_state[state.SERIES_UPLOAD]) == 48
    at = upload(open_page(source="upload"), "geolife_001_20081024234405_crlf.plt")
    assert at.session_state[state.CURRENT].n == 7075  # taken whole (up to state.N_MAX events)
    at.number_input(key=state.widget_key(state.LENGTH)).set_value(1000).run()
    assert "7,075 events loaded; analysing 1,000 events" in shown(at)
    assert at.session_state[state.CURRENT].n == 1000


@needs_realworld
def test_relative_seconds_get_a_chosen_start():
    at = upload(open_page(source="upload"), "sociopatterns_primaryschool_user1558_userab.csv")
    assert "1970" in shown(at)
    at.text_input(key="imp_start").set_value("2009-10-01 00:00")
    submit(at)
    assert str(at.session_state[state.SERIES_UPLOAD].timestamps[0]) == "2009-10-01 08:40:20"


def test_changing_the_delimiter_rereads_the_columns():
    at = upload(open_page(source="upload"), "meter.txt", b"time|kwh\n2024-01-01 00:00|1.5\n2024-01-01 01:00|2.5\n")
    assert at.session_state[state.SERIES_UPLOAD].values.tolist() == [1.5, 2.5]
    at.selectbox(key="imp_delimiter").set_value(",")
    submit(at)
    assert at.error  # one column only: no value column, said in words
    assert "Traceback" not in shown(at)


def _long_table(sources=("Coal", "Wind", "Nuclear"), months=17) -> bytes:
    """An Iowa-electricity-like long table: one row per (month, source), so each month repeats."""
    import pandas as pd

    days = pd.date_range("2001-01-01", periods=months, freq="MS").strftime("%Y-%m-%d")
    rows = [f"{day},{source},{1000 + 10 * m + i}" for m, day in enumerate(days) for i, source in enumerate(sources)]
    return ("date,source,megawatthours\n" + "\n".join(rows) + "\n").encode()


def test_long_table_says_what_it_averaged_and_offers_the_source_column_as_the_entity():
    at = upload(open_page(source="upload"), "iowa.csv", _long_table())
    note = shown(at)
    assert "51 rows shared 17 timestamps; averaged them" in note and "'source'" in note  # the loader's warning
    assert "choose it below as the user/device column" in note  # the detection's question
    assert "entity=" not in note  # the app speaks of its settings, not of Python arguments
    box = at.selectbox(key="imp_entity_column")
    assert box.options == ["(none)", "source"] and box.value == "(none)"
    assert len(at.session_state[state.SERIES_UPLOAD]) == 17
    box.set_value("source")
    submit(at)
    series = at.session_state[state.SERIES_UPLOAD]
    assert len(series) == 17 and series.mapping.entity_column == "source" and series.mapping.entity == "Coal"
    assert "averaged" not in shown(at)
    entity = at.selectbox(key="imp_entity")
    assert set(entity.options) == {"Coal — 17 rows", "Wind — 17 rows", "Nuclear — 17 rows"}
    entity.set_value("Wind")
    submit(at)
    series = at.session_state[state.SERIES_UPLOAD]
    assert series.mapping.entity == "Wind" and series.values[0] == 1001


def test_every_loader_warning_is_shown():
    raw = (b"date,temp_max,temp_min,precipitation\n2012-01-02,10.6,2.8,10.9\n2012-01-01,12.8,5.0,0.0\n"
           b"2012-01-03,11.7,7.2,0.8\n2012-01-04,,5.6,20.3\n")
    at = upload(open_page(source="upload"), "seattle.csv", raw)
    series = at.session_state[state.SERIES_UPLOAD]
    assert len(series.warnings) == 3  # the value column taken, a missing value dropped, rows sorted
    note = shown(at)
    for warning in series.warnings:
        assert warning in note
    assert "used column 'temp_max' as the value; ignored the other numeric columns 'temp_min', 'precipitation'" in note


def test_a_refused_file_says_why_in_words():
    at = upload(open_page(source="upload"), "photo.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    assert at.error and "PNG image" in str(at.error[0].value)


@needs_realworld
def test_share_of_events_says_when_it_misses_its_target():
    at = upload(open_page(source="upload"), "geolife_000_20081024020959.plt")
    at.radio(key="detector_trajectory").set_value("fraction").run()
    slider = at.slider(key="frac_frac")
    assert slider.value == 20 and slider.max == 100  # the app speaks in %
    slider.set_value(50).run()
    at.button(key="det_replace").click().run()
    assert not at.exception
    n_landmarks = len(at.session_state[state.LANDMARKS])
    got = 100 * n_landmarks / 244
    note = shown(at)
    assert f"asked 50 %, got {got:.1f} %" in note
    if abs(got - 50) > 2.5:
        assert "closest this series allows" in note


@needs_realworld
def test_spatiotemporal_page_spreads_an_uploaded_trace_over_its_whole_span():
    at = upload(open_page(source="upload"), "geolife_001_20081024234405_crlf.plt")
    at.session_state[state.ST_SOURCE] = "series"
    at.switch_page("pages/spatiotemporal_events.py").run()
    assert not at.exception, at.exception
    note = shown(at)
    assert "evenly spread over its whole span" in note and "2008-10-24 23:44" in note
