"""Browser test: "Copy link" puts the current view's URL on the clipboard — also after a fragment rerun — and
confirms with a toast; the link opens the same view in a new session."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from browser_support import chart_meta, exceptions, screenshot, wait_idle

pytestmark = pytest.mark.browser


def _copy(page) -> str:
    page.get_by_role("button", name="Copy link to this view").click()
    page.get_by_text("Link copied").first.wait_for(timeout=20_000)
    return page.evaluate("navigator.clipboard.readText()")


def test_copy_link_copies_the_current_settings_and_shows_a_toast(browser_context, app_url):
    browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    page = browser_context.new_page()
    try:
        page.goto(f"{app_url}/schemes_utility?schemes=uniform,adaptive&reps=5")
        wait_idle(page, timeout=120_000)
        first = _copy(page)
        query = parse_qs(urlsplit(first).query)
        assert first.startswith(app_url + "/schemes_utility?") and query["reps"] == ["5"] and "eps" not in query
        screenshot(page, "share_toast_1024")
        slider = page.locator(".st-key-w_eps input[type='range']")
        slider.focus()
        page.keyboard.press("ArrowLeft")  # ε 1 → 0.7: a fragment rerun only
        page.wait_for_function("() => window.location.search.includes('eps=0.7')", timeout=60_000)
        wait_idle(page)
        second = _copy(page)
        query = parse_qs(urlsplit(second).query)
        assert query["eps"] == ["0.7"] and query["reps"] == ["5"] and len(second) < 250
        assert not exceptions(page)
        other = browser_context.new_page()  # the link opened cold: the same view
        other.goto(second)
        wait_idle(other, timeout=120_000)
        meta = chart_meta(other, "mae_chart")
        assert (meta[0] if isinstance(meta, list) else meta)["eps"] == 0.7
        other.close()
    finally:
        page.close()
