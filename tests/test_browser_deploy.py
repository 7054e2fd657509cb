"""The replica deployment (deploy/): nginx with deploy/lmdk.conf in front of two app replicas.

Docker does not run on the test machines, so the test runs what compose would: the same nginx server block
(only its listen address and upstream list substituted) in front of two ``streamlit run app.py`` replicas.
It checks that routing is sticky per browser and spread across browsers, and that uploads made through the
proxy reach the replica of their own session and no other session sees them.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest
from browser_support import ROOT, chromium, exceptions, free_port, require_browser, streamlit_process, wait_idle

pytestmark = pytest.mark.browser
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
sys.path.insert(0, str(ROOT / "benchmarks"))


def _require_nginx() -> None:
    if not os.path.exists(NGINX):
        if os.environ.get("LMDK_REQUIRE_BROWSER"):
            pytest.fail("nginx is missing: apt-get install -y nginx (CI installs it)")
        pytest.skip("nginx is not installed")


@pytest.fixture(scope="module")
def proxy():
    """Base URL of nginx (deploy/lmdk.conf) in front of two app replicas; yields (url, replica addresses)."""
    require_browser()
    _require_nginx()
    with ExitStack() as stack:
        replicas = [stack.enter_context(streamlit_process())[0] for _ in range(2)]
        addresses = [u.removeprefix("http://") for u in replicas]
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lmdk-nginx-")))
        os.chmod(tmp, 0o755)
        port = free_port()
        (tmp / "upstream.conf").write_text("".join(f"server {a};\n" for a in addresses))
        site = (ROOT / "deploy" / "lmdk.conf").read_text()
        assert "listen 80;" in site and "/etc/nginx/lmdk/upstream.conf" in site
        site = site.replace("listen 80;", f"listen 127.0.0.1:{port};").replace(
            "/etc/nginx/lmdk/upstream.conf", str(tmp / "upstream.conf"))
        (tmp / "site.conf").write_text(site)
        (tmp / "nginx.conf").write_text(
            f"daemon off; worker_processes 1; pid {tmp}/nginx.pid; error_log {tmp}/error.log;\n"
            f"events {{}}\nhttp {{ access_log off; client_body_temp_path {tmp}/body; proxy_temp_path {tmp}/proxy;\n"
            f"include {tmp}/site.conf; }}\n")
        nginx = subprocess.Popen([NGINX, "-c", str(tmp / "nginx.conf"), "-p", str(tmp)])
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(url + "/_stcore/health", timeout=2)
                    break
                except OSError:
                    time.sleep(0.1)
            yield url, addresses
        finally:
            nginx.terminate()
            nginx.wait(timeout=10)


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
    url, addresses = proxy
    routes = _routes(url, addresses)
    for replica, key in routes.items():
        answers = {_get(url + path, key)[0] for path in ("/", "/_stcore/health", "/schemes_utility") * 3}
        assert answers == {replica}


def test_uploads_through_the_proxy_stay_in_their_own_session(proxy, tmp_path):
    from bench_memory import meter_file

    url, addresses = proxy
    routes = _routes(url, addresses)
    with chromium() as context:
        pages = {}
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
