"""Warm a fresh app server before its first visitors: open each interactive page's default view once.

A fresh ``streamlit run app.py`` imports the app and loads the compiled kernels on its first visit (~3 s on a
2-core machine), and Spatiotemporal events opens with a Monte-Carlo run (2–4 s of CPU) that every session on the
default view then shares (the Adversary lab's default audits ship with the app: ``assets/audit_default``).
Without warming, the first students of a replica wait for all of it (issue 34, docs/DEPLOY.md). This opens every
page of ``PAGES`` once through the app's own websocket
protocol (``streamlit_client``, as a browser without drawing), with the default link: seed 0, the sample data, no
upload — nothing private, nothing recorded, no release handed out.

    python deploy/warm.py                       # http://127.0.0.1:8501, every page
    python deploy/warm.py http://127.0.0.1:8502 --pages schemes_utility audit

The replica image runs it beside the server (deploy/start.sh). Exit status 1 when a page could not be opened (the
server keeps serving; the message says which page and what arrived).
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from streamlit_client import Session  # noqa: E402  (the protocol client beside this file)

PAGES = {"schemes_utility": "w_eps", "temporal_loss": "w_eps", "dummy_landmarks": "w_eps", "audit": "w_eps",
         "spatiotemporal_events": "w_st_eps"}
"""URL path of each interactive page -> the key of its ε select_slider, the widget that says the page arrived
(the Adversary lab's path is ``audit``)."""


async def warm_page(url: str, page: str) -> tuple[float, str]:
    """Open ``page``'s default view once (the app's default link: seed 0); (seconds until it arrived, the URL query
    the app wrote)."""
    async with Session(url, page) as s:
        return (await s.load(expect=PAGES[page])).seconds, s.query


def wait_until_healthy(url: str, timeout: float) -> None:
    """Return once ``url``/_stcore/health answers; a TimeoutError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url.rstrip("/") + "/_stcore/health", timeout=5)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not answer /_stcore/health within {timeout:g} s") from None
            time.sleep(0.5)


def main(argv: list[str] | None = None) -> int:
    """Wait for the server, open every page once, print one line per page; 1 when a page could not be opened."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", default="http://127.0.0.1:8501", help="the app server's base URL")
    parser.add_argument("--pages", nargs="+", choices=sorted(PAGES), default=list(PAGES), help="pages to open")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for the server to start")
    args = parser.parse_args(argv)
    try:
        wait_until_healthy(args.url, args.timeout)
    except TimeoutError as exc:
        print(f"lmdk warm: {exc}; nothing was warmed", file=sys.stderr, flush=True)
        return 1
    failed = False
    for page in args.pages:
        try:
            seconds, _ = asyncio.run(warm_page(args.url, page))
        except Exception as exc:  # one page's failure must not keep the others cold
            print(f"lmdk warm: could not open {page}: {exc}", file=sys.stderr, flush=True)
            failed = True
        else:
            print(f"lmdk warm: {page} opened in {seconds:.1f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
