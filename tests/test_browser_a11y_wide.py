"""The every-page check of test_browser_a11y.py (axe-core, text alternatives of every chart, title, landmark status,
no overflow, no control cut) at a desktop's 1920 px. A module of its own so that xdist (--dist loadfile keeps a
module on one worker) runs it beside the 1024 px pass instead of after it: the two passes are the suite's longest."""
from __future__ import annotations

import pytest
from test_browser_a11y import check_every_page, page  # noqa: F401 — page is the fixture of a fresh page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1920])  # a desktop screen
def test_every_page_loads_passes_axe_and_describes_every_chart(page, app_url, width):  # noqa: F811 — page fixture
    check_every_page(page, app_url, width)
