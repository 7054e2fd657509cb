"""AppTest: the Schemes & utility page (badges, budgets, releases, MAE, clamping, RunConfig, maps)."""
from __future__ import annotations

import json

import app_support
import numpy as np
import plotly.graph_objects as go
from app_support import array, navigation_mode  # noqa: F401 (autouse fixture)
from streamlit.testing.v1 import AppTest

from ui.session import state

PAGE = "pages/schemes_utility.py"


def open_page(**query) -> AppTest:
    query.setdefault("reps", "20")
    return app_support.open_page(PAGE, 120, **query)


def chart(at: AppTest, key: str) -> dict:
    found = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key) or key in c.proto.id)
    return json.loads(found.proto.spec)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def scheme_trace(fig: dict, scheme: str) -> dict:
    """The budget trace of one scheme's panel."""
    return next(t for t in fig["data"] if t.get("name") == scheme)


def per_timestamp(trace: dict, n: int) -> np.ndarray:
    """εₜ for every t from a budget trace: bars (one y per t) or a closed "hv" step outline of one row through the
    change points, whose unscaled εₜ travel in customdata (the row's y is scaled to the row's height)."""
    if trace.get("type") == "bar":
        return array(trace["y"]).astype(float)
    assert trace["line"]["shape"] == "hv" and trace["fill"] == "toself"
    x, y = array(trace["x"]).astype(int), array(trace["y"]).astype(float)
    assert y[0] == y[-1] and x[0] == x[1] and x[-1] == x[-2]  # the outline stands on the row's base
    x, eps_t = x[1:-1], array(trace["customdata"]).astype(float)[1:-1]
    assert x[0] == 0 and x[-1] == n - 1 and np.all(np.diff(x) > 0)
    return eps_t[np.searchsorted(x, np.arange(n), side="right") - 1]


def panel_schemes(fig: dict) -> list[str]:
    """The scheme of each panel (headings "uniform — budget εₜ") or row (y tick labels "<b>uniform</b>…"), top first."""
    if "ticktext" in fig["layout"].get("yaxis", {}):
        names = [t.split("<b>")[1].split("</b>")[0] for t in fig["layout"]["yaxis"]["ticktext"]]
        return [name for name in names if name != "L"]
    return [a["text"].split(" — ")[0] for a in fig["layout"]["annotations"]]


def meta(fig: dict) -> dict:
    from ui.charts import meta_of

    return meta_of(fig["layout"])


def badges(at: AppTest) -> dict[str, str]:
    """{scheme: its cell of the Theorem 2 row} (one markdown element: colour, name, badge, worst Σ per scheme)."""
    row = next(m.value for m in at.markdown if m.value.startswith("**(ε, L)-landmark privacy"))  # not the explanation
    cells = row.split("\n\n", 1)[1].split(" &emsp; ")
    return {cell.split("**")[1]: cell for cell in cells}


def test_default_render_has_budget_release_and_mae_charts_for_six_schemes():
    at = open_page()
    budget, release, mae = charts(at)
    assert meta(budget)["eps"] == 1.0
    assert not app_support.same_labels(at)  # each download names what it gives
    for fig in (budget, release, mae):  # built without plotly.py's validation: the specs must still be valid
        assert fig["layout"]["template"] is False  # inlined styling, see ui.charts.figure.figure
        go.Figure({**fig, "layout": {k: v for k, v in fig["layout"].items() if k != "template"}})
    titles = panel_schemes(budget)
    assert "εₜ" in budget["layout"]["annotations"][0]["text"]  # the unit
    headings = [a["text"] for a in release["layout"]["annotations"] if a["yanchor"] == "bottom"]
    notes = [a["text"] for a in release["layout"]["annotations"] if a["yanchor"] == "top"]
    assert len(headings) == 6 and all(t.endswith("value (kWh)") for t in headings)
    assert titles == list(state.SCHEME_NAMES)
    names = {t.get("name") for t in release["data"]}
    assert {"original", "90 % of repetitions"} <= names
    # each panel on the original's own scale (issue 35): a median far off it is left out and the panel says so
    assert release["layout"]["yaxis"]["range"][1] < 25
    hidden = [s for s in state.SCHEME_NAMES if f"{s} median" not in names]
    assert sum(t.startswith("median not drawn") for t in notes) == len(hidden) and "user" in hidden
    for trace in release["data"]:  # a median drawn follows the original; one swinging across the panel is left out
        if trace.get("name", "").endswith(" median"):
            original = next(t for t in release["data"] if t.get("name") == "original" and t["yaxis"] == trace["yaxis"])
            gap = np.abs(array(trace["y"]).astype(float) - array(original["y"]).astype(float))
            assert np.quantile(gap, 0.9) <= np.diff(release["layout"]["yaxis"]["range"])[0] / 4, trace["name"]
    assert "landmark share" in {t.get("name") for t in budget["data"]}  # 200 landmarks: the density profile
    assert "budget on landmarks" in {t.get("name") for t in budget["data"]}  # landmark budgets highlighted
    assert list(mae["data"][0]["y"]) == list(state.SCHEME_NAMES)
    assert "kWh" in mae["layout"]["xaxis"]["title"]["text"]
    b = badges(at)
    assert "violates" in b["event"]  # event-level fails once there are landmarks
    for s in ("user", "uniform", "skip", "adaptive"):
        assert "satisfies" in b[s], s


def test_epsilon_change_updates_budgets_of_uniform():
    at = open_page(schemes="uniform")
    k = len(at.session_state[state.LANDMARKS])
    at.select_slider(key=state.widget_key(state.EPSILON)).set_value(0.5).run()
    assert not at.exception
    budget = charts(at)[0]
    assert meta(budget)["eps"] == 0.5
    bars = per_timestamp(scheme_trace(budget, "uniform"), 1000)
    assert bars.size == 1000 and np.allclose(bars, 0.5 / (k + 1), rtol=5e-5, atol=0)  # drawn with 5 significant digits


def test_scheme_subset_and_w_and_repetitions_and_seed_change_the_view():
    at = open_page()
    at.multiselect(key=state.widget_key(state.SCHEMES)).set_value(["w-event", "skip"]).run()
    budget = charts(at)[0]
    assert panel_schemes(budget) == ["w-event", "skip"]
    at.number_input(key=state.widget_key(state.W)).set_value(50).run()  # reruns only the results fragment
    assert np.allclose(per_timestamp(scheme_trace(charts(at)[0], "w-event"), 1000), 1.0 / 50, rtol=5e-5, atol=0)
    mae_before = charts(at)[2]["data"][0]["x"]
    at.run()  # AppTest's tree after a fragment-only run holds just the fragment: rerun the app to reach the sidebar
    at.number_input(key=state.widget_key(state.SEED)).set_value(7).run()
    at.run()
    at.number_input(key=state.widget_key(state.REPETITIONS)).set_value(30).run()
    assert not at.exception
    assert charts(at)[2]["data"][0]["x"] != mae_before
    at.run()
    assert at.session_state[state.W] == 50 and at.session_state[state.SEED] == 7  # kept by the full rerun
    assert at.session_state[state.REPETITIONS] == 30 and charts(at)[2]["data"][0]["x"] != mae_before


def test_no_landmarks_makes_event_level_pass():
    at = open_page(lm="-")
    assert "satisfies" in badges(at)["event"]


def test_clamping_adds_the_clamped_bars_and_reports_the_saving():
    at = open_page(schemes="user,uniform")
    at.toggle(key=state.widget_key(state.CLAMP)).set_value(True).run()
    assert not at.exception
    assert "clamp_hi" not in at.query_params  # nothing derived from the private values reaches the link
    assert at.session_state[state.CLAMP_HIGH] is None and at.session_state[state.CLAMP_LOW] == 0.0
    at.number_input(key=state.widget_key(state.CLAMP_HIGH)).set_value(8.0).run()  # the meter's public limit
    assert not at.exception and at.query_params["clamp_hi"] in ("8", ["8"])
    mae = charts(at)[2]
    assert [t["name"] for t in mae["data"]][:2] == ["MAE", "MAE after clamping"]
    assert mae["data"][2]["name"].startswith("data-free guess")  # the yardstick (issue 35)
    assert all(c <= m for c, m in zip(mae["data"][1]["x"], mae["data"][0]["x"], strict=True))
    assert any("saves MAE" in s.value for s in at.success)


def test_runconfig_upload_applies_settings_and_bad_config_errors():
    at = app_support.open_exports(open_page())
    from lmdk.exports.runconfig import RunConfig

    cfg = RunConfig(data="sample:hue", events=1000, landmarks=(1, 2, 3), schemes=("uniform",),
                    mechanism="laplace", epsilon=0.2, repetitions=20)
    at.file_uploader(key=state.CONFIG_UPLOAD).set_value(("run.json", cfg.to_json().encode(), "application/json"))
    at.run()
    assert not at.exception
    assert at.session_state[state.EPSILON] == 0.2
    assert list(at.session_state[state.LANDMARKS]) == [1, 2, 3]
    assert panel_schemes(charts(at)[0]) == ["uniform"]
    at.file_uploader(key=state.CONFIG_UPLOAD).set_value(("bad.json", b'{"epsilon": -1}', "application/json")).run()
    assert not at.exception
    assert any("not valid" in e.value for e in at.error)


def test_trajectory_shows_released_path_on_a_map_and_contacts_use_randomized_response():
    at = open_page(source="sample", sample="taxi", n="300", schemes="uniform,skip")
    deck = json.loads(at.get("deck_gl_json_chart")[0].proto.json)
    assert {layer["id"] for layer in deck["layers"]} >= {"path", "events", "released-uniform"}
    assert charts(at)[-1]["layout"]["xaxis"]["title"]["text"].split("(")[1].split(")")[0] == "m"
    at2 = open_page(source="sample", sample="contacts", n="300", schemes="uniform")
    assert at2.session_state[state.MECHANISM] == "randomized_response"
    assert "wrong" in charts(at2)[-1]["layout"]["xaxis"]["title"]["text"]


def test_chart_html_downloads_build_for_draw_once_figures():
    """The HTML download (ui.charts.to_html) of every chart on the page, which inlines its styling."""
    from ui import charts as ui_charts

    n = 500
    b = {"uniform": np.full(n, 0.01), "skip": np.where(np.arange(n) % 5 == 0, 0.0, 1.0)}
    landmarks = np.arange(0, n, 5)
    band = (np.zeros(n), -np.ones(n), np.ones(n))
    figs = [ui_charts.budgets(b, landmarks, epsilon=1.0),
            ui_charts.budgets({"user": np.full(8, 0.1)}, [1], epsilon=1.0),
            ui_charts.releases(np.arange(n), np.zeros(n), {"uniform": band}, landmarks, y_title="v", epsilon=1.0),
            ui_charts.mae([{"scheme": "uniform", "mae": 1.0, "low": 0.9, "high": 1.1}], unit="kWh", epsilon=1.0)]
    for fig in figs:
        html = ui_charts.to_html(fig)
        assert "Plotly.newPlot" in html and '"eps":1.0' in html.replace(" ", "")


def test_the_default_link_is_short_and_an_edited_landmark_set_is_kept_in_it():
    at = open_page()
    assert "lm" not in at.query_params and len("&".join(f"{k}={v}" for k, v in at.query_params.items())) < 60
    at2 = app_support.open_page("pages/data_landmarks.py", 60)
    at2.button(key="det_clear").click().run()
    assert at2.query_params["lm"] in ("-", ["-"])  # an edited set is a setting: it travels with the link


def test_a_plain_language_headline_comes_first_and_follows_epsilon():
    at = open_page()
    first = app_support.headline(at)  # the one headline, at most two sentences (issue 35)
    assert "sensitive hours out of 1,000" in first and "better than protecting every one of the hours" in first
    at.select_slider(key=state.widget_key(state.EPSILON)).set_value(0.1).run()
    assert any(m.value.startswith("##### With ε = 0.1") for m in at.markdown)


def test_the_link_to_share_is_short_and_holds_settings_only():
    """The copy button copies the browser's URL (tests/test_browser_share.py); the URL holds only settings."""
    at = open_page(eps="0.5")
    params = {k: at.query_params[k] for k in at.query_params}
    assert params["eps"] in ("0.5", ["0.5"]) and "lm" not in params
    assert len("&".join(f"{k}={v}" for k, v in params.items())) < 200


def test_a_dense_landmark_strip_becomes_a_density_profile_that_shows_clusters():
    import numpy as np

    from ui import charts as ui_charts

    n = 1000
    clustered = np.r_[np.arange(100, 300), np.arange(700, 760)]  # 260 landmarks in two clusters
    fig = ui_charts.budgets({"uniform": np.full(n, 0.004)}, clustered, epsilon=1.0).to_dict()
    band = next(t for t in fig["data"] if t.get("name") == "landmark share")
    share = np.asarray(band["customdata"])
    assert band["fill"] == "tonexty" and share.max() == 100 and share.min() == 0
    few = ui_charts.budgets({"uniform": np.full(n, 0.004)}, np.arange(0, 1000, 20), epsilon=1.0).to_dict()
    assert any(t.get("name") == "landmark" for t in few["data"])  # 50 landmarks: one tick each


def test_synthetic_series_render_with_their_downloads():
    """The RunConfig of a synthetic series refers to its content hash (building it used to assume an upload); the
    landmark, RunConfig and script downloads are built on click (issue 34) from what the run left in the session."""
    from test_app_plan import downloaded

    from lmdk.exports.runconfig import RunConfig

    at = app_support.open_exports(open_page(source="synthetic", syn_n="300"))
    assert not at.exception
    buttons = {b.proto.label: b.proto for b in at.get("download_button")}
    for label in ("Landmark set (JSON)", "RunConfig (JSON)", "Python script"):
        assert buttons[label].HasField("deferred_file_id") and not buttons[label].url, label
    saved = RunConfig.from_json(downloaded(at, "RunConfig (JSON)"))
    assert saved.data.startswith("sha256:") and saved.epsilon == at.session_state[state.EPSILON]
    marks = json.loads(downloaded(at, "Landmark set (JSON)"))
    assert marks["n"] == 300 and marks["landmarks"] == sorted(marks["landmarks"])
    script = downloaded(at, "Python script").decode()
    compile(script, "reproduce_schemes.py", "exec")
    assert f'"seed": {saved.seed},' in script


def test_the_landmark_file_says_how_its_positions_were_marked():
    """Issue 53: the downloaded landmark set said nothing of how it was marked, and `file:landmarks.json` exported
    positions marked on the values' chart as declared; now it carries landmark_origin, which file: rules follow."""
    from test_app_plan import downloaded

    at = app_support.open_exports(open_page(source="synthetic", syn_n="300"))
    assert json.loads(downloaded(at, "Landmark set (JSON)"))["landmark_origin"] == "declared"
    at.session_state[state.LANDMARKS_ORIGIN] = "viewed"
    at.run()
    assert not at.exception
    assert json.loads(downloaded(at, "Landmark set (JSON)"))["landmark_origin"] == "viewed"


def test_data_derived_landmarks_are_handed_out_only_when_asked_and_the_statement_says_so():
    """Issue 33: the default set is declared (the statement names it); a detector's set needs the tick, and then the
    statement starts with NOT PROTECTED."""
    import re

    at = app_support.open_exports(open_page())
    said = re.sub(r"\\(.)", r"\1", " ".join(str(m.value) for m in at.markdown)).replace("\u2060", "")
    assert "Landmark set: declared in advance (calendar:daily@01:00-06:00)" in said
    at.session_state[state.LANDMARKS_ORIGIN] = "data"
    at.run()
    assert not at.exception
    assert "found by a detector that reads the values" in app_support.shown(at)
    assert at.button(key="dl_release_csv_off").disabled
    at.checkbox(key="export_allow_data").check().run()
    said = re.sub(r"\\(.)", r"\1", " ".join(str(m.value) for m in at.markdown)).replace("\u2060", "")
    assert "NOT PROTECTED: the value of any hour whose landmark status could change" in said
    assert "Landmark set: computed from these values" in said


def test_a_shared_link_keeps_a_detectors_set_data_derived():
    """Issue 33: a detector's set in a share link carries lmo=data, and the session the link opens keeps it
    data-derived (the release to hand out needs the tick) — without it the set came back as declared."""
    at = open_page()
    at.session_state[state.LANDMARKS_ORIGIN] = "data"
    at.session_state[state.LANDMARKS] = (3, 5, 8)
    at.session_state[state.LANDMARKS_DEFAULT] = False
    at.run()
    assert at.query_params.get(state.LANDMARKS_ORIGIN_LINK) == "data", at.query_params
    linked = app_support.open_exports(open_page(lm=at.query_params[state.LANDMARKS], lmo="data"))
    assert not linked.exception
    assert linked.session_state[state.LANDMARKS_ORIGIN] == "data"
    assert linked.button(key="dl_release_csv_off").disabled
    declared = open_page(lm=at.query_params[state.LANDMARKS])  # clicks or a file: declared, as before
    assert declared.session_state[state.LANDMARKS_ORIGIN] == "declared"


def test_a_session_on_a_run_already_drawn_reuses_its_charts_and_their_text(monkeypatch):
    """A class following one link: the second session's charts and their "Show data" tables and sentences are the
    first session's objects, not built again (issue 34: building them was a third of an ε change's server time when
    every session had the same seed); another ε builds them afresh."""
    from ui import charts as ui_charts
    from ui.charts import alt_text

    ui_charts.drawn.clear()
    alt_text.chart_text.clear()
    built = []
    for module, name in ((ui_charts, "releases"), (alt_text, "release_columns")):  # drawn by this page only
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _real=real, _name=name, **k: built.append(_name) or
                            _real(*a, **k))
    first = open_page(eps="0.7", seed="4")
    assert sorted(built) == ["release_columns", "releases"]
    second = open_page(eps="0.7", seed="4")
    assert len(built) == 2 and charts(first) == charts(second)
    said = [c.value for c in second.caption if c.value.startswith(("Budget εₜ", "Original and released"))]
    assert len(said) == 2 and said == [c.value for c in first.caption if c.value in said]
    open_page(eps="2", seed="4")
    assert len(built) == 4
