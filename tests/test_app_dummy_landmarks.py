"""AppTest: the Dummy landmarks page (method, utility, share, optimal's size limit, chart traces, MAE cost)."""
from __future__ import annotations

import json
from functools import partial

import app_support
import numpy as np
import plotly.graph_objects as go
import pytest
from app_support import array
from streamlit.testing.v1 import AppTest

from ui.charts import meta_of
from ui.session import state

PAGE = "pages/dummy_landmarks.py"
CHARTS = ("timeline", "options", "budgets", "mae")


open_page = partial(app_support.open_page, PAGE, 90)


def main_expanders(at):
    """The expanders of the page's main area, top first (the sidebar's left out)."""
    return [e for e in at.main.expander]


def specs(at: AppTest) -> dict[str, dict]:
    return dict(zip(CHARTS, (json.loads(c.proto.spec) for c in at.get("plotly_chart")), strict=True))


def trace(figure: dict, name: str) -> dict:
    return next(t for t in figure["data"] if t.get("name") == name)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def small() -> AppTest:
    """18 events with 4 landmarks: small enough for every method, including optimal."""
    return open_page(source="synthetic", syn_n="18", syn_frac="0.25", reps="20", dummy_method="heuristic")


def test_default_render_shows_real_and_dummy_landmarks_options_budgets_and_mae():
    at = open_page()
    assert at.title[0].value == "Dummy landmarks" and not at.error
    figs = specs(at)
    real = array(trace(figs["timeline"], "landmark")["customdata"])
    dummies = array(trace(figs["timeline"], "dummy landmark")["customdata"])
    assert real.size == 210 and dummies.size == int(metric(at, "dummies |L′ ∖ L|").replace(",", ""))  # night hours
    assert not np.intersect1d(real, dummies).size
    assert meta_of(figs["timeline"]["layout"])["dummies"] == dummies.size
    for fig in figs.values():  # drawn once per mount (ui.charts.single_draw); still valid plotly specs
        assert fig["layout"]["template"] is False
        go.Figure({**fig, "layout": {k: v for k, v in fig["layout"].items() if k != "template"}})
    # the MAE chart is read against the data-free guess, as on Schemes & utility (issue 35): HUE's 0–25 kWh range
    guess = array(trace(figs["mae"], "data-free guess")["x"])
    assert trace(figs["mae"], "data-free guess")["showlegend"] is False  # its legend entry was cut; the caption says
    assert guess.size == 2 and guess[0] == guess[1] and 10 < guess[0] < 13
    assert any("Dashed line" in c.value and "12.5 kWh" in c.value for c in at.caption)
    names = {t.get("name") for t in figs["options"]["data"]}
    assert {"utility u(L, L′)", "probability", "chosen L′", "uniform choice"} <= names
    assert meta_of(figs["budgets"]["layout"])["scheme"] == "uniform"
    assert {"landmark", "dummy landmark"} <= {t.get("name") for t in figs["budgets"]["data"]}
    mae = {t["name"]: t for t in figs["mae"]["data"]}
    assert set(mae) == {"without dummies", "with dummies", "data-free guess"}
    # the landmark schemes only, as in the paper's Figure 7: event, user and w-event level do not use L
    assert list(mae["with dummies"]["y"]) == ["uniform", "skip", "adaptive"]
    assert any("Event level, User level, w-event do not use the landmark set" in c.value for c in at.caption)
    assert "error_x" in mae["with dummies"] and "kWh" in figs["mae"]["layout"]["xaxis"]["title"]["text"]
    assert main_expanders(at)[0].label == "What am I looking at?" and len(at.latex) >= 3
    assert not app_support.same_labels(at)


def test_optimal_on_a_long_series_says_its_limit_in_the_pages_words():
    """Before, the core's refusal for API users: "method='optimal' is exponential … Use method='heuristic' …"."""
    at = open_page()
    at.segmented_control(key=state.widget_key(state.DUMMY_METHOD)).set_value("optimal").run()
    assert not at.exception and not at.error
    said = at.warning[0].value
    assert said.startswith("**Optimal** tries every nested chain of the regular events") and "method=" not in said
    assert "offered up to 20 regular events, and this series has 790" in said and "**partitioned**" in said
    assert not at.get("plotly_chart")
    assert not at.title  # the method reran only the results fragment (issue 34)
    at.run()  # AppTest's tree after a fragment-only run holds just the fragment: the full page keeps the explanation
    assert at.warning and "**Optimal**" in at.warning[0].value
    assert main_expanders(at)[0].label == "What am I looking at?"


def test_every_method_runs_on_a_small_series(small):
    at = small
    for method in ("optimal", "heuristic", "partitioned", "random"):
        at.segmented_control(key=state.widget_key(state.DUMMY_METHOD)).set_value(method).run()
        assert not at.exception and not at.error, method
        figs = specs(at)
        probs = array(trace(figs["options"], "probability")["y"])
        k = int(metric(at, "real landmarks |L|"))
        assert probs.size == 18 - k and probs.sum() == pytest.approx(1.0)  # n − |L| nested options
        assert f"({method}," in " ".join(c.value for c in at.caption)
        at.run()  # the method reran only the results fragment, whose tree lacks the controls above it (issue 34)


def test_share_and_utility_change_the_selection_budget(small):
    at = small
    at.select_slider(key=state.widget_key(state.DUMMY_SHARE)).set_value(0.5).run()
    assert not at.exception
    assert metric(at, "ε for selection") == "0.5" and metric(at, "ε for publishing") == "0.5"
    before = array(trace(specs(at)["options"], "probability")["y"])
    at.run()  # the share reran only the results fragment, whose tree lacks the controls above it (issue 34)
    at.segmented_control(key=state.widget_key(state.DUMMY_UTILITY)).set_value("count").run()
    assert not at.exception
    after = array(trace(specs(at)["options"], "probability")["y"])
    assert np.all(np.diff(after) < 0)  # count utility: fewer dummies are always more likely
    assert not np.allclose(before, after)


def test_scheme_choice_and_epsilon_update_budgets_before_after(small):
    at = small
    at.segmented_control(key="dummy_scheme").set_value("skip").run()
    assert not at.exception
    figs = specs(at)
    assert meta_of(figs["budgets"]["layout"])["scheme"] == "skip"
    at.select_slider(key=state.widget_key(state.EPSILON)).set_value(2.0).run()
    assert all(meta_of(f["layout"])["eps"] == 2.0 for f in specs(at).values())
    table = at.dataframe[-1].value
    assert list(table["scheme"]) == ["uniform", "skip", "adaptive"] and "cost" in table.columns


def test_headline_says_how_well_the_dummies_hide_the_real_landmarks():
    at = app_support.open_page("pages/dummy_landmarks.py", 120)
    head = app_support.headline(at)  # the one headline, at most two sentences (issue 35)
    assert "real ones" in head and "% certainty" in head and "left unmarked are known to be ordinary" in head
    answer = at.metric[0]  # the number that answers the page's question comes first, the headline's (issue 35)
    assert answer.label == "a marked hour is real" and f"with {answer.value} certainty" in head


def test_a_selection_without_landmark_schemes_asks_for_one():
    at = app_support.open_page("pages/dummy_landmarks.py", 120, reps="3", schemes="event,user")
    assert not at.exception and not at.get("plotly_chart")
    assert at.warning and "Pick a landmark scheme (Uniform, Skip or Adaptive)" in at.warning[0].value


def test_the_python_script_is_written_on_click_from_the_view_it_was_offered_in():
    """The 'Python script' download holds the configuration of its view and writes the script only when asked
    (issue 34: JSON-encoding the RunConfig and writing the script on every ε change was a fifth of a cached change)."""
    at = open_page(source="synthetic", syn_n="18", syn_frac="0.25", reps="20", dummy_method="random",
                   dummy_share="0.1", eps="2")
    held = at.session_state[state.DOWNLOAD_FIGURES]["dl_dummy_script"]
    saved, method, utility, share, _ = held.value
    assert (saved.epsilon, method, share) == (2.0, "random", 0.1)
    script = held.content()
    compile(script, "reproduce_dummies.py", "exec")
    assert "'random'" in script or '"random"' in script
