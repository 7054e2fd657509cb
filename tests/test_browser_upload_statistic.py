"""Browser test: a multi-meter upload on the Data page becomes the total over all users (issue 36), and a calendar
rule shows its one-week preview; screenshots at 1024 and 1920 px."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from browser_support import exceptions, screenshot, wait_idle

pytestmark = pytest.mark.browser


def wait_text(page, text: str) -> None:
    page.wait_for_function(f"() => document.body.innerText.includes({text!r})", timeout=90_000)
    wait_idle(page)


def test_the_total_over_the_meters_of_an_upload(browser_context, app_url, tmp_path):
    rng = np.random.default_rng(5)
    times = pd.date_range("2024-03-01", periods=168, freq="1h").strftime("%Y-%m-%d %H:%M")
    path = tmp_path / "meters.csv"
    pd.DataFrame({"meter": np.repeat([f"m{u}" for u in range(12)], 168), "timestamp": np.tile(times, 12),
                  "kwh": rng.uniform(0, 3, 12 * 168).round(3)}).to_csv(path, index=False)
    page = browser_context.new_page()
    try:
        page.set_viewport_size({"width": 1024, "height": 900})
        page.goto(f"{app_url}/data_landmarks?source=upload")
        wait_idle(page, timeout=120_000)
        page.locator(".st-key-upload_file input[type='file']").set_input_files(str(path))
        wait_text(page, "One user, or a statistic over all 12 users")
        page.get_by_text("the total over all users", exact=True).click()
        wait_idle(page)
        page.locator(".st-key-_ustat_low input").fill("0")
        page.locator(".st-key-_ustat_low input").press("Enter")
        wait_idle(page)
        page.locator(".st-key-_ustat_high input").fill("25")
        page.locator(".st-key-_ustat_high input").press("Enter")
        wait_idle(page)
        page.get_by_role("button", name="Use this series").click()
        wait_text(page, "sum over 12 users")
        assert "Δ = 25" in page.inner_text("[data-testid='stSidebarContent']")
        page.locator(".st-key-cal_rule input").fill("calendar:sun@09:00-12:00")
        page.locator(".st-key-cal_rule input").press("Enter")
        wait_text(page, "What the rule marks in one week")
        assert not exceptions(page)
        screenshot(page, "upload_statistic_1024")
        page.set_viewport_size({"width": 1920, "height": 1000})
        wait_idle(page)
        screenshot(page, "upload_statistic_1920")
    finally:
        page.close()
