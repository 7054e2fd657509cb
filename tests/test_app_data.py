"""AppTest: the Data & landmarks page (sources, detectors, uploads, URL state, chart specs)."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ui import state

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/data_landmarks.py"


@pytest.fixture(autouse=True)
def navigation_mode(monkeypatch):
    """AppTest re-detects the legacy pages/ folder on every run and then runs a switched-to page
    without app.py; the real server drops that mode at the first st.navigation call — do the same."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


def open_page(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def landmark_count(at: AppTest) -> int:
    """The count shown in the sidebar status (which must agree with the shared state)."""
    metric = next(m for m in at.metric if m.label == "Landmarks")
    count = int(metric.value.split(" of ")[0].replace(",", ""))
    assert count == len(at.session_state[state.LANDMARKS])
    return count


def array(value) -> np.ndarray:
    """A plotly JSON array (plain list or base64 'bdata' with dtype) as numpy."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def timeline_spec(at: AppTest) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def test_default_sample_renders_timeline_with_landmarks():
    at = open_page()
    spec = timeline_spec(at)
    names = [trace.get("name") for trace in spec["data"]]
    assert names[0] == "regular event" and "landmark" in names
    landmarks = next(t for t in spec["data"] if t.get("name") == "landmark")
    assert array(landmarks["customdata"]).size == landmark_count(at) == 200  # HUE, first 1,000 hours, 20 %
    assert spec["layout"]["dragmode"] == "select"
    assert "kWh" in spec["layout"]["yaxis"]["title"]["text"]
    assert at.expander[-1].label == "What am I looking at?"


def test_detector_replaces_and_clear_empties_landmarks():
    at = open_page()
    at.radio(key="detector_values").set_value("percentile").run()
    at.slider(key="pct_frac").set_value(0.5).run()
    at.button(key="det_replace").click().run()
    assert not at.exception
    assert landmark_count(at) == 500
    at.button(key="det_clear").click().run()
    assert landmark_count(at) == 0


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
