"""Login and roles (issue 54): who may spend a budget in this deployment.

The login is Streamlit's own OpenID Connect (``st.login``, ``st.user``, ``st.logout``), configured by the operator in
``.streamlit/secrets.toml`` (``[auth]``: redirect_uri, cookie_secret, client_id, client_secret, server_metadata_url).
The roles come from the same file: ``[lmdk.roles]`` ``officers = [...]`` lists login subjects (the provider's
``sub``) or e-mail addresses, an address counting only when the provider says it is verified (``email_verified``).

- an **officer** (logged in and listed) edits policies, hands out releases and sees the ledger;
- a **viewer** (logged in and not listed, or not logged in where a login is configured) explores and exports
  nothing that spends a budget;
- a deployment with a ledger (``LMDK_LEDGER_URL``) and no login keeps its ledger pages read-only and says why;
- a **classroom** (neither a login nor a ledger) needs no login and works as it always did.

:func:`decide` is the whole decision, a pure function of the secrets and the user; the pages call :func:`current`.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from lmdk.errors import ParameterError

OFFICER = "officer"
VIEWER = "viewer"
CLASSROOM = "classroom"
URL_ENV = "LMDK_LEDGER_URL"
"""The operator's ledger database (``ui.ledger.database_url``): with it, spending a budget needs an officer."""
AUTH_KEYS = ("redirect_uri", "cookie_secret", "client_id", "client_secret", "server_metadata_url")
"""What ``[auth]`` of the secrets must hold for the login to be offered."""


@dataclass(frozen=True)
class Access:
    """What the visitor of this session may do: the role, the login's subject, and why it is read-only."""

    role: str  # OFFICER, VIEWER or CLASSROOM
    subject: str | None = None  # the login's ``sub`` (None: not logged in)
    why: str = ""  # why nothing that spends a budget is offered ("" when it is)
    login: bool = False  # whether the deployment configures a login

    @property
    def spends(self) -> bool:
        """Whether this visitor may hand out releases, edit policies and see the ledger's budgets."""
        return self.role in (OFFICER, CLASSROOM)


def login_configured(secrets: Mapping) -> bool:
    """Whether ``[auth]`` of the secrets holds every setting of the login (``AUTH_KEYS``)."""
    auth = secrets.get("auth")
    return isinstance(auth, Mapping) and all(auth.get(key) for key in AUTH_KEYS)


def officers(secrets: Mapping) -> frozenset[str]:
    """The ``[lmdk.roles]`` ``officers`` list: subjects as written, e-mail addresses case-folded."""
    lmdk = secrets.get("lmdk") or {}
    roles = lmdk.get("roles") if isinstance(lmdk, Mapping) else None
    listed = (roles or {}).get("officers", []) if isinstance(roles or {}, Mapping) else None
    if not isinstance(listed, (list, tuple)) or not all(isinstance(x, str) and x.strip() for x in listed):
        raise ParameterError("secrets [lmdk.roles] officers must be a list of login subjects or e-mail addresses, "
                             'e.g. officers = ["248289761001", "dpo@example.org"]')
    return frozenset(x.strip().casefold() if "@" in x else x.strip() for x in listed)


def decide(secrets: Mapping, user: Mapping, ledger: bool) -> Access:
    """The visitor's access from the deployment's secrets, the login's claims (``st.user``) and whether a ledger
    database is configured: officer, viewer or classroom, with the reason a viewer reads only."""
    if not login_configured(secrets):
        if not ledger:
            return Access(CLASSROOM)
        return Access(VIEWER, why="this deployment keeps a privacy ledger but configures no login, so its ledger is "
                                  "read-only here: no dataset, no one's budget, no release to hand out (the operator "
                                  "adds [auth] and [lmdk.roles] to the secrets, docs/DEPLOY.md)")
    subject = user.get("sub") if user.get("is_logged_in") else None
    if not isinstance(subject, str) or not subject:
        return Access(VIEWER, why="log in to spend a budget: visitors explore, and only the officers of this "
                                  "deployment hand out releases and see the ledger", login=True)
    listed = officers(secrets)
    email = user.get("email")
    verified = user.get("email_verified") is True and isinstance(email, str) and email.casefold() in listed
    if subject in listed or verified:
        return Access(OFFICER, subject, login=True)
    return Access(VIEWER, subject, login=True,
                  why="you are logged in as a viewer: only the officers this deployment lists hand out releases and "
                      "see the ledger")


def secrets() -> dict:
    """The app's secrets as a dict (empty when the deployment has none)."""
    import streamlit as st

    return st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}


def current() -> Access:
    """This session's access (:func:`decide` of the secrets, ``st.user`` and ``LMDK_LEDGER_URL``)."""
    import streamlit as st

    return decide(secrets(), st.user.to_dict(), bool(os.environ.get(URL_ENV)))


def sidebar() -> None:
    """The login or logout button of a deployment that configures a login (nothing in a classroom)."""
    import streamlit as st

    access = current()
    if not access.login:
        return
    with st.sidebar:
        if access.subject is None:
            st.button("Log in", key="auth_login", on_click=st.login, icon=":material/login:",
                      help="Officers log in to hand out releases and see the ledger.")
        else:
            name = st.user.get("name") or st.user.get("email") or access.subject
            st.caption(f"Logged in as {_plain(name)} ({access.role})")
            st.button("Log out", key="auth_logout", on_click=st.logout, icon=":material/logout:")


def _plain(value) -> str:
    """A claim shown as text (Markdown escaped)."""
    from ui.text import escape_markdown

    return escape_markdown(value)
