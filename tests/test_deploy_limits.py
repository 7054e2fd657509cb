"""The deployment's limits (issue 54): nginx (deploy/lmdk.conf) refuses an address that floods it beyond what a class
of 100 behind one NAT needs, and the image runs as an unprivileged user. Docker does not run on the test machines:
the Dockerfile is read, and nginx runs the real server block in front of a real app replica (tests/deploy_support)."""
from __future__ import annotations

import http.client
import os
import re
import threading
from urllib.parse import urlsplit

import pytest
from browser_support import ROOT
from deploy_support import NGINX, replicas

SITE = (ROOT / "deploy" / "lmdk.conf").read_text()
DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text()
CLASS = 100  # browsers opening the app at once from one address
REQUESTS_PER_OPENING = 40  # the page, its scripts, styles and fonts, the health and host checks


def _directives(name: str) -> list[str]:
    """The arguments of every ``name`` directive of the server block (comments dropped)."""
    text = re.sub(r"#[^\n]*", "", SITE)
    return [m.group(1).strip() for m in re.finditer(rf"(?m)^\s*{name}\s+([^;]+);", text)]


def test_the_limits_fit_a_class_behind_one_address():
    bursts = {m.group(1): int(m.group(2)) for d in _directives("limit_req")
              if (m := re.search(r"zone=(\w+)\s+burst=(\d+)\s+nodelay", d))}
    assert bursts["lmdk_requests"] >= CLASS * REQUESTS_PER_OPENING  # every request of the openings served at once
    assert bursts["lmdk_sessions"] >= 2 * CLASS  # every session's websocket, and a reconnect each
    assert all(int(d.split()[1]) >= 2 * CLASS for d in _directives("limit_conn"))
    zones = _directives("limit_req_zone")
    assert len(zones) == 2 and all("$binary_remote_addr" in z for z in zones)  # per client address
    assert _directives("limit_req_status") == ["429"] and _directives("limit_conn_status") == ["429"]


def _require_nginx() -> None:
    if not os.path.exists(NGINX):
        if os.environ.get("LMDK_REQUIRE_BROWSER"):
            pytest.fail("nginx is missing: apt-get install -y nginx (CI installs it)")
        pytest.skip("nginx is not installed")


def _flood(url: str, path: str, count: int, threads: int = 8) -> list[int]:
    """The status of ``count`` GETs of ``path`` sent as fast as ``threads`` keep-alive connections allow."""
    parts = urlsplit(url)
    statuses: list[int] = []
    lock = threading.Lock()

    def send(share: int) -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        got = []
        for _ in range(share):
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            got.append(response.status)
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        conn.close()
        with lock:
            statuses.extend(got)

    workers = [threading.Thread(target=send, args=(count // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return statuses


def test_a_flood_of_sessions_from_one_address_gets_429():
    _require_nginx()
    with replicas(1) as (url, _, _):
        # the websocket path without an upgrade (cheap for the app): each one nginx lets through reaches the app
        statuses = _flood(url, "/_stcore/stream", 800)
        passed = [s for s in statuses if s != 429]
        assert len(statuses) == 800 and 429 in statuses
        assert 2 * CLASS <= len(passed) < 600  # the class's openings pass, the rest of the flood does not
        assert set(passed) <= {200, 400}  # what passed reached the app
        # the page itself still opens for the next browser once the flood stops
        conn = http.client.HTTPConnection(urlsplit(url).hostname, urlsplit(url).port, timeout=30)
        conn.request("GET", "/")
        assert conn.getresponse().status == 200


def test_the_image_runs_as_an_unprivileged_user():
    lines = [line.strip() for line in DOCKERFILE.splitlines() if line.strip() and not line.startswith("#")]
    users = [i for i, line in enumerate(lines) if line.startswith("USER ")]
    cmd = max(i for i, line in enumerate(lines) if line.startswith("CMD "))
    assert users and users[-1] < cmd  # the last USER before the command is the one it runs as
    user = lines[users[-1]].split()[1].split(":")[0]
    assert user not in ("root", "0") and user.isdigit() and int(user) >= 1000  # a fixed, non-system uid
    made = next(line for line in lines if "useradd" in line)
    assert f"--uid {user}" in made  # the uid exists in the image, with a home for what the app writes
    assert not any(line.startswith("COPY") and "--chown" in line for line in lines)  # the code stays root's, read-only
