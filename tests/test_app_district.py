"""AppTest: the Data page's district (issue 36) — one home's series, or the total or mean over all homes, with the
aggregate relation in the sidebar, declared landmarks, the choice in the share link, and the Schemes page on it."""
from __future__ import annotations

from functools import partial

import app_support
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui.session import state

open_data = partial(app_support.open_page, "pages/data_landmarks.py", 90)


def sidebar_text(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def test_the_districts_total_is_a_statistic_over_many_homes_with_its_delta():
    at = open_data(source="district", d_users="50", d_n="336", d_stat="sum")
    said = sidebar_text(at)
    assert "sum over 50 homes" in said and "Δ = 25" in said and "the sum in [0, 1250]" in said
    assert at.query_params["source"] in ("district", ["district"]) and at.query_params["d_users"] in ("50", ["50"])
    cur = at.session_state[state.CURRENT]
    assert cur.series.kind == "values" and len(cur.series) == 336
    assert len(cur.landmarks) == 2 * 3  # two Sundays, 09:00–12:00: declared, not read from the data


def test_one_home_and_the_mean_have_their_own_relations():
    at = open_data(source="district", d_users="40", d_n="200", d_stat="one")
    assert "sum over" not in sidebar_text(at)
    at = open_data(source="district", d_users="40", d_n="200", d_stat="mean")
    assert "mean over 40 homes" in sidebar_text(at) and "Δ = 0.625" in sidebar_text(at)
    assert at.query_params["d_stat"] in ("mean", ["mean"])  # the share link carries the choice


def test_the_schemes_page_runs_on_the_districts_total():
    at = app_support.open_page("pages/schemes_utility.py", 120, source="district", d_users="30", d_n="200",
                               d_stat="sum", schemes="uniform,skip")
    assert not at.exception
