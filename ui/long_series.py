"""Long series on the Data & landmarks page: a window or an hourly/daily aggregation, chosen by the user.

The app takes series of up to ``state.N_MAX`` events whole (a year of 5-minute readings). A longer file — a
year of 1-minute readings, a week of 1 Hz GPS — is never cut silently: the page states its length and offers a
window of at most ``N_MAX`` events (where it starts is the user's choice) or one event per hour or day, with the
privacy meaning of aggregating (``lmdk.data.resample``). Below the limit the same choice sits in an expander.
The choice is configuration (``state.AGGREGATE``, ``AGGREGATE_HOW``, ``START``, ``LENGTH``: in the URL), so a
link, the exports and every page use the same events.
"""
from __future__ import annotations

import streamlit as st

from ui import widgets
from ui.session import cache, state

PERIOD_WORD = {"hourly": "hour", "daily": "day"}
HOW_WORD = {"sum": "sum", "mean": "mean", "last": "last fix"}


def whole_length() -> int | None:
    """Events of the whole sample/upload as recorded (before aggregation and window); None when not windowable."""
    ss = st.session_state
    if not cache.windowable(ss[state.SOURCE], ss.get(state.SAMPLE, "")):
        return None
    if ss[state.SOURCE] == "upload":
        full = ss.get(state.SERIES_UPLOAD)
        return None if full is None else len(full)
    return len(cache.sample_series(ss[state.SAMPLE], None))


def _about(cur, period: str) -> int:
    """About how many events an aggregation gives: clock hours/days spanned by the whole series (no pass over it)."""
    ss = st.session_state
    full = ss.get(state.SERIES_UPLOAD) if ss[state.SOURCE] == "upload" else cache.sample_series(ss[state.SAMPLE], None)
    if full is None:  # the upload went with its session: nothing to aggregate
        return 0
    span = (full.timestamps[-1] - full.timestamps[0]).total_seconds()
    return int(span // {"hourly": 3_600, "daily": 86_400}[period]) + 1


def reset() -> None:
    """A new upload: the whole series from its first event, as recorded (called by ui.import_step)."""
    ss = st.session_state
    ss[state.START], ss[state.AGGREGATE], ss[state.AGGREGATE_HOW] = 0, "none", None
    full = ss.get(state.SERIES_UPLOAD)
    if full is not None:
        ss[state.LENGTH] = max(state.N_MIN, min(len(full), state.N_MAX))


def _period_changed() -> None:
    """Another aggregation: start at the beginning and take as many of its events as the app can."""
    ss = st.session_state
    ss[state.AGGREGATE] = ss[state.widget_key(state.AGGREGATE)]
    ss[state.START] = 0
    whole = whole_length()
    if whole is not None and (ss[state.SOURCE] == "upload" or ss[state.AGGREGATE] != "none"):
        ss[state.LENGTH] = state.N_MAX if ss[state.AGGREGATE] != "none" else max(state.N_MIN, min(whole, state.N_MAX))


def controls(cur) -> None:
    """The window / aggregation choice for the current series (uploads and the real samples)."""
    ss = st.session_state
    whole = whole_length()
    if whole is None or cur is None:
        return
    period = ss[state.AGGREGATE]
    over = whole > state.N_MAX
    kind = cur.series.kind
    aggregable = kind in ("values", "trajectory")
    if over:
        box = st.container(border=True, key="long_series_choice")
        box.markdown(f"**This series has {whole:,} events — more than the {state.N_MAX:,} the app analyses at once "
                     "(a year of 5-minute readings).** Choose what to analyse; every page and every export use "
                     "the same events:")
    else:
        box = st.expander("Window or hourly / daily aggregation", icon=":material/date_range:",
                          expanded=period != "none" or cur.start > 0)
    with box:
        options = ("none", "hourly", "daily") if aggregable else ("none",)
        if period not in options:
            ss[state.AGGREGATE] = period = "none"
        labels = {"none": (f"A window of up to {state.N_MAX:,} events as recorded" if over
                           else "The events as recorded"),
                  "hourly": f"One event per hour (≈ {_about(cur, 'hourly'):,})",
                  "daily": f"One event per day (≈ {_about(cur, 'daily'):,})"}
        kw = widgets.bind(state.AGGREGATE)
        kw["on_change"], kw["args"] = _period_changed, ()
        st.radio("Analyse", options, format_func=labels.get, horizontal=True, **kw,
                 help="A window keeps the readings as they are; aggregating releases one sum or mean per hour or "
                      "day, which protects whole hours or days (see below).")
        if period != "none" and cur.aggregation is not None:
            from lmdk.data import resample

            hows = resample.HOW[kind]
            if ss.get(state.AGGREGATE_HOW) not in hows:
                ss[state.AGGREGATE_HOW] = cur.aggregation[1]
            st.radio("Each event holds the", hows, horizontal=True, **widgets.bind(state.AGGREGATE_HOW),
                     format_func=lambda h: {"sum": "sum (energy per hour/day, as a bill)",
                                            "mean": "mean (as a gauge)" if kind == "values" else "centroid",
                                            "last": "last fix"}[h])
            st.info(resample.privacy_meaning(period, cur.aggregation[1], kind), icon=":material/shield:")
        _window(cur)


def _window(cur) -> None:
    """Where the window starts (when the whole series is longer than the events analysed) and what it covers."""
    ss = st.session_state
    full_n = cur.full_n or cur.n
    if full_n > cur.n or cur.start > 0:
        last_start = max(full_n - cur.n, 0)
        if ss[state.START] > last_start:
            ss[state.START] = last_start
        st.slider("First event of the window", 0, max(last_start, 1), step=1, disabled=last_start == 0,
                  **widgets.bind(state.START),
                  help="Slide to analyse another stretch of the series; n (above) sets how many events it holds.")
    ts = cur.series.timestamps
    outside = full_n - cur.n
    note = (f" Nothing outside it ({outside:,} events) is released, and the guarantee covers these events only."
            if outside > 0 else "")
    unit = "events" if cur.aggregation is None else f"{cur.aggregation[0]} events"
    st.caption(f"Analysing {unit} {cur.start:,}–{cur.start + cur.n - 1:,} of {full_n:,}: {ts[0]} → {ts[-1]}.{note}")


def length_note(cur) -> str | None:
    """One line under the series when an upload or sample is analysed in part (or aggregated)."""
    whole = whole_length()
    if whole is None or cur is None:
        return None
    if cur.aggregation is None and cur.n >= whole:
        return None
    ts = cur.series.timestamps
    what = "events" if cur.aggregation is None else f"{cur.aggregation[0]} events aggregated from them"
    return (f"{whole:,} events loaded; analysing {cur.n:,} {what}, {ts[0]} → {ts[-1]} "
            f"(window and aggregation below).")
