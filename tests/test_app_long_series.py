"""AppTest: long series (issue 28) — a year of 5-minute readings is taken whole; above state.N_MAX the Data &
landmarks page offers a window or an hourly/daily aggregation (with its privacy meaning) instead of a cut; the
charts draw at most ~2,000 real points per line; long series default to fewer repetitions and say so."""
from __future__ import annotations

from functools import partial

import app_support
import numpy as np
import pandas as pd
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui import charts
from ui.session import state

open_page = partial(app_support.open_page, "pages/data_landmarks.py", 300)
shown = app_support.shown


def _timeline_meta(at) -> tuple[dict, dict]:
    """layout.meta and the spec of the page's (first) chart: the timeline."""
    import json

    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return charts.meta_of(spec["layout"]), spec


def test_a_year_of_5_minute_readings_is_taken_whole_opens_readable_and_is_drawn_downsampled():
    at = open_page(source="synthetic", syn_n="105120")
    cur = at.session_state[state.CURRENT]
    assert cur.n == 105_120 and cur.full_n == 0  # no cut, no window
    # it opens at a readable zoom (issue 35): its first 500 events, every one drawn, not 105,120 as a solid block
    meta, spec = _timeline_meta(at)
    assert (meta["window"]["first"], meta["window"]["stop"], meta["window"]["drawn"]) == (0, 500, 500)
    assert app_support.array(spec["data"][0]["customdata"]).astype(int).tolist() == list(range(500))
    assert "opens at its first 500 events" in shown(at)
    at.select_slider(key="zoom_width").set_value(105_120).run()  # 'whole series': downsampled, real events
    meta, spec = _timeline_meta(at)
    assert meta["window"]["drawn"] <= 2_000 and meta["window"]["stop"] == 105_120
    series = spec["data"][0]
    drawn = app_support.array(series["customdata"]).astype(int)  # real events: positions into the series
    assert drawn.size <= 2_000
    np.testing.assert_allclose(app_support.array(series["y"]).astype(float), cur.series.values[drawn])
    assert drawn[0] == 0 and drawn[-1] == 105_119 and np.argmax(cur.series.values) in drawn  # ends and peak kept
    assert "opens at its first" not in shown(at)
    assert not any("long_series_choice" in str(getattr(b, "key", "")) for b in at.get("flex_container"))
    assert state.PARAMS[state.SYN_N].parse("105120") == 105_120
    assert state.PARAMS[state.LENGTH].parse(str(state.N_MAX + 1)) is None


def _upload(at, minutes: int = 129_600):
    index = pd.date_range("2024-01-01", periods=minutes, freq="1min", tz="Europe/London")
    values = (np.arange(minutes) % 60) / 60.0
    raw = pd.DataFrame({"time": index.strftime("%Y-%m-%dT%H:%M:%S%z"), "kwh": values}).to_csv(index=False).encode()
    at.file_uploader(key="upload_file").set_value(("meter_1min.csv", raw, "text/csv")).run()
    assert not at.exception, at.exception
    return at


def test_above_the_limit_the_user_chooses_a_window_or_an_aggregation():
    at = _upload(open_page(source="upload"))
    cur = at.session_state[state.CURRENT]
    assert len(at.session_state[state.SERIES_UPLOAD]) == 129_600
    assert cur.n == state.N_MAX and cur.full_n == 129_600  # a window of N_MAX, stated — not a silent cut
    text = " ".join(str(m.value) for m in at.markdown)
    assert "This series has 129,600 events — more than the 110,000" in text
    assert "129,600 events loaded; analysing 110,000 events" in shown(at)
    choice = at.radio(key=state.widget_key(state.AGGREGATE))
    assert list(choice.options) == ["A window of up to 110,000 events as recorded", "One event per hour (≈ 2,160)",
                                    "One event per day (≈ 90)"]
    assert "Nothing outside it (19,600 events) is released" in shown(at)
    at.slider(key=state.widget_key(state.START)).set_value(19_600).run()  # the window's last possible start
    cur = at.session_state[state.CURRENT]
    assert cur.start == 19_600 and cur.series.timestamps[-1] == at.session_state[state.SERIES_UPLOAD].timestamps[-1]
    choice.set_value("hourly").run()
    assert not at.exception, at.exception
    cur = at.session_state[state.CURRENT]
    assert cur.n == 2_160 and cur.aggregation[:2] == ("hourly", "sum") and cur.start == 0
    np.testing.assert_allclose(cur.series.values[:3], [29.5, 29.5, 29.5])  # Σ of 0/60 … 59/60
    assert "whole hour" in shown(at) and "stronger per reading" in shown(at)  # the privacy meaning, stated
    assert at.query_params[state.AGGREGATE] in ("hourly", ["hourly"])  # in the link


def test_hue_daily_sums_get_the_public_range_of_a_day():
    at = app_support.open_page("pages/schemes_utility.py", 300, source="sample", sample="hue", agg="daily", n="2000")
    cur = at.session_state[state.CURRENT]
    assert cur.n == 1_220 and cur.aggregation == ("daily", "sum", 25)
    assert "Δ = 625." in shown(at)  # 25 readings of 0–25 kWh on the longest (daylight-saving) day


def test_long_series_default_to_fewer_repetitions_and_say_so():
    assert state.default_repetitions(1_000) == state.REPETITIONS_DEFAULT == 30
    assert state.default_repetitions(3_333) == 30
    assert state.default_repetitions(8_760) == 11
    assert state.default_repetitions(35_040) == 3 and state.repetitions_cap(105_120) == 19
    at = app_support.open_page("pages/temporal_loss.py", 300, source="synthetic", syn_n="35040")
    next(b for b in at.button if b.label == "Start it").click().run()  # a link beyond 20,000 events asks (issue 54)
    assert not at.exception
    assert at.session_state[state.REPETITIONS] == 3
    assert "Long series: 3 repetitions by default" in shown(at)
    at = app_support.open_page("pages/temporal_loss.py", 300, source="synthetic", syn_n="35040", reps="20")
    assert at.session_state[state.REPETITIONS] == 20  # a link's choice is kept


def test_the_runconfig_of_a_daily_window_names_the_sample_and_its_view_and_restores_it():
    from test_app_plan import downloaded

    from lmdk.exports import RunConfig

    at = app_support.open_exports(app_support.open_page("pages/schemes_utility.py", 300, source="sample", sample="hue",
                                                        agg="daily", n="400", **{"from": "100"}, reps="5",
                                                        schemes="uniform"))
    cur = at.session_state[state.CURRENT]
    saved = RunConfig.from_json(downloaded(at, "RunConfig (JSON)"))
    assert saved.data == "sample:hue" and saved.view == {"start": 100, "aggregate": "daily", "how": "sum"}
    assert saved.sample_series().source_hash == cur.series.source_hash  # the CLI and scripts get the same events
    fresh = app_support.open_exports(app_support.open_page("pages/schemes_utility.py", 300))
    fresh.file_uploader(key=state.CONFIG_UPLOAD).set_value(("run.json", saved.to_json().encode(), "application/json"))
    fresh.run()
    assert not fresh.exception, fresh.exception
    assert fresh.session_state[state.CURRENT].series.source_hash == cur.series.source_hash
