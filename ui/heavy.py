"""Heavy work needs a click and a slot (issue 54).

A link is a request anyone can send: ``/experiments?ex_run=priste-utility`` cost over a minute of the server's time on
open, and the largest Schemes link (110,000 events, ten schemes, 200 repetitions) half a minute and 0.7 GB. So a
link that asks for more than the interactive bounds (``INTERACTIVE_N`` events, ``INTERACTIVE_REPS`` repetitions, or
any Experiments recomputation) opens a page that says what it would start and waits for a button (``link_allowed``);
the settings stay as linked, and a second button opens the page with them brought within the bounds instead.

Once started, a heavy run holds one of ``ui.session.slots``'s slots (one per core, process-wide) for as long as it
computes (``slot``); while every slot is taken the session says so and waits for one to end.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ui import text
from ui.session import slots, state

INTERACTIVE_N = 20_000  # events a link may open a series page with, without asking
INTERACTIVE_REPS = 100  # repetitions a link may ask for, without asking
WAIT_POLL_S = 0.5  # how often a waiting session looks for a free slot (and redraws its message)
WAIT_MAX_S = 600.0  # after this long a waiting session stops and offers to try again
PENDING = "_heavy_link_pending"  # {"series" | "experiments": [what the link asks for]} until the button is pressed
INSPECTED = "_heavy_link_inspected"  # the session's first run looked at its link
# the pages whose Monte-Carlo releases the current series (repetitions × events); Data & landmarks only draws it
RELEASE_PAGES = ("Schemes & utility", "Temporal privacy loss", "Dummy landmarks", "Adversary lab")


def heavy_view(n: int, repetitions: int) -> bool:
    """Whether a view of ``n`` events with ``repetitions`` repetitions is beyond the interactive bounds."""
    return int(n) > INTERACTIVE_N or int(repetitions) > INTERACTIVE_REPS


def linked_requests(linked: set[str], config: dict) -> dict[str, list[str]]:
    """What a link with the query keys ``linked`` and the parsed configuration ``config`` asks for beyond the
    interactive bounds, per kind of page ("series": ``RELEASE_PAGES``, "experiments")."""
    asks: dict[str, list[str]] = {}
    source = config.get(state.SOURCE)
    for key, used in ((state.SYN_N, source == "synthetic"), (state.LENGTH, source != "synthetic")):
        if key in linked and used and int(config.get(key) or 0) > INTERACTIVE_N:
            asks.setdefault("series", []).append(
                f"a series of {int(config[key]):,} events (more than {INTERACTIVE_N:,})")
    if state.REPETITIONS in linked and int(config.get(state.REPETITIONS) or 0) > INTERACTIVE_REPS:
        asks.setdefault("series", []).append(
            f"{int(config[state.REPETITIONS]):,} repetitions of every release (more than {INTERACTIVE_REPS})")
    if state.EX_RUN in linked and config.get(state.EX_RUN):
        reps = int(config.get(state.EX_REPETITIONS) or 1)
        asks["experiments"] = [f"a recomputation of {config[state.EX_RUN]} with {reps:,} "
                               f"repetition{'s' if reps != 1 else ''}"]
    return asks


def inspect_link() -> None:
    """On the session's first run (after ``state.init``), note what its link asks for beyond the interactive bounds."""
    ss = st.session_state
    if ss.get(INSPECTED):
        return
    ss[INSPECTED] = True
    ss[PENDING] = linked_requests(set(st.query_params.keys()), state.config())


def _kind(page_title: str) -> str:
    """Which of the link's requests the page ``page_title`` would start."""
    if page_title == "Experiments":
        return "experiments"
    return "series" if page_title in RELEASE_PAGES else ""


def _start(kind: str) -> None:
    """The button's callback: the linked settings stay and the page starts them."""
    st.session_state.get(PENDING, {}).pop(kind, None)


def _within_bounds(kind: str) -> None:
    """The second button's callback: the linked settings brought within the interactive bounds, nothing heavy run."""
    ss = st.session_state
    if kind == "experiments":
        ss[state.EX_RUN] = None
    else:
        for key in (state.SYN_N, state.LENGTH):
            ss[key] = min(int(ss[key]), INTERACTIVE_N)
        ss[state.REPETITIONS] = min(int(ss[state.REPETITIONS]), INTERACTIVE_REPS)
    ss.get(PENDING, {}).pop(kind, None)


def link_allowed(page_title: str) -> bool:
    """Whether the page may run now: True unless the session's link asks this page for heavy work nobody has
    confirmed yet; then the request and two buttons are drawn instead and False is returned (stop the script)."""
    kind = _kind(page_title)
    asks = st.session_state.get(PENDING, {}).get(kind)
    if not kind or not asks:
        return True
    st.title(page_title)
    st.markdown("**This link asks for heavy work:**\n\n" + "\n".join(f"- {text.escape_markdown(a)}" for a in asks))
    st.info("It would take the server's time that everyone using this lab shares, so it starts only when you press "
            "the button (the settings stay as linked).", icon=":material/hourglass_empty:")
    c1, c2 = st.columns(2)
    c1.button("Start it", key=f"heavy_link_start_{kind}", type="primary", icon=":material/play_arrow:",
              on_click=_start, args=(kind,))
    c2.button("Open with lighter settings", key=f"heavy_link_light_{kind}", on_click=_within_bounds, args=(kind,),
              help=f"At most {INTERACTIVE_N:,} events and {INTERACTIVE_REPS} repetitions; Experiments shows its "
                   "cached run.")
    return False


@contextmanager
def slot(what: str, needed: bool = True) -> Iterator[None]:
    """Hold one of the process's heavy-run slots while the block computes ``what`` (nothing when not ``needed``);
    while every slot is taken, say so and wait for one (at most ``WAIT_MAX_S``, then offer to try again)."""
    if not needed:
        yield
        return
    if not slots.acquire():
        note = st.empty()
        waited = 0.0
        while True:
            going = slots.taken()
            runs = f"{going} heavy run{'s are' if going != 1 else ' is'} going"
            note.info(f"{runs}; yours ({text.escape_markdown(what)}) starts when one ends.",
                      icon=":material/hourglass_top:")
            if slots.acquire(WAIT_POLL_S):
                break
            waited += WAIT_POLL_S
            if waited >= WAIT_MAX_S:
                note.warning(f"Every slot for heavy runs stayed taken for {WAIT_MAX_S / 60:.0f} minutes; press *Try "
                             "again* or come back later.", icon=":material/hourglass_disabled:")
                st.button("Try again", key="heavy_slot_retry")
                st.stop()
        note.empty()
    try:
        yield
    finally:
        slots.release()
