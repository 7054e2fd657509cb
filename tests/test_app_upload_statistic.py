"""AppTest: a multi-user upload on the Data page becomes one user's series, or the total, mean or count over all users
(or one group), and the chosen statistic flows into the other pages with its guarantee (issue 36)."""
from __future__ import annotations

from functools import partial
from pathlib import Path

import app_support
import numpy as np
import pandas as pd
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui import upload_statistic as panel
from ui.session import state

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "data" / "realworld"
open_data = partial(app_support.open_page, "pages/data_landmarks.py", 90)


def meters_csv() -> bytes:
    """Twelve meters, 48 hours, a feeder column; one reading (40 kWh) outside the public range 0–25."""
    rng = np.random.default_rng(3)
    times = pd.date_range("2024-03-01", periods=48, freq="1h").strftime("%Y-%m-%d %H:%M")
    frame = pd.DataFrame({"meter": np.repeat([f"m{u}" for u in range(12)], 48), "timestamp": np.tile(times, 12),
                          "kwh": rng.uniform(0, 3, 12 * 48).round(3),
                          "feeder": np.repeat(["north"] * 6 + ["south"] * 6, 48)})
    frame.loc[0, "kwh"] = 40.0
    return frame.to_csv(index=False).encode()


upload = app_support.upload


def use(at):
    next(b for b in at.button if b.label == "Use this series").click().run()
    assert not at.exception, at.exception
    return at


def sidebar(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def test_a_multi_meter_upload_offers_the_total_the_mean_and_one_group_with_their_guarantee():
    at = upload(open_data(source="upload"), "meters.csv", meters_csv())
    assert at.radio(key=panel.STAT).options == ["one user's own series", "the total over all users",
                                                "the mean over all users"]
    assert len(at.session_state[state.SERIES_UPLOAD]) == 48 and "sum over" not in sidebar(at)  # one meter first
    at.radio(key=panel.STAT).set_value("sum").run()
    use(at)  # no public range yet: refused, naming the field
    assert "public range" in app_support.shown(at)
    at.number_input(key=panel.LOW).set_value(0.0)
    at.number_input(key=panel.HIGH).set_value(25.0).run()
    use(at)
    total = at.session_state[state.SERIES_UPLOAD]
    assert total.name == "sum over 12 users" and len(total) == 48
    said = sidebar(at)
    assert "sum over 12 users" in said and "Δ = 25" in said and "the sum in [0, 300]" in said
    shown = app_support.shown(at)
    assert "1 readings lay outside the public range" in shown  # the clamp, counted
    assert "one user of 12 in a sum" in shown  # the panel's statement of what ε protects
    at.selectbox(key=panel.BY).set_value("feeder").run()
    assert at.selectbox(key=panel.GROUP).options == ["north", "south"]
    at.selectbox(key=panel.GROUP).set_value("south")
    at.radio(key=panel.STAT).set_value("mean").run()
    use(at)
    assert "mean over 6 users" in sidebar(at) and "Δ = 4.16667" in sidebar(at)
    at.switch_page("pages/schemes_utility.py").run()  # every page works on the chosen statistic
    assert not at.exception and "mean over 6 users" in sidebar(at)
    at.switch_page("pages/data_landmarks.py").run()
    assert at.radio(key=panel.STAT).value == "mean"  # the panel shows the statistic in use
    at.radio(key=panel.STAT).set_value("one").run()
    use(at)
    assert "mean over" not in sidebar(at) and len(at.session_state[state.SERIES_UPLOAD]) == 48


@pytest.mark.skipif(not REALWORLD.is_dir(), reason="../shared/data/realworld is absent")
def test_the_school_contacts_become_a_count_with_k():
    with open(REALWORLD / "sociopatterns_primaryschool.csv", "rb") as handle:
        raw = b"".join(handle.readline() for _ in range(3_000))
    at = upload(open_data(source="upload"), "primaryschool.csv", raw)
    assert at.radio(key=panel.STAT).options == ["one user's own series", "the count over all users"]
    at.radio(key=panel.STAT).set_value("count").run()
    assert at.text_input(key=panel.BIN).value == "5min"
    at.number_input(key=panel.K).set_value(2).run()
    use(at)
    said = sidebar(at)
    assert "count over" in said and "Δ = 2" in said
    assert "contact rows were dropped" in app_support.shown(at)


def test_the_import_steps_time_zone_keeps_the_clock_changes_repeated_hour_in_the_total():
    instants = pd.date_range("2024-10-26 22:00", periods=8, freq="1h", tz="UTC").tz_convert("Europe/Berlin")
    local = instants.tz_localize(None).strftime("%Y-%m-%d %H:%M")  # a naive local export: 02:00 twice
    raw = pd.DataFrame({"meter": np.repeat(["a", "b", "c"], 8), "timestamp": np.tile(local, 3),
                        "kwh": 1.0}).to_csv(index=False).encode()
    at = upload(open_data(source="upload"), "clock.csv", raw)
    at.radio(key=panel.STAT).set_value("sum").run()
    at.number_input(key=panel.LOW).set_value(0.0)
    at.number_input(key=panel.HIGH).set_value(25.0).run()
    use(at)
    assert len(at.session_state[state.SERIES_UPLOAD]) == 7 and "appears twice" in app_support.shown(at)  # said
    at.text_input(key="imp_timezone").input("Europe/Berlin")
    next(b for b in at.button if b.label == "Apply import settings").click().run()
    use(at)
    total = at.session_state[state.SERIES_UPLOAD]
    assert len(total) == 8 and str(total.timestamps.tz) == "Europe/Berlin"  # both 02:00 hours, in the wall clock
    assert "appears twice" not in app_support.shown(at) and "sum over 3 users" in sidebar(at)


def summed(raw: bytes, name: str = "meters.csv", bin: str = "1h"):
    """The Data page with ``raw`` uploaded and the total over users chosen (public range 0–25), not yet used."""
    at = upload(open_data(source="upload"), name, raw)
    at.radio(key=panel.STAT).set_value("sum").run()
    at.number_input(key=panel.LOW).set_value(0.0)
    at.number_input(key=panel.HIGH).set_value(25.0)
    at.text_input(key=panel.BIN).set_value(bin).run()
    return at


def test_a_public_time_range_releases_exactly_its_bins_as_the_cli_does():
    """Issue 53: the panel's time range mirrors --time-range: readings outside are dropped and counted, bins inside
    without readings are released; without it the statement says the span was read from the data."""
    at = summed(meters_csv())
    use(at)
    assert "time range was read from the data" in app_support.shown(at)  # the panel's "Now studied" line
    at.text_input(key=panel.START).input("2024-03-02")
    at.text_input(key=panel.END).input("2024-03-05").run()
    use(at)
    total = at.session_state[state.SERIES_UPLOAD]
    assert len(total) == 72 and str(total.timestamps[0]) == "2024-03-02 00:00:00"  # 24 h of readings, 48 h without
    said = app_support.shown(at)
    assert "public, given in advance" in said and "288 readings lay outside" in said  # 12 users × 24 h, counted
    at.text_input(key=panel.END).input("").run()
    use(at)
    assert "give both its start and its end" in app_support.shown(at)


def test_rows_without_a_user_id_are_refused_unless_dropped():
    frame = pd.read_csv(__import__("io").BytesIO(meters_csv()), dtype=str, keep_default_na=False)
    frame.loc[[3, 60], "meter"] = ""
    at = summed(frame.to_csv(index=False).encode())
    use(at)
    said = app_support.shown(at)
    assert "2 rows have no user id" in said and f"tick “{panel.DROP_LABEL}”" in said
    assert at.session_state[state.SERIES_UPLOAD].name != "sum over 12 users"
    at.checkbox(key=panel.DROP).check().run()
    use(at)
    assert at.session_state[state.SERIES_UPLOAD].name == "sum over 12 users"
    assert "2 rows without a user id were dropped" in app_support.shown(at)


def test_a_declared_window_marks_every_bin_it_touches():
    """A 1-day bin holds the night hours of the app's default rule (calendar:daily@01:00-06:00) though it starts at
    midnight: every day is a landmark, as lmdk aggregate marks it."""
    at = summed(meters_csv(), bin="1d")
    use(at)
    at.run()
    from lmdk.present.views import decode_landmarks

    marked = at.session_state[state.LANDMARKS]
    assert list(decode_landmarks(marked) if isinstance(marked, str) else marked) == [0, 1]
    assert len(at.session_state[state.SERIES_UPLOAD]) == 2
