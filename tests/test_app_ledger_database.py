"""The app with the operator's ledger database (LMDK_LEDGER_URL): a release past the cap stored for the data is
refused with an error and its download disabled; below the cap the download's own callable reserves it in the
database before drawing it, so clicks at once never pass the cap."""
from __future__ import annotations

import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture for the AppTest below)

from lmdk import data, ledger


def _release_button(at):
    return next(b for b in at.get("download_button") if b.proto.label == "Release to hand out (CSV)")


def test_a_download_past_the_databases_cap_is_refused_with_an_error(tmp_path, monkeypatch):
    import app_support

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    fingerprint = ledger.fingerprint_series(data.sample("hue"))
    entry = ledger.LedgerEntry(fingerprint=fingerprint, epsilon=1.0, scheme="uniform", mechanism="laplace")
    ledger.reserve_users(url, None, {ledger.SINGLE_USER: 1.0}, cap=1.5, entry=entry)  # 0.5 left for the sample
    monkeypatch.setenv("LMDK_LEDGER_URL", url)
    at = app_support.open_exports(app_support.as_officer(app_support.open_page(
        "pages/schemes_utility.py", 120, reps="5", schemes="uniform,adaptive")))  # an officer's (issue 54)
    assert not at.exception, at.exception
    assert _release_button(at).proto.disabled  # the page's ε = 1 passes the cap of 1.5 (1 spent)
    (error,) = [e.value.replace("\\", "") for e in at.error if "privacy ledger" in e.value]  # Markdown-escaped
    assert "cap ε = 1.5" in error and "ε spent 1" in error and "ε asked 1" in error

    from ui import ledger as ledger_ui

    fields = {"fingerprint": fingerprint, "epsilon": 0.5, "scheme": "uniform", "mechanism": "laplace", "tool": "app",
              "released_by": "officer-sub"}
    build = ledger_ui.reserving(lambda payload: f"released {payload}", fields)
    assert build("x") == "released x"  # 0.5 fits: reserved in the database, then drawn
    refused = build("x")  # past the cap: the file says so and holds no release
    assert refused.startswith("# Refused by the privacy ledger") and "cap ε = 1.5" in refused
    assert "released" not in refused.replace("Nothing was released", "")
    assert ledger.spent_by_user(ledger.records(url).entries, fingerprint) == {ledger.SINGLE_USER: 1.5}


def test_clicks_at_once_in_several_sessions_never_hand_out_more_than_the_cap(tmp_path, monkeypatch):
    """Eight downloads drawn at once (as from eight sessions or replicas): the callable reserves in the database's
    transaction before drawing, so exactly cap / ε of them hold a release."""
    from concurrent.futures import ThreadPoolExecutor

    from ui import ledger as ledger_ui

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    entry = ledger.LedgerEntry(fingerprint="f", epsilon=0.5, scheme="uniform", mechanism="laplace")
    ledger.reserve_users(url, None, {ledger.SINGLE_USER: 0.5}, cap=1.5, entry=entry)  # the stored cap, 1.0 left
    monkeypatch.setenv("LMDK_LEDGER_URL", url)
    fields = {"fingerprint": "f", "epsilon": 0.5, "scheme": "uniform", "mechanism": "laplace", "tool": "app",
              "released_by": "officer-sub"}
    build = ledger_ui.reserving(lambda payload: "a release", fields)
    with ThreadPoolExecutor(8) as pool:
        files = list(pool.map(build, range(8)))
    assert files.count("a release") == 2
    assert all(f.startswith("# Refused by the privacy ledger") for f in files if f != "a release")
    assert ledger.spent_by_user(ledger.records(url).entries, "f") == {ledger.SINGLE_USER: 1.5}
    refused = ledger_ui.reserving(lambda payload: "a release", {**fields, "released_by": None})("x")
    assert refused.startswith("# Refused: only an officer")  # no login's subject: nothing drawn or charged
    assert ledger.spent_by_user(ledger.records(url).entries, "f") == {ledger.SINGLE_USER: 1.5}


def test_without_a_database_the_download_is_drawn_as_it_is(monkeypatch):
    from ui import ledger as ledger_ui

    monkeypatch.delenv("LMDK_LEDGER_URL", raising=False)
    build = lambda payload: payload  # noqa: E731
    assert ledger_ui.reserving(build, {}) is build


@pytest.mark.parametrize("value", ["", None])
def test_without_the_variable_the_app_keeps_its_session_memory(monkeypatch, value):
    from ui import ledger as ledger_ui

    if value is None:
        monkeypatch.delenv("LMDK_LEDGER_URL", raising=False)
    else:
        monkeypatch.setenv("LMDK_LEDGER_URL", value)
    assert ledger_ui.database_url() is None and ledger_ui.database_refusal(object(), 1.0) is None
