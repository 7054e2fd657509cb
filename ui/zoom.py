"""The zoom window: which events the per-timestamp charts of a page draw.

Plotly's own zoom happens in the browser on the points it was given, and its relayout events do not reach
Streamlit. So a long series is zoomed on the server: the charts draw the events [first, stop) chosen here —
point for point when the window holds at most ``DISPLAY_POINTS`` events, else the MinMaxLTTB points of
``ui.chart_downsample`` (real events: hover and clicks address their exact timestamps). The window is kept
per series in the session (``state.ZOOM``) and shared by the pages, so zooming on Data & landmarks and then
opening Temporal privacy loss shows the same stretch.
"""
from __future__ import annotations

import streamlit as st

from ui import state
from ui.chart_downsample import DISPLAY_POINTS

WIDGET = "zoom_window"


def current(cur) -> tuple[int, int]:
    """(first, stop) of the zoom window of the current series (the whole series unless zoomed)."""
    stored = st.session_state.get(state.ZOOM)
    if cur is None:
        return 0, 0
    if stored and stored[0] == cur.token and 0 <= stored[1] < stored[2] <= cur.n:
        return int(stored[1]), int(stored[2])
    return 0, cur.n


def _changed(token: str) -> None:
    first, stop = st.session_state[WIDGET]
    st.session_state[state.ZOOM] = (token, int(first), max(int(stop), int(first) + 1))


def _whole(token: str, n: int) -> None:
    st.session_state[state.ZOOM] = (token, 0, n)


def control(cur, container=None) -> tuple[int, int]:
    """The zoom slider (only for series longer than a chart draws point for point) and its caption; returns
    (first, stop)."""
    first, stop = current(cur)
    if cur is None or cur.n <= DISPLAY_POINTS:
        return 0, (cur.n if cur is not None else 0)
    box = container or st
    st.session_state[WIDGET] = (first, stop)
    c1, c2 = box.columns([5, 1], vertical_alignment="bottom")
    c1.slider("Zoom: events drawn (narrow the window for full detail)", 0, cur.n, step=1, key=WIDGET,
              on_change=_changed, args=(cur.token,),
              help=f"Charts draw up to {DISPLAY_POINTS:,} points per line: a window of at most that many events "
                   "shows every event; a longer one shows the points that keep the line's shape and every peak "
                   "(MinMaxLTTB). Hover and clicks always address real events.")
    c2.button("Whole series", key=WIDGET + "_all", on_click=_whole, args=(cur.token, cur.n),
              disabled=(first, stop) == (0, cur.n), width="stretch")
    ts = cur.series.timestamps
    detail = ("every event drawn" if stop - first <= DISPLAY_POINTS
              else f"{DISPLAY_POINTS:,} points per line of {stop - first:,} events — narrow to "
                   f"{DISPLAY_POINTS:,} events for every one")
    box.caption(f"Showing events {first:,}–{stop - 1:,} ({ts[first]} → {ts[stop - 1]}): {detail}. Headlines, "
                "MAE and verdicts always cover the whole series.")
    return first, stop
