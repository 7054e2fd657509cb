"""Accessibility fixes the theme cannot express (issue 28): one small style sheet the app adds on every run.

axe-core (tests/test_browser_a11y.py) found Streamlit's captions too pale: its light theme draws them at 60 % of
the text colour, #828180 on white, a contrast of 3.9:1 where WCAG AA asks for 4.5:1 at 14 px. Projected in a
lecture room they wash out first. Here they get 78 % of the text colour (#5d5c5b, 6.7:1 on white, 6.3:1 on the
sidebar's grey). Inline code's colour is the theme's ``codeTextColor`` (.streamlit/config.toml).
"""
from __future__ import annotations

import streamlit as st

CAPTION_COLOUR = "rgba(47, 45, 43, 0.78)"  # the light theme's text colour #2f2d2b at 78 %: #5d5c5b on white

CSS = (
    "<style>"
    f"[data-testid='stCaptionContainer']{{color:{CAPTION_COLOUR}}}"
    "</style>"
)


def style() -> None:
    """Add the style sheet (an invisible element; call once per run, before the page)."""
    st.html(CSS)
