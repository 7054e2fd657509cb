"""The session's accuracy target as an ``lmdk.plan.Target``, and its place in a RunConfig (no widgets:
``ui.session.config`` saves and restores it without importing the planner's page section, ``ui.plan``)."""
from __future__ import annotations

import streamlit as st

from ui.session import state


def target():
    """The lmdk.plan.Target of the session, or None when no target is set."""
    ss = st.session_state
    if ss.get(state.TARGET) is None:
        return None
    from lmdk.plan import Target  # with a target only: the planner brings scipy's optimize (a first opening's second)

    try:
        return Target(error=ss[state.TARGET], at=ss.get(state.TARGET_AT) or "all", probability=ss.get(state.TARGET_P))
    except ValueError:
        return None


def target_dict() -> dict | None:
    """The target as saved in a RunConfig (lmdk.plan.Target.to_dict), or None."""
    chosen = target()
    return chosen.to_dict() if chosen is not None else None


def restore(cfg) -> None:
    """Apply a loaded RunConfig's target to the session (a config without one clears it)."""
    ss = st.session_state
    saved = getattr(cfg, "target", None)
    ss[state.TARGET] = saved["error"] if saved else None
    ss[state.TARGET_AT] = saved.get("at", "all") if saved else "all"
    ss[state.TARGET_P] = saved.get("probability") if saved else None
