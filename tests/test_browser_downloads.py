"""Browser test: every download button on every page delivers a file that parses (deferred ones included)."""
from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from browser_support import exceptions, wait_idle

pytestmark = pytest.mark.browser
PAGES = ["", "data_landmarks", "schemes_utility", "temporal_loss", "dummy_landmarks", "spatiotemporal_events",
         "experiments"]


@pytest.fixture
def context(browser_context):
    return browser_context


def check(name: str, data: bytes) -> None:
    """The file parses as what its name says."""
    if name.endswith(".json"):
        json.loads(data)
    elif name.endswith(".csv"):
        frame = pd.read_csv(io.BytesIO(data), comment="#")
        assert len(frame) > 0 and "timestamp" in frame.columns or len(frame.columns) > 1
    elif name.endswith(".py"):
        compile(data.decode("utf-8"), name, "exec")
    elif name.endswith(".html"):
        text = data.decode("utf-8")
        assert "<html" in text.lower() and "plotly" in text.lower() and "session has ended" not in text
    else:
        raise AssertionError(f"unexpected download {name}")


@pytest.mark.parametrize("path", PAGES)
def test_every_download_button_delivers_a_parsable_file(context, app_url, path):
    page = context.new_page()
    try:
        page.goto(f"{app_url}/{path}")
        wait_idle(page, timeout=120_000)
        bound = page.locator(".st-key-_export_bound input")
        if bound.count():
            bound.fill("10")
            bound.press("Enter")
            wait_idle(page)
        buttons = page.locator("[data-testid='stDownloadButton'] button:not([disabled]):visible")
        count = buttons.count()
        assert count >= {"": 0, "data_landmarks": 2, "schemes_utility": 5, "temporal_loss": 3, "dummy_landmarks": 4,
                         "spatiotemporal_events": 2, "experiments": 2}[path]
        names = []
        for i in range(count):
            with page.expect_download(timeout=60_000) as info:
                buttons.nth(i).click()
            download = info.value
            assert download.failure() is None, download.failure()
            with open(download.path(), "rb") as handle:
                check(download.suggested_filename, handle.read())
            names.append(download.suggested_filename)
        assert not exceptions(page)
        if path == "schemes_utility":
            assert "runconfig.json" in names and any(n.startswith("release_") for n in names)
    finally:
        page.close()


def test_cli_reproduces_the_apps_demonstration_csv_from_its_runconfig(context, app_url, tmp_path):
    """The RunConfig downloaded from the Schemes page + lmdk release --seed give the page's CSV byte for byte."""
    from lmdk import cli

    page = context.new_page()
    try:
        page.goto(f"{app_url}/schemes_utility?schemes=uniform,adaptive&reps=5&seed=3")
        wait_idle(page, timeout=120_000)
        files = {}
        for label in ("RunConfig (JSON)", "Demonstration release (seed)"):
            with page.expect_download(timeout=60_000) as info:
                page.get_by_role("button", name=label).click()
            files[label] = str(info.value.path())
        config = json.loads(open(files["RunConfig (JSON)"], "rb").read())
        assert config["seed"] == 3 and config["repetitions"] == 5
        out = tmp_path / "cli.csv"
        code = cli.main(["release", "sample:hue", "--config", files["RunConfig (JSON)"], "--scheme", "adaptive",
                         "--seed", str(config["seed"]), "--out", str(out), "--quiet"])
        assert code == 0
        assert out.read_bytes() == open(files["Demonstration release (seed)"], "rb").read()
    finally:
        page.close()


def test_report_opens_offline_with_headline_verdicts_and_interactive_charts(context, app_url, tmp_path):
    page = context.new_page()
    try:
        page.goto(f"{app_url}/schemes_utility?schemes=user,uniform,adaptive&reps=10")
        wait_idle(page, timeout=120_000)
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name="Report (HTML)").click()
        report = tmp_path / "report.html"
        info.value.save_as(str(report))
    finally:
        page.close()
    offline = context.new_page()
    requests = []
    offline.route("**/*", lambda route: (requests.append(route.request.url),
                                         route.continue_() if route.request.url.startswith("file:")
                                         else route.abort()))
    try:
        offline.goto(report.as_uri())
        offline.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3",
                                  timeout=60_000)
        body = offline.inner_text("body")
        assert "With ε = 1" in body and "satisfies" in body and "Mean absolute error" in body
        assert "timestamp" not in body.lower() or "time span" in body  # described, not included
        assert [u for u in requests if not u.startswith("file:")] == []  # nothing fetched from a network
        offline.set_viewport_size({"width": 1024, "height": 900})
        from browser_support import screenshot
        screenshot(offline, "report_offline_1024")
    finally:
        offline.close()
