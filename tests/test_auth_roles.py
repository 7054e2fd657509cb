"""Roles of issue 54 (ui/auth.py): the pure decision from the secrets and the login's claims, and what the pages do
with it — a ledger deployment without a login keeps the ledger read-only; a classroom works as before."""
from __future__ import annotations

import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture for the AppTest below)

from lmdk import ledger
from lmdk.errors import ParameterError
from ui import auth

AUTH = {"redirect_uri": "https://lab.example/oauth2callback", "cookie_secret": "c" * 32, "client_id": "lmdk",
        "client_secret": "s", "server_metadata_url": "https://id.example/.well-known/openid-configuration"}
SECRETS = {"auth": AUTH, "lmdk": {"roles": {"officers": ["sub-ada", "DPO@Example.org"]}}}


def _user(**claims):
    return {"is_logged_in": True, **claims}


def test_a_listed_subject_is_an_officer_and_anyone_else_logged_in_a_viewer():
    officer = auth.decide(SECRETS, _user(sub="sub-ada"), ledger=True)
    assert (officer.role, officer.subject, officer.spends) == (auth.OFFICER, "sub-ada", True)
    viewer = auth.decide(SECRETS, _user(sub="sub-bo", email="bo@example.org", email_verified=True), ledger=False)
    assert (viewer.role, viewer.subject, viewer.spends) == (auth.VIEWER, "sub-bo", False) and "viewer" in viewer.why


def test_an_email_counts_only_when_the_provider_verified_it():
    claims = {"sub": "sub-x", "email": "dpo@example.ORG"}
    assert auth.decide(SECRETS, _user(**claims, email_verified=True), ledger=True).role == auth.OFFICER
    for verified in (False, "true", None):  # a string or a missing claim is not a verification
        assert auth.decide(SECRETS, _user(**claims, email_verified=verified), ledger=True).role == auth.VIEWER
    # a subject that looks like the officer's e-mail is no e-mail
    assert auth.decide(SECRETS, _user(sub="DPO@Example.org"), ledger=True).role == auth.VIEWER


def test_without_a_login_a_ledger_is_read_only_and_a_classroom_open():
    assert auth.decide({}, {}, ledger=False).role == auth.CLASSROOM and auth.decide({}, {}, ledger=False).spends
    closed = auth.decide({"auth": {**AUTH, "client_secret": ""}}, _user(sub="sub-ada"), ledger=True)
    assert closed.role == auth.VIEWER and not closed.spends and "no login" in closed.why
    visitor = auth.decide(SECRETS, {"is_logged_in": False}, ledger=False)  # a login configured, not logged in
    assert visitor.role == auth.VIEWER and visitor.subject is None and "log in" in visitor.why


def test_a_malformed_officers_list_names_the_setting():
    with pytest.raises(ParameterError, match=r"\[lmdk.roles\] officers"):
        auth.decide({"auth": AUTH, "lmdk": {"roles": {"officers": "sub-ada"}}}, _user(sub="sub-ada"), ledger=True)


def test_released_by_is_kept_by_both_stores_and_older_entries_still_read(tmp_path):
    entry = ledger.LedgerEntry(fingerprint="f", epsilon=1.0, scheme="uniform", mechanism="laplace",
                               released_by="sub-ada")
    ledger.reserve_users(f"sqlite:///{tmp_path / 'l.db'}", None, {ledger.SINGLE_USER: 1.0}, entry=entry)
    assert ledger.records(f"sqlite:///{tmp_path / 'l.db'}").entries[0].released_by == "sub-ada"
    assert ledger.LedgerEntry.from_dict({"fingerprint": "f", "epsilon": 1, "scheme": "u", "mechanism": "laplace"}
                                        ).released_by is None
    assert ledger.LedgerEntry.from_dict(ledger.LedgerEntry.from_dict(
        {"fingerprint": "f", "epsilon": 1, "scheme": "u", "mechanism": "laplace", "released_by": "x"}).__dict__
    ).released_by == "x"
    with pytest.raises(ParameterError, match="released_by"):
        ledger.LedgerEntry(fingerprint="f", epsilon=1.0, scheme="u", mechanism="laplace", released_by=" ")


def _policies_with_alice(secrets=None, user=None):
    import app_support

    at = app_support.open_page("pages/policies.py", 120)
    if secrets is not None:
        at.secrets = secrets
    if user is not None:
        at.user = user
    at.run(timeout=120)
    at.text_input(key="policy_user").input("alice").run(timeout=120)
    if not at.button(key="policy_add").disabled:
        at.button(key="policy_add").click().run(timeout=120)
    return at


def _ledger_of_two(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    for dataset in ("hospital-patients-2026", "meters-berlin-2026"):
        entry = ledger.LedgerEntry(fingerprint="f", epsilon=1.0, scheme="uniform", mechanism="laplace",
                                   dataset=dataset)
        ledger.reserve_users(url, dataset, {"alice": 1.0}, cap=5.0, entry=entry)
    return url


def test_a_ledger_without_a_login_shows_no_dataset_no_budget_and_takes_no_edit(tmp_path, monkeypatch):
    """The finding: with LMDK_LEDGER_URL set, any visitor saw the ledger's dataset names and each user's ε."""
    monkeypatch.setenv("LMDK_LEDGER_URL", _ledger_of_two(tmp_path))
    at = _policies_with_alice()
    assert not at.exception, at.exception
    shown = " ".join(str(e.value) for e in [*at.error, *at.info, *at.warning, *at.markdown, *at.caption])
    assert "hospital" not in shown and "meters" not in shown
    assert "Read-only" in shown and "configures no login" in shown
    assert at.button(key="policy_add").disabled and all(t.key != "policy_dataset" for t in at.text_input)


def test_an_officer_of_a_ledger_deployment_sees_the_budgets(tmp_path, monkeypatch):
    monkeypatch.setenv("LMDK_LEDGER_URL", _ledger_of_two(tmp_path))
    at = _policies_with_alice(SECRETS, _user(sub="sub-ada"))
    assert not at.exception, at.exception
    assert any("hospital" in e.value and "meters" in e.value for e in at.error)  # which dataset? the ledger's
    at.text_input(key="policy_dataset").input("hospital-patients-2026").run(timeout=120)
    frame = at.dataframe[0].value
    assert frame.loc[frame["user"] == "alice", "ε spent"].tolist() == [1.0]


def test_a_classroom_needs_no_login_and_works_as_before(monkeypatch):
    monkeypatch.delenv("LMDK_LEDGER_URL", raising=False)
    at = _policies_with_alice()
    assert not at.exception, at.exception
    assert not any("Read-only" in str(i.value) for i in at.info)
    assert at.dataframe[0].value["user"].tolist() == ["alice"]
