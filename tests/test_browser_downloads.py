"""Browser test: every download button on every page delivers a file that parses (deferred ones included; clicked by
check_downloads during the every-page pass of test_browser_a11y, on the visit it has loaded); the HTML reports open
offline; the Schemes page's files reproduce from the CLI, its releases to hand out are fresh and recorded in the
session ledger. One page load per page: every check of a page runs on the files of one visit."""
from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from browser_support import exceptions, wait_idle

pytestmark = pytest.mark.browser


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


# (charts drawn, text it must hold) of the HTML report of each page in CLICKED that offers one; the Schemes page's is
# checked in test_stakeholder_walk_cold_link_headline_report_and_script
REPORTS = {
    "": (1, ("With ε = 1", "Budget εₜ per timestamp")),
    "temporal_loss": (3, ("With ε = 1",)),
    "spatiotemporal_events": (2, ("Plain location noise", "PriSTE", "mean distance (m)")),
    "dummy_landmarks": (4, ("known to be a regular event", "Mean absolute error without and with dummies")),
}
# a click reruns the page (deferred files are built then, a release to hand out is drawn): 60 s ran out once while
# both workers were loaded
CLICK_MS = 180_000


def download(page, button) -> tuple[str, bytes]:
    """Click a download button once the page is idle; (suggested file name, content) of the file it delivers."""
    # a release to hand out reruns the page on click (it records the release), and that rerun registers the
    # deferred files anew: a button clicked before the rerun has finished asks for a file that is gone and no
    # download ever starts (CI, both workers loaded)
    wait_idle(page, timeout=CLICK_MS)
    with page.expect_download(timeout=CLICK_MS) as info:
        button.click()
    file = info.value
    assert file.failure() is None, file.failure()
    with open(file.path(), "rb") as handle:
        return file.suggested_filename, handle.read()


def every_download(page) -> list[tuple[str, str, bytes]]:
    """Click every enabled, visible download button of the page; each file parses as what its name says
    (check). Returns (button label, file name, content) of each, in the page's order."""
    buttons = page.locator("[data-testid='stDownloadButton'] button:not([disabled]):visible")
    files = []
    for i in range(buttons.count()):
        label = buttons.nth(i).inner_text().strip().splitlines()[-1]  # after the icon's name, if any
        name, data = download(page, buttons.nth(i))
        check(name, data)
        files.append((label, name, data))
    return files


def file_of(files: list[tuple[str, str, bytes]], label: str) -> bytes:
    """The content delivered by the one button labelled ``label``."""
    (data,) = [data for said, _, data in files if said == label]
    return data


def check_report_offline(context, report, charts: int, holds, name: str, with_data: bool) -> None:
    """The HTML report opens from file:// with the network cut: at least ``charts`` interactive charts drawn, the
    verdict ("satisfies") and every text of ``holds``, no data table unless ``with_data`` allows it, nothing
    fetched; screenshot report_offline_NAME_1024."""
    from browser_support import screenshot

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
        assert "timestamp" not in body.lower() or "time span" in body or "synthetic" in body or with_data  # no data
        assert [u for u in requests if not u.startswith("file:")] == []  # nothing fetched from a network
        offline.set_viewport_size({"width": 1024, "height": 900})
        screenshot(offline, f"report_offline_{name}_1024")
    finally:
        offline.close()


def check_report_file(data: bytes, charts: int, holds, with_data: bool) -> None:
    """The HTML report as a file: nothing in it loads from a network (plotly.js inline), at least ``charts`` charts,
    the verdict and every text of ``holds``; no table with a timestamp column unless ``with_data``. Every page's
    report comes from one builder (lmdk.present.report.html_report): that its charts draw offline is checked in
    Chromium once, on the Schemes page's report (check_report_offline), not again per page (~6 s of Chromium each)."""
    import html
    import re

    text = data.decode("utf-8")
    assert "<html" in text.lower() and "session has ended" not in text
    fetched = re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//",
                         text, re.I)
    assert not fetched, fetched
    assert "Plotly.newPlot" in text and len(re.findall(r"<script\b[^>]*>", text)) >= 2  # the library and a chart
    assert text.count('class="plotly-graph-div"') >= charts, text.count('class="plotly-graph-div"')
    for said in ("satisfies", *holds):
        assert any(form in text for form in (said, html.escape(said), json.dumps(said)[1:-1])), said
    headers = [h.strip().lower() for h in re.findall(r"<th[^>]*>(.*?)</th>", text, re.S)]
    assert with_data or "timestamp" not in headers, headers


# the pages whose every download button check_downloads clicks: the every-page pass (test_browser_a11y.check_view)
# calls it on the page it has loaded, so these checks cost no page load of their own; Schemes: the tests below
CLICKED = {"": 2, "data_landmarks": 2, "temporal_loss": 3, "dummy_landmarks": 4, "spatiotemporal_events": 2,
           "experiments": 2}


def open_exports(page) -> None:
    """Open Schemes & utility's exports expander (built only once open: a click reruns the page's fragment)."""
    page.locator(".st-key-show_exports summary").click()
    page.get_by_role("button", name="RunConfig (JSON)").wait_for(timeout=60_000)
    wait_idle(page)


def check_downloads(page, path: str) -> None:
    """Every download button of the loaded page ``path`` (a key of CLICKED) delivers a file that parses; the page's
    HTML report (REPORTS) is the one clicked here, then opened offline."""
    files = every_download(page)
    assert len(files) >= CLICKED[path], [label for label, _, _ in files]
    assert not exceptions(page)
    if path in REPORTS:
        charts, holds = REPORTS[path]
        check_report_file(file_of(files, "Report (HTML)"), charts, holds, with_data=not path)


def test_schemes_downloads_reproduce_hand_out_new_releases_and_fill_the_ledger(context, app_url, tmp_path):
    """One Schemes page (skip, ε = 10, public range 0–8 kWh, seed 3), every download button clicked, then:
    the RunConfig + lmdk release --seed give the page's demonstration CSV byte for byte; each click on the release
    to hand out draws from fresh entropy (two clicks, two different releases, clamped to the public limit, neither
    equal to the demonstration release of the seed); the session ledger records each (its total reads 2 releases
    and 2 × 10 ε) and the ledger downloaded from the app sums up with lmdk ledger."""
    from lmdk import cli, ledger

    page = context.new_page()
    try:
        page.goto(f"{app_url}/schemes_utility?schemes=skip&reps=5&seed=3&eps=10&rhi=8")
        wait_idle(page, timeout=120_000)
        open_exports(page)
        files = every_download(page)  # the release to hand out among them: the first release handed out
        names = [name for _, name, _ in files]
        assert len(files) >= 5 and "runconfig.json" in names and any(n.startswith("release_") for n in names)
        config_path = tmp_path / "runconfig.json"
        config_path.write_bytes(file_of(files, "RunConfig (JSON)"))
        demo_csv = file_of(files, "Demonstration release (seed)")
        first = file_of(files, "Release to hand out (CSV)")
        _, second = download(page, page.get_by_role("button", name="Release to hand out (CSV)"))
        wait_idle(page)
        metrics = page.locator(".st-key-ledger_panel").get_by_test_id("stMetricValue").all_inner_texts()
        assert metrics[:2] == ["2", "20"], metrics
        _, jsonl = download(page, page.get_by_role("button", name="Privacy ledger (JSON Lines)"))
        assert not exceptions(page)
    finally:
        page.close()
    config = json.loads(config_path.read_bytes())
    assert config["seed"] == 3 and config["repetitions"] == 5
    out = tmp_path / "cli.csv"
    code = cli.main(["release", "sample:hue", "--config", str(config_path), "--scheme", "skip",
                     "--seed", str(config["seed"]), "--out", str(out), "--quiet"])
    assert code == 0
    assert out.read_bytes() == demo_csv
    one, two, demo = (pd.read_csv(io.BytesIO(b), comment="#")["released"].to_numpy() for b in (first, second, demo_csv))
    assert len(one) == len(two) == len(demo)
    assert (one != two).mean() > 0.5 and (one != demo).mean() > 0.5
    assert 0 <= one.min() and one.max() <= 8 and 0 <= two.min() and two.max() <= 8
    (tmp_path / "ledger.jsonl").write_bytes(jsonl)
    totals = ledger.compose(ledger.read(tmp_path / "ledger.jsonl"))
    assert totals["releases"] == 2 and totals["epsilon_basic"] == 20.0


def test_stakeholder_walk_cold_link_headline_report_and_script(browser_context, app_url, tmp_path):
    """Someone opens a shared link cold, reads the headline, takes the report (it opens offline with the headline
    and the three schemes' charts) and reruns the script."""
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
        report = tmp_path / "report.html"
        report.write_bytes(download(page, page.get_by_role("button", name="Report (HTML)"))[1])
        open_exports(page)
        script = tmp_path / "reproduce_schemes.py"
        script.write_bytes(download(page, page.get_by_role("button", name="Python script"))[1])
    finally:
        page.close()
    check_report_offline(browser_context, report, 3, ("With ε = 0.1", "Mean absolute error"), "schemes_utility",
                         with_data=False)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    printed = {line.split()[0]: float(line.split()[1]) for line in done.stdout.splitlines()[2:]}
    assert set(printed) == {"user", "uniform", "adaptive"} and printed["user"] > printed["adaptive"]
    for scheme, mae in zip(*shown, strict=True):  # the script prints the numbers the page charts
        assert printed[scheme] == pytest.approx(mae, rel=1e-5)
    assert "ε = 0.1" in done.stdout and "demonstration seed 5" in done.stdout
