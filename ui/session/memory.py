"""Give freed heap memory back to the operating system after big, short-lived allocations (upload parsing).

Parsing a multi-megabyte upload creates millions of small objects; once they are freed, glibc keeps the pages
(the server's RSS stays up: +10–15 MB per upload in benchmarks/bench_memory.py, although nothing is live).
``malloc_trim(0)`` returns them. Elsewhere than glibc (or when it is missing) this does nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time
from typing import Literal

_LIBC: ctypes.CDLL | Literal[False] | None = None  # False: no glibc here
SWEEP_EVERY_S = 5.0
"""How often a session's arrival sweeps the heap: a full collection walks all of it (~0.04 s on a server holding
cached runs, 15 % of opening a session), so when a class arrives together the first visitor's sweep serves the
others of the next seconds (issue 34)."""
_last_sweep = [-float("inf")]
_sweep_lock = threading.Lock()


def release_freed_memory(every: float = 0.0) -> None:
    """Collect garbage (skipped if a full collection ran less than ``every`` seconds ago), then ask glibc to return
    free heap pages to the OS (no-op without glibc)."""
    global _LIBC
    now = time.monotonic()
    with _sweep_lock:
        due = now - _last_sweep[0] >= every
        if due:
            _last_sweep[0] = now
    if due:
        gc.collect()
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _LIBC.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC:
        _LIBC.malloc_trim(0)
