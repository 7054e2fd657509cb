"""AppTest: the Population page (synthetic fleet, per-scheme boxes, per-user scatter, flagged users, bad rules)."""
from __future__ import annotations

import json
from functools import partial

import app_support
import numpy as np
from app_support import array, navigation_mode  # noqa: F401 — navigation_mode is an autouse fixture

from ui.charts import meta_of
from ui.session import state

PAGE = "pages/population.py"
open_page = partial(app_support.open_page, PAGE, 90)


def specs(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_a_fleet_shows_one_box_per_scheme_and_one_point_per_user():
    at = open_page(pop_users="40", pop_n="200", schemes="event,uniform,adaptive")
    boxes, scatter = specs(at)
    assert [t["name"] for t in boxes["data"]] == ["event", "uniform", "adaptive", "data-free guess"]  # issue 35
    assert all(len(array(t["x"])) == 40 for t in boxes["data"][:3])
    assert sum(len(array(t["x"])) for t in scatter["data"]) == 40 and meta_of(scatter["layout"])["scheme"] == "adaptive"
    headline = app_support.headline(at)  # under the explanation; at most two sentences (issue 35)
    assert headline.startswith("##### With ε = 1, *adaptive*") and "*event* does **not** protect" in headline
    assert "the middle of the public range 0–25 kWh" in headline  # the yardstick (issue 35)
    flagged = [d.value for d in at.dataframe if "reason" in d.value.columns]  # not the charts' "Show data" tables
    assert "violates Theorem 2" in flagged[0]["reason"].tolist()


def test_epsilon_acts_on_every_chart():
    # the fleet's public range is 0–25 kWh (Δ = 25): errors saturate in the range below ε ≈ 5, so compare 100 and 10
    at = open_page(pop_users="20", pop_n="100", schemes="uniform,adaptive", eps="100")
    before = specs(at)
    at.session_state[state.EPSILON] = 10.0
    at.session_state[state.widget_key(state.EPSILON)] = 10.0
    at.run()
    after = specs(at)
    assert [meta_of(f["layout"])["eps"] for f in after] == [10.0, 10.0]
    assert np.median(array(after[0]["data"][0]["x"])) > 2 * np.median(array(before[0]["data"][0]["x"]))


def test_a_bad_landmark_rule_is_named_and_stops_the_page():
    at = open_page(pop_users="10", pop_n="100")
    at.text_input(key="pop_rule_text").set_value("percentile:120").run()
    assert any("Landmark rule" in e.value for e in at.error) and not at.get("plotly_chart")


def test_the_fleet_settings_and_rule_are_in_the_link():
    at = open_page(pop_users="25", pop_n="150", pop_rule="below:0.05")
    assert at.query_params["pop_users"] in ("25", ["25"]) and at.query_params["pop_rule"] in ("below:0.05",
                                                                                              ["below:0.05"])
    assert at.text_input(key="pop_rule_text").value == "below:0.05"


def test_the_upload_mode_asks_for_a_file_without_error():
    at = open_page(pop_src="upload")
    assert not at.exception and any("Upload a multi-user file" in i.value for i in at.info)


def test_a_chart_with_text_customdata_has_the_same_revision_every_run():
    """Object arrays (user ids as text) must not be hashed by their pointers: a new datarevision on every run
    made plotly redraw the chart and drop the user's click selection."""
    from ui.charts import data_revision

    ids = [np.array([str(i) for i in range(5)], dtype=object) for _ in range(2)]
    assert data_revision([{"customdata": ids[0]}]) == data_revision([{"customdata": ids[1]}])


def test_the_sidebar_shows_no_single_series_landmark_status_on_this_page():
    at = open_page(pop_users="10", pop_n="100")
    assert not [m for m in at.metric if m.label == "Landmarks"]


def test_each_user_alone_against_the_total_side_by_side():
    at = open_page(pop_users="40", pop_n="200", schemes="uniform,skip", pop_district="calendar:sun@09:00-12:00")
    said = [m.value for m in at.markdown if "Each user alone" in m.value]
    assert said and "the total of all 40" in said[0]
    # one name for the people on the page (issue 35: the synthetic users were also "homes" here)
    assert not [m.value for m in [*at.markdown, *at.caption] if "home" in m.value.lower()]
    side = [d.value for d in at.dataframe if "total: relative MAE" in d.value.columns][0]
    assert side["scheme"].tolist() == ["uniform", "skip"]
    # the same noise on a total 40 times larger: the total's relative error is far below one user's share
    assert (side["total: relative MAE"] < side["one user: share of the mean reading"] / 5).all()
    at.text_input(key="pop_district_text").set_value("percentile:20").run()
    assert any("calendar windows" in e.value for e in at.error)


def test_the_total_opens_on_the_single_series_pages_with_its_aggregate_relation():
    at = open_page(pop_users="30", pop_n="200", schemes="uniform,skip")
    at.button(key="pop_open_total").click().run()
    if not at.exception and at.session_state[state.SOURCE] == "upload":
        at.switch_page("pages/schemes_utility.py").run()
    assert not at.exception, at.exception
    held = at.session_state[state.TOTAL_OF_USERS]
    assert held["relation"]["kind"] == "aggregate" and held["relation"]["users"] == 30
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "sum over 30 users" in said and "Δ = 25" in said


def test_a_fleet_over_the_page_size_names_the_fields_and_the_fix():
    """Before, 2,000 users × 1,000 hours (each inside its own input's bounds) ended in Streamlit's error page: the
    fleet generator's ParameterError was not caught."""
    at = open_page(pop_users="2000", pop_n="1000")
    assert not at.exception
    said = at.error[0].value
    assert "2,000 users × 1,000 hours per user = 2,000,000 readings" in said
    assert "at most 1,000 at 1,000 hours" in said and "at most 500 for 2,000 users" in said
    assert "lmdk population" in said and not at.get("plotly_chart")
    at.number_input(key=state.widget_key(state.POP_USERS)).set_value(10).run()
    assert not at.exception and not at.error and at.get("plotly_chart")


def test_a_window_longer_than_the_users_series_says_which_input_to_change():
    """Before, the core's words: "w (w-event window length) must be an integer in 1..n for every user; …"."""
    at = open_page(pop_users="5", pop_n="10", w="500")
    assert not at.exception
    assert at.error[0].value == ("*w* = 500 is longer than each user's series (10 hours): choose *w* ≤ 10 in the "
                                 "sidebar, or leave *w-event* out of the schemes.")
    at = open_page(pop_users="5", pop_n="10", w="500", schemes="uniform,skip")  # w acts on w-event only
    assert not at.error and at.get("plotly_chart")


def test_an_empty_landmark_rule_asks_for_one():
    at = open_page(pop_users="10", pop_n="100")
    at.text_input(key="pop_rule_text").input("").run()
    assert not at.exception and not at.error
    assert at.info[0].value.startswith("Enter a landmark rule above, e.g. `percentile:20`")


def test_the_synthetic_users_default_rule_is_declared_and_a_value_rule_gets_the_data_derived_headline():
    """Issue 53: the page's default rule read the values (below:0.1) while the headline said Skip "protects every
    user's landmarks"; now the default is declared, and a value rule typed in the box gets NOT PROTECTED."""
    import re

    at = open_page(pop_users="30", pop_n="200", schemes="uniform,skip")
    said = lambda: re.sub(r"\\(.)", r"\1", " ".join(str(m.value) for m in at.markdown))  # noqa: E731
    rule = at.text_input(key="pop_rule_text").value
    assert rule == "declared" and "below:" not in rule  # each user's own declared quiet hours
    assert "protects every user's landmarks" in said() and "NOT PROTECTED" not in said()
    assert "declared in advance (each user's own calendar rule)" in said()
    # the landmarks are the users' quiet hours: one point per user at its quiet share (below 0.1 kWh)
    from lmdk.population.fleet import QUIET, synthetic_fleet

    fleet = synthetic_fleet(30, 200, tuple(at.session_state[state.POP_SHARE]),
                            rng=int(at.session_state[state.POP_FLEET_SEED]))
    quiet = (fleet.table["value"].to_numpy().reshape(30, 200) < QUIET).mean(axis=1)
    scatter = specs(at)[1]
    shares = {str(u): x for t in scatter["data"] for u, x in zip(array(t["customdata"]).ravel(), array(t["x"]),
                                                                  strict=True)}
    assert np.allclose([shares[str(u)] for u in range(30)], 100 * quiet) and quiet.min() > 0  # x in %
    at.selectbox(key="pop_user_pick").set_value("3").run()
    at.button[[b.label for b in at.button].index("Open user 3 on the single-series pages")].click().run()
    marked = np.asarray(at.session_state[state.LANDMARKS])
    np.testing.assert_array_equal(marked, np.flatnonzero(fleet.table["value"].to_numpy().reshape(30, 200)[3] < QUIET))
    assert at.session_state[state.LANDMARKS_ORIGIN] == "declared"
    at = open_page(pop_users="30", pop_n="200", schemes="uniform,skip")
    at.text_input(key="pop_rule_text").input("below:0.1").run()
    assert not at.exception
    headline = next(m.value for m in at.markdown if str(m.value).startswith("##### "))
    assert "protects every user's landmarks" not in headline and "does not protect" in headline
    assert "NOT PROTECTED: " in said() and "declared in advance" not in said()
