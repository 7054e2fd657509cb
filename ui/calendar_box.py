"""The Data page's calendar rule box: landmarks declared by the wall clock (``calendar:sun@09:00-12:00``, issue 36),
with a one-week preview of what the rule marks; they never read the values, so Theorem 2 holds as stated."""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from ui import text

RULE = "cal_rule"  # the text box (session only; the landmark set it gives is in the link)
ERROR = "_detector_error"  # the page's detector error line
EXAMPLE = "calendar:mon-fri@22:00-06:00"


def week(rule: str) -> pd.DataFrame:
    """A weekday × hour table of the rule's one-week preview (Monday first): ■ where an hour is a landmark."""
    from lmdk.declared.calendar import week_grid

    grid = week_grid(rule)
    shown = grid.apply(lambda column: column.map({True: "■", False: ""}))
    shown.columns = [f"{h:02d}" for h in grid.columns]
    return shown


def hours_by_day(grid: pd.DataFrame) -> str:
    """The grid in words, one weekday a line: "Sun 09:00–12:00" (hour runs; "none" for a day without one)."""
    from lmdk.declared.calendar import hour_runs

    return hour_runs(grid.astype(bool))


def _apply(edit: Callable, cur) -> None:
    """Replace the landmarks with the rule's positions on the current series (declared: origin "declared")."""
    from lmdk.landmarks import web_rule

    rule = str(st.session_state.get(RULE) or "").strip()
    try:
        if not rule.lower().startswith("calendar:"):
            raise ValueError(f"give calendar windows, e.g. {EXAMPLE} (not {rule!r})")
        found = web_rule(rule).indices(cur.series)
    except ValueError as exc:  # lmdk.errors.*: names the part of the rule to fix
        st.session_state[ERROR] = f"Calendar rule: {exc}"
        return
    st.session_state[ERROR] = None
    edit("replace", found, f"{len(found):,} landmarks from the declared rule {rule}.", "declared")


def controls(edit: Callable, cur) -> None:
    """The rule box, its one-week preview and the button that applies it."""
    c1, c2 = st.columns([3, 1])
    rule = c1.text_input("Calendar rule (declared by the clock, never read from the data)", key=RULE,
                         placeholder=EXAMPLE,
                         help="Windows of the wall clock in the series' time zone: calendar:sun@09:00-12:00, "
                              "calendar:mon-fri@22:00-06:00 (wraps midnight), calendar:daily@12:00-13:00, "
                              "calendar:2024-05-01..2024-05-03 (whole days); join several with +. A window's start "
                              "is inclusive, its end exclusive.")
    c2.button("Use the rule", on_click=_apply, args=(edit, cur), key="cal_apply", width="stretch")
    if rule and rule.strip().lower().startswith("calendar:"):
        try:
            grid = week(rule.strip())
        except ValueError as exc:
            st.caption(text.escape_markdown(f"Not a calendar rule yet: {exc}"))
            return
        st.caption("What the rule marks in one week: " + hours_by_day(grid) + " (■ below: a landmark hour)")
        narrow = {c: st.column_config.TextColumn(c, width=24) for c in grid.columns}  # 24 hours fit beside the days
        st.dataframe(grid, height=290, column_config=narrow)
