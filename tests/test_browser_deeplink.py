"""Browser tests: a deep link with query parameters as the FIRST request of a fresh server.

Streamlit treats the ``pages/`` folder as its legacy multipage layout until some session has run
``st.navigation``; on a fresh server the first request for a page URL would run that page without
app.py. ``ui.ensure_entrypoint`` reruns such a run through app.py. Each test starts its own server,
so the deep link really is the server's first request. Screenshots go to test-artifacts/screenshots/.
"""
from __future__ import annotations

import contextlib

import pytest
from browser_support import chromium, exceptions, require_browser, screenshot, streamlit_server, wait_idle

pytestmark = pytest.mark.browser
NAV = "[data-testid='stSidebarNav']"


@pytest.fixture(scope="module")
def browser_context():
    require_browser()
    with chromium() as context:
        yield context


@contextlib.contextmanager
def deep_link(context, path_and_query: str, shot: str):
    """Start a fresh server and open the link as its first request; yields (what it shows, the page)."""
    with streamlit_server() as url:
        page = context.new_page()
        try:
            page.goto(f"{url}/{path_and_query}")
            wait_idle(page, timeout=120_000)
            state = {"exceptions": exceptions(page), "url": page.url, "nav": text(page, NAV),
                     "status": text(page, ".st-key-landmark_status"), "h1": text(page, "h1")}
            screenshot(page, shot)
            yield state, page
        finally:
            page.close()


def text(page, selector: str) -> str:
    """Inner text of the first element matching ``selector`` ("" when there is none)."""
    found = page.locator(selector)
    return found.first.inner_text() if found.count() else ""


def thumb(page, widget_key: str) -> str:
    """The value shown on a (select) slider's thumb."""
    return page.locator(f".st-key-{widget_key} [data-testid='stSliderThumbValue']").first.inner_text()


def assert_rendered_through_app(state: dict) -> None:
    assert not state["exceptions"], state["exceptions"]
    # app.py's registry titles (legacy mode would list file names such as "schemes utility")
    for title in ("Overview", "Data & landmarks", "Schemes & utility", "Spatiotemporal events", "Experiments"):
        assert title in state["nav"], state["nav"]
    assert "Landmarks" in state["status"] and " of " in state["status"], state["status"]


def test_priste_deep_link_on_a_fresh_server(browser_context):
    link = "spatiotemporal_events?st_eps=0.5&st_t=15&st_cell=1000&st_reps=2&st_kind=pattern"
    with deep_link(browser_context, link, "deeplink_priste") as (state, page):
        assert_rendered_through_app(state)
        assert state["h1"].startswith("Spatiotemporal"), state["h1"]
        assert thumb(page, "w_st_eps") == "0.5"
        assert thumb(page, "w_st_t") == "15"
        assert page.locator(".st-key-w_st_kind input[type='radio']:checked").count() == 1
        checked = page.locator(".st-key-w_st_kind label:has(input:checked)").inner_text()
        assert "pattern" in checked, checked
        assert "st_eps=0.5" in state["url"] and "/spatiotemporal_events" in state["url"], state["url"]


def test_schemes_deep_link_first_then_simultaneous_ones_all_render_through_app(browser_context):
    """The Schemes deep link as a fresh server's first request, with two more arriving together with it (some start
    while ``ui`` is already imported): each renders through app.py with its settings; the Schemes one shows its
    title, ε and repetitions and keeps them in its URL."""
    small = "n=200&reps=5"  # keep the first runs cheap on a shared machine
    first = "schemes_utility?eps=0.5&reps=10"
    links = {first: ("w_eps", "0.5"), f"temporal_loss?eps=2&{small}": ("w_eps", "2"),
             "experiments?ex_fig=fig8&ex_reps=2": ("w_ex_reps", "2")}
    with streamlit_server() as url:
        pages = [browser_context.new_page() for _ in links]
        try:
            for page, link in zip(pages, links, strict=True):
                page.goto(f"{url}/{link}", wait_until="commit")  # do not wait: let the sessions overlap
            for page, (link, (key, shown)) in zip(pages, links.items(), strict=True):
                wait_idle(page, timeout=180_000)
                assert_rendered_through_app({"exceptions": exceptions(page), "nav": text(page, NAV),
                                             "status": text(page, ".st-key-landmark_status")})
                assert thumb(page, key) == shown, link
            page = pages[0]
            assert text(page, "h1").startswith("Schemes"), text(page, "h1")
            assert page.locator(".st-key-w_reps input").input_value() == "10"
            assert "/schemes_utility" in page.url and "eps=0.5" in page.url, page.url
            screenshot(page, "deeplink_schemes")
        finally:
            for page in pages:
                page.close()
