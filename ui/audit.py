"""The Adversary lab's computation: one audit per scheme and configuration, remembered, with progress.

Not ``st.cache_data``: the progress bar is updated from inside the run, which a cached function may not do (its
effects are replayed). Audits of bundled samples and synthetic series are remembered process-wide (they are
deterministic in their configuration and seed, like ``st.cache_data``); audits of an upload stay in this session.
A run is split into chunks of releases with a progress update between them, so a widget change interrupts it
within a chunk and every scheme finished before is kept.

The default view's audits (the bundled sample, the page's defaults) also ship with the app, in ``BUNDLE_FILE``: a server
nobody has opened yet reads them instead of spending about 7 s of CPU while its first visitors wait (issue 34: 30
sessions opening a fresh server's Adversary lab waited 7 s at p95). They are keyed by everything an audit depends
on, the series' content included, so any other configuration is computed; ``deploy/bundle_audit.py`` writes them
and ``tests/test_audit_bundle.py`` fails when they no longer equal a fresh run.
"""
from __future__ import annotations

import hashlib
import logging
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import contextmanager

import numpy as np

from ui.session import cache_scope

MAX_SHARED = 32  # audits remembered for every session
MAX_SESSION = 12  # audits of this session's upload
CELLS_MAX = 5_000_000  # trials × n per scheme on the page (n = 1,000: 5,000 trials; n = 10,000: 500)
N_MAX = 20_000  # longest series the page audits (a window of a longer one, or `lmdk audit`, which has no limit)
MEMO = "ui.audit.run"  # this session's audits of an upload, newest last (ui.session.cache_scope.session_memo)

WAIT_POLL_S = 0.25  # how often a session waiting for another's audit updates its progress bar

_shared: OrderedDict = OrderedDict()
_running: dict[tuple, threading.Event] = {}  # shared configurations being computed now -> set when that run ends
_progress: dict[tuple, tuple[float, str]] = {}  # their last progress report
_lock = threading.Lock()

BUNDLE_FILE = "audit_default/audits.pickle"  # under lmdk.assets.ASSETS: {"tokens": set, "audits": {digest: Audit}}
_bundle: dict | None = None  # loaded on first use
_recording: dict | None = None  # while deploy/bundle_audit.py records: digest -> (token, Audit)


def trials_cap(n: int) -> int:
    """The most trials the page runs on a series of n events (CELLS_MAX cells per scheme)."""
    return max(100, CELLS_MAX // max(n, 1))


def position_trials(n: int) -> int:
    """Releases per position-attack configuration: the core's default, fewer on long series (≥ 20)."""
    from lmdk.audit.run import POSITION_TRIALS

    return max(20, min(POSITION_TRIALS, CELLS_MAX // 5 // max(n, 1)))


def _store(token: str):
    """(cache, bound) of this token: the process-wide one, or this session's for an upload."""
    if token.startswith("upload:"):
        return cache_scope.session_memo(MEMO), MAX_SESSION
    return _shared, MAX_SHARED


def run(cur, scheme: str, epsilon: float, protected, w: int, trials: int, seed: int, prior: str, s: float | None,
        dummy: dict, event: str, progress: Callable[[float, str], None] | None = None):
    """The ``lmdk.audit.Audit`` of ``scheme`` on the current series and landmarks, computed once per configuration:
    sessions asking for a shared configuration that another session is computing wait for its result (a class
    following one link starts one audit, not one per student), and take over if that run is interrupted."""
    from lmdk.audit import audit

    rule = flip_rule(cur)
    key = _key(cur, scheme, epsilon, protected, w, trials, seed, prior, s, dummy)
    cache, bound = _store(cur.token)
    shared = cache is _shared  # an upload's audits stay in its session: only shared ones are announced in _running
    while True:
        with _lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
            running = _running.get(key)
            if running is None:
                if shared:
                    _running[key] = threading.Event()
                break
        _wait_for(key, running, progress)
    try:
        result = _bundled(cur, key) if shared else None
        if result is None:
            result = audit(cur.series, cur.landmarks, scheme, epsilon, protects=protected, w=w, trials=trials,
                           seed=seed, prior=prior, s=s, dummy_methods=dummy_methods(cur), position_dummies=dummy,
                           progress=_sharing(key, progress) if shared else progress, event=event,
                           position_trials=position_trials(cur.n), rule=rule)
        if _recording is not None and shared:
            _recording[_digest(cur, key)] = (cur.token, result)
        with _lock:
            cache[key] = result
            while len(cache) > bound:
                cache.popitem(last=False)
    finally:
        with _lock:
            done = _running.pop(key, None) if shared else None
            _progress.pop(key, None)
        if done is not None:
            done.set()
    return result


def _sharing(key: tuple, progress: Callable[[float, str], None] | None) -> Callable[[float, str], None]:
    """The leader's progress callback, also published for the sessions waiting on the same audit."""
    def report(fraction: float, what: str) -> None:
        _progress[key] = (fraction, what)
        if progress is not None:
            progress(fraction, what)

    return report


def _wait_for(key: tuple, running: threading.Event, progress: Callable[[float, str], None] | None) -> None:
    """Wait until another session's run of ``key`` ends, showing its progress; each update lets a rerun of this
    session interrupt the wait (Streamlit stops a script at its next element update)."""
    while not running.wait(WAIT_POLL_S):
        if progress is not None:
            fraction, what = _progress.get(key, (0.0, "starting"))
            progress(fraction, f"{what} (run by another session with the same settings)")


def _key(cur, scheme: str, epsilon: float, protected, w: int, trials: int, seed: int, prior: str, s: float | None,
         dummy: dict) -> tuple:
    """What an audit depends on: the series, landmarks, scheme and every setting."""
    return (cur.token, cur.landmarks.tobytes(), scheme, float(epsilon), flip_rule(cur),
            tuple(sorted(protected.to_dict().items())) if protected is not None else None, int(w), int(trials),
            int(seed), prior, s, tuple(sorted(dummy.items())))


def remembered(cur, schemes, epsilon: float, protected, w: int, trials: int, seed: int, prior: str,
               s: float | None, dummy: dict) -> bool:
    """Whether the audit of every scheme in ``schemes`` with these settings is remembered (no run needed)."""
    cache, _ = _store(cur.token)
    keys = [_key(cur, scheme, epsilon, protected, w, trials, seed, prior, s, dummy) for scheme in schemes]
    with _lock:
        if all(key in cache for key in keys):
            return True
    return cache is _shared and all(key in cache or _bundled(cur, key) is not None for key in keys)


def _digest(cur, key: tuple) -> str:
    """The bundle's name for an audit: its key (``_key``) and the series' content, which the token only names."""
    import pandas as pd

    h = hashlib.sha256(repr(key).encode())
    h.update(pd.util.hash_pandas_object(cur.series.frame, index=True).to_numpy().tobytes())
    h.update(repr((cur.series.kind, cur.series.units, list(cur.series.frame.columns))).encode())
    return h.hexdigest()


def _bundled(cur, key: tuple):
    """The shipped audit of this configuration (``BUNDLE_FILE``), or None: another configuration, another series,
    or no readable bundle (then the audit is computed as everywhere else)."""
    global _bundle
    if _recording is not None:
        return None  # deploy/bundle_audit.py: compute afresh
    if _bundle is None:
        _bundle = _read_bundle()
    if cur.token not in _bundle["tokens"]:
        return None  # cheap refusal before hashing the series
    return _bundle["audits"].get(_digest(cur, key))


def _read_bundle() -> dict:
    """The bundle file's contents, or an empty bundle when it is missing or no longer loads (a renamed class)."""
    from lmdk.assets import ASSETS

    path = ASSETS / BUNDLE_FILE
    try:
        with open(path, "rb") as f:
            data = pickle.load(f)  # the app's own file, shipped beside its code (not user input)
        return {"tokens": set(data["tokens"]), "audits": dict(data["audits"])}
    except FileNotFoundError:
        pass
    except (OSError, pickle.UnpicklingError, AttributeError, ImportError, EOFError, KeyError, TypeError) as exc:
        logging.getLogger(__name__).warning("%s does not load (%s): the Adversary lab computes its default view; "
                                            "run python deploy/bundle_audit.py", path, exc)
    return {"tokens": set(), "audits": {}}


@contextmanager
def recording():
    """While open, every shared audit is computed afresh (never read from the bundle) and recorded; yields the
    record, digest -> (token, Audit), for ``write_bundle``."""
    global _recording
    _recording = {}
    try:
        yield _recording
    finally:
        _recording = None


def write_bundle(record: dict, path) -> None:
    """Write a record of ``recording`` as a bundle file at ``path``."""
    data = {"tokens": sorted({token for token, _ in record.values()}),
            "audits": {digest: result for digest, (_, result) in sorted(record.items())}}
    with open(path, "wb") as f:
        pickle.dump(data, f, protocol=5)


def estimated_seconds(n: int, schemes: Sequence[str], trials: int, s: float | None) -> float:
    """Server CPU seconds the audits of ``schemes`` take, roughly: 1.4 µs per trial, event and scheme (measured at
    n = 1,000 and 1,000 trials, six schemes: 8.2 s with the correlated attack), a third more with the correlated
    attack; PeGaSus's correlated attack releases each chain on its own (``lmdk.baselines.rows``): 22 µs more per
    trial and event (measured: 45 s at n = 1,000 and 2,000 trials)."""
    from lmdk.baselines.rows import ROW_BY_ROW

    rows = sum(scheme in ROW_BY_ROW for scheme in schemes) if s is not None else 0
    return n * trials * (1.4e-6 * len(schemes) * (1.0 if s is not None else 0.75) + 2.2e-5 * rows)


def flip_rule(cur) -> str | None:
    """The values rule a detector applied to find the current landmarks (the audit then adds neighbours that flip an
    event's landmark status, issue 33), or None for declared landmarks."""
    import streamlit as st

    from ui.session import state

    ss = st.session_state
    if ss.get(state.LANDMARKS_ORIGIN) != "data" or cur.series.kind != "values":
        return None
    return ss.get(state.LANDMARKS_RULE)


def dummy_methods(cur) -> tuple[str, ...]:
    """The dummy methods the position attack compares (optimal only where its exhaustive search fits)."""
    from lmdk.dummies import OPTIMAL_MAX_REGULAR

    methods = ("heuristic", "partitioned", "random")
    return (("optimal",) if cur.n - cur.landmarks.size <= OPTIMAL_MAX_REGULAR else ()) + methods


def clear() -> None:
    """Forget every remembered audit (tests)."""
    with _lock:
        _shared.clear()
    cache_scope.session_memo(MEMO).clear()


def as_dicts(results: dict) -> list[dict]:
    """The audits' JSON-ready dicts in the page's scheme order."""
    return [r.to_dict() for r in results.values()]


def to_json(results: dict, config: dict) -> str:
    """The download: the configuration and one audit per scheme, as ``lmdk audit --json`` writes them."""
    import json

    return json.dumps({"configuration": config, "audits": as_dicts(results)}, indent=2, ensure_ascii=False,
                      default=lambda v: v.item() if isinstance(v, np.generic) else str(v))
