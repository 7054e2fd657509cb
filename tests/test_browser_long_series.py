"""Browser tests of long series (issue 28): a 105,120-event series is drawn downsampled, and a click on the drawn
timeline still marks the exact event under the cursor; a box covers every event inside it, drawn or not; the zoom
window draws every event. Screenshots at 1,024 and 1,920 px go to test-artifacts/screenshots/."""
from __future__ import annotations

import pytest
from browser_support import exceptions, screenshot, set_width, wait_idle

from lmdk.present.views import decode_landmarks

pytestmark = [pytest.mark.browser, pytest.mark.slow]

N = 105_120
CHART = ".st-key-timeline_chart_{} .js-plotly-plot"
META = ("(sel) => { const el = document.querySelector(sel); const m = el && el.layout && el.layout.meta;"
        " return m ? (Array.isArray(m) ? m[0] : m) : null; }")


@pytest.fixture
def page(browser_context):
    p = browser_context.new_page()
    yield p
    p.close()


def open_long(page, url: str, query: str = "", whole: bool = True) -> None:
    """The long series on Data & landmarks; ``whole``: zoomed out to the whole series (it opens at 500 events)."""
    page.goto(f"{url}/data_landmarks?source=synthetic&syn_n={N}&lm=-{query}")
    wait_idle(page, timeout=300_000)
    assert not exceptions(page), exceptions(page)
    if whole:
        page.locator(".st-key-zoom_width input[type='range']").focus()
        page.keyboard.press("End")  # the widest window: the whole series
        wait_idle(page, timeout=120_000)


def landmarks_in_url(page, timeout_s: float = 120) -> list[int]:
    """The landmark set once the URL names one (an edit makes it the user's set, linked as 'lm')."""
    page.wait_for_function("() => /[?&]lm=[^-&]/.test(location.search)", timeout=timeout_s * 1000)
    wait_idle(page, timeout=120_000)
    from urllib.parse import parse_qs, urlparse

    return decode_landmarks(parse_qs(urlparse(page.url).query)["lm"][0]).tolist()


def test_a_click_on_the_downsampled_timeline_marks_the_exact_event(page, app_url):
    open_long(page, app_url)
    chart = CHART.format(0)
    meta = page.evaluate(META, chart)
    assert meta["window"]["drawn"] <= 2_000 < N and meta["window"]["stop"] == N  # downsampled, whole series
    page.evaluate("(sel) => { const gd = document.querySelector(sel);"
                  " gd.on('plotly_click', e => { window.__clicked = e.points.map(p => p.customdata); }); }", chart)
    # the pixel of the 700th drawn point of the series trace (a real event: customdata = its position)
    page.locator(chart).scroll_into_view_if_needed()
    target = page.evaluate(
        "(sel) => { const gd = document.querySelector(sel); const tr = gd._fullData[0], L = gd._fullLayout;"
        " const i = 700, xa = L.xaxis, ya = L.yaxis, r = gd.querySelector('.nsewdrag').getBoundingClientRect();"
        " return {t: tr.customdata[i], y: tr.y[i], px: r.left + xa.l2p(tr.x[i]), py: r.top + ya.l2p(tr.y[i]),"
        " w: r.width}; }",
        chart)
    page.mouse.move(target["px"], target["py"])
    page.mouse.click(target["px"], target["py"])
    marked = landmarks_in_url(page)
    clicked = page.evaluate("() => window.__clicked || null")
    assert clicked is not None and len(marked) == 1 and marked == [int(clicked[0])]
    # the event under the cursor: plotly picks the nearest drawn point, and ~3 drawn points share a pixel here (2,000
    # over ~600 px; the landmark strip under the series moved the pick by 2 px once), so within 3 px of the cursor
    assert abs(marked[0] - target["t"]) <= 3 * N / target["w"]
    import numpy as np

    from lmdk.present.views import synthetic_series

    series = synthetic_series("values", N, 0.5, np.random.default_rng(1))  # the app's synthetic series, seed 1
    drawn = page.evaluate("(sel) => { const tr = document.querySelector(sel)._fullData[0];"
                          " const i = tr.customdata.indexOf(" + str(marked[0]) + "); return tr.y[i]; }",
                          CHART.format(1))
    assert drawn == pytest.approx(series.values[marked[0]], abs=1e-9)  # its drawn value is that event's value
    meta = page.evaluate(META, CHART.format(1))
    assert meta["landmarks"] == 1 and meta["window"]["landmarks_drawn"] == 1


def test_a_box_on_the_downsampled_timeline_covers_every_event_inside_it(page, app_url):
    open_long(page, app_url)
    chart = CHART.format(0)
    page.locator(chart).hover()
    page.locator(".st-key-timeline_chart_0 [data-title='Box Select']").click()
    drag = page.locator(".st-key-timeline_chart_0 .nsewdrag").first
    box = drag.bounding_box()
    x0, x1 = box["x"] + 0.50 * box["width"], box["x"] + 0.51 * box["width"]  # ~1 % of the events, full height
    page.mouse.move(x0, box["y"] + 2)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, box["y"] + box["height"] / 2, steps=4)
    page.mouse.move(x1, box["y"] + box["height"] - 2, steps=4)
    page.mouse.up()
    marked = landmarks_in_url(page)
    # every event in the box's time span, not only the ~20 drawn there: a contiguous run of ~1 % of the series
    assert len(marked) > 300 and marked[-1] - marked[0] + 1 == len(marked)


WIDTHS = (1024, 1920)


def shots(page, name: str) -> None:
    """Screenshots long_series_NAME_WIDTH at both widths of the same page (Streamlit lays out in CSS: a resize
    reruns nothing), ending at the first width."""
    for width in (*WIDTHS[1:], WIDTHS[0]):
        set_width(page, width, 1000)
        wait_idle(page, timeout=120_000)
        screenshot(page, f"long_series_{name}_{width}")


def test_zooming_in_draws_every_event_and_screenshots(page, app_url):
    """The zoom window draws every event; the Data, Schemes and Temporal loss pages of the long series render
    without an exception; screenshots of each at 1,024 and 1,920 px (each page loaded once)."""
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
    open_long(page, app_url, whole=False)  # it opens at a readable zoom: the first 500 events
    meta = page.evaluate(META, CHART.format(0))
    window = meta["window"]
    assert window["stop"] - window["first"] == 500 and window["drawn"] == window["stop"] - window["first"]
    shots(page, "zoomed")
    page.goto(f"{app_url}/schemes_utility?source=synthetic&syn_n={N}")
    wait_idle(page, timeout=300_000)
    page.get_by_role("button", name="Start it").click()  # a link beyond 20,000 events asks first (issue 54)
    wait_idle(page, timeout=300_000)
    assert not exceptions(page), exceptions(page)
    shots(page, "schemes")
    page.goto(f"{app_url}/temporal_loss?source=synthetic&syn_n={N}")
    wait_idle(page, timeout=300_000)
    page.get_by_role("button", name="Start it").click()  # a link beyond 20,000 events asks first (issue 54)
    wait_idle(page, timeout=300_000)
    assert not exceptions(page), exceptions(page)
    shots(page, "tpl")
