"""The replica deployment (deploy/): nginx with deploy/lmdk.conf in front of two app replicas.

Docker does not run on the test machines, so the test runs what compose would: the same nginx server block
(only its listen address and upstream list substituted) in front of two ``streamlit run app.py`` replicas.
It checks that routing is sticky per browser and spread across browsers, and that uploads made through the
proxy reach the replica of their own session and no other session sees them.
"""
from __future__ import annotations

import os
import sys
import urllib.request

import pytest
from browser_support import ROOT, exceptions, require_browser, wait_idle
from deploy_support import NGINX, replicas

pytestmark = pytest.mark.browser
sys.path.insert(0, str(ROOT / "benchmarks"))


def _require_nginx() -> None:
    if not os.path.exists(NGINX):
        if os.environ.get("LMDK_REQUIRE_BROWSER"):
            pytest.fail("nginx is missing: apt-get install -y nginx (CI installs it)")
        pytest.skip("nginx is not installed")


@pytest.fixture(scope="module")
def proxy():
    """Base URL of nginx (deploy/lmdk.conf) in front of two app replicas; yields (url, replica addresses, pids)."""
    require_browser()
    _require_nginx()
    with replicas(2) as deployment:
        yield deployment


def _get(url: str, cookie: str | None = None) -> tuple[str, str | None]:
    """(replica that answered, route key the proxy set) for one GET."""
    request = urllib.request.Request(url, headers={"Cookie": f"lmdk_route={cookie}"} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        set_cookie = ";".join(response.headers.get_all("Set-Cookie") or [])
        key = set_cookie.split("lmdk_route=", 1)[1].split(";", 1)[0] if "lmdk_route=" in set_cookie else None
        return response.headers["X-Lmdk-Replica"], key


def _routes(url: str, addresses: list[str]) -> dict[str, str]:
    """A route key (cookie value) for each replica, from fresh visitors."""
    found: dict[str, str] = {}
    for _ in range(60):
        replica, key = _get(url + "/_stcore/health")
        assert replica in addresses and key
        found.setdefault(replica, key)
        if len(found) == len(addresses):
            return found
    raise AssertionError(f"60 fresh visitors all went to {list(found)}: routing is not spread")


def test_routing_is_sticky_per_browser_and_spread_across_browsers(proxy):
    url, addresses, _ = proxy
    routes = _routes(url, addresses)
    for replica, key in routes.items():
        answers = {_get(url + path, key)[0] for path in ("/", "/_stcore/health", "/schemes_utility") * 3}
        assert answers == {replica}


def test_uploads_through_the_proxy_stay_in_their_own_session(proxy, tmp_path, browser_context):
    from bench_memory import meter_file

    url, addresses, _ = proxy
    routes = _routes(url, addresses)
    context = browser_context  # the worker's Chromium (tests/conftest.py): a browser of its own cost seconds
    pages = {}
    try:
        for i, key in enumerate(routes.values()):
            # one browser per replica: a cookie per context, as two students' browsers would hold
            context.clear_cookies()
            context.add_cookies([{"name": "lmdk_route", "value": key, "url": url}])
            page = context.new_page()
            page.goto(f"{url}/data_landmarks?source=upload")
            wait_idle(page, timeout=120_000)
            page.locator(".st-key-upload_file input[type='file']").set_input_files(
                str(meter_file(tmp_path / f"meter_of_student_{i}.csv", 0.05, seed=i)[0]))
            page.wait_for_function("() => document.body.innerText.includes('n = 1,562 events')", timeout=120_000)
            wait_idle(page)
            pages[i] = page
        for i, page in pages.items():
            text = page.inner_text("body")
            assert f"meter_of_student_{i}.csv" in text
            assert f"meter_of_student_{1 - i}.csv" not in text
            assert not exceptions(page)
    finally:
        for page in pages.values():
            page.close()
        context.clear_cookies()  # no route key left for the worker's later modules


def test_the_classroom_benchmark_runs_through_the_proxy_and_counts_every_replica(proxy):
    import asyncio

    from bench_load import classroom
    from browser_support import in_own_thread

    url, _, pids = proxy
    result = in_own_thread(asyncio.run, classroom(url, pids, sessions=2, duration=4, period=2, seed=3, one_link=True))
    assert result["failures"] == [] and result["interactions"] >= 2
    assert result["cpu_per_interaction"] > 0 and result["rss_mb"] > 2 * 50  # two replicas' memory, summed
