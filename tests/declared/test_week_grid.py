"""lmdk.declared.calendar.week_grid / hour_runs: the one-week preview both the Data page and the Policies page draw."""
from __future__ import annotations

import numpy as np

from lmdk.declared.calendar import WEEKDAYS, hour_runs, week_grid


def test_week_grid_is_a_boolean_weekday_by_hour_table():
    grid = week_grid("calendar:sun@09:00-12:00+fri@22:00-06:00")
    assert list(grid.index) == list(WEEKDAYS) and list(grid.columns) == list(range(24))
    assert grid.dtypes.eq(bool).all() and int(grid.to_numpy().sum()) == 3 + 8
    assert grid.loc["Sun", [9, 10, 11]].all() and not grid.loc["Sun", 12]
    assert grid.loc["Fri", [22, 23]].all() and grid.loc["Sat", list(range(6))].all() and not grid.loc["Sat", 6]
    assert not grid.loc["Mon"].any()


def test_hour_runs_says_the_grid_in_words():
    said = hour_runs(week_grid("calendar:sun@09:00-12:00+fri@22:00-06:00+fri@00:00-02:00"))
    assert said.split(" · ") == ["Mon none", "Tue none", "Wed none", "Thu none", "Fri 00:00–02:00, 22:00–24:00",
                                 "Sat 00:00–06:00", "Sun 09:00–12:00"]
    assert hour_runs(week_grid("calendar:daily@00:00-24:00")).count("00:00–24:00") == 7
    assert np.all(~week_grid("calendar:2024-05-01..2024-05-01").to_numpy())  # a date outside the preview week
