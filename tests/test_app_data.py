"""AppTest: the Data & landmarks page (sources, detectors, uploads, URL state, chart specs)."""
from __future__ import annotations

import json
from functools import partial

import app_support
from app_support import array, navigation_mode  # noqa: F401 (autouse fixture)
from streamlit.testing.v1 import AppTest

from ui.session import state

PAGE = "pages/data_landmarks.py"


open_page = partial(app_support.open_page, PAGE, 60)


def main_expanders(at):
    """The expanders of the page's main area, top first (the sidebar's left out)."""
    return [e for e in at.main.expander]


def landmark_count(at: AppTest) -> int:
    """The count shown in the sidebar status (which must agree with the shared state)."""
    metric = next(m for m in at.metric if m.label == "Landmarks")
    count = int(metric.value.split(" of ")[0].replace(",", ""))
    assert count == len(at.session_state[state.LANDMARKS])
    return count


def timeline_spec(at: AppTest) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def test_default_sample_renders_timeline_with_landmarks():
    at = open_page()
    spec = timeline_spec(at)
    names = [trace.get("name") for trace in spec["data"]]
    assert names[0] == "regular event" and "landmark" in names
    landmarks = next(t for t in spec["data"] if t.get("name") == "landmark")
    assert array(landmarks["customdata"]).size == landmark_count(at) == 210  # HUE, 1,000 hours, 01:00–06:00
    assert "dragmode" not in spec["layout"]  # box/lasso mode would turn single-click selection off
    assert "kWh" in spec["layout"]["yaxis"]["title"]["text"]
    assert main_expanders(at)[0].label == "What am I looking at?"


def test_detector_replaces_and_clear_empties_landmarks():
    at = open_page()
    at.radio(key="detector_values").set_value("percentile").run()
    at.slider(key="pct_frac").set_value(50).run()
    at.button(key="det_replace").click().run()
    assert not at.exception
    assert landmark_count(at) == 500
    assert not [w for w in at.sidebar.warning if "No landmarks" in w.value]
    at.button(key="det_clear").click().run()
    assert landmark_count(at) == 0
    # issue 35: zero landmarks is said where the count is, with what to do (not a bare 0 beside a share)
    assert [w.value for w in at.sidebar.warning if w.value.startswith("No landmarks: the rule marked none.")]


def test_synthetic_series_has_the_requested_landmark_share():
    at = open_page(source="synthetic", syn_n="400", syn_frac="0.25", syn_dist="skewed")
    assert landmark_count(at) == 100
    at.slider(key=state.widget_key(state.SYN_FRACTION)).set_value(0.5).run()
    assert not at.exception
    assert landmark_count(at) == 200


def test_landmarks_come_from_the_url():
    at = open_page(lm="0-9.20")
    assert landmark_count(at) == 11


def test_bad_upload_shows_st_error_and_good_upload_loads():
    at = open_page(source="upload")
    assert any("Upload a file" in i.value for i in at.info)
    at.file_uploader(key="upload_file").set_value(("bad.csv", b"\x00\x01\x02garbage\xff\xfe", "text/csv")).run()
    assert not at.exception
    assert at.error, "a bad upload must produce st.error"
    csv = "timestamp,value\n" + "\n".join(f"2024-01-01 {h:02d}:00,{h % 5}" for h in range(24))
    at.file_uploader(key="upload_file").set_value(("ok.csv", csv.encode(), "text/csv")).run()
    assert not at.exception
    assert not at.error
    assert len(at.session_state[state.CURRENT].series) == 24


def test_trajectory_sample_draws_a_map():
    at = open_page(source="synthetic", syn_kind="trajectory", syn_n="300")
    decks = at.get("deck_gl_json_chart")
    assert len(decks) == 1
    spec = json.loads(decks[0].proto.json)
    assert {layer["id"] for layer in spec["layers"]} >= {"path", "events"}


def test_landmarks_import_from_a_file_and_undo_redo():
    at = open_page()
    before = landmark_count(at)
    at.file_uploader(key="landmark_file").set_value(("l.csv", b"index\n1\n2\n3\n", "text/csv")).run()
    assert not at.exception and landmark_count(at) == 3
    at.file_uploader(key="landmark_file").set_value(
        ("t.csv", b"timestamp\n2012-06-01 02:00:00-07:00\n", "text/csv")).run()
    assert landmark_count(at) == 1 and list(at.session_state[state.LANDMARKS]) == [1]
    at.button(key="lm_undo").click().run()
    assert landmark_count(at) == 3
    at.button(key="lm_undo").click().run()
    assert landmark_count(at) == before
    at.button(key="lm_redo").click().run()
    assert landmark_count(at) == 3
    at.file_uploader(key="landmark_file").set_value(("bad.csv", b"index\n5000\n", "text/csv")).run()
    assert at.error and landmark_count(at) == 3
