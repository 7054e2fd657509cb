"""AppTest: the Data page's calendar rule box (issue 36) — a one-week preview of what the rule marks, and the rule's
positions as declared landmarks of the current series."""
from __future__ import annotations

from functools import partial

import app_support
import numpy as np
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.landmarks import parse_rule
from ui import calendar_box
from ui.session import state

open_data = partial(app_support.open_page, "pages/data_landmarks.py", 90)


def test_a_calendar_rule_is_previewed_for_a_week_and_marks_declared_landmarks():
    at = open_data(source="district", d_users="20", d_n="336", d_stat="sum")
    at.text_input(key=calendar_box.RULE).input("calendar:mon-fri@22:00-06:00").run()
    grid = next(d.value for d in at.dataframe if "05" in d.value.columns)
    assert list(grid.index) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert grid.loc["Sat", "05"] == "■" and grid.loc["Sat", "22"] == "" and grid.loc["Mon", "05"] == ""  # wraps
    assert "Fri 00:00–06:00, 22:00–24:00 · Sat 00:00–06:00 · Sun none" in app_support.shown(at)
    next(b for b in at.button if b.label == "Use the rule").click().run()
    assert not at.exception
    cur = at.session_state[state.CURRENT]
    expected = parse_rule("calendar:mon-fri@22:00-06:00").indices(cur.series)
    np.testing.assert_array_equal(cur.landmarks, expected)
    assert len(expected) == 2 * 5 * 8 and at.session_state[state.LANDMARKS_ORIGIN] == "declared"
    at.text_input(key=calendar_box.RULE).input("percentile:20").run()
    next(b for b in at.button if b.label == "Use the rule").click().run()
    assert "give calendar windows" in app_support.shown(at)  # a data rule is not offered here
    np.testing.assert_array_equal(at.session_state[state.CURRENT].landmarks, expected)
