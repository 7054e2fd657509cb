"""Bounded cache wrappers around the core (``ui.session.cache_scope.bounded_cache``), and the resolution of the
current series.

Uploaded data is never cached across sessions: it is parsed once and kept in this session's state only, and
while a session works on an upload every wrapper here memoises in that session (it goes when the session ends).
Everything in the shared ``st.cache_data`` is derived from bundled samples or synthetic seeds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

from lmdk.present import views
from ui.session import state
from ui.session.cache_scope import bounded_cache

if TYPE_CHECKING:
    from lmdk.data import Series

MAX_ENTRIES = 64


@dataclass(frozen=True)
class Current:
    """The series every page works on, its identity token and its landmark set."""

    series: Series
    token: str  # changes whenever the underlying events change
    landmarks: np.ndarray  # sorted int64 indices
    full_n: int = 0  # events of the whole (aggregated) sample/upload the window is taken from; 0: not windowed
    start: int = 0  # position of the window's first event in it
    aggregation: tuple | None = None  # (period, how, readings per period at the public reading interval) or None

    @property
    def n(self) -> int:
        """Number of events."""
        return len(self.series)


@bounded_cache(16)
def sample_series(name: str, n: int | None):
    """A bundled sample, cut to its first n events (None: the whole real sample)."""
    from lmdk import data

    return data.sample(name, n=n)


@bounded_cache(8)
def aggregated_sample(name: str, period: str, how: str | None):
    """The whole bundled sample (HUE: every row) aggregated hourly/daily (lmdk.data.resample.aggregate)."""
    from lmdk import data
    from lmdk.data import resample

    return resample.aggregate(data.sample(name, n=None), period, how)


def windowable(source: str, sample: str) -> bool:
    """Whether the source has a whole series to take a window of or to aggregate: uploads and the real samples
    (the synthetic ones are generated at the length asked for)."""
    if source == "upload":
        return True
    if source != "sample":
        return False
    from lmdk import data

    info = data.SAMPLES.get(sample)
    return info is not None and not info.synthetic


def _aggregation(series, period: str, how: str | None) -> tuple:
    """(period, how, readings per period) of an aggregation of ``series`` (its median step as the public
    reading interval: a meter's configuration)."""
    from lmdk.data import resample
    from lmdk.present.headlines import median_step_seconds

    how = how if how in resample.HOW.get(series.kind, ()) else resample.HOW.get(series.kind, ("sum",))[0]
    step = median_step_seconds(series.timestamps) or resample.PERIOD_SECONDS[period]
    return period, how, resample.readings_per_period(step, period)


def _aggregated_upload(full, period: str, how: str | None):
    """This session's upload aggregated (kept in the session: uploads are never cached across sessions)."""
    from lmdk.data import resample

    ss = st.session_state
    key = (full.source_hash, period, how)
    memo = ss.get(state.RESAMPLED)
    if memo is None or memo[0] != key:
        memo = (key, resample.aggregate(full, period, how))
        ss[state.RESAMPLED] = memo
    return memo[1]


def sample_names() -> tuple[str, ...]:
    """Names of the bundled samples."""
    from lmdk import data

    return tuple(data.SAMPLES)


def sample_description(name: str) -> str:
    """Title and description of a bundled sample (synthetic ones say so)."""
    from lmdk import data

    info = data.SAMPLES[name]
    return f"**{info.title}** — {info.description}"


@bounded_cache(16)
def synthetic(kind: str, n: int, fraction: float, distribution: str, correlation: float, seed: int):
    """A synthetic series and its synthetic landmark set, deterministic in the seed."""
    from lmdk import synthetic as syn

    rng = np.random.default_rng(seed)
    series = views.synthetic_series(kind, n, correlation, rng)
    return series, syn.landmarks(n, fraction, distribution, rng)


DISTRICT_RANGE = (0.0, 25.0)  # kWh: one home's public range (as the synthetic fleet's and the HUE sample's)
DISTRICT_RULE = "calendar:sun@09:00-12:00"  # declared landmarks of a district: never read from the data


@bounded_cache(8)
def district(users: int, n: int, statistic: str, seed: int):
    """A synthetic district (lmdk.data.district: ``sample:district``'s generator, from the HUE profile): one home's
    series, or the sum or mean over all homes per hour (lmdk.aggregate), with its declared landmarks."""
    from lmdk.aggregate import build
    from lmdk.data.district import district_table
    from lmdk.landmarks import parse_rule
    from lmdk.population.input import frame_source

    table = district_table(homes=users, hours=n, seed=seed)
    if statistic == "one":
        from lmdk.present.population import user_series

        series = user_series(frame_source(table), table["user"].iloc[0], name="home 0 of the district")
        series = type(series)(frame=series.frame, kind="values", units="kWh", name=series.name)
    else:
        agg = build(frame_source(table), statistic, value_range=DISTRICT_RANGE, bin="1h")
        series = agg.to_series(units="kWh")
        series = type(series)(frame=series.frame, kind="values", units="kWh",
                              name=f"the {statistic} over {users:,} homes of the district")
    return series, np.asarray(parse_rule(DISTRICT_RULE).indices(series), dtype=np.int64)


@bounded_cache(MAX_ENTRIES)
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


@bounded_cache(MAX_ENTRIES)
def _declared(token: str, rule: str, _series=None) -> np.ndarray:
    """The landmarks of a declared rule on the series ``token`` names (cached)."""
    from lmdk.landmarks import parse_rule

    return np.asarray(parse_rule(rule).indices(_series), dtype=np.int64)


def default_landmarks(cur_series, token: str) -> np.ndarray:
    """Landmarks a freshly loaded series starts with: the declared calendar rule ``lmdk.declared.calendar.DEFAULT_RULE``
    (night hours) — it does not read the values, so views and exports keep Theorem 2 as stated (issue 33)."""
    from lmdk.declared.calendar import DEFAULT_RULE

    try:
        return _declared(token, DEFAULT_RULE, _series=cur_series)
    except Exception:  # a series the rule cannot read (no clock times): start with no landmarks
        return np.zeros(0, dtype=np.int64)


def current() -> Current | None:
    """Resolve the series and landmarks from the session state (None when an upload is missing/invalid)."""
    ss = st.session_state
    source = ss[state.SOURCE]
    synthetic_landmarks = None
    full_n, start, aggregation = 0, 0, None
    period = ss.get(state.AGGREGATE, "none")
    if source == "sample":
        names = sample_names()
        if ss[state.SAMPLE] not in names:
            ss[state.SAMPLE] = names[0]
        identity = f"sample:{ss[state.SAMPLE]}"
        if windowable(source, ss[state.SAMPLE]) and (period != "none" or int(ss.get(state.START, 0)) > 0):
            from lmdk.data import resample

            whole = sample_series(ss[state.SAMPLE], None)
            if period != "none":
                aggregation = _aggregation(whole, period, ss.get(state.AGGREGATE_HOW))
                whole = aggregated_sample(ss[state.SAMPLE], period, aggregation[1])
                identity += f":{period}-{aggregation[1]}"
            full_n, start = len(whole), min(int(ss[state.START]), len(whole) - 1)
            series = resample.window(whole, start, int(ss[state.LENGTH]))
            identity += f"@{start}" if start else ""
        else:
            series = sample_series(ss[state.SAMPLE], int(ss[state.LENGTH]))
    elif source == "synthetic":
        args = (ss[state.SYN_KIND], int(ss[state.SYN_N]), float(ss[state.SYN_FRACTION]),
                ss[state.SYN_DISTRIBUTION], float(ss[state.SYN_CORRELATION]), int(ss[state.SYN_SEED]))
        series, synthetic_landmarks = synthetic(*args)
        identity = "synthetic:" + ":".join(map(str, args))
    elif source == "district":
        dist = (int(ss[state.DIST_USERS]), int(ss[state.DIST_N]), ss[state.DIST_STATISTIC], int(ss[state.DIST_SEED]))
        series, synthetic_landmarks = district(*dist)
        identity = "district:" + ":".join(map(str, dist))
    else:
        from lmdk.data import resample

        full = ss.get(state.SERIES_UPLOAD)
        if full is None:
            return None
        identity = f"upload:{full.source_hash}"  # the file's hash: the same file is the same data at any n
        whole = full
        if period != "none" and full.kind in resample.HOW:
            aggregation = _aggregation(full, period, ss.get(state.AGGREGATE_HOW))
            whole = _aggregated_upload(full, period, aggregation[1])
            identity += f":{period}-{aggregation[1]}"
        full_n, start = len(whole), min(int(ss.get(state.START, 0)), len(whole) - 1)
        series = resample.window(whole, start, int(ss[state.LENGTH]))
        identity += f"@{start}" if start else ""
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
        ss[state.LANDMARKS_ORIGIN] = "declared"
        ss[state.LANDMARK_UNDO], ss[state.LANDMARK_REDO] = [], []  # edits of other data do not apply here
    return Current(series=series, token=token, landmarks=np.asarray(ss[state.LANDMARKS], dtype=np.int64),
                   full_n=full_n, start=start, aggregation=aggregation)


def undo_landmarks(redo: bool = False) -> None:
    """Step back (or forward) through the last landmark edits."""
    ss = st.session_state
    source, target = (state.LANDMARK_REDO, state.LANDMARK_UNDO) if redo else (state.LANDMARK_UNDO, state.LANDMARK_REDO)
    stack = list(ss.get(source, []))
    if not stack:
        return
    ss[target] = (ss.get(target, []) + [_undo_entry()])[-state.HISTORY_MAX:]
    ss[source] = stack[:-1]
    positions, origin = stack[-1]  # the set comes back with its origin: a detector's set stays "data" (issue 33),
    # one marked on the values' chart "viewed" (issue 53)
    set_landmarks(positions, f"{'Redone' if redo else 'Undone'}: {len(positions):,} landmarks.", history=False,
                  origin=origin)


def _undo_entry() -> tuple[tuple, str]:
    """The current landmark set and its origin, as the undo and redo stacks keep them."""
    ss = st.session_state
    origin = ss.get(state.LANDMARKS_ORIGIN)
    return tuple(ss[state.LANDMARKS]), origin if origin in state.DATA_DERIVED_ORIGINS else "declared"


def keep_landmarks_in_range(n: int) -> None:
    """After n changed: keep the landmarks that lie in 0..n−1 and say what changed."""
    ss = st.session_state
    before = np.asarray(ss[state.LANDMARKS], dtype=np.int64)
    kept = before[before < n]
    ss[state.LANDMARKS] = tuple(kept.tolist())
    dropped = before.size - kept.size
    ss[state.LAST_EDIT] = (f"n changed to {n:,}: kept your {kept.size:,} landmarks"
                           + (f"; {dropped:,} beyond the new end were dropped." if dropped else "."))


def set_landmarks(landmarks, note: str = "", *, history: bool = True, origin: str | None = None) -> None:
    """Replace the landmark set of the current series (the previous one goes on the undo stack); ``origin``
    "data" when a detector read the values, "viewed" when marked on their chart, "declared" when they were given
    (None: unchanged)."""
    ss = st.session_state
    new = tuple(np.unique(np.asarray(landmarks, dtype=np.int64)).tolist())
    if history and ss.get(state.LANDMARKS) is not None and tuple(ss[state.LANDMARKS]) != new:
        ss[state.LANDMARK_UNDO] = (ss.get(state.LANDMARK_UNDO, []) + [_undo_entry()])[-state.HISTORY_MAX:]
        ss[state.LANDMARK_REDO] = []
    ss[state.LANDMARKS] = new
    ss[state.LANDMARKS_DEFAULT] = False
    if origin is not None:
        ss[state.LANDMARKS_ORIGIN] = origin
    if note:
        st.session_state[state.LAST_EDIT] = note


@bounded_cache(MAX_ENTRIES)
def scheme_summary(
    token: str, x: np.ndarray, landmarks: np.ndarray, scheme: str, epsilon: float, mechanism: str,
    repetitions: int, seed: int, w: int, clamp_range: tuple[float, float] | None, options: tuple = (),
) -> views.ReleaseSummary:
    """Run one scheme ``repetitions`` times (lmdk.schemes.release) and summarise it for drawing; ``options``: the
    neighbouring relation's Δ, sampler and public range (``ui.session.relation.options``), as the exports use them."""
    return _summary(x, landmarks, scheme, epsilon, mechanism, repetitions, seed, w, clamp_range, options)


def data_key(token: str, *arrays: np.ndarray) -> str:
    """A short cache key for the series ``token`` names and arrays derived from it (the landmarks, the mechanism
    input): their digest, so a cached call hashes one string instead of every array on each run."""
    from ui.session.cache_scope import digest

    return f"{token}#{digest(arrays, {})}"


@bounded_cache(MAX_ENTRIES)
def scheme_summaries(
    key: str, schemes: tuple[str, ...], epsilon: float, mechanism: str, repetitions: int, seed: int, w: int,
    clamp_range: tuple[float, float] | None, options: tuple = (), _x: np.ndarray | None = None,
    _landmarks: np.ndarray | None = None,
) -> dict[str, views.ReleaseSummary]:
    """``scheme_summary`` of every scheme in ``schemes`` in one cached call (one key to hash and one entry per ε);
    ``key``: ``data_key(token, x, landmarks)``, which identifies ``_x`` and ``_landmarks`` (left out of the hash)."""
    return {s: _summary(_x, _landmarks, s, epsilon, mechanism, repetitions, seed, w, clamp_range, options)
            for s in schemes}


def _summary(x, landmarks, scheme, epsilon, mechanism, repetitions, seed, w, clamp_range, options):
    """One scheme's release (its own Generator from the seed: ``lmdk.exports.runconfig.scheme_rng``), summarised.
    With the exact discrete Laplace, the noise's budget-free parts of the seed are drawn once (``noise_parts``) and
    every ε only floors them: the same numbers as from the Generator, without its draws on each ε change."""
    from lmdk import schemes
    from lmdk.exports.runconfig import scheme_rng

    ahead = _reuses_noise(scheme, mechanism, repetitions, np.shape(x)[0], options)
    drawn = ({"discrete_noise": _unpacked(noise_parts(seed, scheme, repetitions, np.shape(x)[0]))} if ahead
             else {"rng": scheme_rng(seed, scheme)})
    release = schemes.release(x, landmarks, scheme, epsilon, mechanism=mechanism, repetitions=repetitions, w=w,
                              **drawn, **dict(options))
    return views.summarize(scheme, x, release, landmarks, epsilon, mechanism, clamp_range=clamp_range)


NOISE_CELLS_KEPT = 60_000
"""Repetitions × events up to which a seed's noise parts are kept between ε changes (7 bytes a cell: 420 kB at most
per scheme and seed, so links crafted to fill the cache hold it under 300 MB); a longer run draws them on each
change."""


def _reuses_noise(scheme: str, mechanism: str, repetitions: int, n: int, options: tuple) -> bool:
    """Whether the release draws the exact discrete Laplace (a landmark scheme on values with a public range) and is
    small enough for its noise parts to be kept."""
    from lmdk import schemes

    if scheme not in schemes.SCHEMES or mechanism != "laplace" or repetitions * n > NOISE_CELLS_KEPT:
        return False
    calibration = dict(options)["protects"].calibration(mechanism)
    return calibration.sampler == "discrete" and calibration.value_range is not None


@st.cache_resource(max_entries=6 * 120, ttl=3600, show_spinner=False)
def noise_parts(seed: int, scheme: str, repetitions: int, n: int) -> tuple:
    """The packed noise parts (``LockstepNoise.pack``) that ``schemes.release`` draws first from the scheme's
    Generator of ``seed``: drawn once per seed, scheme and size for every session (they depend on no data: a view's
    seed is in its link), read-only; 6 schemes × 120 seeds: 150 MB at 30 × 1,000 events, 300 MB at most."""
    from lmdk import schemes
    from lmdk.exports.runconfig import scheme_rng

    packed = schemes.draw_noise(scheme_rng(seed, scheme), repetitions, n).pack()
    for part in packed[:4]:
        part.flags.writeable = False
    return packed


def _unpacked(packed: tuple):
    """The noise of ``noise_parts``, its rows' Generators at their start."""
    from lmdk.discrete_lockstep import LockstepNoise

    return LockstepNoise.unpack(packed)


def event_words(cur: Current) -> str:
    """What one event of the series is called in headlines ("hours", "days", "readings", …;
    ``lmdk.present.headlines.event_word``), worked out once per series rather than on every ε change (issue 34)."""
    return _event_words(cur.token, cur.series.kind, cur.series.timestamps)


@bounded_cache(MAX_ENTRIES)
def _event_words(token: str, kind: str, _timestamps) -> str:
    """``event_words`` of the series ``token`` names."""
    from lmdk.present.headlines import event_word, median_step_seconds

    return event_word(kind, median_step_seconds(_timestamps))


def run_key(*parts) -> str:
    """One string naming a Monte-Carlo run or configuration by everything that fixes it (``data_key``, the schemes,
    ε, the seed, …): the key under which ``drawn`` and ``chart_text`` keep what is built from it."""
    from ui.session.cache_scope import digest

    return digest(parts, {})
