"""Browser test of the live class (issue 56): a lecturer and three students, each in a browser context of their own
(no shared cookies or storage), against a server with a fresh LMDK_DATA_DIR. The lecturer starts a class on a
choice lesson and the join link is read from the page; the three students open it and predict three different
choices; the lecturer's view shows "3 answered" and a bar per choice without a reload; Reveal brings each student's
verdict ("Correct" / "Not quite", as the core judges that choice) without a reload; Next lesson moves every student's
page. The projector view is photographed at 1024 and 1920 px (test-artifacts/screenshots/class_lecturer_*.png) and
measured there: the answer beside the distribution, in one row, each choice's label above its bar and each count
after it, inside the chart. The lecturer's and a student's pages have no axe finding of impact critical or serious.
Every wait is on a condition in the page."""
from __future__ import annotations

import re

import pytest
from browser_support import chromium_browser, exceptions, require_browser, screenshot, streamlit_server, wait_idle
from test_browser_a11y import _full_height, axe_findings

from lmdk.lessons import LESSONS

pytestmark = pytest.mark.browser
WAIT_MS = 30_000  # a fragment refreshes every 2.5 s: a change shows within one or two refreshes on a loaded machine
# the first lesson with three choices that has a next one (lesson numbers move as lessons are added)
LESSON = next(x for x in LESSONS if x.choices and len(x.choices) >= 3 and x.number < len(LESSONS))
FOLLOWING = LESSONS[LESSON.number]
MARK = "() => { window.lmdkNotReloaded = true; }"  # gone if the page reloads: every change must arrive without one


@pytest.fixture
def class_server(tmp_path, monkeypatch):
    """A server whose class store is a fresh SQLite file under a temporary LMDK_DATA_DIR."""
    require_browser()
    monkeypatch.setenv("LMDK_DATA_DIR", str(tmp_path / "data"))
    for name in ("LMDK_CLASS_URL", "LMDK_PUBLIC_URL"):
        monkeypatch.delenv(name, raising=False)
    with streamlit_server() as url:
        yield url, tmp_path / "data"


def text_in(page, selector: str, pattern: str) -> None:
    """Wait until the element at ``selector`` shows text matching the regular expression ``pattern``."""
    page.wait_for_function(
        "([s, p]) => { const e = document.querySelector(s); return !!e && new RegExp(p).test(e.innerText); }",
        arg=[selector, pattern], timeout=WAIT_MS)


def bar_counts(page) -> dict:
    """The lecturer's distribution as drawn: choice -> count (the bar chart's data in the page)."""
    return page.evaluate(
        "() => { const el = document.querySelector('.st-key-class_distribution .js-plotly-plot');"
        " if (!el || !el.data) return {}; const t = el.data[0]; const out = {};"
        " t.y.forEach((name, i) => { out[name] = Number(t.x[i]); }); return out; }")


LAYOUT = """() => {
  const box = e => { const b = e.getBoundingClientRect(); return {l: b.left, t: b.top, r: b.right, b: b.bottom}; };
  const chart = document.querySelector('.st-key-class_distribution');
  const plot = chart && chart.querySelector('.main-svg');
  return {chart: chart && box(chart), svg: plot && box(plot),
          answer: box(document.querySelector('.st-key-class_answer')),
          main: box(document.querySelector("[data-testid='stMainBlockContainer']")),
          bars: [...chart.querySelectorAll('.bars .point path')].map(box),
          counts: [...chart.querySelectorAll('.bars .point text')].map(box),
          labels: [...chart.querySelectorAll('.annotation')].map(box)}; }"""


def revealed_layout_problems(page, width: int) -> list[str]:
    """What is wrong with the revealed view's row as drawn: the answer must be beside the chart (to its right, in
    the same row, inside the page), every choice's label above its bar and inside the chart, every count after its
    bar's end and inside the chart."""
    at = page.evaluate(LAYOUT)
    chart, svg, answer, main = at["chart"], at["svg"], at["answer"], at["main"]
    problems = []
    if not answer["l"] >= chart["r"] - 1:
        problems.append(f"the answer is not to the right of the chart: {answer} vs {chart}")
    if not (answer["t"] < chart["b"] and chart["t"] < answer["b"]):
        problems.append(f"the answer and the chart are not in one row: {answer} vs {chart}")
    if answer["r"] > main["r"] + 1 or chart["l"] < main["l"] - 1:
        problems.append(f"the row is wider than the page: {chart}, {answer}, page {main}")
    if not len(at["bars"]) == len(at["counts"]) == len(at["labels"]) == len(LESSON.choices):
        problems.append(f"{len(at['bars'])} bars, {len(at['counts'])} counts, {len(at['labels'])} labels")
    for bar, count, label in zip(at["bars"], at["counts"], at["labels"], strict=False):
        if count["l"] < bar["r"] or count["r"] > svg["r"] + 1:
            problems.append(f"a count overlaps its bar or leaves the chart: {count} (bar {bar}, chart {svg})")
        if label["b"] > bar["t"] + 1 or label["l"] < svg["l"] or label["r"] > svg["r"] + 1:
            problems.append(f"a choice's label is not above its bar inside the chart: {label} (bar {bar})")
    return [f"at {width} px: {problem}" for problem in problems]


def test_a_lecturer_and_three_students_run_a_lesson_live(class_server):
    url, data = class_server
    reveal = LESSON.reveal()
    picks = list(LESSON.choices[:3])
    with chromium_browser() as browser:
        lecturer = browser.new_context(viewport={"width": 1024, "height": 900}).new_page()
        lecturer.goto(f"{url}/lessons?lesson={LESSON.number}")
        wait_idle(lecturer, timeout=120_000)
        lecturer.get_by_role("button", name="Start a class").click()
        text_in(lecturer, ".st-key-class_join_link", r"/lessons\?class=[A-Z0-9]+")
        link = re.search(r"\S+/lessons\?class=[A-Z0-9]+", lecturer.inner_text(".st-key-class_join_link")).group(0)
        assert link.startswith(url) and "lecturer" not in link and "lecturer=" not in lecturer.url
        assert (data / "classes.db").exists()  # the store is the temporary data folder's
        lecturer.evaluate(MARK)

        students = []
        for _ in picks:
            page = browser.new_context(viewport={"width": 1024, "height": 900}).new_page()
            page.goto(link)
            text_in(page, ".st-key-class_student_answer", "Check")
            wait_idle(page)
            page.wait_for_function("() => /[?&]student=[^&]+/.test(location.search)", timeout=WAIT_MS)
            page.evaluate(MARK)
            students.append(page)
        assert len({p.url for p in students}) == 3  # an id of their own each, kept in the address

        for page, pick in zip(students, picks, strict=True):
            page.locator(".st-key-class_student_answer").get_by_text(pick, exact=True).click()
            wait_idle(page)
            page.get_by_role("button", name="Check").click()
            text_in(page, ".st-key-class_student_answer", "^Sent|\\nSent")

        # the lecturer's page was never reloaded: its live view refreshes by itself
        text_in(lecturer, ".st-key-class_answered [data-testid='stMetricValue']", "^3$")
        lecturer.wait_for_function(
            "() => { const el = document.querySelector('.st-key-class_distribution .js-plotly-plot');"
            " return !!el && !!el.data && el.data[0].x.reduce((a, b) => a + Number(b), 0) === 3; }", timeout=WAIT_MS)
        assert bar_counts(lecturer) == {c: int(c in picks) for c in LESSON.choices}

        wait_idle(lecturer)
        lecturer.get_by_role("button", name="Reveal").click()
        _pointer_away(lecturer)  # the button's help would open over the view in the photographs and the axe check
        text_in(lecturer, ".st-key-class_answer", re.escape(reveal.answer_text))
        for page, pick in zip(students, picks, strict=True):  # no reload: the students' pages follow by themselves
            verdict = "Correct" if reveal.judge(pick).correct else "Not quite"
            text_in(page, ".st-key-class_student_answer", f"(^|\\n){verdict}")
        assert any(reveal.judge(p).correct for p in picks) and not all(reveal.judge(p).correct for p in picks)

        problems = []
        for width in (1024, 1920):
            lecturer.set_viewport_size({"width": width, "height": 900})
            wait_idle(lecturer)
            overflow = lecturer.evaluate("() => { const m = document.querySelector(\"[data-testid='stMain']\");"
                                         " return m.scrollWidth - m.clientWidth; }")
            assert overflow <= 2, f"the projector view is wider than the window at {width} px"
            screenshot(lecturer, f"class_lecturer_revealed_{width}")
            problems += revealed_layout_problems(lecturer, width)
        lecturer.set_viewport_size({"width": 1024, "height": 900})
        wait_idle(lecturer)
        _full_height(lecturer, 1024)
        _pointer_away(lecturer)
        problems += axe_findings(lecturer, "the lecturer's view at 1024 px")
        _full_height(students[0], 1024)
        screenshot(students[0], "class_student_revealed_1024")
        problems += axe_findings(students[0], "a student's page after the reveal at 1024 px")
        assert not problems, "\n".join(problems)

        lecturer.set_viewport_size({"width": 1024, "height": 900})
        wait_idle(lecturer)
        lecturer.get_by_role("button", name="Next lesson").click()
        text_in(lecturer, "[data-testid='stMain']", re.escape(FOLLOWING.title))
        for page in students:
            text_in(page, "[data-testid='stMain']", re.escape(FOLLOWING.title))
            text_in(page, ".st-key-class_student_answer", "Check")
        for page in [lecturer, *students]:
            assert not exceptions(page), exceptions(page)
            assert page.evaluate("() => window.lmdkNotReloaded === true"), "a page was reloaded"


def _pointer_away(page) -> None:
    """Move the mouse off the page's controls and wait until no help tooltip is open (a tooltip fading in reads as
    faint text to axe, and a resized window can open one under a pointer left on a button)."""
    page.mouse.move(1, 1)
    page.wait_for_function("() => !document.querySelector('.stTooltipContent')", timeout=10_000)
