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


def _said(at: AppTest) -> str:
    """The page's markdown as read (Markdown escapes and word joiners removed)."""
    import re

    return re.sub(r"\\(.)", r"\1", " ".join(str(m.value) for m in at.markdown)).replace("\u2060", "")


def test_typing_the_lowest_values_on_the_chart_is_data_derived_and_the_hand_out_needs_the_tick():
    """Issue 53's finding: clearing the set and typing the positions of the lowest 20 % of values (the chart shows
    them) enabled the hand-out export with "declared in advance"; now the set is "viewed", the link says lmo=viewed,
    the export is disabled until ticked and the statement starts with NOT PROTECTED."""
    import numpy as np

    from lmdk import landmarks, sample

    at = open_page()
    lowest = landmarks.by_percentile(sample("hue", n=1000).values, 0.2)
    at.button(key="det_clear").click().run()
    assert at.session_state[state.LANDMARKS_ORIGIN] == "declared"  # clearing reads nothing
    at.text_input(key="lm_positions").input(", ".join(map(str, lowest.tolist()))).run()
    at.button(key="lm_positions_add").click().run()
    assert not at.exception
    np.testing.assert_array_equal(at.session_state[state.LANDMARKS], lowest)
    assert at.session_state[state.LANDMARKS_ORIGIN] == "viewed"
    assert at.query_params.get(state.LANDMARKS_ORIGIN_LINK) == "viewed", at.query_params
    at.switch_page("pages/schemes_utility.py").run()
    at = app_support.open_exports(at)
    assert at.button(key="dl_release_csv_off").disabled
    assert "declared in advance" not in _said(at)
    assert "marked while the chart showed the values" in app_support.shown(at)
    at.checkbox(key="export_allow_data").check().run()
    said = _said(at)
    assert "NOT PROTECTED" in said and "marked while the chart showed these values" in said
    linked = app_support.open_page("pages/schemes_utility.py", 60, lm=at.query_params[state.LANDMARKS], lmo="viewed")
    assert linked.session_state[state.LANDMARKS_ORIGIN] == "viewed"  # a shared link keeps it data-derived


def test_marks_made_on_the_values_free_timeline_stay_declared():
    """Issue 53: the timeline drawn without the values (times only) is a way to mark without seeing them: its
    clicks and typed positions keep the set declared; once the values show again a mark makes it "viewed"."""
    import numpy as np

    at = open_page()
    at.toggle(key=state.TIMELINE_BLIND).set_value(True).run()
    spec = timeline_spec(at)
    drawn = np.concatenate([array(t["y"]) for t in spec["data"] if t.get("yaxis", "y") == "y" and "y" in t])
    assert drawn.size and np.all(drawn == 0)  # no value is drawn
    assert "values hidden" in spec["layout"]["yaxis"]["title"]["text"]
    at.button(key="det_clear").click().run()
    at.text_input(key="lm_positions").input("12, 40-45").run()
    at.button(key="lm_positions_add").click().run()
    assert list(at.session_state[state.LANDMARKS]) == [12, 40, 41, 42, 43, 44, 45]
    assert at.session_state[state.LANDMARKS_ORIGIN] == "declared"
    at.toggle(key=state.TIMELINE_BLIND).set_value(False).run()
    at.text_input(key="lm_positions").input("7").run()
    at.button(key="lm_positions_toggle").click().run()
    assert at.session_state[state.LANDMARKS_ORIGIN] == "viewed"
    at.toggle(key=state.TIMELINE_BLIND).set_value(True).run()
    at.text_input(key="lm_positions").input("8").run()
    at.button(key="lm_positions_add").click().run()
    assert at.session_state[state.LANDMARKS_ORIGIN] == "viewed"  # the set still holds marks made on the values
    at.button(key="lm_undo").click().run()
    at.button(key="lm_undo").click().run()
    assert at.session_state[state.LANDMARKS_ORIGIN] == "declared"  # undo restores the origin with the set


def test_a_runconfig_without_landmark_origin_is_read_as_viewed_and_says_how_to_confirm():
    """Issue 53: an old RunConfig does not say how its positions were marked: "viewed", with the CLI confirmation."""
    from lmdk.exports.runconfig import RunConfig

    at = app_support.open_exports(app_support.open_page("pages/schemes_utility.py", 60))
    cfg = RunConfig(data="sample:hue", events=1000, landmarks=(1, 2, 3), schemes=("skip",), mechanism="laplace",
                    epsilon=1.0)
    at.file_uploader(key=state.CONFIG_UPLOAD).set_value(("old.json", cfg.to_json().encode(), "application/json"))
    at.run()
    assert not at.exception
    assert at.session_state[state.LANDMARKS_ORIGIN] == "viewed"
    assert "--declared-landmarks" in (at.session_state[state.CONFIG_NOTE] or "")
    assert at.button(key="dl_release_csv_off").disabled
    saved = RunConfig(**{**cfg.to_dict(), "landmark_origin": "declared"})
    at.file_uploader(key=state.CONFIG_UPLOAD).set_value(("new.json", saved.to_json().encode(), "application/json"))
    at.run()
    assert at.session_state[state.LANDMARKS_ORIGIN] == "declared"
