"""Shared AppTest setup for the tests/test_app_*.py files: the app path, page opening, plotly arrays."""
from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture(autouse=True)
def navigation_mode(monkeypatch):
    """AppTest re-detects the legacy pages/ folder on every run and then runs a switched-to page
    without app.py; the real server drops that mode at the first st.navigation call — do the same.
    Autouse only in the test modules that import it."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


def _started(timeout: float, query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at


def run_app(timeout: float, **query) -> AppTest:
    """Run app.py (the overview) once with the given URL query parameters; it must not raise."""
    at = _started(timeout, query)
    assert not at.exception, at.exception
    return at


def open_page(page: str, timeout: float, **query) -> AppTest:
    """Run app.py with the URL query, then switch to `page`; the page must not raise."""
    at = _started(timeout, query)
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


OFFICER_SECRETS = {"auth": {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "c" * 32,
                            "client_id": "lmdk", "client_secret": "s",
                            "server_metadata_url": "http://localhost:1/.well-known/openid-configuration"},
                   "lmdk": {"roles": {"officers": ["officer-sub"]}}}
"""Secrets of a deployment with a login whose officer is ``officer-sub`` (ui/auth.py, issue 54)."""


def as_officer(at: AppTest) -> AppTest:
    """The session logged in as the officer of ``OFFICER_SECRETS`` (a ledger deployment's pages need one); reruns."""
    at.secrets = OFFICER_SECRETS
    at.user = {"is_logged_in": True, "sub": "officer-sub"}
    at.run()
    assert not at.exception, at.exception
    return at


def open_exports(at: AppTest) -> AppTest:
    """Open Schemes & utility's exports expander (as a click on its label does: it reruns) and run the page."""
    from ui.session import state

    at.session_state[state.EXPORTS_OPEN] = True
    at.run()
    assert not at.exception, at.exception
    return at


def audits_computed(monkeypatch) -> list[str]:
    """Forget every remembered audit and count what the Adversary lab computes from now on: the list of the schemes
    ``lmdk.audit.audit`` is called for (the real audit still runs)."""
    import lmdk.audit
    from ui import audit as ui_audit

    ui_audit.clear()
    calls: list[str] = []
    real = lmdk.audit.audit

    def counting(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(lmdk.audit, "audit", counting)
    return calls


def array(value) -> np.ndarray:
    """A plotly JSON array (plain list or base64 'bdata' with dtype) as numpy."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def shown(at) -> str:
    """Errors, warnings, infos and captions as a reader sees them (markdown backslash escapes removed)."""
    import re

    parts = list(at.error) + list(at.warning) + list(at.info) + list(at.caption)
    return re.sub(r"\\(.)", r"\1", " ".join(str(e.value) for e in parts))


def same_labels(at) -> dict[str, int]:
    """Button and download-button labels that occur more than once on the page: each should name what it does or
    gives (issue 35: "Chart as HTML" three times, then "Data (CSV)" in every "Show data")."""
    from collections import Counter

    labels = [e.proto.label for e in at.get("download_button")] + [b.label for b in at.button]
    return {label: n for label, n in Counter(labels).items() if n > 1}


def upload(at: AppTest, name: str, raw: bytes) -> AppTest:
    """Give the Data page's uploader the file ``name`` holding ``raw`` and run; no exception may follow."""
    at.file_uploader(key="upload_file").set_value((name, raw, "text/plain")).run()
    assert not at.exception, at.exception
    return at


def headline(at) -> str:
    """The page's one headline (the markdown of heading level 5), checked to hold at most two sentences (issue 35)."""
    from lmdk.present.headlines import MAX_SENTENCES, sentence_count

    heads = [m.value for m in at.main.markdown if m.value.startswith("##### ")]
    assert len(heads) == 1, heads
    assert 1 <= sentence_count(heads[0]) <= MAX_SENTENCES, heads[0]
    return heads[0]
