"""The line beside every ε control: what that ε means in the world's terms (lmdk.epsilon_meaning, issue 56).

One st.caption per call, its text from a cached core function: it must cost microseconds on a page that reruns on
every ε change (the Schemes & utility page is under a CPU budget). Where an ε change reruns only a page's results
fragment (ui.widgets.rerun_fragment_on), the sidebar's caption is a fragment of its own, ``live_caption``, which
ui.widgets reruns with it: otherwise it would keep the previous ε."""
from __future__ import annotations

import streamlit as st

from lmdk.epsilon_meaning import DEPLOYMENTS, SOURCE, UNITS_NOTE, meaning
from lmdk.errors import LmdkError

LIVE = "epsilon_meaning_live"  # the st.fragment key of live_caption
LIVE_PAGE = "_epsilon_meaning_live_page"  # session key: the script hash of the page that last drew live_caption
SOURCE_LINK = f"[{SOURCE.publisher} {SOURCE.name}]({SOURCE.url})"  # a link only in the tooltip: captions stay inert
SOURCE_CITED = f"{SOURCE.publisher} {SOURCE.name}, {SOURCE.url.split('://', 1)[1].split('/', 1)[0]}"
TABLE = ("| organisation | what | ε | δ | protects |\n|---|---|---|---|---|\n"
         + "\n".join(f"| {d.organisation} | {d.what} | {d.epsilon:g} | {d.delta or '—'} | {d.unit} |"
                     for d in DEPLOYMENTS)
         + f"\n\n{UNITS_NOTE}\n\nSource: {SOURCE_LINK}.")
"""The deployments as a markdown table, with the note on units and the source: the caption's tooltip."""


def is_epsilon_key(key: str) -> bool:
    """Whether a setting's key names a privacy budget ε ("eps", "eps1", "epsilon", …)."""
    return key.startswith("eps")


def caption_text(epsilon: float) -> str:
    """The caption's markdown: the belief bound, where ε sits among published deployments, the source named (no
    link: captions carry none, tests/test_app_markdown_labels.py)."""
    return (f"{meaning(epsilon).summary} Different units, so a scale, not an equivalence. Source: {SOURCE_CITED} "
            "(the table and the link: ⓘ).")


def caption(epsilon, box=None) -> None:
    """Draw what ``epsilon`` means as one caption in ``box`` (the page by default); nothing for an empty ε."""
    if epsilon is None:
        return
    try:
        text = caption_text(epsilon)
    except LmdkError:  # an ε the control already refuses (≤ 0): the control's own error says why
        return
    (box or st).caption(text, help=TABLE)


def _page_hash() -> str | None:
    """The script hash of the page this run draws (None outside a script run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx else None


@st.fragment(key=LIVE)
def live_caption(config_key: str) -> None:
    """The caption of the ε held in ``st.session_state[config_key]``, as a fragment that can rerun alone."""
    st.session_state[LIVE_PAGE] = _page_hash()
    caption(st.session_state.get(config_key))


def live_here() -> bool:
    """Whether this page drew ``live_caption`` (so a fragment rerun may name it)."""
    return st.session_state.get(LIVE_PAGE) is not None and st.session_state.get(LIVE_PAGE) == _page_hash()
