"""Marking landmarks from the keyboard (issue 28): the timeline and the map take clicks and drags, so the Data &
landmarks page also takes positions typed into a text box — "12, 40–45" — with Add, Remove and Toggle buttons.

Positions are the events' indices t (0 … n − 1), as the timeline's hover and the "Show data" table give them.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import streamlit as st

from ui.text import escape_markdown

POSITIONS = "lm_positions"  # the text box
ERROR = "_lm_positions_error"
ACTIONS = {"add": "Add", "remove": "Remove", "toggle": "Toggle"}
HELP = {"add": "they become landmarks", "remove": "they become regular events",
        "toggle": "landmarks become regular events and the other way round"}
_RANGE = re.compile(r"^(\d+)-(\d+)$")


def parse_positions(text: str, n: int) -> np.ndarray:
    """Positions from "12, 40–45; 60..62 70": numbers and inclusive ranges separated by commas, semicolons or
    spaces. Raises ValueError naming the first bad part or a position outside 0 … n − 1."""
    joined = re.sub(r"\s*(?:-|–|—|\.\.|\bto\b)\s*", "-", text.strip())  # "40 – 45" → "40-45"
    parts = [p for p in re.split(r"[,;\s]+", joined) if p]
    found: list[np.ndarray] = []
    for part in parts:
        part = part.strip()
        match = _RANGE.match(part)
        if match:
            lo, hi = int(match.group(1)), int(match.group(2))
            if hi < lo:
                raise ValueError(f"'{part}': the range runs backwards (write {hi}–{lo})")
        elif part.isdigit():
            lo = hi = int(part)
        else:
            raise ValueError(f"'{part}' is not a position: write numbers like 12 or ranges like 40–45")
        if hi >= n:
            raise ValueError(f"'{part}': positions run from 0 to {n - 1} in this series")
        found.append(np.arange(lo, hi + 1, dtype=np.int64))
    if not found:
        raise ValueError("type positions first, e.g. 12, 40–45")
    return np.unique(np.concatenate(found))


def _apply(action: str, edit: Callable, n: int) -> None:
    """Add, remove or toggle the typed positions as landmarks (on_click); a parse error is kept for the page."""
    text = st.session_state.get(POSITIONS) or ""
    try:
        positions = parse_positions(text, n)
    except ValueError as exc:
        st.session_state[ERROR] = f"Positions: {exc}."
        return
    st.session_state[ERROR] = None
    verb = {"add": "added", "remove": "removed", "toggle": "toggled"}[action]
    edit(action, positions, f"Keyboard: {verb} {positions.size} event(s) ({text.strip()}).")


def controls(edit: Callable, n: int) -> None:
    """The text box and its buttons; ``edit(action, indices, note)`` changes the landmark set (add, remove,
    toggle), ``n`` is the series' length."""
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1], vertical_alignment="bottom")
    c1.text_input("Events by position t (from the keyboard)", key=POSITIONS, placeholder="e.g. 12, 40–45",
                  help=f"Positions 0 … {n - 1} and ranges, separated by commas; then Tab to a button and press "
                       "Enter or Space.")
    for column, (action, label) in zip((c2, c3, c4), ACTIONS.items(), strict=True):
        column.button(label, key=f"lm_positions_{action}", on_click=_apply, args=(action, edit, n), width="stretch",
                      help=f"{label} the typed positions: {HELP[action]}")
    if st.session_state.get(ERROR):
        st.error(escape_markdown(st.session_state[ERROR]))
