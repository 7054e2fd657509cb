"""Browser test: the Population page with an uploaded multi-user file — charts drawn, a click on a user's point
opens that user's series on the single-series pages; screenshots at 1024 and 1920 px."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from browser_support import exceptions, screenshot, wait_idle

pytestmark = pytest.mark.browser
sys.path.insert(0, str(Path(__file__).resolve().parent / "population"))

POINT = """(key) => {
  const gd = document.querySelector('.st-key-' + key + ' .js-plotly-plot');
  const fl = gd._fullLayout, t = gd._fullData[0], box = gd.getBoundingClientRect();
  return [box.left + fl.xaxis._offset + fl.xaxis.c2p(t.x[0]), box.top + fl.yaxis._offset + fl.yaxis.c2p(t.y[0]),
          String(t.customdata[0])];
}"""


def test_upload_a_population_and_open_one_user(browser_context, app_url, tmp_path):
    from population_support import fleet

    table = fleet(30, 300, seed=4, ids=[f"meter-{i:02d}" for i in range(30)])
    path = tmp_path / "meters_of_a_street.csv"
    table.to_csv(path, index=False)
    page = browser_context.new_page()
    try:
        page.set_viewport_size({"width": 1024, "height": 900})
        page.goto(f"{app_url}/population?pop_src=upload&schemes=user,uniform,adaptive")
        wait_idle(page, timeout=120_000)
        page.locator(".st-key-pop_file input[type='file']").set_input_files(str(path))
        page.wait_for_function("() => document.body.innerText.includes('30 users')", timeout=120_000)
        wait_idle(page, timeout=120_000)
        assert not exceptions(page)
        text = page.inner_text("body")
        assert "meters_of_a_street.csv" in text
        assert "calendar:daily@01:00-06:00" in page.locator(".st-key-pop_rule_text input").input_value()
        screenshot(page, "population_upload_1024")
        page.locator(".st-key-pop_scatter").scroll_into_view_if_needed()
        x, y, near = page.evaluate(POINT, "pop_scatter")
        page.mouse.click(x, y)
        button = page.get_by_role("button", name=re.compile(r"^Open user meter-\d\d on the single-series pages"))
        button.wait_for(timeout=60_000)
        user = button.inner_text().split("Open user ", 1)[1].split(" ", 1)[0]  # points overlap: the nearest one
        button.click()
        page.wait_for_url("**/schemes_utility**", timeout=60_000)
        wait_idle(page, timeout=120_000)
        assert f"user {user} of the population" in page.inner_text("body")
        assert not exceptions(page)
        page.set_viewport_size({"width": 1920, "height": 1000})
        page.goto(f"{app_url}/population?pop_users=300")
        wait_idle(page, timeout=120_000)
        screenshot(page, "population_fleet_1920")
    finally:
        page.close()
