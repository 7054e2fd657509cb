"""Issue 33 in the app: undo and redo bring a landmark set back with its origin, so a detector's set (read from the
values) is never restored as "declared" — which would unlock the hand-out download and its "declared" statement."""
from __future__ import annotations

from types import SimpleNamespace

from ui.session import cache, state


def test_undo_restores_a_detectors_set_as_data_derived(monkeypatch):
    ss: dict = {state.LANDMARKS: (1, 2, 3), state.LANDMARKS_ORIGIN: "declared"}
    monkeypatch.setattr(cache, "st", SimpleNamespace(session_state=ss))
    cache.set_landmarks([4, 5], "detector", origin="data")  # a detector read the values
    cache.set_landmarks([7], "a file", origin="declared")  # then a declared file replaced them
    cache.undo_landmarks()
    assert ss[state.LANDMARKS] == (4, 5) and ss[state.LANDMARKS_ORIGIN] == "data"
    cache.undo_landmarks()
    assert ss[state.LANDMARKS] == (1, 2, 3) and ss[state.LANDMARKS_ORIGIN] == "declared"
    cache.undo_landmarks(redo=True)
    assert ss[state.LANDMARKS] == (4, 5) and ss[state.LANDMARKS_ORIGIN] == "data"
    cache.undo_landmarks(redo=True)
    assert ss[state.LANDMARKS] == (7,) and ss[state.LANDMARKS_ORIGIN] == "declared"
