"""Slots for heavy runs: one per core, shared by every session of this server process (issue 54).

One server runs every session's script in one process. A link can ask for minutes of Monte-Carlo (an Experiments
recomputation, a Schemes view of 110,000 events × 200 repetitions × ten schemes); a class opening it at once would
start a hundred of them side by side, each slower than alone and each holding its memory. A heavy run therefore
takes a slot first: ``SLOTS`` (the server's cores) run at once, the rest wait for one to end (``ui.heavy`` shows
them a message while they wait). No widgets here: the waiting is drawn by ``ui.heavy``.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SLOTS = max(1, os.cpu_count() or 1)  # heavy runs at once in this process: one per core

_slots = threading.BoundedSemaphore(SLOTS)
_lock = threading.Lock()
_taken = 0


def taken() -> int:
    """How many heavy runs hold a slot right now."""
    with _lock:
        return _taken


def acquire(timeout: float = 0.0) -> bool:
    """Take a slot, waiting at most ``timeout`` seconds (0: not at all); whether one was taken."""
    global _taken
    got = _slots.acquire(timeout=timeout) if timeout > 0 else _slots.acquire(blocking=False)
    if got:
        with _lock:
            _taken += 1
    return got


def release() -> None:
    """Give a slot back (a release without an acquire raises ValueError: the semaphore is bounded)."""
    global _taken
    with _lock:
        _slots.release()
        _taken -= 1


@contextmanager
def holding(timeout: float = 0.0) -> Iterator[bool]:
    """A slot held for the ``with`` block if one was free within ``timeout`` seconds (yields whether it was)."""
    got = acquire(timeout)
    try:
        yield got
    finally:
        if got:
            release()
