"""What an ε change recomputes (issue 34): each scheme's release once, and no "Show data" table while its expander is
closed (opening it builds the table). A class of a hundred on one server can afford no more per change."""
from __future__ import annotations

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui.charts import alt_text


@pytest.fixture
def counted(monkeypatch):
    """Count the core's scheme releases and the 'Show data' tables built."""
    from lmdk import schemes

    calls = {"release": 0, "table": 0}
    release, table = schemes.release, alt_text._table_and_csv

    def counting_release(*args, **kwargs):
        calls["release"] += 1
        return release(*args, **kwargs)

    def counting_table(*args, **kwargs):
        calls["table"] += 1
        return table(*args, **kwargs)

    monkeypatch.setattr(schemes, "release", counting_release)
    monkeypatch.setattr(alt_text, "_table_and_csv", counting_table)
    return calls


def test_an_eps_change_on_dummy_landmarks_releases_each_scheme_twice_and_builds_no_closed_table(counted):
    at = app_support.open_page("pages/dummy_landmarks.py", 120, source="sample", sample="hue", n="200",
                               seed="7341", schemes="uniform,skip,adaptive")
    counted.update(release=0, table=0)
    at.select_slider(key=next(s.key for s in at.select_slider if str(s.key).endswith("w_eps"))).set_value(0.3).run()
    assert not at.exception, at.exception
    # without and with dummies per scheme, and the budgets after for the scheme drawn: no scheme twice per view
    assert counted["release"] == 2 * 3 + 1
    assert counted["table"] == 0  # every "Show data" is closed: only its sentence was written


def test_opening_show_data_builds_that_table_only(counted):
    at = app_support.open_page("pages/schemes_utility.py", 120, source="sample", sample="hue", n="200",
                               seed="7342", schemes="uniform,skip")
    assert counted["table"] == 0
    frames = len(at.dataframe)
    at.session_state[alt_text.OPEN_PREFIX + "mae_chart"] = True  # as a click on the expander's label does
    at.run()
    assert not at.exception, at.exception
    assert counted["table"] == 1 and len(at.dataframe) == frames + 1
