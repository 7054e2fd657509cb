"""The baselines on the scheme pages (issue 29): which of the chosen schemes apply to the current series, and one
plain sentence per chosen baseline of what it protects, so that its comparison with landmark privacy is fair."""
from __future__ import annotations

import streamlit as st

from ui.session import state


def applicable(cur, chosen: list[str]) -> list[str]:
    """``chosen`` without the baselines when the series is not values (they release values only), said once."""
    dropped = [s for s in chosen if s in state.BASELINE_NAMES]
    if not dropped or cur.series.kind == "values":
        return chosen
    st.info(f"{', '.join(dropped)} release values only (Laplace): left out for this {cur.series.kind} series.",
            icon=":material/info:")
    return [s for s in chosen if s not in state.BASELINE_NAMES]


def protects_note(chosen: list[str], w: int, n: int) -> None:
    """One line per chosen baseline: its level, what it protects at ε, and that it does not use the landmarks."""
    from lmdk.baselines import TITLES, protects

    lines = [f"- **{s}** — {TITLES[s]}: protects {protects(s, min(w, n))}; it does not use the landmark set, so "
             "its Theorem 2 badge says whether the landmarks together happen to be protected too."
             for s in chosen if s in state.BASELINE_NAMES]
    if lines:
        st.markdown("**What the baselines protect** (the state of the art a practitioner would otherwise deploy):\n"
                    + "\n".join(lines))
