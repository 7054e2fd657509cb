"""AppTest: the Spatiotemporal events page (PriSTE) renders, reacts to ε and the region, and stays private."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/spatiotemporal_events.py"


@pytest.fixture(autouse=True)
def navigation_mode(monkeypatch):
    """Run switched-to pages through st.navigation as the real server does (see tests/test_app_schemes.py)."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


def array(value) -> np.ndarray:
    """A plotly JSON array (plain list or base64 'bdata') as numpy."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value, dtype=float)


def chart(at: AppTest, key: str) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart") if key in c.proto.id).proto.spec)


def median_of(fig: dict, name: str) -> np.ndarray:
    return array(next(tr for tr in fig["data"] if tr.get("name") == f"{name}: median")["y"])


def open_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(PAGE).run()
    at.slider(key="priste_T").set_value(15)
    at.select_slider(key="priste_cell").set_value(1000)
    at.slider(key="priste_reps").set_value(2)
    at.run()
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
    assert [m.label for m in at.metric][:2] == ["mean distance, plain α-PLM", "mean distance, PriSTE"]
    # a stricter ε redraws with the new bound and never a larger α
    at.select_slider(key="priste_eps").set_value(0.1).run()
    assert not at.exception, at.exception
    leak2 = chart(at, "priste_leak_chart")
    assert leak2["layout"]["meta"]["eps"] == 0.1
    assert np.all(median_of(leak2, "PriSTE") <= 0.1 * (1 + 1e-9))
    assert median_of(chart(at, "priste_alpha_chart"), "PriSTE").mean() <= a.mean()


def test_region_edit_pattern_kind_and_empty_region_warning():
    at = open_page()
    at.radio(key="priste_kind").set_value("pattern").run()
    assert not at.exception, at.exception
    at.multiselect(key="priste_region").set_value([]).run()
    assert any("region is empty" in w.value for w in at.warning)
    at.multiselect(key="priste_region").set_value([0, 1, 2]).run()
    assert not at.exception and not at.warning
    at.toggle(key="priste_estimate").set_value(True).run()  # M estimated from the snapped trace
    assert not at.exception, at.exception
    assert np.all(median_of(chart(at, "priste_leak_chart"), "PriSTE") <= 1.0 * (1 + 1e-9))


def test_synthetic_walk_and_delta_variant():
    at = open_page()
    at.radio(key="priste_source").set_value("synthetic grid walk (§5.1)").run()
    at.slider(key="priste_side").set_value(5)
    at.toggle(key="priste_use_delta").set_value(True)
    at.run()
    assert not at.exception, at.exception
    assert np.all(median_of(chart(at, "priste_leak_chart"), "PriSTE") <= 1.0 * (1 + 1e-9))
