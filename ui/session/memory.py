"""Give freed heap memory back to the operating system after big, short-lived allocations (upload parsing).

Parsing a multi-megabyte upload creates millions of small objects; once they are freed, glibc keeps the pages
(the server's RSS stays up: +10–15 MB per upload in benchmarks/bench_memory.py, although nothing is live).
``malloc_trim(0)`` returns them. Elsewhere than glibc (or when it is missing) this does nothing.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
from typing import Literal

_LIBC: ctypes.CDLL | Literal[False] | None = None  # False: no glibc here


def release_freed_memory() -> None:
    """Collect garbage, then ask glibc to return free heap pages to the OS (no-op without glibc)."""
    global _LIBC
    gc.collect()
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _LIBC.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC:
        _LIBC.malloc_trim(0)
