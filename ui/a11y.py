"""Accessibility fixes the theme cannot express (issue 28): one small style sheet the app adds on every run.

axe-core (tests/test_browser_a11y.py) found Streamlit's captions too pale: its light theme draws them in the text
colour at an opacity of 0.6, #828180 on white, a contrast of 3.9:1 where WCAG AA asks for 4.5:1 at 14 px. Projected
in a lecture room they wash out first. Here they are opaque #5d5c5b (6.7:1 on white, 6.3:1 on the sidebar's grey),
still lighter than the text. Inline code's colour is the theme's ``codeTextColor`` (.streamlit/config.toml).
"""
from __future__ import annotations

import streamlit as st

CAPTION_COLOUR = "#5d5c5b"  # the light theme's text colour #2f2d2b at 78 % on white

CSS = (
    "<style>"
    f"[data-testid='stCaptionContainer']{{opacity:1;color:{CAPTION_COLOUR}}}"
    "</style>"
)


def style() -> None:
    """Add the style sheet (an invisible element; call once per run, before the page)."""
    st.html(CSS)
