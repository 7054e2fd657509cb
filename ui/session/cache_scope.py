"""``bounded_cache``: ``st.cache_data`` for shared data, a cache inside the session for anything derived from an upload.

``st.cache_data`` lives in the server process: an entry computed from one session's upload outlives that session
(up to ``max_entries`` of them, each as large as the upload's releases) and could be served to any session that
passes the same arrays. Uploaded data must stay in its own session, so while the session's source is an upload the
wrapped function is memoised in ``st.session_state`` instead, and everything it computed goes when the session ends.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import pickle
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from lmdk.relation import Relation
from ui.session import state

TTL_S = 3600  # a shared entry unused for an hour goes: a class's hundred sessions leave no memory behind overnight
# a Relation (frozen dataclass) by its repr, which names every field: Streamlit's hasher pickled it, ~0.3 ms of every
# cached call that takes one (every scheme summary of an ε change, issue 34)
HASH_FUNCS: dict[str | type, Callable[[Any], Any]] = {Relation: repr}
SESSION_KEY = "_upload_cache"  # {function name: OrderedDict(digest → result)} of this session only


def _feed(h, value) -> None:
    """Feed one argument into the digest (arrays by dtype, shape and bytes, containers item by item)."""
    if isinstance(value, np.ndarray):
        h.update(f"nd{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (tuple, list)):
        h.update(f"{type(value).__name__}{len(value)}(".encode())
        for item in value:
            _feed(h, item)
        h.update(b")")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(type(value).__qualname__.encode())
        _feed(h, tuple(getattr(value, f.name) for f in dataclasses.fields(value)))
    elif value is None or isinstance(value, (str, bytes, int, float, bool, np.generic)):
        h.update(f"{type(value).__name__}:{value!r};".encode())
    else:  # anything else by its pickle (a repr may elide the contents of large arrays)
        h.update(pickle.dumps(value, protocol=5))


def digest(args: tuple, kwargs: dict) -> str:
    """A key for the arguments; those whose name starts with ``_`` are left out, as ``st.cache_data`` does."""
    h = hashlib.blake2b(digest_size=20)
    _feed(h, args)
    for name in sorted(kwargs):
        if not name.startswith("_"):
            h.update(name.encode())
            _feed(h, kwargs[name])
    return h.hexdigest()


def from_upload() -> bool:
    """Whether this session is working on an uploaded file."""
    return st.session_state.get(state.SOURCE) == "upload"


def session_memo(name: str) -> OrderedDict:
    """This session's memo for ``name`` (an OrderedDict, oldest first); it goes when the session ends."""
    return st.session_state.setdefault(SESSION_KEY, {}).setdefault(name, OrderedDict())


def bounded_cache(max_entries: int, session_entries: int = 16, *, read_only: bool = False) -> Callable:
    """Decorator: ``st.cache_data(max_entries=…, ttl=TTL_S)`` unless the session works on an upload, then a
    per-session memo of at most ``min(max_entries, session_entries)`` results per function (least recently used
    dropped first; 16 holds every scheme a page compares).

    ``read_only``: the callers never change a result (a figure to draw, a table to show), so every caller gets the
    one object built (``st.cache_resource``; in an upload's session, its memo's object) instead of a copy: pickling
    a figure into ``st.cache_data`` cost more than building it (issue 34)."""
    session_entries = min(max_entries, session_entries)
    store = st.cache_resource if read_only else st.cache_data

    def wrap(func: Callable) -> Callable:
        """``func`` cached in ``st.cache_data`` for shared data and in the session while it works on an upload."""
        shared = store(max_entries=max_entries, ttl=TTL_S, show_spinner=False, hash_funcs=HASH_FUNCS)(func)
        name = f"{func.__module__}.{func.__qualname__}"
        # positional arguments whose parameter name starts with "_" are not part of the key either
        params = func.__code__.co_varnames[:func.__code__.co_argcount]

        @functools.wraps(func)
        def call(*args, **kwargs):
            """The cached result: shared unless the session's source is an upload, then this session's memo."""
            if not from_upload():
                if len(args) <= len(params):  # by name: st.cache_data looks up each positional name in the signature
                    return shared(**dict(zip(params, args, strict=False)), **kwargs)
                return shared(*args, **kwargs)
            keyed = tuple(a for p, a in zip(params, args, strict=False) if not p.startswith("_")) + args[len(params):]
            key = digest(keyed, kwargs)
            memo = session_memo(name)
            if key not in memo:
                memo[key] = func(*args, **kwargs)
                while len(memo) > session_entries:
                    memo.popitem(last=False)
            memo.move_to_end(key)
            # a copy per call, as st.cache_data gives: callers may change theirs (read_only: they may not)
            return memo[key] if read_only else copy.deepcopy(memo[key])

        call.clear = shared.clear  # type: ignore[attr-defined]  # like st.cache_data's wrapper: callers clear it
        return call

    return wrap
