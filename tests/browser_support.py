"""Playwright + Debian Chromium support for the browser tests and the browser benchmark.

A Streamlit server runs as a subprocess on a free port; Chromium is launched headless from
/usr/bin/chromium with a fresh profile. Without Chromium the tests skip locally and fail when
LMDK_REQUIRE_BROWSER=1 (CI).
"""
from __future__ import annotations

import atexit
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
# --disable-threaded-animation: headless and without a GPU, the compositor thread's animation frames while a page
# loads (Streamlit's skeletons and status) cost as much CPU as the page itself — Chromium's CPU for two loads and
# screenshots of Dummy landmarks fell from 9.3–12.5 s to 5.0–5.6 s with it, in 6 runs each; the pages draw the same
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-threaded-animation",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 1000}


def in_own_thread(func, *args):
    """``func(*args)`` in a thread of its own: a test process that has driven Chromium (the per-worker browser of
    tests/conftest.py) holds Playwright's event loop in this thread, where ``asyncio.run`` refuses to start."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(func, *args).result()


def require_browser() -> None:
    """Skip (locally) or fail (CI) when Chromium or Playwright is missing."""
    import pytest

    missing = None
    if not Path(CHROMIUM).exists():
        missing = f"{CHROMIUM} not found (apt-get install -y chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401 — re-exported: callers import these names from here
        except ImportError:
            missing = "playwright is not installed"
    if missing:
        if os.environ.get("LMDK_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required here but {missing}")
        pytest.skip(missing)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(proc: subprocess.Popen, url: str, log, timeout: float, retry_if_taken: bool) -> bool:
    """Wait until the server at ``url`` answers its health check (True); False when it exited because its port
    was taken and ``retry_if_taken``; raises when it exited otherwise or stayed silent for ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        log.seek(0)
        said = log.read().decode(errors="replace")
        if proc.poll() is not None:
            if retry_if_taken and "is not available" in said:  # Streamlit's words for a port in use
                return False
            raise RuntimeError(f"streamlit exited early:\n{said[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                # ours answers (not another server on a port taken meanwhile): it said where it listens
                if r.status == 200 and url.removeprefix("http://") in said:
                    return True
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"streamlit did not become healthy in {timeout:g} s")
        time.sleep(0.25)


@contextlib.contextmanager
def streamlit_server(script: str | Path = "app.py", *, timeout: float = 120.0):
    """Run ``streamlit run script`` headless on a free port; yields the base URL."""
    with streamlit_process(script, timeout=timeout) as (url, _):
        yield url


@contextlib.contextmanager
def streamlit_process(script: str | Path = "app.py", *, timeout: float = 120.0, options: tuple[str, ...] = (),
                      port: int | None = None, cwd: Path = ROOT):
    """Like ``streamlit_server``, yielding (base URL, server process); ``options`` are extra ``--server.*`` flags;
    ``port``: this one (a login's redirect_uri names it), else a free one; ``cwd``: the checkout whose
    ``.streamlit/`` configures it (benchmarks/bench_load.py --app: another checkout's app).

    A free port can be taken by another process (a parallel test worker, a browser's outgoing connection) before
    Streamlit binds it: then Streamlit exits saying so, and the server is started again on another free port."""
    fixed = port
    for attempt in range(3):
        port = fixed or free_port()
        cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none", "--server.runOnSave", "false", *options]
        log = tempfile.TemporaryFile()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        if _healthy(proc, url, log, timeout, retry_if_taken=attempt < 2):
            break
        log.close()
    try:
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


_PLAYWRIGHT = []  # the process's one Playwright driver, started at first use


def _playwright():
    """The Playwright driver of this process: its sync API runs one instance per thread, so a test that launches a
    browser of its own while the session's shared browser is open launches it from the same driver."""
    if not _PLAYWRIGHT:
        from playwright.sync_api import sync_playwright

        _PLAYWRIGHT.append(sync_playwright().start())
        atexit.register(_PLAYWRIGHT[0].stop)
    return _PLAYWRIGHT[0]


@contextlib.contextmanager
def chromium():
    """A headless Chromium (Debian's binary) with a fresh user-data-dir; yields a Playwright BrowserContext."""
    pw = _playwright()
    with tempfile.TemporaryDirectory(prefix="lmdk-chromium-") as profile:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, viewport=VIEWPORT,
        )
        try:
            yield context
        finally:
            context.close()


@contextlib.contextmanager
def chromium_browser():
    """A headless Chromium (Debian's binary) in which ``browser.new_context()`` opens isolated contexts (a lecturer
    and students: no shared cookies or storage) in one browser process; yields the Playwright Browser."""
    browser = _playwright().chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


IDLE_JS = (
    "() => { const a = document.querySelector(\"[data-testid='stApp']\");"
    " return !!a && a.getAttribute('data-test-script-state') === 'notRunning'"
    " && !!document.querySelector(\"[data-testid='stMainBlockContainer'] [data-testid='stElementContainer']\")"
    " && !document.querySelector(\"[data-testid='stSkeleton']\")"
    " && [...document.querySelectorAll(\"[data-testid='stPlotlyChart']\")]"
    "      .every(c => c.querySelector('.js-plotly-plot .main-svg')); }"
)


def wait_idle(page, timeout: float = 60_000, settle_ms: int = 400) -> None:
    """Wait until Streamlit has finished running (stable for ``settle_ms``) and every chart is drawn."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        page.wait_for_function(IDLE_JS, timeout=max(1.0, (deadline - time.monotonic()) * 1000))
        page.wait_for_timeout(settle_ms)
        if page.evaluate(IDLE_JS):
            return
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not settle")


def exceptions(page) -> list[str]:
    """Texts of exception elements (and generic error screens) on the page."""
    found = [e.inner_text() for e in page.query_selector_all("[data-testid='stException']")]
    body = page.inner_text("body")
    if "This app has encountered an error" in body or "Traceback" in body:
        found.append(body[:500])
    return found


def next_frames(page) -> None:
    """Return once the page has drawn two frames since now: a change of the window's height is laid out by then
    (headless Chromium hides scrollbars, so the width and the charts stay as they are), without a fixed wait."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")


# every drawn plotly chart is as wide as its element: the redraw after a change of the window's width has happened
# (a chart's layout keeps the old width for up to ~1 s on a loaded machine, while its element has the new one)
CHARTS_AT_WIDTH = ("() => [...document.querySelectorAll('.js-plotly-plot')].every(p => !p._fullLayout"
                   " || Math.abs(p._fullLayout.width - p.getBoundingClientRect().width) <= 2)")


def set_width(page, width: int, height: int = 900) -> None:
    """The window at ``width`` × ``height`` px, once every chart has redrawn at the new width (Streamlit lays out in
    CSS: nothing reruns), instead of a fixed wait; a chart of a width of its own is waited for at most 5 s."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page.set_viewport_size({"width": width, "height": height})
    next_frames(page)
    try:
        page.wait_for_function(CHARTS_AT_WIDTH, timeout=5_000)
    except PlaywrightTimeoutError:  # the callers wait for the app to be idle next all the same
        pass


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/screenshots/ at the page's current width."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size or VIEWPORT
    path = SCREENSHOTS / f"{name}.png"
    # Streamlit scrolls inside its main container, so grow the viewport to the content's height
    height = page.evaluate(
        "() => { const b = document.querySelector(\"[data-testid='stMainBlockContainer']\");"
        " const s = document.querySelector(\"[data-testid='stSidebarContent']\");"
        " return Math.max(b ? b.scrollHeight + 120 : 0, s ? s.scrollHeight : 0); }")
    page.set_viewport_size({"width": before["width"], "height": int(min(max(height, before["height"]), 8000))})
    next_frames(page)
    try:
        page.screenshot(path=str(path), full_page=True)
    except PlaywrightTimeoutError:
        # once in a CI run on a loaded machine, Chromium's software renderer did not deliver the frame of a tall page
        # with a map within 30 s (Schemes & utility on the taxi sample): the picture is an artifact, so the page gets
        # one more frame at its own size and twice the time before the test fails
        page.set_viewport_size(before)
        page.wait_for_timeout(1_000)
        page.screenshot(path=str(path), full_page=True, timeout=60_000)
    page.set_viewport_size(before)
    return path


def chart_meta(page, key: str) -> dict | None:
    """``layout.meta`` of the plotly chart rendered for the widget/element with this key."""
    return page.evaluate(
        "(k) => { const el = document.querySelector('.st-key-' + k + ' .js-plotly-plot');"
        " return el && el.layout ? (el.layout.meta || null) : null; }",
        key,
    )


def choose_option(page, key: str, option: str, tries: int = 4) -> None:
    """Pick ``option`` in the select box with widget key ``key``, reopening its list if a reflow closed it."""
    # the list is a popover that closes when its container scrolls or resizes (e.g. right after a screenshot
    # restored the viewport, charts redraw at the new width), so one click can open a list that is gone again
    box = page.locator(f".st-key-{key} [role='combobox']")
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(tries):
        wait_idle(page)
        box.click()
        try:
            wanted.wait_for(state="visible", timeout=5_000)
            wanted.click(timeout=5_000)
            return
        except Exception:  # the list closed under us: settle and open it again
            page.keyboard.press("Escape")
    raise AssertionError(f"option {option!r} of select box {key!r} never became clickable")
