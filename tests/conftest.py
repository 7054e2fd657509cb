"""Shared pytest setup: hypothesis profiles and the repository root on sys.path."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", deadline=None, max_examples=100, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(scope="session")
def app_url():
    """One Streamlit server of the app per test process (per xdist worker), shared by the browser-test modules that
    run there: every test opens its own page, i.e. its own Streamlit session (skips or fails without Chromium).
    Tests that need a fresh server (deep links as a first request, the replicas, memory) start their own."""
    from browser_support import require_browser, streamlit_server

    require_browser()
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser_context(app_url):
    """One headless Chromium per test process (per xdist worker); every test opens its own page (= session)."""
    from browser_support import chromium

    with chromium() as context:
        yield context


def pytest_collection_modifyitems(config, items):
    """Modules with browser or slow tests first, in collection order otherwise: with ``--dist loadfile
    --no-loadscope-reorder`` (pyproject.toml) xdist hands out whole modules in this order, so the long units start
    first and the many short modules even out the workers' finish."""
    heavy = {item.path for item in items if item.get_closest_marker("browser") or item.get_closest_marker("slow")}
    # stable: a module's tests stay together and in order; the two every-page passes (the longest modules) lead
    items.sort(key=lambda item: (item.path.name not in LONGEST, item.path not in heavy))


# the two halves of the every-page accessibility check (each view at 1024 and 1920 px): one starts on each worker
LONGEST = ("test_browser_a11y.py", "test_browser_a11y_more.py")
