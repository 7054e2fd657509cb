"""Browser tests: the real app in Debian's headless Chromium (Playwright).

One Streamlit server and one browser for the module; every test opens a fresh page (= a fresh
Streamlit session). Screenshots go to test-artifacts/screenshots/.
"""
from __future__ import annotations

import ast
import math

import numpy as np
import pytest
from browser_support import ROOT, chart_meta, exceptions, screenshot, wait_idle

pytestmark = pytest.mark.browser


def registered_pages() -> list[tuple[str, str]]:
    """(file, title) of every page in app.py's PAGES registry (read without running Streamlit)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    pages: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets):
            pages += [(e.elts[0].value, e.elts[1].value) for e in node.value.elts]
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("append", "extend")
                and getattr(node.func.value, "id", None) == "PAGES"):
            items = node.args[0].elts if node.func.attr == "extend" else [node.args[0]]
            pages += [(e.elts[0].value, e.elts[1].value) for e in items]
    return pages


@pytest.fixture
def page(browser_context):
    p = browser_context.new_page()
    yield p
    p.close()


def open_page(page, url: str, path: str = "", query: str = "") -> None:
    page.goto(f"{url}/{path}{'?' + query if query else ''}")
    wait_idle(page, timeout=120_000)
    assert not exceptions(page), exceptions(page)


def sidebar_count(page) -> int:
    """The landmark count of the sidebar status ("k of n")."""
    text = page.locator(".st-key-landmark_status [data-testid='stMetricValue']").inner_text()
    return int(text.split(" of ")[0].replace(",", ""))


def wait_count(page, predicate, timeout_s: float = 60) -> int:
    """Wait until the sidebar's landmark count satisfies ``predicate``; returns it."""
    import time

    deadline = time.monotonic() + timeout_s
    count = None
    while time.monotonic() < deadline:
        try:
            count = sidebar_count(page)
            if predicate(count):
                wait_idle(page, timeout=timeout_s * 1000)
                return sidebar_count(page)
        except Exception:  # noqa: BLE001 - the element is re-rendered while we look
            pass
        page.wait_for_timeout(250)
    raise AssertionError(f"landmark count never satisfied the condition (last: {count})")


def test_changing_epsilon_updates_the_budget_chart(page, app_url):
    open_page(page, app_url, "schemes_utility", "reps=20&schemes=uniform,event")
    meta = chart_meta(page, "budget_chart")
    assert (meta[0] if isinstance(meta, list) else meta)["eps"] == 1  # see ui.charts.meta_of
    # εₜ of the uniform trace: y of bars, customdata of a budget row (whose y is scaled to the row,
    # see ui.charts.budgets)
    read = ("() => { const t = document.querySelector('.st-key-budget_chart .js-plotly-plot').data"
            ".find(t => t.name === 'uniform'); return Array.from(t.customdata || t.y); }")
    before = np.asarray(page.evaluate(read))
    page.locator(".st-key-w_eps input[type='range']").focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "() => { const el = document.querySelector('.st-key-budget_chart .js-plotly-plot');"
        " const m = el && el.layout && el.layout.meta; return !!m && (Array.isArray(m) ? m[0] : m).eps === 0.7; }",
        timeout=60_000)
    wait_idle(page)
    after = np.asarray(page.evaluate(read))
    spent = before != 0  # a row's outline starts and ends on its base (εₜ 0)
    assert spent.sum() >= 2 and np.allclose(after[spent] / before[spent], 0.7, rtol=1e-4)  # 5 significant digits
    assert "eps=0.7" in page.url
    screenshot(page, "schemes_after_epsilon_change")


def test_box_select_on_the_timeline_adds_landmarks(page, app_url):
    open_page(page, app_url, "data_landmarks", "lm=-&n=200")
    assert sidebar_count(page) == 0
    page.locator(".st-key-timeline_chart_0 .js-plotly-plot").hover()
    page.locator(".st-key-timeline_chart_0 [data-title='Box Select']").click()
    drag = page.locator(".st-key-timeline_chart_0 .nsewdrag").first
    box = drag.bounding_box()
    x0, x1 = box["x"] + 0.30 * box["width"], box["x"] + 0.45 * box["width"]
    page.mouse.move(x0, box["y"] + 3)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, box["y"] + box["height"] / 2, steps=5)
    page.mouse.move(x1, box["y"] + box["height"] - 3, steps=5)
    page.mouse.up()
    count = wait_count(page, lambda c: c > 0)
    assert 20 <= count <= 40  # about 15 % of 200 events
    screenshot(page, "data_after_box_select")


def test_clicking_a_timeline_point_toggles_it(page, app_url):
    open_page(page, app_url, "data_landmarks", "lm=-&n=200")
    assert sidebar_count(page) == 0
    point = page.locator(".st-key-timeline_chart_0 .scatterlayer .trace").first.locator(".points path").nth(50)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert wait_count(page, lambda c: c == 1) == 1
    screenshot(page, "data_after_point_click")
    point = page.locator(".st-key-timeline_chart_1 .scatterlayer .trace").nth(1).locator(".points path").first
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # the landmark: toggled off
    assert wait_count(page, lambda c: c == 0) == 0


def _pixel_offset(lat, lon, lat_c, lon_c, zoom) -> tuple[float, float]:
    """Screen offset (px) of a point from the view centre in deck.gl's web-Mercator (512-px world)."""
    scale = 512 * 2**zoom
    def merc(phi):
        return math.log(math.tan(math.pi / 4 + math.radians(phi) / 2))
    return (lon - lon_c) / 360 * scale, -(merc(lat) - merc(lat_c)) / (2 * math.pi) * scale


def test_click_on_the_map_toggles_a_landmark(page, app_url):
    from lmdk import data
    from ui.charts import maps

    series = data.sample("taxi", n=150)
    latlon = series.latlon()
    vs = maps.view_state(latlon[:, 0], latlon[:, 1], height_px=480)
    open_page(page, app_url, "data_landmarks", "source=sample&sample=taxi&n=150&lm=-")
    assert sidebar_count(page) == 0
    offsets = np.array([_pixel_offset(a, b, vs.latitude, vs.longitude, vs.zoom) for a, b in latlon])
    target = int(np.argmin(np.hypot(*offsets.T)))  # the event closest to the centre: surely on screen
    assert click_map(page, "map_chart_0", offsets[target], lambda c: c == 1) == 1
    screenshot(page, "data_after_map_click")
    assert click_map(page, "map_chart_1", offsets[target], lambda c: c == 0) == 0


def click_map(page, key: str, offset, predicate, attempts: int = 4) -> int:
    """Click the map ``key`` at ``offset`` px from its centre until the landmark count satisfies ``predicate``;
    returns it. deck.gl picks only once it has drawn its layers, which on a loaded machine can be seconds after the
    canvas appears: a click it did not pick leaves the app idle with the count unchanged, and is made again."""
    canvas = page.locator(f".st-key-{key} canvas").first
    canvas.wait_for(timeout=60_000)
    counts = []
    for _ in range(attempts):
        canvas.scroll_into_view_if_needed()
        page.wait_for_timeout(1500)  # deck.gl draws after the element appears
        box = canvas.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2 + offset[0], box["y"] + box["height"] / 2 + offset[1])
        try:
            return wait_count(page, predicate, timeout_s=20)
        except AssertionError:
            wait_idle(page)  # nothing pending: the click was not picked (or a late one has landed by now)
            counts.append(sidebar_count(page))
            if predicate(counts[-1]):
                return counts[-1]
    raise AssertionError(f"{attempts} clicks on {key} never gave the expected landmark count (counts: {counts})")


def test_csv_upload_works_and_bad_file_shows_an_error(page, app_url, tmp_path):
    open_page(page, app_url, "data_landmarks", "source=upload")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\x00\x01binary\xff\xfe")
    page.locator(".st-key-upload_file input[type='file']").set_input_files(str(bad))
    page.wait_for_selector("[data-testid='stAlertContentError']", timeout=60_000)
    good = tmp_path / "meter.csv"
    good.write_text("timestamp,value\n" + "\n".join(f"2024-01-01 {h:02d}:00,{h % 5}" for h in range(24)))
    page.locator(".st-key-upload_file input[type='file']").set_input_files(str(good))
    page.wait_for_function("() => document.body.innerText.includes('n = 24 events')", timeout=60_000)
    wait_idle(page)
    assert not exceptions(page)
    assert page.locator("[data-testid='stAlertContentError']").count() == 0
    assert page.locator(".st-key-landmark_status").inner_text().find("of 24") >= 0
    screenshot(page, "data_after_upload")
