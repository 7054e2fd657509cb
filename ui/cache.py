"""Bounded ``st.cache_data`` wrappers around the core, and the resolution of the current series.

Uploaded data is never cached across sessions: it is parsed once and kept in this session's
state only. Everything cached here is derived from bundled samples, synthetic seeds, or arrays
the session passes in (cache keys include the arrays, so one session never sees another's data
unless it passes the very same array).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from lmdk.present import views
from ui import state

MAX_ENTRIES = 64


@dataclass(frozen=True)
class Current:
    """The series every page works on, its identity token and its landmark set."""

    series: object  # lmdk.data.Series
    token: str  # changes whenever the underlying events change
    landmarks: np.ndarray  # sorted int64 indices

    @property
    def n(self) -> int:
        """Number of events."""
        return len(self.series)


@st.cache_data(max_entries=16, show_spinner=False)
def sample_series(name: str, n: int):
    """A bundled sample, cut to its first n events."""
    from lmdk import data

    return data.sample(name, n=n)


def sample_names() -> tuple[str, ...]:
    """Names of the bundled samples."""
    from lmdk import data

    return tuple(data.SAMPLES)


def sample_description(name: str) -> str:
    """Title and description of a bundled sample (synthetic ones say so)."""
    from lmdk import data

    info = data.SAMPLES[name]
    return f"**{info.title}** — {info.description}"


@st.cache_data(max_entries=16, show_spinner=False)
def synthetic(kind: str, n: int, fraction: float, distribution: str, correlation: float, seed: int):
    """A synthetic series and its synthetic landmark set, deterministic in the seed."""
    from lmdk import synthetic as syn

    rng = np.random.default_rng(seed)
    series = views.synthetic_series(kind, n, correlation, rng)
    return series, syn.landmarks(n, fraction, distribution, rng)


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def detect(token: str, detector: str, params: tuple, _series=None) -> np.ndarray:
    """Landmarks from a detector of lmdk.landmarks; ``token`` identifies the series in the cache key."""
    from lmdk import landmarks as lmk

    series = _series
    kw = dict(params)
    if detector == "threshold":
        out = lmk.by_threshold(series.values, below=kw.get("below"), above=kw.get("above"))
    elif detector == "percentile":
        out = lmk.by_percentile(series.values, kw["fraction"], kw["side"])
    elif detector == "fraction":
        out = lmk.by_fraction(series, kw["fraction"])
    elif detector == "contacts":
        out = lmk.by_contacts(series.contacts, list(kw["watchlist"]))
    elif detector == "stay_points":
        latlon = series.latlon()
        out = lmk.stay_points(series.seconds, latlon[:, 0], latlon[:, 1], kw["distance_m"], kw["duration_s"])
    else:
        raise ValueError(f"unknown detector {detector!r}")
    return np.asarray(out, dtype=np.int64)


def default_landmarks(cur_series, token: str) -> np.ndarray:
    """Landmarks a freshly loaded sample starts with: 20 % of its events chosen by lmdk.landmarks.by_fraction."""
    try:
        return detect(token, "fraction", (("fraction", 0.2),), _series=cur_series)
    except Exception:  # a detector that cannot handle this series: start with no landmarks
        return np.zeros(0, dtype=np.int64)


def current() -> Current | None:
    """Resolve the series and landmarks from the session state (None when an upload is missing/invalid)."""
    ss = st.session_state
    source = ss[state.SOURCE]
    synthetic_landmarks = None
    if source == "sample":
        names = sample_names()
        if ss[state.SAMPLE] not in names:
            ss[state.SAMPLE] = names[0]
        series = sample_series(ss[state.SAMPLE], int(ss[state.LENGTH]))
        identity = f"sample:{ss[state.SAMPLE]}"
    elif source == "synthetic":
        args = (ss[state.SYN_KIND], int(ss[state.SYN_N]), float(ss[state.SYN_FRACTION]),
                ss[state.SYN_DISTRIBUTION], float(ss[state.SYN_CORRELATION]), int(ss[state.SYN_SEED]))
        series, synthetic_landmarks = synthetic(*args)
        identity = "synthetic:" + ":".join(map(str, args))
    else:
        full = ss.get(state.SERIES_UPLOAD)
        if full is None:
            return None
        series = full.head(min(len(full), int(ss[state.LENGTH])))
        identity = f"upload:{full.source_hash}"  # the file's hash: the same file is the same data at any n
    token = f"{identity}:{len(series)}"
    if ss.get(state.LANDMARKS_TOKEN) == "url" and ss.get(state.LANDMARKS) is not None:
        lm = np.asarray(ss[state.LANDMARKS], dtype=np.int64)
        ss[state.LANDMARKS] = tuple(lm[lm < len(series)].tolist())
        ss[state.LANDMARKS_TOKEN] = token
    owner = ss.get(state.LANDMARKS_TOKEN)
    if owner != token and ss.get(state.LANDMARKS) is not None and str(owner).rsplit(":", 1)[0] == identity:
        keep_landmarks_in_range(len(series))  # the same data at another n: the user's landmarks stay
        ss[state.LANDMARKS_TOKEN] = token
    elif owner != token or ss.get(state.LANDMARKS) is None:
        lm = synthetic_landmarks if synthetic_landmarks is not None else default_landmarks(series, token)
        ss[state.LANDMARKS] = tuple(np.asarray(lm, dtype=np.int64).tolist())
        ss[state.LANDMARKS_TOKEN] = token
        ss[state.LANDMARKS_DEFAULT] = True
        ss[state.LANDMARK_UNDO], ss[state.LANDMARK_REDO] = [], []  # edits of other data do not apply here
    return Current(series=series, token=token, landmarks=np.asarray(ss[state.LANDMARKS], dtype=np.int64))


def undo_landmarks(redo: bool = False) -> None:
    """Step back (or forward) through the last landmark edits."""
    ss = st.session_state
    source, target = (state.LANDMARK_REDO, state.LANDMARK_UNDO) if redo else (state.LANDMARK_UNDO, state.LANDMARK_REDO)
    stack = list(ss.get(source, []))
    if not stack:
        return
    ss[target] = (ss.get(target, []) + [tuple(ss[state.LANDMARKS])])[-state.HISTORY_MAX:]
    ss[source] = stack[:-1]
    set_landmarks(stack[-1], f"{'Redone' if redo else 'Undone'}: {len(stack[-1]):,} landmarks.", history=False)


def keep_landmarks_in_range(n: int) -> None:
    """After n changed: keep the landmarks that lie in 0..n−1 and say what changed."""
    ss = st.session_state
    before = np.asarray(ss[state.LANDMARKS], dtype=np.int64)
    kept = before[before < n]
    ss[state.LANDMARKS] = tuple(kept.tolist())
    dropped = before.size - kept.size
    ss[state.LAST_EDIT] = (f"n changed to {n:,}: kept your {kept.size:,} landmarks"
                           + (f"; {dropped:,} beyond the new end were dropped." if dropped else "."))


def set_landmarks(landmarks, note: str = "", *, history: bool = True) -> None:
    """Replace the landmark set of the current series (the previous one goes on the undo stack)."""
    ss = st.session_state
    new = tuple(np.unique(np.asarray(landmarks, dtype=np.int64)).tolist())
    if history and ss.get(state.LANDMARKS) is not None and tuple(ss[state.LANDMARKS]) != new:
        ss[state.LANDMARK_UNDO] = (ss.get(state.LANDMARK_UNDO, []) + [tuple(ss[state.LANDMARKS])])[-state.HISTORY_MAX:]
        ss[state.LANDMARK_REDO] = []
    ss[state.LANDMARKS] = new
    ss[state.LANDMARKS_DEFAULT] = False
    if note:
        st.session_state[state.LAST_EDIT] = note


@st.cache_data(max_entries=MAX_ENTRIES, show_spinner=False)
def scheme_summary(
    token: str, x: np.ndarray, landmarks: np.ndarray, scheme: str, epsilon: float, mechanism: str,
    repetitions: int, seed: int, w: int, clamp_range: tuple[float, float] | None, options: tuple = (),
) -> views.ReleaseSummary:
    """Run one scheme ``repetitions`` times (lmdk.schemes.release) and summarise it for drawing; ``options``: the
    neighbouring relation's Δ, sampler and public range (``ui.relation.options``), as the exports use them."""
    from lmdk import schemes
    from lmdk.data.runconfig import scheme_rng

    release = schemes.release(x, landmarks, scheme, epsilon, mechanism=mechanism, repetitions=repetitions,
                              rng=scheme_rng(seed, scheme), w=w, **dict(options))
    return views.summarize(scheme, x, release, landmarks, epsilon, mechanism, clamp_range=clamp_range)
