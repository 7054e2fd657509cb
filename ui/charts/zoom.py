"""The zoom window: which events the per-timestamp charts of a page draw.

Plotly's own zoom happens in the browser on the points it was given, and its relayout events do not reach
Streamlit. So a long series is zoomed on the server: the charts draw the events [first, stop) chosen here —
point for point when the window holds at most ``DISPLAY_POINTS`` events, else the MinMaxLTTB points of
``ui.charts.downsample`` (real events: hover and clicks address their exact timestamps). The window is kept
per series in the session (``state.ZOOM``) and shared by the pages, so zooming on Data & landmarks and then
opening Temporal privacy loss shows the same stretch.
"""
from __future__ import annotations

import streamlit as st

from ui.charts.downsample import DISPLAY_POINTS
from ui.session import state

WIDTH = "zoom_width"  # widget keys (session only; the window itself is state.ZOOM)
START = "zoom_start"
WIDTHS = (500, 2_000, 10_000, 50_000)  # events per window; 500 and 2,000 are drawn point for point
# a long series opens at its first READABLE events (about one per pixel column of a 1,024-px page): its whole
# length drawn at once was a solid block of line and landmark ticks (issue 35); "whole series" is one step away
READABLE = WIDTHS[0]


def current(cur) -> tuple[int, int]:
    """(first, stop) of the zoom window of the current series: as zoomed, else the whole series, or its first
    ``READABLE`` events when it is longer than a chart draws point for point."""
    stored = st.session_state.get(state.ZOOM)
    if cur is None:
        return 0, 0
    if stored and stored[0] == cur.token and 0 <= stored[1] < stored[2] <= cur.n:
        return int(stored[1]), int(stored[2])
    return (0, READABLE) if cur.n > DISPLAY_POINTS else (0, cur.n)


def _changed(token: str, n: int) -> None:
    """Store the window of the series ``token`` after its width or start changed (clamped to n events)."""
    ss = st.session_state
    width = int(ss[WIDTH])
    first = 0 if width >= n else min(int(ss.get(START, 0)), n - width)
    ss[state.ZOOM] = (token, first, first + width)


def control(cur, container=None) -> tuple[int, int]:
    """The zoom control — how many events a chart draws and where they start — for series longer than a chart
    draws point for point, and its caption; returns (first, stop)."""
    if cur is None or cur.n <= DISPLAY_POINTS:
        return 0, (cur.n if cur is not None else 0)
    ss = st.session_state
    n = cur.n
    first, stop = current(cur)
    options = [w for w in WIDTHS if w < n] + [n]
    width = stop - first if stop - first in options else n
    first = 0 if width == n else first
    ss[WIDTH], ss[START] = width, first
    box = container or st
    c1, c2 = box.columns([2, 3], vertical_alignment="bottom")
    c1.select_slider("Zoom: events drawn", options, key=WIDTH, on_change=_changed, args=(cur.token, n),
                     format_func=lambda w: "whole series" if w == n else f"{w:,}",
                     help=f"Charts draw up to {DISPLAY_POINTS:,} points per line: a window of at most that many "
                          "events shows every event; a longer one the points that keep the line's shape and every "
                          "peak (MinMaxLTTB). Hover and clicks always address real events.")
    c2.slider("Window starts at event", 0, max(n - width, 1), step=1, key=START, on_change=_changed,
              args=(cur.token, n), disabled=width == n)
    stop = first + width
    ts = cur.series.timestamps
    detail = ("every event drawn" if width <= DISPLAY_POINTS
              else f"{DISPLAY_POINTS:,} points per line of {width:,} events (zoom to {DISPLAY_POINTS:,} for every one)")
    opened = (f" A long series opens at its first {READABLE:,} events so each one can be seen; slide the zoom to "
              "'whole series' for the overview." if width == READABLE and ss.get(state.ZOOM, (None,))[0] != cur.token
              else "")
    box.caption(f"Showing events {first:,}–{stop - 1:,} ({ts[first]} → {ts[stop - 1]}): {detail}. Headlines, MAE "
                f"and verdicts always cover the whole series.{opened}")
    return first, stop
