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
    elif name.endswith(".jsonl"):
        [json.loads(line) for line in data.decode("utf-8").splitlines()]
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
        buttons = page.locator("[data-testid='stDownloadButton'] button:not([disabled]):visible")
        count = buttons.count()
        assert count >= {"": 2, "data_landmarks": 2, "schemes_utility": 5, "temporal_loss": 3, "dummy_landmarks": 4,
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


def test_each_click_on_the_release_to_hand_out_is_a_new_release(context, app_url):
    """Drawn on click from fresh entropy: two clicks give two different releases, clamped to the public limit,
    neither equal to the demonstration release of the seed."""
    page = context.new_page()
    try:
        page.goto(f"{app_url}/schemes_utility?schemes=skip&reps=5&eps=10&rhi=8")  # public range 0–8 kWh
        wait_idle(page, timeout=120_000)
        frames = []
        for label in ("Release to hand out (CSV)", "Release to hand out (CSV)", "Demonstration release (seed)"):
            # a click reruns the page and draws the release; 60 s ran out once while both workers were loaded
            with page.expect_download(timeout=180_000) as info:
                page.get_by_role("button", name=label).click()
            frames.append(pd.read_csv(info.value.path(), comment="#"))
        first, second, demo = (f["released"].to_numpy() for f in frames)
        assert len(first) == len(second) == len(demo)
        assert (first != second).mean() > 0.5 and (first != demo).mean() > 0.5
        assert 0 <= first.min() and first.max() <= 8 and 0 <= second.min() and second.max() <= 8
        assert not exceptions(page)
    finally:
        page.close()


def test_two_releases_handed_out_make_the_session_ledger_show_two(context, app_url):
    """Each click on the release to hand out is recorded in the session ledger: its total reads 2 releases and
    2 ε after two clicks, and the ledger downloaded from the app sums up with lmdk ledger."""
    from lmdk import ledger

    page = context.new_page()
    try:
        page.goto(f"{app_url}/schemes_utility?schemes=adaptive&reps=5&eps=1")
        wait_idle(page, timeout=120_000)
        panel = page.locator(".st-key-ledger_panel")
        for _ in range(2):
            with page.expect_download(timeout=180_000):
                page.get_by_role("button", name="Release to hand out (CSV)").click()
            wait_idle(page)
        metrics = panel.get_by_test_id("stMetricValue").all_inner_texts()
        assert metrics[:2] == ["2", "2"], metrics
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name="Privacy ledger (JSON Lines)").click()
        totals = ledger.compose(ledger.read(info.value.path()))
        assert totals["releases"] == 2 and totals["epsilon_basic"] == 2.0
        assert not exceptions(page)
    finally:
        page.close()


REPORTS = [  # (page and query, charts drawn, text the report must hold)
    ("schemes_utility?schemes=user,uniform,adaptive&reps=10", 3, ("With ε = 1", "Mean absolute error")),
    ("temporal_loss", 3, ("With ε = 1",)),
    ("", 1, ("With ε = 1", "Budget εₜ per timestamp")),
    ("spatiotemporal_events", 2, ("Plain location noise", "PriSTE", "mean distance (m)")),
    ("dummy_landmarks", 4, ("known to be a regular event", "Mean absolute error without and with dummies")),
]


@pytest.mark.parametrize("path,charts,holds", REPORTS, ids=[r[0].split("?")[0] or "overview" for r in REPORTS])
def test_report_opens_offline_with_headline_verdicts_and_interactive_charts(context, app_url, tmp_path, path,
                                                                            charts, holds):
    page = context.new_page()
    try:
        page.goto(f"{app_url}/{path}")
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
        offline.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= {charts}",
                                  timeout=60_000)
        body = offline.inner_text("body")
        assert "satisfies" in body and all(h in body for h in holds), body[:600]
        assert "timestamp" not in body.lower() or "time span" in body or "synthetic" in body or not path  # no data
        assert [u for u in requests if not u.startswith("file:")] == []  # nothing fetched from a network
        offline.set_viewport_size({"width": 1024, "height": 900})
        from browser_support import screenshot
        screenshot(offline, f"report_offline_{path.split('?')[0] or 'overview'}_1024")
    finally:
        offline.close()


def test_stakeholder_walk_cold_link_headline_report_and_script(browser_context, app_url, tmp_path):
    """Someone opens a shared link cold, reads the headline, takes the report and reruns the script."""
    import os
    import subprocess
    import sys

    from browser_support import ROOT

    page = browser_context.new_page()
    try:
        # changes of up to 1 kWh (Δ = 1): at ε = 0.1 the errors then stay inside the 0–25 kWh range, so the schemes
        # differ (with any reading protected, Δ = 25, every scheme saturates at ε = 0.1)
        page.goto(f"{app_url}/schemes_utility?eps=0.1&schemes=user,uniform,adaptive&reps=20&seed=5&rel=up_to&rd=1")
        wait_idle(page, timeout=120_000)
        main = page.inner_text("[data-testid='stMain']")
        assert main.index("With ε = 0.1") < main.index("Budget per timestamp")  # the headline comes first
        shown = page.evaluate("() => { const d = document.querySelector('.st-key-mae_chart .js-plotly-plot').data[0];"
                              " return [Array.from(d.y), Array.from(d.x)]; }")
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name="Report (HTML)").click()
        assert "With ε = 0.1" in open(info.value.path(), encoding="utf-8").read()
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name="Python script").click()
        script = tmp_path / "reproduce_schemes.py"
        info.value.save_as(str(script))
    finally:
        page.close()
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    printed = {line.split()[0]: float(line.split()[1]) for line in done.stdout.splitlines()[2:]}
    assert set(printed) == {"user", "uniform", "adaptive"} and printed["user"] > printed["adaptive"]
    for scheme, mae in zip(*shown, strict=True):  # the script prints the numbers the page charts
        assert printed[scheme] == pytest.approx(mae, rel=1e-5)
    assert "ε = 0.1" in done.stdout and "demonstration seed 5" in done.stdout
