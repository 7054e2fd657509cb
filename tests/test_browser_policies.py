"""Browser test: the Policies page — add a user with a calendar window (its one-week preview drawn), download the
policy table as CSV and read it back as lmdk population would; screenshots at 1024 and 1920 px."""
from __future__ import annotations

import io

import pandas as pd
import pytest
from browser_support import chart_meta, exceptions, screenshot, wait_idle

from lmdk.policies import table_from_frame

pytestmark = pytest.mark.browser


def test_add_a_user_and_download_the_table(browser_context, app_url):
    page = browser_context.new_page()
    try:
        page.set_viewport_size({"width": 1024, "height": 900})
        page.goto(f"{app_url}/policies")
        wait_idle(page, timeout=120_000)
        assert chart_meta(page, "policy_preview") == {"rule": "calendar:mon-fri@18:00-22:00", "marked": 20}
        page.locator(".st-key-policy_user input").fill("house-7")
        page.locator(".st-key-policy_user input").press("Enter")
        wait_idle(page, timeout=60_000)
        page.locator(".st-key-policy_eps input").fill("0.5")
        page.locator(".st-key-policy_eps input").press("Enter")
        wait_idle(page, timeout=60_000)
        page.locator(".st-key-policy_add button").click()
        page.wait_for_function("() => !!document.querySelector('.st-key-dl_policies button')", timeout=60_000)
        wait_idle(page, timeout=60_000)
        assert not exceptions(page)
        screenshot(page, "policies_1024")
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name="Policy table (CSV)").click()
        download = info.value
        assert download.failure() is None and download.suggested_filename == "policies.csv"
        with open(download.path(), "rb") as handle:
            frame = pd.read_csv(io.BytesIO(handle.read()), dtype=str, keep_default_na=False)
        row = table_from_frame(frame).for_user("house-7")
        assert (row.landmarks, row.epsilon, row.scheme) == ("calendar:mon-fri@18:00-22:00", 0.5, "adaptive")
        page.set_viewport_size({"width": 1920, "height": 1000})
        wait_idle(page, timeout=60_000)
        screenshot(page, "policies_1920")
        assert not exceptions(page)
    finally:
        page.close()
