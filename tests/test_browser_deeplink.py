"""Browser tests: a deep link with query parameters as the FIRST request of a fresh server.

Streamlit treats the ``pages/`` folder as its legacy multipage layout until some session has run
``st.navigation``; on a fresh server the first request for a page URL would run that page without
app.py. ``ui.ensure_entrypoint`` reruns such a run through app.py. The test starts its own server, so
the deep link really is the server's first request, with three more arriving together with it (one of them
Spatiotemporal events, a deep link that was once tested as a first request of its own). Screenshots go to
test-artifacts/screenshots/.
"""
from __future__ import annotations

import pytest
from browser_support import exceptions, screenshot, streamlit_server, wait_idle

pytestmark = pytest.mark.browser
NAV = "[data-testid='stSidebarNav']"


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


def test_schemes_deep_link_first_then_simultaneous_ones_all_render_through_app(browser_context):
    """The Schemes deep link as a fresh server's first request, with three more arriving together with it (some
    start while ``ui`` is already imported): each renders through app.py with its settings; the Schemes one shows
    its title, ε and repetitions and keeps them in its URL; the Spatiotemporal one its ε, window and event kind.
    (One fresh server for all four: a server started per link cost ~9 s of CPU each.)"""
    small = "n=200&reps=5"  # keep the first runs cheap on a shared machine
    first = "schemes_utility?eps=0.5&reps=10"
    priste = "spatiotemporal_events?st_eps=0.5&st_t=15&st_cell=1000&st_reps=2&st_kind=pattern"
    links = {first: ("w_eps", "0.5"), f"temporal_loss?eps=2&{small}": ("w_eps", "2"),
             "experiments?ex_fig=fig8&ex_reps=2": ("w_ex_reps", "2"), priste: ("w_st_eps", "0.5")}
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
            page = pages[3]
            assert text(page, "h1").startswith("Spatiotemporal"), text(page, "h1")
            assert thumb(page, "w_st_t") == "15"
            checked = page.locator(".st-key-w_st_kind label:has(input:checked)").inner_text()
            assert "pattern" in checked, checked
            assert "st_eps=0.5" in page.url and "/spatiotemporal_events" in page.url, page.url
            screenshot(page, "deeplink_priste")
        finally:
            for page in pages:
                page.close()


def test_the_old_adversary_lab_address_as_a_fresh_servers_first_request(browser_context):
    """/audit (the Adversary lab's address until issue 35) as a fresh server's first request: the legacy ``pages/``
    layout knew no such page ("Page not found", then the Overview). It opens the Adversary lab through app.py, with
    its default view (the audits shipped in assets/audit_default)."""
    with streamlit_server() as url:
        page = browser_context.new_page()
        try:
            page.goto(f"{url}/audit", wait_until="commit")
            wait_idle(page, timeout=180_000)
            assert "Page not found" not in page.inner_text("body")
            assert_rendered_through_app({"exceptions": exceptions(page), "nav": text(page, NAV),
                                         "status": text(page, ".st-key-landmark_status")})
            assert text(page, "h1").startswith("Adversary lab"), text(page, "h1")
            assert "/adversary_lab" in page.url, page.url
            assert page.get_by_text("Could an attacker tell the two versions apart?").count() == 1
            screenshot(page, "deeplink_audit")
        finally:
            page.close()
