"""Accessibility in the browser (issue 28): axe-core on every page, text alternatives of every chart, marking
landmarks from the keyboard, the budget chart's legend clear of its headings at 1024 px.

axe-core is the copy bundled with ``axe-playwright-python`` (no network). Every page of app.py's PAGES registry —
pages added later included — is shown at a projector's 1024 px and a desktop's 1920 px (title, no overflow, no text
cut, screenshots) and checked by axe at 1024 px with its charts' "Show data" expanders open; a violation of impact
*critical* or *serious* fails the test with the rule, the element and axe's advice. Each view is loaded once and the
window resized (the layout is CSS; nothing reruns); this module checks half of the views, test_browser_a11y_more.py
the other half. Screenshots: test-artifacts/screenshots/page_*.png and a11y_*.png.
"""
from __future__ import annotations

import re

import pytest
from browser_support import SCREENSHOTS, next_frames, screenshot, set_width, wait_idle
from test_browser import open_page, registered_pages, sidebar_count, wait_count
from test_browser_downloads import CLICKED, check_downloads

pytestmark = pytest.mark.browser

BLOCKING = ("critical", "serious")
# (rule, CSS selector of the element or an ancestor): why it is not ours to fix. Only Streamlit's own chrome may be
# listed here, each with its reason. Empty: every serious finding so far was in our pages and is fixed.
EXCLUDED: dict[tuple[str, str], str] = {}
# states of a page that draw more than its default view: the trajectory sample's maps
EXTRA_VIEWS = [("data_landmarks", "source=sample&sample=taxi&n=150"),
               ("schemes_utility", "source=sample&sample=taxi&n=150&reps=5")]
CHARTS = "[data-testid='stPlotlyChart'], [data-testid='stDeckGlJsonChart']"
TEXT_ALTERNATIVES = "[class*='st-key-chart_text_']"


@pytest.fixture
def page(browser_context):
    p = browser_context.new_page()
    yield p
    p.close()


# the same page with less to compute: its DOM is the same, its cold first run several times shorter — the lab at
# fewer trials on 300 events (its audits scale with both), PriSTE at 2 repetitions instead of 5 (its run scales with
# them; the charts still draw the band between the runs)
LIGHTER = {"adversary_lab": "aud_n=200&n=300", "spatiotemporal_events": "st_reps=2"}


def _views() -> list[tuple[str, str, str, int | None]]:
    """(slug, query, title, position in the registry or None) of every registered page and of the extra views."""
    views = []
    for i, (path, title) in enumerate(registered_pages()):
        slug = "" if i == 0 else re.sub(r"\.py$", "", path.split("/")[-1])
        views.append((slug, LIGHTER.get(slug, ""), title, i))
    return views + [(slug, query, f"{slug} ({query})", None) for slug, query in EXTRA_VIEWS]


# a segmented control's option outside its column (clipped: "Attacker's prior" at 1024 px once), a metric's label or
# value cut with an ellipsis, any other text whose box is narrower than its content where the box hides the rest
# (ellipsis or hidden overflow: "Chart as H…", "Landmark flags (pri…", "Releases handed …" once), and a chart's legend
# entry or a chart's annotation running past the chart's edge ("releas" once), a legend over a plot area; and a button
# label used twice on one page
CLIPPED = """async () => {
  await document.fonts.ready;
  const out = [];
  const main = document.querySelector("[data-testid='stMain']");
  for (const el of main.querySelectorAll('*')) {
    // charts and tables scroll or draw their own text; KaTeX's MathML copy is hidden for screen readers on purpose
    if (el.closest('svg, canvas, input, textarea, .js-plotly-plot, [data-testid=stDataFrame], .katex-mathml')) continue;
    const cs = getComputedStyle(el);
    if (cs.textOverflow !== 'ellipsis' && !['hidden', 'clip'].includes(cs.overflowX)) continue;
    const r = el.getBoundingClientRect();
    const text = (el.innerText || '').trim();
    if (r.width <= 1 || r.height <= 1 || !text) continue;  // visually hidden (screen-reader) text
    const range = document.createRange();
    range.selectNodeContents(el);
    if (el.scrollWidth > el.clientWidth + 1 || range.getBoundingClientRect().width > r.width + 1)
      out.push(`text '${text.slice(0, 60)}' cut`);
  }
  for (const plot of main.querySelectorAll('.js-plotly-plot')) {
    const box = plot.getBoundingClientRect();
    const bg = plot.querySelector('.legend .bg');  // plotly clips the legend to its background box
    const clip = bg ? bg.getBoundingClientRect() : box;
    for (const t of plot.querySelectorAll('.legendtext')) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.right > Math.min(box.right, clip.right) + 1 || r.left < box.left - 1))
        out.push(`legend '${t.textContent}' cut`);
    }
    // a legend lies clear of every plot area: plotly's _fullLayout gives each subplot's axes in px from the chart's
    // corner (a legend over the TPL line after the resize from 1024 to 1920 px once)
    const legend = plot.querySelector('.legend .bg');
    if (legend && plot._fullLayout) {
      const l = legend.getBoundingClientRect();
      for (const sp of Object.values(plot._fullLayout._plots || {})) {
        const x0 = box.left + sp.xaxis._offset, y0 = box.top + sp.yaxis._offset;
        const w = Math.min(l.right, x0 + sp.xaxis._length) - Math.max(l.left, x0);
        const h = Math.min(l.bottom, y0 + sp.yaxis._length) - Math.max(l.top, y0);
        if (w > 2 && h > 2) out.push(`legend over a chart's plot by ${Math.round(h)} px`);
      }
    }
    // a chart's own text (panel headings, notes) ends at the chart's edge too ("… (hover for va" once)
    for (const t of plot.querySelectorAll('.annotation-text')) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1))
        out.push(`chart text '${t.textContent.slice(0, 60)}' cut`);
    }
  }
  for (const group of document.querySelectorAll("[data-testid='stButtonGroup']")) {
    const box = (group.closest('[data-testid=stColumn]') || group.closest('[data-testid=stElementContainer]')
                 || group).getBoundingClientRect();
    for (const b of group.querySelectorAll('button')) {
      const r = b.getBoundingClientRect();
      if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1)) out.push(`option '${b.innerText}' cut`);
    }
  }
  for (const el of document.querySelectorAll(
      "[data-testid='stMetricLabel'] p, [data-testid='stMetricLabel'] div, [data-testid='stMetricValue'] div")) {
    if (el.scrollWidth > el.clientWidth + 1) out.push(`metric '${el.innerText}' cut`);
  }
  // each button names what it does or gives: one label twice on a page ("Chart as HTML" ×4 once) is a problem too
  // (one label per element: a download holds a hidden 0 × 0 px twin of its button; closed "Show data" count too)
  const seen = new Set(), elements = new Set();
  for (const b of main.querySelectorAll("[data-testid=stDownloadButton] button, [data-testid=stButton] button")) {
    // a rerun leaves the previous run's copy in the document, stale, until it is replaced: not a second button a
    // person sees (without this every button of Lessons and Dummy landmarks was reported twice)
    if (b.closest("[data-stale=true]")) continue;
    const element = b.closest('[data-testid=stElementContainer]') || b;
    if (elements.has(element)) continue;
    elements.add(element);
    const label = (b.textContent || '').trim();
    if (label && seen.has(label)) out.push(`button label '${label}' twice`);
    seen.add(label);
  }
  return out;
}"""


def _page_shape(page, slug: str, title: str, i: int, width: int) -> list[str]:
    """A registered page as it first shows: its title, the landmark status (not on Population and Policies, which
    work on many users), no horizontal overflow, no control or metric cut; screenshot page_NN_slug_WIDTH.png."""
    problems = []
    if not page.locator("h1").first.is_visible():
        problems.append(f"{title} at {width} px: no visible title")
    single_series = title not in ("Population", "Policies")
    if page.locator(".st-key-landmark_status").is_visible() != single_series:
        problems.append(f"{title} at {width} px: landmark status {'missing' if single_series else 'shown'}")
    overflow = page.evaluate("() => { const m = document.querySelector(\"[data-testid='stMain']\");"
                             " return m.scrollWidth - m.clientWidth; }")
    if overflow > 2:
        problems.append(f"{title} is wider than the window at {width} px ({overflow} px)")
    problems += [f"{title} at {width} px: {what}" for what in page.evaluate(CLIPPED)]
    screenshot(page, f"page_{i:02d}_{slug or 'home'}_{width}")
    return problems


def _open_show_data(page) -> None:
    """Open every chart's "Show data" expander, so axe checks the tables too: one click per closed expander in the
    page's own script (a round trip each from Playwright took ~2 s a page); opening one reruns the page, which
    builds its table and CSV only then (issue 34), so the page is left to settle before axe looks."""
    selector = f"{TEXT_ALTERNATIVES} [data-testid='stExpander'] details"
    closed = page.evaluate("(s) => { const c = [...document.querySelectorAll(s)].filter(d => !d.open);"
                           " c.forEach(d => d.querySelector('summary').click()); return c.length; }", selector)
    if closed:
        # open, and the rerun it asked for has drawn what an open one holds (ui.charts.alt_text: the table, the CSV
        # or the words that the table is shown with the chart), so the rerun is not still to come
        page.wait_for_function(
            "(s) => [...document.querySelectorAll(s)].every(d => d.open && (d.querySelector("
            "\"[data-testid='stDataFrame'], [data-testid='stDownloadButton']\")"
            " || d.innerText.includes('The table shown with the chart')))", arg=selector, timeout=120_000)
        wait_idle(page, timeout=120_000)


def _full_height(page, width: int) -> None:
    """Grow the window to the content's height: axe leaves what is scrolled out of Streamlit's containers as
    'incomplete' instead of checking it."""
    height = page.evaluate(
        "() => { const b = document.querySelector(\"[data-testid='stMainBlockContainer']\");"
        " const s = document.querySelector(\"[data-testid='stSidebarContent']\");"
        " return Math.max(b ? b.scrollHeight + 120 : 0, s ? s.scrollHeight : 0); }")
    page.set_viewport_size({"width": width, "height": int(min(max(height, 900), 8000))})
    next_frames(page)


def _excluded(page, rule: str, node: dict) -> bool:
    target = node["target"][0] if node["target"] and isinstance(node["target"][0], str) else None
    for (excluded_rule, selector), _reason in EXCLUDED.items():
        if excluded_rule == rule and target and page.evaluate(
                "([t, s]) => { const e = document.querySelector(t); return !!(e && e.closest(s)); }",
                [target, selector]):
            return True
    return False


def axe_findings(page, where: str) -> list[str]:
    """Readable lines for every critical/serious axe violation on the page (excluded ones left out)."""
    from axe_playwright_python.sync_playwright import Axe

    found = []
    for violation in Axe().run(page).response["violations"]:
        if violation["impact"] not in BLOCKING:
            continue
        for node in violation["nodes"]:
            if _excluded(page, violation["id"], node):
                continue
            advice = " ".join((node.get("failureSummary") or "").split())
            found.append(f"{where}: {violation['id']} ({violation['impact']}) — {violation['help']}\n"
                         f"    element: {node['target']}\n    html: {node['html'][:200]}\n    fix: {advice[:300]}")
    return found


WIDTHS = (1024, 1920)  # a classroom projector, a desktop screen


def views_of_module(module: int) -> list[tuple[str, str, str, int | None]]:
    """Every other view: this module (0) and test_browser_a11y_more.py (1) split the views, so that xdist
    (--dist loadfile keeps a module on one worker) checks the two halves side by side; pages added later fall into
    one of them by their place in the registry."""
    return _views()[1 - module::2]


def _view_id(view: tuple[str, str, str, int | None]) -> str:
    slug, query, _title, i = view
    return (slug or "home") + ("" if i is not None else "-" + query.split("&")[1].split("=")[1])


def _resize(page, width: int) -> None:
    """The window at ``width`` × 900 px; Streamlit lays out in CSS and the charts redraw on the resize event, with
    no rerun, so the page is the one a fresh load at this width shows."""
    set_width(page, width)
    wait_idle(page)


@pytest.mark.parametrize("view", views_of_module(0), ids=_view_id)
def test_every_page_loads_passes_axe_and_describes_every_chart(page, app_url, view):
    """Also the every-page load check (one pass over the pages instead of two): no exception (open_page), a title,
    the landmark status, no overflow, a screenshot per page and width."""
    check_view(page, app_url, view)


def check_view(page, app_url: str, view: tuple[str, str, str, int | None]) -> None:
    """One view at 1024 and 1920 px, loaded once (the window resized in between): as it first shows, its shape at
    both widths (_page_shape, screenshots page_NN_slug_WIDTH.png); every chart with a text alternative that is a
    sentence; then with every "Show data" table open, no critical or serious axe finding at 1024 px (screenshot
    a11y_slug_1024.png); then, on a page of
    test_browser_downloads.CLICKED, every download button (check_downloads) on the same visit."""
    assert len(registered_pages()) >= 3
    slug, query, title, i = view
    problems: list[str] = []
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})
    open_page(page, app_url, slug, query)
    for width in WIDTHS:
        if width != WIDTHS[0]:
            _resize(page, width)
        if i is not None:
            problems += _page_shape(page, slug, title, i, width)
    # the charts and their text alternatives are the same elements at every width (no rerun in between)
    charts = page.locator(CHARTS).count()
    described = page.locator(TEXT_ALTERNATIVES).count()
    if described != charts:
        problems.append(f"{title}: {charts} charts/maps but {described} text alternatives "
                        "(ui.charts.alt_text.describe after each st.plotly_chart / st.pydeck_chart)")
    for box in page.locator(TEXT_ALTERNATIVES).all():
        # inside the closed "Show data" expander since issue 35: in the document (screen readers), not shown
        said = box.locator("[data-testid='stCaptionContainer']").first.text_content() or ""
        if len(said) < 20 or not said.rstrip().endswith("."):
            problems.append(f"{title}: a chart's summary is not a sentence: {said!r}")
    _open_show_data(page)
    # axe at the projector's width only: the DOM is the same at every width (a resize reruns nothing), and the rules
    # whose outcome depends on the boxes (target size, scrollable regions) find the narrower layout the harder one
    _full_height(page, WIDTHS[0])
    problems += axe_findings(page, f"{title} at {WIDTHS[0]} px")
    screenshot(page, f"a11y_{slug or 'home'}{'_' + query.split('&')[1].split('=')[1] if i is None else ''}_{WIDTHS[0]}")
    assert not problems, "\n".join(problems)
    if query == LIGHTER.get(slug, "") and slug in CLICKED:  # the page's default view is loaded: its downloads too
        check_downloads(page, slug)


def test_landmarks_can_be_marked_with_the_keyboard_only(page, app_url):
    open_page(page, app_url, "data_landmarks", "lm=-&n=200")
    assert sidebar_count(page) == 0
    label = "Events by position t (from the keyboard)"
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # Tab from the top of the page
    for presses in range(400):  # noqa: B007 — read after the loop (the box is not the first stop)
        page.keyboard.press("Tab")
        if page.evaluate("(l) => document.activeElement && document.activeElement.getAttribute('aria-label') === l",
                         label):
            break
    else:
        raise AssertionError(f"Tab never reached the text box {label!r}")
    page.keyboard.type("12, 40–45")
    page.keyboard.press("Tab")  # leaves the text box (Streamlit takes its value) and lands on "Add"
    assert page.evaluate("() => document.activeElement.innerText.trim()") == "Add"
    page.keyboard.press("Enter")
    assert wait_count(page, lambda c: c == 7) == 7
    page.wait_for_function("() => document.body.innerText.includes('Keyboard: added 7 event(s)')", timeout=30_000)
    screenshot(page, "a11y_keyboard_landmarks_added")
    # Remove is the next stop; Space presses a button as Enter does
    wait_idle(page)
    page.get_by_role("button", name="Add", exact=True).focus()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.innerText.trim()") == "Remove"
    page.keyboard.press("Space")
    assert wait_count(page, lambda c: c == 0) == 0
    # a typo is named, the landmarks stay
    page.locator(f"input[aria-label='{label}']").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("12, x")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.body.innerText.includes(\"'x' is not a position\")", timeout=30_000)
    wait_idle(page)
    assert sidebar_count(page) == 0 and presses > 0


def test_budget_legend_clears_the_headings_at_1024(page, app_url):
    page.set_viewport_size({"width": 1024, "height": 900})
    for query in ("reps=5", "reps=5&n=300&schemes=event,user,w-event,uniform,skip,adaptive"):
        open_page(page, app_url, "schemes_utility", query)
        chart = page.locator(".st-key-budget_chart .js-plotly-plot")
        chart.scroll_into_view_if_needed()
        boxes = page.evaluate(
            "() => { const c = document.querySelector('.st-key-budget_chart .js-plotly-plot');"
            " const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };"
            " return { legend: [...c.querySelectorAll('.legend .traces')].map(r),"
            "          headings: [...c.querySelectorAll('.annotation')].map(r) }; }")
        assert boxes["legend"] and boxes["headings"]
        for lx0, ly0, lx1, ly1 in boxes["legend"]:
            for hx0, hy0, hx1, hy1 in boxes["headings"]:
                overlap = min(lx1, hx1) - max(lx0, hx0) > 0 and min(ly1, hy1) - max(ly0, hy0) > 0
                assert not overlap, f"legend entry {lx0, ly0, lx1, ly1} covers a heading {hx0, hy0, hx1, hy1}"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        which = "six" if "schemes" in query else "default"
        chart.screenshot(path=str(SCREENSHOTS / f"a11y_budget_legend_1024_{which}.png"))
