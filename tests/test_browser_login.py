"""Browser test of the login (issue 54) against a real OpenID Connect provider: pytest-iam's Canaille identity server
on a free port, a client registered there for the app, an officer and a viewer as its users. The app runs with a
ledger database (LMDK_LEDGER_URL) holding two datasets and its secrets in a temporary file (--secrets.files), never
in the repository's .streamlit/.

Each role logs in through the provider (authorisation code flow: the app's /auth/login, the provider's authorize
endpoint, the app's /oauth2callback exchanging the code for tokens at the provider's token endpoint):

- a visitor who has not logged in sees no dataset name and no one's budget, and cannot add a user;
- a viewer (logged in, not listed) neither: the hand-out release is disabled;
- an officer (listed by login subject) sees each user's spent ε in the dataset named, and a release handed out is
  recorded in the ledger database with ``released_by`` = the officer's subject.
"""
from __future__ import annotations

import secrets as token_source
import socketserver
import threading
import wsgiref.simple_server

import pytest
from browser_support import chromium, exceptions, free_port, require_browser, streamlit_process, wait_idle

from lmdk import ledger

pytestmark = pytest.mark.browser

DATASETS = ("hospital-patients-2026", "meters-berlin-2026")
OFFICER = "dpo-ada"  # the officer's login subject (Canaille's sub is the user name)
VIEWER = "student-bo"
PASSWORD = token_source.token_urlsafe(16)


class _ThreadedWSGIServer(socketserver.ThreadingMixIn, wsgiref.simple_server.WSGIServer):
    """A WSGI server answering each connection in its own thread."""

    daemon_threads = True


@pytest.fixture(scope="session")
def iam_server(iam_configuration, iam_server_port):
    """pytest-iam's Canaille provider, served by a threaded server. Its own server answers one connection at a time:
    a socket Chromium opens ahead of use and leaves idle holds it, and the app's server-to-server calls (discovery,
    the code exchange) then wait until they time out: the login was lost at random on a loaded machine."""
    from canaille import create_app
    from canaille.backends import Backend
    from pytest_iam import Server

    app = create_app(config=iam_configuration, env_file=".pytest-iam.env", env_prefix="PYTEST_IAM_")
    server = Server(app, iam_server_port, Backend.instance)
    server.httpd.server_close()  # replaced before it serves: same port, one thread per connection
    server.httpd = wsgiref.simple_server.make_server("localhost", iam_server_port, app,
                                                     server_class=_ThreadedWSGIServer,
                                                     handler_class=server._make_request_handler())
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        with app.app_context():
            yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join()


@pytest.fixture(scope="module")
def deployment(iam_server, tmp_path_factory):
    """(app URL, ledger URL, IAM server): the app with a ledger of two datasets and a login at the provider."""
    require_browser()
    port = free_port()
    tmp = tmp_path_factory.mktemp("login")
    client_id, client_secret = "lmdk-app", token_source.token_urlsafe(24)
    client = iam_server.models.Client(
        client_id=client_id, client_secret=client_secret, client_name="lmdk",
        redirect_uris=[f"http://127.0.0.1:{port}/oauth2callback"], grant_types=["authorization_code"],
        response_types=["code"], scope=["openid", "profile", "email"], token_endpoint_auth_method="client_secret_basic")
    iam_server.backend.save(client)
    for name in (OFFICER, VIEWER):
        user = iam_server.random_user(user_name=name, emails=[f"{name}@example.org"])
        iam_server.backend.set_user_password(user, PASSWORD)
        iam_server.consent(user, client)  # consented before: the provider returns straight to the app
    url = f"sqlite:///{tmp / 'ledger.db'}"
    for dataset in DATASETS:
        entry = ledger.LedgerEntry(fingerprint="sha256:" + "0" * 64, epsilon=1.0, scheme="uniform",
                                   mechanism="laplace", dataset=dataset)
        ledger.reserve_users(url, dataset, {"alice": 1.0}, cap=5.0, entry=entry)
    secrets_file = tmp / "secrets.toml"  # a temporary file: never the repository's .streamlit/secrets.toml
    secrets_file.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{token_source.token_urlsafe(32)}"\n'
        f'client_id = "{client_id}"\n'
        f'client_secret = "{client_secret}"\n'
        f'server_metadata_url = "{iam_server.url}.well-known/openid-configuration"\n'
        "\n[lmdk.roles]\n"
        f'officers = ["{OFFICER}"]\n', encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LMDK_LEDGER_URL", url)
        mp.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # the test provider speaks plain HTTP on localhost
        with streamlit_process(options=("--secrets.files", str(secrets_file)), port=port) as (app_url, _):
            yield app_url, url, iam_server


def _log_in(page, app_url: str, name: str) -> None:
    """Click the sidebar's Log in, sign in on the provider's own pages (user name, then password) and come back to
    the app through its callback, logged in."""
    for attempt in range(2):
        # On a loaded CI machine the app's server-to-server code exchange after the callback has timed out, leaving
        # the browser logged out with no error: a user would log in again, so the test does once, from a clean slate.
        if attempt:
            page.context.clear_cookies()
        page.goto(f"{app_url}/policies")
        wait_idle(page, timeout=120_000)
        page.get_by_role("button", name="Log in").click()
        page.locator("input[name='login']").fill(name)  # Canaille's sign-in page
        page.locator("button[type='submit']").first.click()
        page.locator("input[name='password']").fill(PASSWORD)
        page.locator("button[type='submit']").first.click()
        page.wait_for_url(f"{app_url}/**", timeout=60_000)  # back from the provider (the callback redirects home)
        try:
            page.locator(".st-key-auth_logout").wait_for(timeout=60_000)
            break
        except Exception:
            if attempt:
                raise
            page.goto(f"{app_url}/policies")  # a lost first run after the callback: the cookie may be set by now
            wait_idle(page, timeout=120_000)
            if page.locator(".st-key-auth_logout").count():
                break
    wait_idle(page, timeout=60_000)


def _add_alice(page) -> None:
    """Type alice into the Policies page and click Add (when the button lets one)."""
    page.locator(".st-key-policy_user input").fill("alice")
    page.locator(".st-key-policy_user input").press("Enter")
    wait_idle(page, timeout=60_000)
    button = page.locator(".st-key-policy_add button")
    if button.is_enabled():
        button.click()
        wait_idle(page, timeout=60_000)


def _body(page) -> str:
    return page.locator("[data-testid='stApp']").inner_text()


def test_a_visitor_without_a_login_sees_no_dataset_and_no_budget(deployment):
    app_url, _, _ = deployment
    with chromium() as context:
        page = context.new_page()
        page.goto(f"{app_url}/policies")
        wait_idle(page, timeout=120_000)
        assert page.get_by_role("button", name="Log in").is_visible()
        _add_alice(page)  # the page before issue 54 added her and showed the ledger's datasets
        text = _body(page)
        assert not any(name in text for name in DATASETS), text
        assert not page.locator(".st-key-policy_add button").is_enabled()
        assert "Read-only" in text and "log in" in text
        assert not exceptions(page)


def test_a_viewer_logs_in_and_spends_nothing(deployment):
    app_url, url, iam = deployment
    with chromium() as context:
        page = context.new_page()
        _log_in(page, app_url, VIEWER)
        page.goto(f"{app_url}/policies")
        wait_idle(page, timeout=120_000)
        assert "(viewer)" in _body(page)
        _add_alice(page)
        text = _body(page)
        assert not any(name in text for name in DATASETS)
        assert not page.locator(".st-key-policy_add button").is_enabled()
        page.goto(f"{app_url}/schemes_utility?schemes=uniform&reps=5&rhi=8")
        wait_idle(page, timeout=120_000)
        page.locator(".st-key-show_exports summary").click()
        page.get_by_role("button", name="RunConfig (JSON)").wait_for(timeout=60_000)
        wait_idle(page)
        off = page.locator(".st-key-dl_release_csv_off").get_by_role("button", name="Release to hand out (CSV)")
        assert not off.is_enabled()
        assert page.locator(".st-key-dl_release_csv").count() == 0
        assert not any(name in _body(page) for name in DATASETS)
        assert not exceptions(page)
    assert len(ledger.records(url).entries) == len(DATASETS)  # nothing reserved by the viewer


def test_an_officer_logs_in_sees_the_budgets_and_hands_out_a_release_recorded_as_theirs(deployment):
    app_url, url, iam = deployment
    with chromium() as context:
        page = context.new_page()
        _log_in(page, app_url, OFFICER)
        page.goto(f"{app_url}/policies")
        wait_idle(page, timeout=120_000)
        assert "(officer)" in _body(page)
        _add_alice(page)
        assert all(name in _body(page) for name in DATASETS)  # the officer sees the ledger: which budget?
        page.locator(".st-key-policy_dataset input").fill(DATASETS[0])
        page.locator(".st-key-policy_dataset input").press("Enter")
        wait_idle(page, timeout=60_000)
        assert DATASETS[1] not in _body(page)  # the budgets of the dataset named are read: no question left
        page.goto(f"{app_url}/schemes_utility?schemes=uniform&reps=5&rhi=8")
        wait_idle(page, timeout=120_000)
        page.locator(".st-key-show_exports summary").click()
        page.get_by_role("button", name="RunConfig (JSON)").wait_for(timeout=60_000)
        wait_idle(page)
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name="Release to hand out (CSV)").click()
        assert info.value.failure() is None
        handed_out = open(info.value.path(), encoding="utf-8").read()
        assert handed_out.startswith("# lmdk export:"), handed_out[:400]  # a release, not a refusal or a lost view
        wait_idle(page)
        assert not exceptions(page)
    entries = ledger.records(url).entries
    assert len(entries) == len(DATASETS) + 1
    assert entries[-1].released_by == OFFICER and entries[-1].tool == "app"
