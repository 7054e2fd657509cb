"""AppTest: the baselines are opt-in on the scheme pages — MAE with 95 % intervals, budgets, what each protects."""
from __future__ import annotations

import json

import app_support
from app_support import navigation_mode  # noqa: F401 (autouse fixture)
from streamlit.testing.v1 import AppTest

from ui.session import state

SCHEMES_PAGE = "pages/schemes_utility.py"


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n".join(str(c.value) for c in at.caption)


def test_default_selection_is_the_six_and_baselines_are_options():
    at = app_support.open_page(SCHEMES_PAGE, 120, reps="5")
    box = at.multiselect(key=state.widget_key(state.SCHEMES))
    assert list(box.value) == list(state.SCHEME_NAMES)
    assert set(state.BASELINE_NAMES) <= set(box.options)
    assert "What the baselines protect" not in text(at)


def test_schemes_page_compares_the_baselines_when_selected():
    at = app_support.open_page(SCHEMES_PAGE, 180, reps="10", schemes="uniform,adaptive,bd,ba,fast,pegasus", w="24")
    budget, release, mae = charts(at)[:3]
    assert list(mae["data"][0]["y"]) == ["uniform", "adaptive", "bd", "ba", "fast", "pegasus"]
    assert mae["data"][0]["error_x"]["type"] == "data"  # 95 % confidence whiskers
    budget_names = json.dumps(budget["layout"])
    assert all(s in budget_names for s in ("bd", "ba", "fast", "pegasus"))
    said = text(at)
    assert "What the baselines protect" in said and "any 24 consecutive events together at ε" in said
    assert "all events of the series together at ε (user level" in said and "each event on its own at ε" in said
    assert said.count("does not use the landmark set") == 4
    row = next(m.value for m in at.markdown if "(ε, L)-landmark privacy" in m.value and "&emsp;" in m.value)
    cells = {c.split("**")[1]: c for c in row.split("\n\n", 1)[1].split(" &emsp; ")}
    assert "violates" in cells["pegasus"] and "satisfies" in cells["fast"]  # event level vs user level


def test_selecting_a_baseline_in_the_sidebar_is_kept_in_the_url_config():
    at = app_support.open_page(SCHEMES_PAGE, 180, reps="5")
    at.multiselect(key=state.widget_key(state.SCHEMES)).set_value(["adaptive", "ba"]).run()
    assert not at.exception
    assert at.session_state[state.SCHEMES] == ["adaptive", "ba"]
    assert list(charts(at)[2]["data"][0]["y"]) == ["adaptive", "ba"]


def test_temporal_loss_page_analyses_a_baseline():
    at = app_support.open_page("pages/temporal_loss.py", 180, reps="5", schemes="uniform,fast", tpl_scheme="fast")
    assert at.session_state[state.TPL_SCHEME] == "fast"
    said = text(at)
    assert "FAST (Fan & Xiong 2014)" in said and "repetition 1" in said


def test_locations_leave_the_baselines_out_and_the_dummy_page_skips_them():
    at = app_support.open_page(SCHEMES_PAGE, 180, reps="5", sample="taxi", n="300", schemes="uniform,ba")
    assert any("release values only" in i.value for i in at.info)
    assert list(charts(at)[-1]["data"][0]["y"]) == ["uniform"]
    at = app_support.open_page("pages/dummy_landmarks.py", 180, reps="3", schemes="uniform,pegasus")
    assert "do not use the landmark set" in text(at)
