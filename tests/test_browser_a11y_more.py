"""The every-page check of test_browser_a11y.py (axe-core at 1024 and 1920 px, text alternatives of every chart,
title, landmark status, no overflow, no control cut) for the other half of the views. A module of its own so that
xdist (--dist loadfile keeps a module on one worker) checks the two halves side by side: together they are the
suite's longest unit."""
from __future__ import annotations

import pytest
from test_browser_a11y import _view_id, check_view, page, views_of_module  # noqa: F401 — page is the fixture

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("view", views_of_module(1), ids=_view_id)
def test_every_page_loads_passes_axe_and_describes_every_chart(page, app_url, view):  # noqa: F811 — page fixture
    check_view(page, app_url, view)
