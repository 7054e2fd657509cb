"""AppTest: a sidebar setting whose page has not drawn its results fragment this run reruns the app, not the
fragment. Before, emptying the schemes (the page stops with "Pick a scheme") and then moving the seed or ε asked
Streamlit to rerun a fragment that was not drawn: "No fragment found for target …", an error page."""
from __future__ import annotations

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui.session import state

W = state.widget_key


@pytest.mark.parametrize("page", ["pages/temporal_loss.py", "pages/schemes_utility.py", "pages/dummy_landmarks.py"])
def test_a_setting_after_the_page_stopped_before_its_fragment_reruns_the_app(page):
    at = app_support.open_page(page, 180, reps="3")
    at.multiselect(key=W(state.SCHEMES)).set_value([]).run()
    assert not at.exception and at.warning  # "Pick a scheme …": the results fragment was not drawn
    at.number_input(key=W(state.SEED)).set_value(4).run()
    assert not at.exception, at.exception
    assert at.session_state[state.SEED] == 4
    at.multiselect(key=W(state.SCHEMES)).set_value(["uniform"]).run()
    at.select_slider(key=W(state.EPSILON)).set_value(0.5).run()  # the fragment is drawn again: its own rerun
    assert not at.exception, at.exception
    assert at.session_state[state.EPSILON] == 0.5
