"""AppTest: the overview page (default render, the live example reacts, links to every page)."""
from __future__ import annotations

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)
from streamlit.testing.v1 import AppTest


@pytest.fixture
def app() -> AppTest:
    return app_support.run_app(60)


def main_expanders(at):
    """The expanders of the page's main area, top first (the sidebar's left out)."""
    return [e for e in at.main.expander]


def badges(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if "badge[" in m.value]


def test_home_renders_with_links_and_explanation(app):
    assert app.title[0].value == "Landmark privacy lab"
    links = app.get("page_link")
    assert len(links) >= 2  # every registered page except the overview itself
    assert main_expanders(app)[0].label == "What am I looking at?"  # near the top, before the charts (issue 35)
    assert any("\\sum" in latex.value for latex in app.latex)
    said = app_support.headline(app)  # the answer first: above the chart that shows why, two sentences at most
    order = [getattr(e, "value", None) for e in app.main]
    assert order.index(said) < next(i for i, e in enumerate(app.main) if type(e).__name__ == "UnknownElement")


def test_live_example_event_fails_with_landmarks_and_passes_without(app):
    before = badges(app)
    assert any("violates" in b for b in before)  # event-level with landmarks 1, 3, 5
    app.session_state["home_landmarks"] = []
    app.run()
    after = badges(app)
    assert not app.exception
    assert all("satisfies" in b for b in after)


def test_epsilon_changes_the_example_budgets(app):
    spec_before = app.get("plotly_chart")[0].proto.spec
    app.select_slider(key="home_eps").set_value(2.0).run()
    assert not app.exception
    assert '"eps":2.0' in app.get("plotly_chart")[0].proto.spec.replace(" ", "")
    assert app.get("plotly_chart")[0].proto.spec != spec_before


def test_overview_budgets_share_one_fixed_axis_so_epsilon_visibly_acts(app):
    import json

    import numpy as np

    def figure(at):
        return json.loads(at.get("plotly_chart")[0].proto.spec)

    def bar_tops(spec):
        return {t["name"]: np.max(app_support.array(t["y"])) for t in spec["data"] if t.get("type") == "bar"}

    spec = figure(app)
    axes = [v for k, v in spec["layout"].items() if k.startswith("yaxis") and v.get("type") == "log"]
    assert len(axes) == 4 and all(a["range"] == axes[0]["range"] for a in axes)  # one scale for every scheme
    assert all(a["title"]["text"] == "εₜ, log" for a in axes)  # what the axis counts, and its unit in the heading:
    assert all(h["text"].endswith("budget εₜ per timestamp (nats)") for h in spec["layout"]["annotations"])
    before = bar_tops(spec)
    assert before["user"] < before["event"]  # ε/8 is visibly lower than ε
    app.select_slider(key="home_eps").set_value(0.01).run()
    after = figure(app)
    assert [a["range"] for k, a in after["layout"].items() if k.startswith("yaxis") and a.get("type") == "log"] \
        == [a["range"] for a in axes]  # the axis stays put …
    assert bar_tops(after)["event"] == pytest.approx(before["event"] / 100)  # … while the bars drop 100×
