"""The collapsible "What am I looking at?" box of every page: plain words, formulas, paper section."""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

PAPER = "Landmark Privacy (CODASPY '22)"

THEOREM_2 = r"\sum_{i \in L \cup \{t\}} \varepsilon_i \;\le\; \varepsilon \qquad \text{for every timestamp } t"


def explain(text: str, formulas: Sequence[str] = (), section: str = "", *, expanded: bool = False) -> None:
    """Render the expander: ``text`` is markdown, ``formulas`` LaTeX strings, ``section`` the paper section."""
    with st.expander("What am I looking at?", expanded=expanded, icon=":material/help:"):
        st.markdown(text)
        for formula in formulas:
            st.latex(formula)
        if section:
            st.caption(f"Source: {PAPER}, {section}.")
