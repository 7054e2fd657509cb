"""The replica deployment of deploy/ without Docker: nginx with deploy/lmdk.conf (its listen address and upstream
list substituted) in front of ``streamlit run app.py`` replicas — for tests/test_browser_deploy.py and
``benchmarks/bench_load.py --replicas``."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

from browser_support import ROOT, free_port, streamlit_process

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


@contextmanager
def nginx_proxy(addresses: list[str]) -> Iterator[str]:
    """Base URL of nginx running deploy/lmdk.conf in front of the replicas at ``addresses`` ("host:port")."""
    with tempfile.TemporaryDirectory(prefix="lmdk-nginx-") as name:
        tmp = Path(name)
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
            f"events {{ worker_connections 4096; }}\n"
            f"http {{ access_log off; client_body_temp_path {tmp}/body; proxy_temp_path {tmp}/proxy;\n"
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
            yield url
        finally:
            nginx.terminate()
            nginx.wait(timeout=10)


@contextmanager
def replicas(count: int) -> Iterator[tuple[str, list[str], list[int]]]:
    """``count`` app replicas behind nginx: (proxy URL, replica addresses, replica process ids)."""
    with ExitStack() as stack:
        # started side by side: each waits seconds for its health check, most of it importing
        servers = [streamlit_process() for _ in range(count)]
        with ThreadPoolExecutor(count) as pool:
            starts = [pool.submit(server.__enter__) for server in servers]
        for server, start in zip(servers, starts, strict=True):
            if start.exception() is None:
                stack.push(server.__exit__)
        started = [start.result() for start in starts]
        addresses = [url.removeprefix("http://") for url, _ in started]
        url = stack.enter_context(nginx_proxy(addresses))
        yield url, addresses, [proc.pid for _, proc in started]
