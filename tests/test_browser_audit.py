"""Browser test: the Adversary lab draws its four charts with a plain headline, and stays interactive while its
trials run (leaving the page mid-run takes seconds, not the audit's minute)."""
from __future__ import annotations

import time

import pytest
from browser_support import chart_meta, exceptions, screenshot, wait_idle

pytestmark = pytest.mark.browser


def meta(page, key: str) -> dict:
    found = chart_meta(page, key)
    return found[0] if isinstance(found, list) else found


def test_the_lab_draws_its_charts_and_headline(browser_context, app_url):
    page = browser_context.new_page()
    try:
        page.goto(f"{app_url}/adversary_lab?schemes=uniform,skip&aud_n=200&aud_corr=strong")
        wait_idle(page, timeout=300_000)
        assert meta(page, "audit_loss_chart")["schemes"] == ["uniform", "skip"]
        assert meta(page, "audit_correlation_chart")["scheme"] == "skip"
        assert meta(page, "audit_values_chart")["schemes"] == ["uniform", "skip"]
        body = page.inner_text("body")
        assert "lets an attacker find the landmarks" in body and "No attack broke the promise" in body
        assert not exceptions(page)
        screenshot(page, "audit_page")
    finally:
        page.close()


def test_the_page_stays_interactive_while_trials_run(browser_context, app_url):
    page = browser_context.new_page()
    try:
        page.goto(f"{app_url}/audit?aud_n=5000&seed=12345&aud_corr=strong")  # the old address (issue 35) still works
        page.locator("[data-testid='stProgress']").first.wait_for(timeout=120_000)
        assert "/adversary_lab?" in page.url and "aud_n=5000" in page.url and "seed=12345" in page.url
        started = time.monotonic()
        page.get_by_role("link", name="Overview").first.click()
        page.get_by_role("heading", name="Landmark privacy", exact=False).first.wait_for(timeout=30_000)
        assert time.monotonic() - started < 30
        wait_idle(page, timeout=120_000)
        assert not exceptions(page)
    finally:
        page.close()
