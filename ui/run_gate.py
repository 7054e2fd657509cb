"""Monte-Carlo runs that wait for a button once the page has been drawn (issue 34).

The Adversary lab and Spatiotemporal events rerun seconds of Monte-Carlo for a new configuration. One server runs
every session's script in one process, so a class moving ε together would queue minutes of it. A page therefore
runs its Monte-Carlo by itself only when it is cheap: the result is remembered, the session opens the page for the
first time, or the estimated run fits ``BUDGET_S``. Otherwise the page says what changed and offers a button.

``known``/``remember`` track which configurations were computed (by a digest of their inputs): process-wide for
shared data, in the session while it works on an upload (``ui.session.cache_scope``), bounded either way.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st

from ui.session import cache_scope

BUDGET_S = 0.5  # server CPU seconds a widget change may start without asking (the per-change target of issue 34)
KNOWN_MAX = 64  # configurations remembered as computed, per page
SHOWN = "_run_gate_shown"  # {page: digest of the configuration it last drew} (this session)

_known: dict[str, OrderedDict] = {}
_lock = threading.Lock()


def digest(*inputs) -> str:
    """A short key of a Monte-Carlo's inputs (arrays by their bytes)."""
    return cache_scope.digest(inputs, {})


def _store(page: str) -> OrderedDict:
    """The set of computed configurations of ``page``: this session's for an upload, else the process's."""
    if cache_scope.from_upload():
        return cache_scope.session_memo(f"run_gate.{page}")
    return _known.setdefault(page, OrderedDict())


def known(page: str, key: str) -> bool:
    """Whether the configuration ``key`` of ``page`` was computed (and is likely still cached)."""
    with _lock:
        return key in _store(page)


def remember(page: str, key: str) -> None:
    """Record that the configuration ``key`` of ``page`` was computed."""
    with _lock:
        store = _store(page)
        store[key] = True
        store.move_to_end(key)
        while len(store) > KNOWN_MAX:
            store.popitem(last=False)


def clear() -> None:
    """Forget every computed configuration (tests)."""
    with _lock:
        _known.clear()


def ready(page: str, key: str, *, cached: bool, seconds: float, what: str) -> bool:
    """Whether ``page`` may run (or show) its Monte-Carlo for configuration ``key`` in this script run.

    True when the result is remembered (``cached``), on the session's first view of the page, when the run is
    estimated to take at most ``BUDGET_S`` seconds, or when the user pressed the page's run button; otherwise the
    button and a note are drawn and False is returned (draw nothing that depends on the result)."""
    shown = st.session_state.setdefault(SHOWN, {})
    if cached or page not in shown or seconds <= BUDGET_S or shown[page] == key:
        shown[page] = key
        return True
    if st.button(f"Run {what}", key=f"run_gate_{page}", type="primary", icon=":material/play_arrow:"):
        shown[page] = key
        return True
    st.info(f"The settings changed. {what[:1].upper() + what[1:]} takes about {seconds:.0f} s of the server's time "
            "(shared by everyone using this lab), so it waits for the button: change every setting you want, "
            "then press it.", icon=":material/hourglass_empty:")
    return False
