"""Downloads built when their button is clicked, from inputs the session holds (``download_deferred``).

Below ``ui.charts`` and ``ui.widgets``, which both offer them: it imports only the session's keys.
"""
from __future__ import annotations

import functools
import weakref
from collections.abc import Callable

import streamlit as st

from ui.session import state


def download_deferred(label: str, build: Callable, payload, *, key: str, file_name: str, mime: str, container=None,
                      **kwargs) -> None:
    """A download built on click from ``payload`` held in the session state (the callable holds a weak reference)."""
    held = _Held(payload, build)
    hold(key, held)
    (container or st).download_button(label, data=functools.partial(_built, weakref.ref(held)),
                                      file_name=file_name, mime=mime, key=key, **{"on_click": "ignore", **kwargs})


def hold(key: str, value) -> None:
    """Keep ``value`` (what the download ``key`` builds from) in the session, and the run before's one too: a click
    on the button the browser still shows while a rerun is on its way asks for that run's file, which must still be
    there (it was dropped, and the file said the session had ended)."""
    ss = st.session_state
    current, previous = ss.setdefault(state.DOWNLOAD_FIGURES, {}), ss.setdefault(state.DOWNLOAD_PREVIOUS, {})
    if current.get(key) is not None and current[key] is not value:
        previous[key] = current[key]
    current[key] = value


class _Held:
    """A session-owned box around a download's inputs (tuples and dicts cannot be weakly referenced)."""

    def __init__(self, value, build: Callable | None = None):
        """Hold ``value`` (the figure) so a weak reference can point at it, and ``build``, which makes the file."""
        self.value, self.build = value, build

    def content(self) -> str:
        """The download's text (what a click builds; tests read it here)."""
        assert self.build is not None
        return self.build(self.value)


def _built(ref) -> str:
    """The download's text built from the inputs behind ``ref``, or a note when its session has ended."""
    held = ref()
    if held is None:
        return "<p>This view's session has ended: open the page again to download it.</p>"
    return held.content()
