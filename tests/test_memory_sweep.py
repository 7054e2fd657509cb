"""A session's arrival sweeps the heap at most every few seconds (issue 34); an upload's parse always does."""
from __future__ import annotations

import gc

from ui.session import memory


def test_arrivals_share_one_full_collection_and_an_upload_always_collects(monkeypatch):
    calls = []
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append(a) or 0)
    clock = [1000.0]
    monkeypatch.setattr(memory.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(memory, "_last_sweep", [-float("inf")])
    for _ in range(5):  # a class arriving within a second
        memory.release_freed_memory(every=memory.SWEEP_EVERY_S)
        clock[0] += 0.2
    assert len(calls) == 1
    clock[0] += memory.SWEEP_EVERY_S
    memory.release_freed_memory(every=memory.SWEEP_EVERY_S)
    assert len(calls) == 2
    memory.release_freed_memory()  # after an upload's parse: never skipped
    memory.release_freed_memory()
    assert len(calls) == 4
