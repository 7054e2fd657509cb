"""AppTest: the Temporal privacy loss page (correlation presets/slider, matrix upload, scheme, chart traces)."""
from __future__ import annotations

import json
from functools import partial

import app_support
import numpy as np
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)
from streamlit.testing.v1 import AppTest

from ui.session import state

PAGE = "pages/temporal_loss.py"


open_page = partial(app_support.open_page, PAGE, 90)


def main_expanders(at):
    """The expanders of the page's main area, top first (the sidebar's left out)."""
    return [e for e in at.main.expander]


def spec(at: AppTest, index: int) -> dict:
    """The chart's plotly spec, its ``layout.meta`` read as a dict (draw-once figures wrap it in a list)."""
    from ui.charts import meta_of

    figure = json.loads(at.get("plotly_chart")[index].proto.spec)
    figure["layout"]["meta"] = meta_of(figure["layout"])
    return figure


def names(figure: dict) -> list[str]:
    return [trace.get("name") for trace in figure["data"]]


@pytest.fixture(scope="module")
def small() -> AppTest:
    """A short synthetic series keeps every run fast; the widgets are exercised on it in order."""
    return open_page(source="synthetic", syn_n="120", syn_frac="0.2", reps="10")


def test_default_render_has_the_three_charts_and_the_explanation():
    at = open_page()
    assert at.title[0].value == "Temporal privacy loss"
    assert not at.error
    tpl_names, lm_names, fig9_names = names(spec(at, 0)), names(spec(at, 1)), names(spec(at, 2))
    assert {"BPL (backward)", "FPL (forward)", "TPL (uniform)", "landmark"} <= set(tpl_names)
    assert any(n.startswith("εₜ (no correlation") for n in tpl_names)
    assert any("limit (supremum)" in n for n in tpl_names)  # Uniform spends a constant budget: exact limit
    assert {"overall (uniform)", "own term αₜ", "no correlation (Theorem 2)", "goal ε"} <= set(lm_names)
    assert any(n.startswith("bound") for n in lm_names)
    # every landmark distribution named as one: "uniform" alone was also the scheme whose budgets it draws (issue 35)
    assert {"skewed landmarks", "symmetric landmarks", "bimodal landmarks", "landmarks spread at random",
            "no correlation"} <= set(fig9_names)
    assert not set(fig9_names) & set(state.SCHEME_NAMES)
    figure = spec(at, 0)
    assert figure["layout"]["meta"] == {"eps": 1.0, "scheme": "uniform"}
    assert figure["layout"]["yaxis"]["title"]["text"] == "privacy loss (nats)"  # a unit on the axis (issue 35)
    assert "timestamp" in figure["layout"]["xaxis"]["title"]["text"]
    assert main_expanders(at)[0].label == "What am I looking at?" and len(at.latex) >= 3


def test_presets_and_slider_stay_in_sync_and_change_the_loss(small):
    at = small
    before = spec(at, 0)
    at.segmented_control(key=state.widget_key(state.CORRELATION)).set_value("strong").run()
    assert not at.exception
    assert at.session_state[state.CORRELATION_S] == 0.01
    assert spec(at, 0)["data"] != before["data"]
    at.select_slider(key=state.widget_key(state.CORRELATION_S)).set_value(0.002).run()
    assert at.session_state[state.CORRELATION] == "custom"
    at.select_slider(key=state.widget_key(state.CORRELATION_S)).set_value(1.0).run()
    assert at.session_state[state.CORRELATION] == "weak"


def test_correlation_comes_from_the_url():
    at = open_page(source="synthetic", syn_n="60", reps="5", corr="strong")
    assert at.session_state[state.CORRELATION_S] == 0.01
    assert "s = 0.01 (strong)" in " ".join(c.value for c in at.caption)
    at = open_page(source="synthetic", syn_n="60", reps="5", corr="custom", s="0.002")
    assert at.select_slider(key=state.widget_key(state.CORRELATION_S)).value == 0.002


def test_scheme_and_epsilon_change_the_charts(small):
    at = small
    at.segmented_control(key=state.widget_key(state.TPL_SCHEME)).set_value("skip").run()
    assert not at.exception
    assert "TPL (skip)" in names(spec(at, 0)) and spec(at, 0)["layout"]["meta"]["scheme"] == "skip"
    assert any("bound (supremum)" in n for n in names(spec(at, 0)))  # skip's budgets vary: an upper bound
    at.select_slider(key=state.widget_key(state.EPSILON)).set_value(2.0).run()
    assert not at.exception
    assert all(spec(at, i)["layout"]["meta"]["eps"] == 2.0 for i in range(3))


def test_figure9_quantity_and_statistic(small):
    at = small
    at.segmented_control(key="tpl_fig9_quantity").set_value("bound").run()
    at.segmented_control(key="tpl_fig9_statistic").set_value("mean").run()
    assert not at.exception
    layout = spec(at, 2)["layout"]
    assert layout["meta"]["quantity"] == "bound" and layout["meta"]["statistic"] == "mean"
    assert layout["yaxis"]["title"]["text"] == "mean over t of bound (nats)"
    # every privacy-loss axis names its unit, the nats ε is counted in (issue 35: "(ε)" alone named no unit)
    assert [spec(at, i)["layout"]["yaxis"]["title"]["text"] for i in (0, 1)] == ["privacy loss (nats)"] * 2


def test_bad_matrix_upload_shows_the_core_message_and_a_good_one_is_used():
    at = open_page(source="synthetic", syn_n="60", reps="5")
    at.file_uploader(key="tpl_matrix_file").upload("P.csv", b"0.5,0.6\n0.2,0.8\n", "text/csv").run()
    assert not at.exception
    assert at.error and "row-stochastic" in at.error[0].value.replace("\\", "")  # the message is Markdown-escaped
    assert not at.get("plotly_chart")  # nothing is drawn from an invalid matrix
    at.file_uploader(key="tpl_matrix_file").upload("P.csv", b"1,0\n0,1\n", "text/csv").run()
    assert not at.exception and not at.error
    assert any("infinite" in w.value for w in at.warning)  # a deterministic chain: the supremum diverges
    assert not any("supremum" in n for n in names(spec(at, 0)))
    assert "uploaded 2-state matrix" in " ".join(c.value for c in at.caption)
    tpl = next(t for t in spec(at, 0)["data"] if t["name"] == "TPL (uniform)")
    assert tpl["y"]  # drawn


def test_no_scheme_selected_warns():
    at = open_page(source="synthetic", syn_n="60", schemes="")
    at.multiselect(key=state.widget_key(state.SCHEMES)).set_value([]).run()
    assert not at.exception
    assert any("at least one scheme" in w.value for w in at.warning)
    assert np.size(at.get("plotly_chart")) == 0


def test_the_analysed_scheme_round_trips_through_the_link():
    """A link made with skip opens on skip (it opened on uniform: the choice was session-only)."""
    at = app_support.open_page("pages/temporal_loss.py", 60, tpl_scheme="skip")
    assert at.session_state[state.TPL_SCHEME] == "skip"
    assert "skip budgets" in " ".join(c.value for c in at.caption)
    at.segmented_control(key=state.widget_key(state.TPL_SCHEME)).set_value("adaptive").run()
    assert not at.exception and at.query_params["tpl_scheme"] in ("adaptive", ["adaptive"])


def test_headline_states_the_loss_in_words_first():
    at = open_page(tpl_scheme="uniform", corr="strong")
    head = app_support.headline(at)  # the one headline, at most two sentences (issue 35)
    assert "strong correlation between consecutive hours" in head and "*Uniform*" in head
    # the first number is the headline's answer: under strong correlation the landmark loss (7.2 nats) exceeds Σ εₜ
    # (4.7 nats), so both say the valid bound, Σ εₜ (the metric said 7.18 beside the headline's 4.7)
    answer, total = at.metric[0], at.metric[3]
    assert answer.label == "Loss with landmarks (nats)" and total.label.startswith("Σ of all budgets")
    assert float(answer.value) == float(total.value) and f"up to {float(answer.value):.2g} nats" in head


def test_epsilon_reruns_only_the_results_and_keeps_the_link_current():
    at = open_page(source="synthetic", syn_n="120", syn_frac="0.2", reps="10")
    at.select_slider(key=state.widget_key(state.EPSILON)).set_value(0.5).run()
    assert not at.exception
    assert not at.title  # a fragment-only rerun (issue 34): the title and the controls above it were not redrawn
    assert all(spec(at, i)["layout"]["meta"]["eps"] == 0.5 for i in range(3))
    assert at.query_params[state.EPSILON] in ("0.5", ["0.5"])  # the fragment keeps the shareable link current


@pytest.mark.parametrize(("scheme", "runs"), [("skip", [("skip", 1)]), ("adaptive", [("adaptive", 10)] * 2)])
def test_data_independent_budgets_come_from_one_run_shared_by_every_seed(monkeypatch, scheme, runs):
    from lmdk import schemes
    from ui.session import cache

    calls = []
    real = schemes.release

    def counted(x, landmarks, name, *args, **kwargs):
        calls.append((name, kwargs["repetitions"]))
        return real(x, landmarks, name, *args, **kwargs)

    monkeypatch.setattr(schemes, "release", counted)
    cache.scheme_summary.clear()
    at = open_page(source="synthetic", syn_n="120", syn_frac="0.2", reps="10", seed="3", tpl_scheme=scheme)
    budgets = spec(at, 0)["data"]
    at.run()
    at.number_input(key=state.widget_key(state.SEED)).set_value(4).run()
    assert not at.exception
    # Skip's budgets are fixed by n, L and ε: one single-repetition run serves seed 3 and seed 4 (and every session);
    # Adaptive's depend on the noise: each seed runs its repetitions
    assert [c for c in calls if c[0] == scheme] == runs
    if scheme == "skip":
        assert spec(at, 0)["data"] == budgets
