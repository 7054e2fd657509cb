"""AppTest: the Spatiotemporal events page (PriSTE) renders, reacts to ε and the region, and stays private."""
from __future__ import annotations

import json

import numpy as np
import pytest
from app_support import APP, array, headline, navigation_mode  # noqa: F401 (autouse fixture)
from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from ui.session import state

PAGE = "pages/spatiotemporal_events.py"
W = state.widget_key
SMALL = {state.ST_T: "15", state.ST_CELL: "1000", state.ST_REPETITIONS: "2"}  # a fast view


def chart(at: AppTest, key: str) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart") if key in c.proto.id).proto.spec)


def median_of(fig: dict, name: str) -> np.ndarray:
    return array(next(tr for tr in fig["data"] if tr.get("name") == f"{name}: median")["y"])


def open_page(**query) -> AppTest:
    """The page at a small size (15 timestamps, 1 km cells, 2 repetitions) plus the given URL query."""
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in {**SMALL, **query}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def test_page_renders_charts_and_respects_epsilon():
    at = open_page()
    leak = chart(at, "priste_leak_chart")
    assert leak["layout"]["meta"]["eps"] == 1.0
    assert np.all(median_of(leak, "PriSTE") <= 1.0 * (1 + 1e-9))
    alpha = chart(at, "priste_alpha_chart")
    a = median_of(alpha, "PriSTE")
    assert a.size == 15 and np.all(a <= 1.0) and np.all(a >= 0)
    assert [m.label for m in at.metric][:2] == ["Distance, plain α-PLM", "Distance, PriSTE"]
    assert all(m.value.endswith((" m", " km")) for m in at.metric[:2])  # one style with the headline (issue 35)
    # a stricter ε redraws with the new bound and never a larger α
    at.select_slider(key=W(state.ST_EPSILON)).set_value(0.1).run()
    assert not at.exception, at.exception
    leak2 = chart(at, "priste_leak_chart")
    assert leak2["layout"]["meta"]["eps"] == 0.1
    assert np.all(median_of(leak2, "PriSTE") <= 0.1 * (1 + 1e-9))
    assert median_of(chart(at, "priste_alpha_chart"), "PriSTE").mean() <= a.mean()


def test_region_edit_pattern_kind_and_empty_region_warning():
    at = open_page()
    at.radio(key=W(state.ST_KIND)).set_value("pattern").run()
    assert not at.exception, at.exception
    at.multiselect(key=W(state.ST_REGION)).set_value([]).run()
    assert any("region is empty" in w.value for w in at.warning)
    at.multiselect(key=W(state.ST_REGION)).set_value([0, 1, 2]).run()
    assert not at.exception and not at.warning
    at.toggle(key=W(state.ST_ESTIMATE)).set_value(True).run()  # M estimated from the snapped trace
    assert not at.exception, at.exception
    assert np.all(median_of(chart(at, "priste_leak_chart"), "PriSTE") <= 1.0 * (1 + 1e-9))


def test_synthetic_walk_and_delta_variant():
    at = open_page()
    at.radio(key=W(state.ST_SOURCE)).set_value("walk").run()
    at.slider(key=W(state.ST_SIDE)).set_value(5)
    at.toggle(key=W(state.ST_USE_DELTA)).set_value(True)
    at.run()
    assert not at.exception, at.exception
    assert np.all(median_of(chart(at, "priste_leak_chart"), "PriSTE") <= 1.0 * (1 + 1e-9))
    # a fixed synthetic map: guessing its centre is data-free, and the headline compares with it
    assert "(guessing the map's centre: " in headline(at)


def test_url_reproduces_the_view():
    """A link with the page's configuration opens the same view; edits go back into the URL."""
    query = {state.ST_SOURCE: "walk", state.ST_SIDE: "5", state.ST_EPSILON: "0.5", state.ST_ALPHA: "0.5",
             state.ST_KIND: "pattern", state.ST_WINDOW: "3-6", state.ST_REGION: "6,0,1", state.ST_SHOW_PLAIN: "1"}
    at = open_page(**query)
    assert at.radio(key=W(state.ST_SOURCE)).value == "walk"
    assert at.slider(key=W(state.ST_SIDE)).value == 5
    assert at.select_slider(key=W(state.ST_EPSILON)).value == 0.5
    assert at.select_slider(key=W(state.ST_ALPHA)).value == 0.5
    assert at.radio(key=W(state.ST_KIND)).value == "pattern"
    assert tuple(at.slider(key=W(state.ST_WINDOW)).value) == (3, 6)
    assert at.multiselect(key=W(state.ST_REGION)).value == [0, 1, 6]
    assert at.toggle(key=W(state.ST_SHOW_PLAIN)).value is True
    assert chart(at, "priste_leak_chart")["layout"]["meta"]["eps"] == 0.5
    assert {k: at.query_params[k] for k in query} == {**query, state.ST_REGION: "0,1,6"}

    at.select_slider(key=W(state.ST_EPSILON)).set_value(0.2)
    at.slider(key=W(state.ST_WINDOW)).set_value((2, 5))
    at.multiselect(key=W(state.ST_REGION)).set_value([3, 4])
    at.run()
    assert not at.exception, at.exception
    assert (at.query_params[state.ST_EPSILON], at.query_params[state.ST_WINDOW],
            at.query_params[state.ST_REGION]) == ("0.2", "2-5", "3,4")

    again = open_page(**at.query_params)  # the link of the edited view
    assert again.select_slider(key=W(state.ST_EPSILON)).value == 0.2
    assert tuple(again.slider(key=W(state.ST_WINDOW)).value) == (2, 5)
    assert again.multiselect(key=W(state.ST_REGION)).value == [3, 4]
    assert np.array_equal(median_of(chart(again, "priste_leak_chart"), "PriSTE"),
                          median_of(chart(at, "priste_leak_chart"), "PriSTE"))


def test_bad_url_values_fall_back_to_defaults():
    at = open_page(**{state.ST_CELL: "999", state.ST_WINDOW: "9-2", state.ST_REGION: "1,x",
                      state.ST_EPSILON: "nan", state.ST_SOURCE: "../etc", state.ST_SIGMA: "inf"})
    assert at.select_slider(key=W(state.ST_CELL)).value == 500
    assert at.radio(key=W(state.ST_SOURCE)).value == "taxi"
    assert at.select_slider(key=W(state.ST_EPSILON)).value == 1.0
    assert at.slider(key=W(state.ST_SIGMA)).value == 1.0
    lo, hi = at.slider(key=W(state.ST_WINDOW)).value
    assert 0 <= lo <= hi <= 14 and at.multiselect(key=W(state.ST_REGION)).value


ST_PARAMS = [key for key in state.PARAMS if key.startswith("st_")]


@given(key=st.sampled_from(ST_PARAMS),
       text=st.text(max_size=30) | st.from_regex(r"-?\d{1,4}(\.\d{1,3})?([-,]\d{1,3})*", fullmatch=True)
       | st.sampled_from(["nan", "inf", "-inf", "1e308", "true", "walk", "pattern", ""]))
def test_url_parsers_never_raise_on_arbitrary_text(key, text):
    value = state.PARAMS[key].parse(text)
    if value is not None:  # what a parser accepts, it writes back unchanged
        assert state.PARAMS[key].parse(state.PARAMS[key].dump(value)) == value


def test_url_parsers_round_trip_defaults_and_options():
    for key in ST_PARAMS:
        param = state.PARAMS[key]
        if param.default is not None:
            assert param.parse(param.dump(param.default)) == param.default, key
    for cell in state.PRISTE_CELL_SIZES:
        assert state.PARAMS[state.ST_CELL].parse(str(cell)) == cell
    for alpha in state.PRISTE_ALPHAS:
        assert state.PARAMS[state.ST_ALPHA].parse(f"{alpha:g}") == alpha
    assert state.PARAMS[state.ST_WINDOW].parse(f"0-{state.PRISTE_T_MAX}") is None  # beyond the longest trace
    assert state.PARAMS[state.ST_REGION].parse(",".join(["1"] * (state.PRISTE_REGION_MAX + 1))) is None


def test_spread_fixes_covers_the_whole_trace():
    from lmdk.priste.views import spread_fixes

    idx = spread_fixes(7075, 40)
    assert idx[0] == 0 and idx[-1] == 7074 and len(idx) == 40 and (np.diff(idx) > 0).all()
    assert spread_fixes(10, 40).tolist() == list(range(10))


def test_headline_says_what_the_calibration_buys_and_costs():
    at = open_page()
    head = headline(at)  # the one headline, at most two sentences (issue 35)
    assert ("PriSTE keeps it within ε" in head and "km off instead of" in head) or "nothing to change" in head
    # the default taxi trace gets a map fitted around it: the centre guess is named, and named as not data-free
    assert "the centre of this map, fitted around the trace and so not a data-free guess, is " in head, head
    said = " ".join(c.value for c in at.caption)
    assert "so its centre is read from the data: no guess on it is data-free" in said


def test_default_view_calibrates_partly_and_states_its_scale():
    """The default view (taxi trace, 500 m cells, α₀ 0.1 per km, ε = 1) sits where PriSTE cuts α, but not to nothing."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    note = next(c.value for c in at.caption if c.value.startswith("Scale:"))
    assert "500 m cells" in note and "α₀·cell = 0.05" in note and "only α·cell matters" in note
    alpha = median_of(chart(at, "priste_alpha_chart"), "PriSTE")
    ratio = float(np.mean(alpha)) / state.PARAMS[state.ST_ALPHA].default
    assert 0.2 < ratio < 0.95 and alpha.min() < state.PARAMS[state.ST_ALPHA].default  # neither trivial nor total


def test_scale_note_names_the_equivalent_grid():
    from lmdk.priste.views import scale_note

    assert "α₀·cell = 0.1" in scale_note(100, 1.0) and "1000 m cells and α₀ = 0.1 per km" in scale_note(100, 1.0)
    assert "100 m cells and α₀ = 0.5 per km" in scale_note(500, 0.1)


def test_an_expensive_change_waits_for_the_button():
    """Past the first view, a change whose run is estimated above ui.run_gate.BUDGET_S draws the button, not the
    charts (issue 34: a class moving ε together must not queue minutes of Monte-Carlo)."""
    at = open_page()
    assert chart(at, "priste_leak_chart")
    at.slider(key=W(state.ST_REPETITIONS)).set_value(state.PRISTE_REPETITIONS_MAX).run()
    assert not at.exception, at.exception
    assert not at.get("plotly_chart") and any("waits for the button" in i.value for i in at.info)
    assert at.query_params[state.ST_REPETITIONS] == str(state.PRISTE_REPETITIONS_MAX)  # the link is current



def test_band_charts_are_built_once_per_run(monkeypatch):
    import plotly.graph_objects as go

    built = []
    real = go.Figure.add_vrect  # every priste_charts.band_figure shades its event window once

    def counting(self, *args, **kwargs):
        built.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(go.Figure, "add_vrect", counting)
    first = open_page(**{state.ST_SEED: "31"})
    assert len(built) == 2  # leakage and α
    second = open_page(**{state.ST_SEED: "31"})
    # the second session reads both charts the first one built (issue 34): the same spec, not built again
    assert len(built) == 2
    assert chart(first, "priste_leak_chart") == chart(second, "priste_leak_chart")
    assert chart(first, "priste_alpha_chart") == chart(second, "priste_alpha_chart")
    open_page(**{state.ST_SEED: "32"})  # another run: drawn afresh
    assert len(built) == 4


def test_a_trace_too_wide_for_the_grid_names_the_sidebar_controls():
    """Before, the page passed on the core's words for API users: "… (> 400); increase cell_size_m"."""
    at = open_page(**{state.ST_T: "80", state.ST_CELL: "500"})
    said = at.error[0].value
    assert said.startswith("Covering this trace with 500 m cells needs 38×54 cells, more than the page's 400")
    assert "a larger *cell size (m)* or fewer *timestamps* in the sidebar" in said and "cell_size_m" not in said
    at.select_slider(key=W(state.ST_CELL)).set_value(2000).run()
    assert not at.exception and not at.error


def test_the_grid_refusal_is_a_typed_parameter_error_for_the_api():
    from lmdk.errors import ParameterError
    from lmdk.priste.grid import GridTooLarge, grid_around

    with pytest.raises(GridTooLarge, match="increase cell_size_m") as caught:
        grid_around(np.array([39.9, 40.2]), np.array([116.3, 116.6]), 100.0)
    assert isinstance(caught.value, ParameterError) and caught.value.rows * caught.value.cols > 400
