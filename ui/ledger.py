"""The session's privacy ledger: every release handed out is recorded (in ``st.session_state``, never on disk),
its running total is shown beside the release downloads, and an optional cap on the total ε asks for
confirmation before an export that would pass it. The maths is :mod:`lmdk.ledger`.

Recording happens in the download button's ``on_click`` callback (:func:`record`), which runs in the session at
the start of the rerun the click triggers; the file itself is still drawn by the deferred callable, outside it.

When the operator sets ``LMDK_LEDGER_URL`` (``sqlite:///PATH`` or ``postgresql://…``, docs/DEPLOY.md) every
release handed out is also reserved in that database, shared by every session and replica: the data (its
fingerprint) is the dataset and a single series one user, so a cap stored for it there (``lmdk release --ledger
URL --cap``) refuses a download past it with an error, whatever the session's own cap says. The panel asks for a
dataset's name and then for the person (as ``lmdk release --dataset NAME --user ID``): the release is charged to that
person's budget in that dataset. The reservation is made
by the file's deferred callable itself (:func:`reserving`), in the database's transaction and before any noise is
drawn, so two sessions or replicas clicking at once can never hand out more than the cap: the button's state and the
click's error are read from the database too, but only as a courtesy.
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import asdict

import streamlit as st

from lmdk import ledger
from lmdk.errors import LmdkError
from ui import auth, epsilon_meaning, text
from ui.session import state

CAP_WIDGET = state.widget_key(state.LEDGER_CAP)
URL_ENV = auth.URL_ENV


def database_url() -> str | None:
    """The operator's ledger database (``LMDK_LEDGER_URL``), or None: this session's memory only."""
    return os.environ.get(URL_ENV) or None


def entries() -> list[ledger.LedgerEntry]:
    """This session's ledger (oldest first)."""
    return st.session_state.setdefault(state.LEDGER, [])


def record(fields: dict) -> None:
    """The download's ``on_click``: append one entry (stamped now) and withdraw any confirmation past the cap.
    With ``LMDK_LEDGER_URL`` the file's callable reserves it in the database (:func:`reserving`); its order
    against this callback is not fixed, so this records the click without asking the database — a click the
    database refuses in a race is then counted here too, never the other way round."""
    entries().append(ledger.LedgerEntry(**fields))
    st.session_state[state.LEDGER_ACCEPT] = False  # every export past the cap asks again


def reserving(build: Callable, fields: dict) -> Callable:
    """``build`` (a release's deferred download) preceded, with ``LMDK_LEDGER_URL``, by the reservation of its ε in
    the database: past the cap the file says it was refused instead of holding a release. Only an officer's
    release (``fields`` with ``released_by``, :func:`entry_fields`) is reserved: any other file says it was refused."""
    url = database_url()
    if url is not None and not fields.get("released_by"):
        return _not_an_officer
    return build if url is None else functools.partial(_reserve_then_build, build, url, fields)


def _not_an_officer(payload) -> str:
    """The file of a release asked for without an officer's login: nothing drawn, nothing charged."""
    return ("# Refused: only an officer who is logged in hands out releases of this deployment's ledger. Nothing was "
            "released or charged.\n")


def _reserve_then_build(build: Callable, url: str, fields: dict, payload) -> str:
    """Reserve the release described by ``fields`` in ``url``, then draw it from ``payload``; or the refusal."""
    from lmdk.ledger.reserve import Budget

    entry = ledger.LedgerEntry(**fields)
    person = next(iter(entry.charges)) if entry.charges else None  # the person named with a dataset (budget_names)
    try:  # the one reservation of lmdk release and the app: the dataset named, else the data's content key
        reservation = Budget(url, entry.dataset).reserve_single(entry, person)
    except LmdkError as exc:  # the database refused the entry or is unreachable: draw nothing
        return (f"# The privacy ledger could not record this release: {ledger.redact(url, str(exc))}. Nothing was "
                "released.\n")
    if reservation is not None and reservation.withheld:
        why = next(iter(reservation.withheld.values()))
        return f"# Refused by the privacy ledger: {why}. Nothing was released or charged.\n"
    return build(payload)


def _protected(cur):
    """The neighbouring relation of the current view (``ui.session.relation.current``), or None where there is none."""
    try:
        from ui.session import relation
    except ImportError:
        return None
    current = getattr(relation, "current", None)
    return current(cur) if callable(current) else None


def budget_names() -> tuple[str | None, str | None, str | None]:
    """(dataset, person's key, problem) of the hand-out release with ``LMDK_LEDGER_URL``: the names typed in the
    ledger panel, checked by the key rules of ``lmdk release --dataset/--user`` (:mod:`lmdk.data.ids`); no dataset
    named: (None, None, None), the data's content key as today; ``problem``: why the download is disabled."""
    ss = st.session_state
    name = str(ss.get(state.LEDGER_DATASET) or "").strip()
    if database_url() is None or not name:
        return None, None, None
    from lmdk.data.ids import dataset_name, user_key

    try:
        dataset = dataset_name(name, "Dataset")
    except LmdkError as exc:
        return None, None, str(exc)
    person = str(ss.get(state.LEDGER_PERSON) or "").strip()
    if not person:
        return dataset, None, (f"name the person this series belongs to: a release of dataset {dataset!r} is "
                               "charged to that person's budget in it")
    try:
        return dataset, user_key(person, "Person"), None
    except LmdkError as exc:
        return dataset, None, str(exc)


def entry_fields(cur, scheme: str, mechanism: str, epsilon: float, w: int) -> dict:
    """What one release to hand out of the current view records (all but the time of the click): the entry of
    ``lmdk release`` (:func:`lmdk.ledger.entry.series_entry`), with the dataset and person named in the panel."""
    entry = ledger.series_entry(cur.series, float(epsilon), scheme, mechanism, protects=_protected(cur),
                                landmark_count=int(len(cur.landmarks)), w=int(w) if scheme == "w-event" else None,
                                tool="app")
    fields = {k: v for k, v in asdict(entry).items() if k not in ("time", "id")}
    fields["released_by"] = auth.current().subject  # the officer's login subject (issue 54); None without a login
    dataset, person, _ = budget_names()
    if dataset is not None:
        fields.update(dataset=dataset, charges={person: float(epsilon)} if person is not None else None)
    return fields


def database_refusal(cur, epsilon: float) -> str | None:
    """Why the operator's ledger database refuses a release of ``cur`` at ``epsilon`` (the stored cap of the dataset
    named, else of the data; the person named, else the series as one user), or None."""
    url = database_url()
    if url is None or cur is None or not auth.current().spends:  # a viewer learns nothing of anyone's budget
        return None
    dataset, person, problem = budget_names()
    if problem is not None:
        return problem
    try:
        withheld = ledger.would_refuse(url, dataset or ledger.fingerprint_series(cur.series),
                                       {person or ledger.SINGLE_USER: epsilon})
    except LmdkError as exc:
        return f"the privacy ledger cannot be read: {ledger.redact(url, str(exc))}"
    return next(iter(withheld.values()), None)


def blocked(epsilon: float, cur=None) -> bool:
    """Whether an export spending ``epsilon`` would pass the session's cap unconfirmed, or the database's cap."""
    over = ledger.would_exceed(entries(), epsilon, st.session_state.get(state.LEDGER_CAP))
    return (over and not st.session_state.get(state.LEDGER_ACCEPT, False)) or database_refusal(cur, epsilon) is not None


def export_options(cur, fields: dict) -> dict:
    """``download_button`` options of the release to hand out that ``fields`` (:func:`entry_fields`) describes:
    recorded on click, not offered past the cap."""
    return {"on_click": record, "args": (fields,), "disabled": blocked(fields["epsilon"], cur)}


def _keep_cap() -> None:
    """Copy the cap widget's value into the session's ledger cap."""
    st.session_state[state.LEDGER_CAP] = st.session_state[CAP_WIDGET]


def panel(epsilon: float, cur=None) -> None:
    """The running total of this session's exports, the optional cap and its confirmation, the ledger download;
    with ``LMDK_LEDGER_URL`` the database's refusal of a release past its cap (an error, the download disabled)."""
    ss = st.session_state
    why = database_refusal(cur, epsilon)
    if why:
        st.error(f"Refused by the privacy ledger: {text.escape_markdown(why)} — nothing was released or charged.",
                 icon=":material/block:")
    batch = entries()
    totals = ledger.compose(batch, ledger.DELTA)
    with st.container(border=True, key="ledger_panel"):
        st.markdown("**This session's privacy ledger** — every release handed out spends ε again")
        access = auth.current()
        if database_url() is not None and not access.spends:
            st.info(f"Read-only: {access.why}.", icon=":material/lock:")
        elif database_url() is not None:
            n1, n2 = st.columns(2)
            n1.text_input("Dataset (optional)", key=state.LEDGER_DATASET, placeholder="the data's content",
                          help="The budget's name in the operator's ledger, as lmdk release --dataset (e.g. "
                               "meters-2026): NFKC-normalised and case-folded, then only a-z, 0-9, '-', '_', '.'. "
                               "Without it the data itself (its parsed timestamps and values) is the budget.")
            n2.text_input("Person (user id)", key=state.LEDGER_PERSON, disabled=not ss.get(state.LEDGER_DATASET),
                          help="With a dataset named: whose series this is, as lmdk release --user — the release "
                               "is charged to that person's budget in the dataset (7 and 7.0 are one person).")
        m1, m2, m3, m4 = st.columns(4, vertical_alignment="bottom")
        m1.metric("Releases", f"{totals['releases']:,}")
        m2.metric("ε, summed", f"{totals['epsilon_basic']:.4g}",
                  help="Sequential composition: the ε of every release added up (a pure ε-DP guarantee, δ = 0).")
        m3.metric("ε at δ = 10⁻⁶", f"{totals['epsilon_pld']:.4g}",
                  help="The tighter (ε, δ) total of the privacy-loss distributions of every release (Google's "
                       "dp_accounting), each release counted as one pure ε-DP mechanism.")
        ss[CAP_WIDGET] = ss.get(state.LEDGER_CAP)
        cap = m4.number_input("Cap on ε (optional)", min_value=0.0, value=None, step=1.0, key=CAP_WIDGET,
                              on_change=_keep_cap, placeholder="no cap",
                              help="The most ε this session may spend in total (the sum). A release that would "
                                   "pass it is offered only after you confirm.")
        epsilon_meaning.caption(cap)
        if ledger.would_exceed(batch, epsilon, cap):
            after = totals["epsilon_basic"] + float(epsilon)
            st.warning(f"The next release (ε = {epsilon:g}) takes this session's total to {after:.4g}, past the cap "
                       f"of {cap:g}.", icon=":material/block:")
            st.checkbox("I accept exceeding the cap", key=state.LEDGER_ACCEPT,
                        help="Offers the release to hand out once; the next one past the cap asks again.")
        st.download_button("Privacy ledger (JSON Lines)", data=ledger.to_jsonl(batch), file_name="lmdk_ledger.jsonl",
                           mime="application/jsonl", key="dl_ledger", on_click="ignore", icon=":material/download:",
                           help="One line per release handed out in this session (time, fingerprint of the data, "
                                "policy, ε); sum it up with `lmdk ledger lmdk_ledger.jsonl`.")
