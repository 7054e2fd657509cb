"""Browser test of the Lessons page (issue 38), one page load: lesson 4 (Theorem 2) completed from the keyboard only
(Tab to the prediction, arrow key to choose, Tab to Check, Enter) with the core's answer shown; the lab link is
relative and opens a new tab; screenshots at 1024 and 1920 px with no axe finding of impact critical or serious;
the worksheet downloaded from the real button (AppTest does not run download callbacks) and printed by Chromium,
one lesson per page (pdfinfo counts them). Screenshots: test-artifacts/screenshots/lessons_*.png."""
from __future__ import annotations

import subprocess

import pytest
from browser_support import exceptions, screenshot, wait_idle
from test_browser import open_page
from test_browser_a11y import _full_height, axe_findings

from lmdk.lessons import LESSONS, lesson

pytestmark = pytest.mark.browser
FOCUS = "() => { const e = document.activeElement; return e ? [e.tagName, e.type || '', (e.innerText || '').trim()," \
        " e.getAttribute('aria-label') || '', (e.closest('label') || {}).innerText || ''] : null; }"


def tab_to(page, predicate, what: str, limit: int = 120) -> list:
    """Press Tab until the focused element satisfies ``predicate`` (its FOCUS description); that description."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS)
        if focused and predicate(focused):
            return focused
    raise AssertionError(f"Tab never reached {what}")


def test_a_lesson_from_the_keyboard_the_worksheet_printed_and_axe_clean(browser_context, app_url, tmp_path):
    page = browser_context.new_page()
    try:
        page.set_viewport_size({"width": 1024, "height": 900})
        open_page(page, app_url, "lessons", "lesson=4")
        x = lesson(4)
        assert x.name == "Landmarks and Theorem 2"
        reveal = x.reveal()
        assert x.title in page.inner_text("h2, h1, h3") or x.title in page.inner_text("body")
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        tab_to(page, lambda f: f[0] == "INPUT" and f[1] == "radio", "the prediction")
        target = x.choices.index(reveal.answer)  # "No", the second choice: one arrow key from the first
        for _ in range(target):
            page.keyboard.press("ArrowDown")
        if target == 0:
            page.keyboard.press("Space")
        wait_idle(page)
        tab_to(page, lambda f: f[0] == "BUTTON" and f[2] == "Check", "the Check button")
        page.keyboard.press("Enter")
        page.wait_for_function("(t) => document.body.innerText.includes(t)", arg="Correct. " + reveal.why[:60],
                               timeout=60_000)
        wait_idle(page)
        body = page.inner_text("body")
        assert reveal.numbers["largest loss Σ_{L∪{t}} εᵢ"] in body and x.takeaway in body
        assert f"Lessons checked: 1 of {len(LESSONS)}" in body and not exceptions(page)
        link = page.get_by_role("link", name="Open this in the lab")
        assert link.get_attribute("href") == x.lab_link() and link.get_attribute("target") == "_blank"
        problems = []
        for width in (1024, 1920):
            page.set_viewport_size({"width": width, "height": 900})
            wait_idle(page)
            overflow = page.evaluate("() => { const m = document.querySelector(\"[data-testid='stMain']\");"
                                     " return m.scrollWidth - m.clientWidth; }")
            assert overflow <= 2, f"wider than the window at {width} px"
            screenshot(page, f"lessons_checked_{width}")
            _full_height(page, width)
            problems += axe_findings(page, f"/lessons at {width} px")
        assert not problems, "\n".join(problems)
        page.set_viewport_size({"width": 1024, "height": 900})
        wait_idle(page)
        with page.expect_download(timeout=120_000) as info:
            page.get_by_role("button", name="Worksheet (HTML)").click()
        download = info.value
        assert download.suggested_filename == "lmdk_lessons_worksheet.html"
        sheet = tmp_path / "worksheet.html"
        download.save_as(sheet)
        html = sheet.read_text(encoding="utf-8")
        assert html.count('<section class="lesson"') == len(LESSONS) and "session has ended" not in html
    finally:
        page.close()
    printer = browser_context.new_page()
    try:
        printer.goto(sheet.as_uri())
        pdf = tmp_path / "worksheet.pdf"
        printer.pdf(path=str(pdf), format="A4", print_background=True)
        printer.set_viewport_size({"width": 1024, "height": 900})
        screenshot(printer, "lessons_worksheet_1024")
    finally:
        printer.close()
    info_text = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(next(line.split()[-1] for line in info_text.splitlines() if line.startswith("Pages:")))
    assert pages == len(LESSONS)  # one lesson per printed page
    text = subprocess.run(["pdftotext", "-f", "2", "-l", "2", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert LESSONS[1].title in text and LESSONS[2].title not in text
