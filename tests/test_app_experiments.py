"""AppTest: the Experiments page — cached figures, a small recompute, its budget, and the view in the URL."""
from __future__ import annotations

import json
from functools import partial

import app_support
import streamlit as st
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.experiments import runner as ex
from ui.charts import alt_text
from ui.session import state

PAGE = "pages/experiments.py"
W = state.widget_key
open_page = partial(app_support.open_page, PAGE, 60)
CACHED = [name for name in ex.figures() if ex.load_cached(name) is not None]
TRACE_OF = {"fig7": "uniform + dummies", "fig8": "skewed", "fig9": "no correlation", "fig10": "bimodal",
            "fig11": "10 %"}  # one trace each landmark figure's chart must contain


def chart(at) -> dict:
    """The spec of the page's only chart."""
    (element,) = at.get("plotly_chart")
    return json.loads(element.proto.spec)


def recompute(at, reps: int, seed: int):
    at.slider(key=W(state.EX_REPETITIONS)).set_value(reps)
    at.number_input(key=W(state.EX_SEED)).set_value(seed)
    next(b for b in at.button if b.label == "Recompute").click().run()
    assert not at.exception, at.exception
    return at


def start_linked_run(at):
    """Press the button a link's recomputation waits for (ui.heavy)."""
    next(b for b in at.button if b.label == "Start it").click().run()
    assert not at.exception, at.exception
    return at


def test_default_render_shows_the_first_cached_figure():
    at = open_page()
    assert at.selectbox(key=W(state.EX_FIGURE)).value == "fig7"
    meta = chart(at)["layout"]["meta"]
    assert meta["figure"] == "fig7" and meta["source"].startswith("cached default run: 10 repetitions")
    # near the top (issue 35): the verdict is the main area's first expander, above the chart's "Show data"
    assert at.main.expander[0].label == "What am I looking at — verdict and reasons"
    # numbers a person can trust (issue 35): the slider's 3 beside a 10-repetition chart is said; Δ = 1 against the
    # other pages' public range is explained; the table's columns read as words and an MAE bound is never negative
    said = " ".join(c.value for c in at.caption)
    assert "shows the cached run (10 repetitions)" in said and "Δ = 1" in said and "public range" in said
    assert not [d for d in at.dataframe if "MAE 95 % CI low" in d.value.columns]  # built only when opened
    at.session_state[alt_text.OPEN_PREFIX + "experiment_fig7"] = True  # as a click on "Show data" does
    at.run()
    (table,) = [d.value for d in at.dataframe if "MAE 95 % CI low" in d.value.columns]
    assert "mae_ci_low" not in table.columns and (table["MAE 95 % CI low"] >= 0).all()


def test_every_cached_figure_renders_its_traces():
    assert {"fig7", "fig8", "fig9", "fig10", "fig11"} <= set(CACHED)
    at = open_page()
    for name in CACHED:
        at.selectbox(key=W(state.EX_FIGURE)).set_value(name).run()
        assert not at.exception, (name, at.exception)
        spec = chart(at)
        names = {trace.get("name") for trace in spec["data"]}
        assert spec["layout"]["meta"]["figure"] == name and spec["data"], name
        assert TRACE_OF.get(name, next(iter(names))) in names, (name, names)
        assert at.query_params.get(state.EX_FIGURE, "fig7") == name


def test_recompute_replaces_the_cached_run_and_lives_in_the_url():
    at = recompute(open_page(**{state.EX_FIGURE: "fig8"}), reps=1, seed=7)
    assert chart(at)["layout"]["meta"]["source"] == "recomputed here: 1 repetition, seed 7"
    assert {k: at.query_params.get(k) for k in (state.EX_FIGURE, state.EX_RUN, state.EX_REPETITIONS,
                                                state.EX_SEED)} == {"ex_fig": "fig8", "ex_run": "fig8",
                                                                    "ex_reps": "1", "ex_seed": "7"}
    again = open_page(**at.query_params)  # the link reproduces the recomputed view, after its button (issue 54)
    start_linked_run(again)
    assert chart(again)["layout"]["meta"]["source"] == "recomputed here: 1 repetition, seed 7"
    assert again.slider(key=W(state.EX_REPETITIONS)).value == 1
    assert again.number_input(key=W(state.EX_SEED)).value == 7
    # another figure shows its cached run; coming back shows the recomputation again
    at.selectbox(key=W(state.EX_FIGURE)).set_value("fig9").run()
    assert chart(at)["layout"]["meta"]["source"].startswith("cached default run")
    at.selectbox(key=W(state.EX_FIGURE)).set_value("fig8").run()
    assert chart(at)["layout"]["meta"]["source"] == "recomputed here: 1 repetition, seed 7"


def test_unsubmitted_form_edits_stay_out_of_the_url():
    at = open_page(**{state.EX_FIGURE: "fig8"})
    at.slider(key=W(state.EX_REPETITIONS)).set_value(2)
    at.selectbox(key=W(state.EX_FIGURE)).set_value("fig9").run()  # a rerun without submitting the form
    assert state.EX_REPETITIONS not in at.query_params and state.EX_RUN not in at.query_params


def test_over_budget_recompute_shows_the_warning(monkeypatch):
    monkeypatch.setattr(state, "EXPERIMENT_BUDGET_S", 1e-6)
    at = recompute(open_page(**{state.EX_FIGURE: "fig8"}), reps=2, seed=0)
    assert any("longer than this page allows" in w.value for w in at.warning)
    assert chart(at)["layout"]["meta"]["source"].startswith("cached default run")
    assert state.EX_RUN not in at.query_params and at.query_params[state.EX_REPETITIONS] == "2"
    # a link asking for that recomputation gets the same refusal
    link = start_linked_run(open_page(**{state.EX_FIGURE: "fig8", state.EX_RUN: "fig8", state.EX_REPETITIONS: "2"}))
    assert any("longer than this page allows" in w.value for w in link.warning)


def test_figure_without_cached_run_shows_the_info(monkeypatch):
    monkeypatch.setattr(ex, "load_cached", lambda name, *args, **kwargs: None)
    st.cache_data.clear()  # the page's cached loader must see the patched function
    try:
        at = open_page(**{state.EX_FIGURE: "fig9"})
        assert any("No cached run of fig9" in i.value for i in at.info)
        assert not at.get("plotly_chart")
    finally:
        monkeypatch.undo()
        st.cache_data.clear()


def test_bad_url_values_fall_back_to_defaults():
    at = open_page(**{state.EX_FIGURE: "../../etc", state.EX_REPETITIONS: "1e9", state.EX_SEED: "-3",
                      state.EX_RUN: "nope"})
    assert at.selectbox(key=W(state.EX_FIGURE)).value == "fig7"
    assert at.slider(key=W(state.EX_REPETITIONS)).value == 3
    assert at.number_input(key=W(state.EX_SEED)).value == 0
    assert chart(at)["layout"]["meta"]["source"].startswith("cached default run")


def test_url_parsers_accept_figure_names_only():
    for key in (state.EX_FIGURE, state.EX_RUN):
        parse = state.PARAMS[key].parse
        assert [parse(name) for name in ex.figures()] == list(ex.figures())
        assert parse("fig") is None and parse("x" * 100) is None and parse("") is None
    assert state.PARAMS[state.EX_REPETITIONS].parse(str(state.REPETITIONS_MAX + 1)) is None
    assert state.PARAMS[state.EX_SEED].parse("inf") is None


def test_query_keys_are_distinct_and_short():
    """Every configuration constant in PARAMS names its own query key (a clash would merge two entries)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(state.__file__).read_text())
    (params,) = [node.value for node in ast.walk(tree) if isinstance(node, ast.AnnAssign)
                 and getattr(node.target, "id", None) == "PARAMS"]
    names = [key.id for key in params.keys]
    keys = [getattr(state, name) for name in names]
    assert len(set(keys)) == len(keys) == len(state.PARAMS)
    assert all(len(k) <= 14 and not k.startswith((state.WIDGET_PREFIX, "_")) for k in keys)
    assert {k for k in keys if k.startswith("st_")} == {getattr(state, n) for n in names if n.startswith("ST_")}
    assert {k for k in keys if k.startswith("ex_")} == {getattr(state, n) for n in names if n.startswith("EX_")}


def test_a_priste_figure_names_its_cell_size():
    """The cached PriSTE runs carry the map's scale (issue 16): in the caption and in the chart's title."""
    at = open_page()
    at.selectbox(key=W(state.EX_FIGURE)).set_value("priste-table2").run()
    assert not at.exception, at.exception
    spec = chart(at)
    assert "cells of 0.1 km (α per km)" in spec["layout"]["meta"]["source"]
    assert "100 m cells" in spec["layout"]["title"]["text"]
