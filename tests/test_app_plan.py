"""AppTest: the planner on the Schemes & utility page — target → ε per scheme, sentence, chart, apply, link,
RunConfig."""
from __future__ import annotations

import json

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)
from streamlit.testing.v1 import AppTest

from ui.session import state

PAGE = "pages/schemes_utility.py"


def open_page(**query) -> AppTest:
    query.setdefault("reps", "20")
    return app_support.open_page(PAGE, 300, **query)


def plan_chart(at: AppTest) -> dict | None:
    found = [c for c in at.get("plotly_chart") if "plan_chart" in c.proto.id]
    return json.loads(found[0].proto.spec) if found else None


def sentence(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("##### To keep"))


COLUMN = {"plan_table": "ε needed", "plan_tradeoff": "Δ"}  # AppTest gives dataframes no key: find them by a column


def frame(at: AppTest, key: str):
    return next(d.value for d in at.dataframe if COLUMN[key] in d.value.columns)


def test_without_a_target_the_page_is_unchanged_and_offers_the_planner_in_the_sidebar():
    at = open_page()
    assert plan_chart(at) is None
    assert any("start from the error I can accept" in e.label for e in at.sidebar.expander)
    assert "target" not in at.query_params


def test_a_target_in_the_link_gives_epsilon_per_scheme_a_sentence_a_chart_and_intervals():
    at = open_page(target="0.5")
    said = sentence(at)
    assert said.startswith("##### To keep the mean error of the hours within 0.5 kWh, *")
    assert "user-level privacy needs ε = " in said and "does **not** protect" in said  # event level is cheaper
    fig = plan_chart(at)
    names = fig["data"][0]["y"]
    assert names == list(state.SCHEME_NAMES)
    from ui.charts.style import SCHEME_COLOURS

    assert fig["data"][0]["marker"]["color"] == [SCHEME_COLOURS[s] for s in names]
    assert fig["layout"]["xaxis"]["type"] == "log"
    table = frame(at, "plan_table")
    assert list(table["scheme"]) == list(state.SCHEME_NAMES)
    assert all("±" in v for v in table["MAE at that ε (kWh)"])
    assert dict(zip(table["scheme"], table["landmark privacy (Thm 2)"], strict=True))["event"] == "violates"
    trade = frame(at, "plan_tradeoff")
    assert trade["Δ"].iloc[0] == 25 and list(trade["Δ"]) == sorted(trade["Δ"], reverse=True)
    # ε ∝ Δ: "changes up to 5 kWh" costs a fifth of "any value in 0–25 kWh"
    five = trade[trade["Δ"] == 5].iloc[0]
    assert float(five["event"]) == pytest.approx(float(trade.iloc[0]["event"]) / 5, rel=0.01)
    # the MAE of the page's own view carries its interval too
    assert " ± " in next(m.value for m in at.markdown if m.value.startswith("##### With ε"))


def test_typing_a_target_in_the_sidebar_plans_and_puts_it_in_the_link():
    at = open_page()
    at.number_input(key=state.widget_key(state.TARGET)).set_value(0.5).run()
    at.selectbox(key=state.widget_key(state.TARGET_AT)).set_value("landmarks").run()
    assert not at.exception
    assert "sensitive hours within 0.5 kWh" in sentence(at)
    assert at.query_params["target"] in ("0.5", ["0.5"]) and at.query_params["target_at"] in ("landmarks",
                                                                                                ["landmarks"])


def test_applying_a_plan_sets_the_slider_to_the_smallest_epsilon_that_meets_the_target():
    at = open_page(target="0.5", rel="up_to", rd="1", schemes="uniform,skip,adaptive")  # Δ = 1: fits the slider
    table = frame(at, "plan_table")
    needed = float(dict(zip(table["scheme"], table["ε needed"], strict=True))["skip"].replace(",", ""))
    at.selectbox(key="_plan_scheme").set_value("skip").run()
    apply = next(b for b in at.button if b.key == "plan_apply")
    expected = min(e for e in state.EPSILON_OPTIONS if e >= needed * 0.99)
    assert apply.label.startswith(f"Use ε = {expected:g}")
    apply.click().run()
    assert not at.exception
    assert at.session_state[state.EPSILON] == expected
    assert any(m.value.startswith(f"##### With ε = {expected:g}") for m in at.markdown)
    assert any("Applied ε" in s.value for s in at.success)


def test_applying_a_trade_off_row_protects_changes_up_to_d():
    at = open_page(target="0.5", schemes="skip")
    at.selectbox(key="_plan_scheme").set_value("skip").run()
    at.selectbox(key="_plan_delta").set_value(2.0).run()
    apply = next(b for b in at.button if b.key == "plan_apply")
    apply.click().run()
    assert not at.exception
    assert at.session_state[state.REL_KIND] == "up_to" and at.session_state[state.REL_D] == 2.0
    assert at.session_state[state.EPSILON] <= 10


def test_an_epsilon_beyond_the_slider_cannot_be_applied_and_says_how_to_release_it():
    at = open_page(target="0.5", schemes="user")  # user level at Δ = 25: ε ≈ 43,000
    off = next(b for b in at.button if b.key == "plan_apply_off")
    assert off.disabled and "lmdk release --epsilon" in off.help


def test_an_infeasible_scheme_is_said_in_words():
    at = open_page(target="0.05", target_at="landmarks", schemes="uniform,skip")
    assert "*Skip* cannot get there at any ε" in sentence(at)
    assert dict(zip(frame(at, "plan_table")["scheme"], frame(at, "plan_table")["ε needed"], strict=True))["skip"] == \
        "cannot get there"


def downloaded(at: AppTest, label: str) -> bytes:
    """The content of a download button: a deferred one's is what its click builds (from the inputs the run left in
    the session state, ui.downloads.download_deferred); one built during the run is read from AppTest's in-memory
    media storage."""
    import gc

    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    proto = next(b for b in at.get("download_button") if b.proto.label == label).proto
    if proto.HasField("deferred_file_id"):
        held = [h for key, h in at.session_state[state.DOWNLOAD_FIGURES].items() if proto.id.endswith("-" + key)]
        assert len(held) == 1, f"deferred download {label!r}: {len(held)} inputs in the session state"
        return held[0].content().encode()
    url = proto.url
    file_id = url.rsplit("/", 1)[1].split(".")[0]
    for storage in (o for o in gc.get_objects() if isinstance(o, MemoryMediaFileStorage)):
        try:
            return storage.get_file(file_id).content
        except Exception:  # another test's storage
            continue
    raise AssertionError(f"download {label!r} not found")


def test_the_runconfig_carries_the_target_and_restores_it():
    from lmdk.exports.runconfig import RunConfig

    at = app_support.open_exports(open_page(target="0.7", target_at="regular", target_p="0.9", schemes="uniform"))
    assert "with probability 90 %" in sentence(at)
    saved = RunConfig.from_json(downloaded(at, "RunConfig (JSON)"))
    assert saved.target == {"error": 0.7, "at": "regular", "probability": 0.9}
    at2 = app_support.open_exports(open_page())
    cfg = RunConfig(data="sample:hue", events=1000, landmarks=(1, 2, 3), schemes=("uniform", "skip"),
                    mechanism="laplace", epsilon=0.5, repetitions=20, target={"error": 0.3, "at": "landmarks"})
    at2.file_uploader(key=state.CONFIG_UPLOAD).set_value(("run.json", cfg.to_json().encode(), "application/json"))
    at2.run()
    assert not at2.exception
    assert at2.session_state[state.TARGET] == 0.3 and at2.session_state[state.TARGET_AT] == "landmarks"
    assert "sensitive hours within 0.3 kWh" in sentence(at2)
    assert at2.query_params["target"] in ("0.3", ["0.3"])


def test_the_report_holds_the_plan_and_every_mae_with_its_interval():
    from ui import plan as plan_ui

    at = open_page(target="0.5", schemes="uniform,skip")
    report = at.session_state[state.DOWNLOAD_FIGURES]["dl_report"].value  # what the deferred download builds from
    assert list(report.plan["scheme"]) == ["uniform", "skip"] and "ε needed" in report.plan.columns
    shown = plan_ui.with_plus_minus(report.mae_table)
    assert all(" ± " in v for v in shown["MAE ± 95 % CI"])


def test_a_target_at_events_the_series_has_none_of_says_it_in_the_sidebars_words():
    """Before, the core's words for the API: "target at 'regular': … measure at 'all' or change the landmarks"."""
    at = open_page(source="synthetic", syn_frac="1", target="0.5", target_at="regular")
    said = at.error[0].value
    assert said.startswith("The plan measures the error at *the regular events*, and this series has none")
    assert "choose *all events* under *measured at* in the sidebar" in said and "'all'" not in said
    assert plan_chart(at) is None and not at.exception
