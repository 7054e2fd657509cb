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


@pytest.fixture(scope="module")
def app_url():
    """One Streamlit server of the app per browser-test module (skips or fails without Chromium)."""
    from browser_support import require_browser, streamlit_server

    require_browser()
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="module")
def browser_context(app_url):
    """One headless Chromium per browser-test module; every test opens its own page (= session)."""
    from browser_support import chromium

    with chromium() as context:
        yield context
