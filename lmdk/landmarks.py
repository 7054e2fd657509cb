"""Landmark detection: thresholds, percentiles, contact watchlists, stay points, target fractions.

Every detector returns a sorted array of unique int64 event indices (positions 0..n−1), the
landmark set L of §3 of the landmark-privacy paper. §4.1.2 sets the landmark percentage per data
set: HUE — consumption below a threshold; T-drive — stay points (Li et al. 2008, ref. [25]) at a
fixed duration of 30 minutes and a varying distance; Copenhagen — a watchlist of contact ids
extended in ascending id order.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lmdk.data.series import epoch_ns
from lmdk.declared.files import read_text
from lmdk.errors import ParameterError

EARTH_RADIUS_M = 6_371_008.8
"""Mean Earth radius (IUGG) used for great-circle distances."""
PAPER_STAY_DURATION_S = 30 * 60
"""§4.1.2: T-drive landmark percentages use stay points with Δt = 30 minutes."""

_EMPTY = np.zeros(0, dtype=np.int64)


def as_indices(indices, n: int | None = None, *, name: str = "indices") -> np.ndarray:
    """Sorted unique int64 indices from an index list or a boolean mask (checked against ``n``)."""
    arr = np.asarray(indices)
    if arr.dtype == bool:
        if n is not None and arr.shape != (n,):
            raise ParameterError(f"{name}: a boolean mask needs length {n}, got shape {arr.shape}")
        return np.flatnonzero(arr).astype(np.int64)
    arr = arr.reshape(-1)
    if arr.size == 0:
        return _EMPTY.copy()
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise ParameterError(f"{name} must be whole-number event positions, got dtype {arr.dtype}")
    out = np.unique(arr.astype(np.int64))
    if out[0] < 0 or (n is not None and out[-1] >= n):
        bound = f"0..{n - 1}" if n is not None else "≥ 0"
        raise ParameterError(f"{name} must lie in {bound}; got {int(out[0])}..{int(out[-1])}")
    return out


def merge(a, b, n: int | None = None) -> np.ndarray:
    """Union of two landmark sets (e.g. detected plus manually marked)."""
    return np.union1d(as_indices(a, n, name="a"), as_indices(b, n, name="b")).astype(np.int64)


def toggle(current, indices, n: int | None = None) -> np.ndarray:
    """Flip membership of ``indices`` in ``current`` (a click on the timeline or map)."""
    return np.setxor1d(as_indices(current, n, name="current"),
                       as_indices(indices, n, name="indices")).astype(np.int64)


def _finite_values(values) -> np.ndarray:
    """A 1-D finite float array from values or a values Series."""
    arr = np.asarray(getattr(values, "values", values) if _is_series(values) else values,
                     dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(arr)):
        raise ParameterError("values must be finite numbers (found NaN or infinity)")
    return arr


def by_threshold(values, below: float | None = None, above: float | None = None) -> np.ndarray:
    """Events with value ≤ ``below`` or ≥ ``above`` (§4.1.2: HUE landmarks are "below a threshold")."""
    if below is None and above is None:
        raise ParameterError("by_threshold needs below=…, above=… or both")
    arr = _finite_values(values)
    mask = np.zeros(arr.shape, dtype=bool)
    if below is not None:
        mask |= arr <= float(below)
    if above is not None:
        mask |= arr >= float(above)
    return np.flatnonzero(mask).astype(np.int64)


def by_percentile(values, fraction: float, side: str = "below") -> np.ndarray:
    """Exactly round(fraction·n) events: the smallest (side="below") or largest ("above") values.

    Ties are broken by position (earlier events first), so the count is exact.
    """
    fraction = _fraction(fraction)
    if side not in ("below", "above"):
        raise ParameterError(f"side must be 'below' or 'above', not {side!r}")
    arr = _finite_values(values)
    k = int(round(fraction * arr.size))
    order = np.argsort(arr if side == "below" else -arr, kind="stable")
    return np.sort(order[:k]).astype(np.int64)


def by_contacts(ids, watchlist) -> np.ndarray:
    """Events whose contact id is on the watchlist (§4.1.2, Copenhagen)."""
    arr = np.asarray(getattr(ids, "contacts", ids) if _is_series(ids) else ids).reshape(-1)
    watch = np.asarray(list(watchlist) if not isinstance(watchlist, np.ndarray) else watchlist)
    if watch.size == 0:
        return _EMPTY.copy()
    if arr.dtype.kind in "iu" and watch.dtype.kind not in "iu":
        try:
            watch = watch.astype(np.int64)
        except (TypeError, ValueError):
            raise ParameterError("watchlist must hold contact ids of the same type as the series "
                                 "(integers)") from None
    return np.flatnonzero(np.isin(arr, watch)).astype(np.int64)


# -- stay points (Li et al. 2008) --------------------------------------------------------------
def _seconds(times) -> np.ndarray:
    """Event times as float seconds (datetimes, DatetimeIndex or numbers)."""
    if isinstance(times, pd.DatetimeIndex) or (isinstance(times, pd.Series)
                                               and pd.api.types.is_datetime64_any_dtype(times.dtype)):
        return epoch_ns(times).astype(np.float64) / 1e9
    arr = np.asarray(times)
    if arr.dtype.kind == "M":
        return arr.astype("datetime64[ns]").astype(np.int64).astype(np.float64) / 1e9
    if arr.dtype.kind == "O":
        return epoch_ns(arr).astype(np.float64) / 1e9
    return arr.astype(np.float64).reshape(-1)


def _unit_vectors(lat, lon) -> np.ndarray:
    """Points on the unit sphere (n, 3); chord length is monotone in great-circle distance."""
    phi, lam = np.radians(lat), np.radians(lon)
    cos_phi = np.cos(phi)
    return np.column_stack([cos_phi * np.cos(lam), cos_phi * np.sin(lam), np.sin(phi)])


def _chord2(distance_m: float) -> float:
    """Squared unit-sphere chord of a great-circle distance (≥ 4 when it spans the globe)."""
    angle = min(distance_m / EARTH_RADIUS_M, np.pi)
    return float((2.0 * np.sin(angle / 2.0)) ** 2) * (1 + 1e-12) + 1e-24


def _check_track(times, lat, lon) -> tuple[np.ndarray, np.ndarray]:
    """Validate a trajectory; return (seconds, unit vectors)."""
    t = _seconds(times)
    lat = np.asarray(lat, dtype=np.float64).reshape(-1)
    lon = np.asarray(lon, dtype=np.float64).reshape(-1)
    if not (t.size == lat.size == lon.size):
        raise ParameterError(f"times, lat and lon need equal lengths, got {t.size}, {lat.size}, {lon.size}")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(lat)) and np.all(np.isfinite(lon))):
        raise ParameterError("times, lat and lon must be finite (no NaN/NaT)")
    if np.any(np.diff(t) < 0):
        raise ParameterError("times must be sorted ascending (sort the trajectory by time first)")
    if np.any(np.abs(lat) > 90) or np.any(np.abs(lon) > 180):
        raise ParameterError("lat must lie in [-90, 90] and lon in [-180, 180] degrees")
    return t, _unit_vectors(lat, lon)


_PREFIX_OFFSETS = 128  # offsets checked for every anchor at once; longer windows are resolved lazily
_CELLS = 1 << 20  # anchors × offsets per vectorised block (bounds temporary memory)


def _window_states(t, p, limit2: float, duration_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Classify anchors: 0 no stay, 1 stay (window checked), 2 undecided (window > prefix offsets).

    An anchor i starts a stay iff every point up to q[i] — the first point more than
    ``duration_s`` after t[i] — is within reach. Returns (state, q).
    """
    n = t.size
    q = np.searchsorted(t, t + duration_s, side="right")
    state = np.zeros(n, dtype=np.int8)
    anchors = np.flatnonzero(q < n)  # a stay needs a point later than duration_s
    for lo in range(0, anchors.size, max(1, _CELLS // _PREFIX_OFFSETS)):
        active = anchors[lo:lo + max(1, _CELLS // _PREFIX_OFFSETS)]
        offset, block = 1, 4
        while active.size and offset <= _PREFIX_OFFSETS:
            span = q[active] - active  # offsets to check: 1..span
            ks = offset + np.arange(block)
            j = np.minimum(active[:, None] + ks[None, :], n - 1)
            d2 = np.sum((p[j] - p[active, None, :]) ** 2, axis=2)
            failed = np.any((d2 > limit2) & (ks[None, :] <= span[:, None]), axis=1)
            done = ~failed & (offset + block > span)
            state[active[done]] = 1
            active = active[~failed & ~done]
            offset += block
            block = min(block * 2, _PREFIX_OFFSETS + 1 - offset) or 1
        state[active] = 2
    return state, q


def _exit_index(p, i: int, start: int, limit2: float) -> int:
    """First j ≥ start with the point j farther than the limit from anchor i (n if none)."""
    n = p.shape[0]
    step = 32
    while start < n:
        stop = min(start + step, n)
        d2 = np.sum((p[start:stop] - p[i]) ** 2, axis=1)
        outside = np.flatnonzero(d2 > limit2)
        if outside.size:
            return start + int(outside[0])
        start, step = stop, min(step * 2, 65536)
    return n


def stay_segments(times, lat, lon, distance_m: float, duration_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Stays of Li et al. 2008 (ref. [25], §4.1.2) as (starts, ends) with ends exclusive.

    From anchor i, the stay grows while points remain within ``distance_m`` (great-circle) of p_i;
    it is a stay when the time from p_i to the last point within reach exceeds ``duration_s``,
    and the scan resumes after it; otherwise it resumes at i+1. Unlike the original pseudocode a
    stay still open at the end of the trajectory is kept.
    """
    if not np.isfinite(distance_m) or distance_m < 0:
        raise ParameterError(f"distance_m must be a finite distance ≥ 0 metres, not {distance_m!r}")
    if not np.isfinite(duration_s) or duration_s < 0:
        raise ParameterError(f"duration_s must be a finite duration ≥ 0 seconds, not {duration_s!r}")
    t, p = _check_track(times, lat, lon)
    n = t.size
    if n < 2:
        return _EMPTY.copy(), _EMPTY.copy()
    limit2 = _chord2(float(distance_m))
    state, q = _window_states(t, p, limit2, float(duration_s))
    nxt = np.minimum.accumulate(np.where(state > 0, np.arange(n), n)[::-1])[::-1]
    nxt = np.append(nxt, n)
    starts, ends = [], []
    i = int(nxt[0])
    while i < n:
        if state[i] == 1:
            end = _exit_index(p, i, int(q[i]) + 1, limit2)
        else:  # undecided: scan on from the prefix; a stay iff the exit comes after q[i]
            end = _exit_index(p, i, i + _PREFIX_OFFSETS + 1, limit2)
            if end <= q[i]:
                i = int(nxt[i + 1])
                continue
        starts.append(i)
        ends.append(end)
        i = int(nxt[end])
    return np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)


def stay_points(times, lat, lon, distance_m: float, duration_s: float) -> np.ndarray:
    """Indices of the events that belong to a stay (see ``stay_segments``)."""
    starts, ends = stay_segments(times, lat, lon, distance_m, duration_s)
    n = np.asarray(lat).size
    marks = np.zeros(n + 1, dtype=np.int64)
    np.add.at(marks, starts, 1)
    np.add.at(marks, ends, -1)
    return np.flatnonzero(np.cumsum(marks)[:n] > 0).astype(np.int64)


# -- target landmark fraction ------------------------------------------------------------------
@dataclass(frozen=True)
class FractionFit:
    """The landmark set chosen for a target fraction and the detector parameter that gives it."""

    indices: np.ndarray
    target: float
    achieved: float
    detector: str  # "threshold" | "stay_points" | "contacts"
    parameter: dict = field(default_factory=dict)


def _fraction(fraction) -> float:
    """Validate a landmark fraction in [0, 1]."""
    try:
        value = float(fraction)
    except (TypeError, ValueError):
        raise ParameterError(f"fraction must be a number in [0, 1], not {fraction!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ParameterError(f"fraction must lie in [0, 1] (e.g. 0.2 for 20 % landmarks), not {fraction!r}")
    return value


def _is_series(obj) -> bool:
    """Duck-type check for ``lmdk.data.Series`` (avoids importing the data layer)."""
    return hasattr(obj, "kind") and hasattr(obj, "frame")


def fit_fraction(values_or_series, fraction: float, *,
                 duration_s: float = PAPER_STAY_DURATION_S) -> FractionFit:
    """Choose the detector parameter whose landmark share is closest to ``fraction`` (§4.1.2).

    values → threshold "below"; trajectory → stay-point distance at fixed ``duration_s``;
    contacts → watchlist of contact ids added in ascending order (valid ids first, then −2, −1).
    Ties prefer the smaller parameter.
    """
    target = _fraction(fraction)
    obj = values_or_series
    kind = obj.kind if _is_series(obj) else "values"
    if kind == "trajectory":
        latlon = obj.latlon()
        return _fit_stays(obj.seconds, latlon[:, 0], latlon[:, 1], target, float(duration_s))
    if kind == "contacts":
        return _fit_watchlist(obj.contacts, target)
    return _fit_threshold(_finite_values(obj), target)


def by_fraction(values_or_series, fraction: float, *,
                duration_s: float = PAPER_STAY_DURATION_S) -> np.ndarray:
    """Landmark indices whose share is closest to ``fraction`` (see ``fit_fraction``)."""
    return fit_fraction(values_or_series, fraction, duration_s=duration_s).indices


def _fit_threshold(arr: np.ndarray, target: float) -> FractionFit:
    """Threshold "below" (value ≤ threshold) whose share is closest to the target."""
    n = arr.size
    k = int(round(target * n))
    if n == 0 or k == 0:
        below = float(arr.min()) - 1.0 if n else 0.0
        return FractionFit(_EMPTY.copy(), target, 0.0, "threshold", {"below": below})
    sorted_v = np.sort(arr)
    options = [sorted_v[k - 1]]
    lower = sorted_v[sorted_v < sorted_v[k - 1]]
    if lower.size:
        options.insert(0, lower[-1])
    counts = [int(np.searchsorted(sorted_v, v, side="right")) for v in options]
    best = min(range(len(options)), key=lambda m: (abs(counts[m] - k), m))
    below = float(options[best])
    indices = by_threshold(arr, below=below)
    return FractionFit(indices, target, indices.size / n, "threshold", {"below": below})


def _fit_watchlist(ids: np.ndarray, target: float) -> FractionFit:
    """Watchlist built in ascending id order (§4.1.2), skipping ids that would overshoot the target.

    First fit: an id joins while the landmark count stays ≤ the target; then the one skipped id
    that brings the count closest to the target joins if it helps. When the ascending prefix
    hits the target exactly, this is the paper's prefix list.
    """
    n = ids.size
    uniques, counts = np.unique(ids, return_counts=True)
    if uniques.dtype.kind in "iu":  # valid ids ascending, then the sentinels −2, −1
        valid = uniques >= 0
        order = np.concatenate([np.flatnonzero(valid), np.flatnonzero(~valid)])
        uniques, counts = uniques[order], counts[order]
    k = target * n
    chosen = np.zeros(uniques.size, dtype=bool)
    total = 0
    for m, count in enumerate(counts.tolist()):
        if total + count <= k + 1e-9:
            chosen[m] = True
            total += count
    rest = np.flatnonzero(~chosen)
    if rest.size:
        m = rest[np.argmin(np.abs(total + counts[rest] - k))]
        if abs(total + counts[m] - k) < abs(total - k):
            chosen[m] = True
    watchlist = uniques[chosen]
    indices = by_contacts(ids, watchlist)
    return FractionFit(indices, target, indices.size / max(n, 1), "contacts",
                       {"watchlist": tuple(w.item() if hasattr(w, "item") else w for w in watchlist)})


def _fit_stays(t, lat, lon, target: float, duration_s: float) -> FractionFit:
    """Whole-metre stay-point distance at fixed duration closest to the target (bisection to ~0.1 %)."""
    n = t.size
    k = target * n
    evaluated: dict[int, np.ndarray] = {}

    def run(distance: int) -> int:
        """Number of stay-point events at ``distance`` metres (memoised)."""
        if distance not in evaluated:
            evaluated[distance] = stay_points(t, lat, lon, distance, duration_s)
        return evaluated[distance].size

    p = _unit_vectors(lat, lon)
    spread = float(np.sqrt(np.max(np.sum((p - p[0]) ** 2, axis=1)))) if n else 0.0
    hi = int(np.ceil(2 * EARTH_RADIUS_M * np.arcsin(min(spread / 2, 1.0)) * 2)) + 1
    lo = 0
    if run(lo) < k <= run(hi):
        lo, hi = (1, hi) if run(1) < k else (lo, 1)
        while hi - lo > max(1, hi // 1024):  # ~0.1 % distance resolution keeps big traces fast
            mid = (lo + hi) // 2 if hi < 4 * lo else int(np.sqrt(lo * (hi + 1.0)))  # geometric first
            count = run(mid)
            if count == round(k):
                break
            lo, hi = (mid, hi) if count < k else (lo, mid)
    best = min(evaluated, key=lambda d: (abs(evaluated[d].size - k), d))
    indices = evaluated[best]
    return FractionFit(indices, target, indices.size / max(n, 1), "stay_points",
                       {"distance_m": float(best), "duration_s": float(duration_s)})


# -- landmark rules as text (command line, population policies) ----------------------------------
RULE_KINDS = ("none", "below", "above", "percentile", "share", "stay", "contacts", "file", "calendar", "ics", "times",
              "place")
DATA_DEPENDENT_KINDS = ("below", "above", "percentile", "share", "stay", "contacts", "place")
PATH_KINDS = ("contacts", "file", "ics", "times")  # rules naming a file: the command line reads it, the app never
"""Rules that read the data being released to decide whether an event is a landmark: a change of one event's
value (location, contact) can change the landmark set itself, which Theorem 2 takes as fixed in advance."""
RULE_HELP = ("below:0.54 | above:1.1 | percentile:20 (lowest 20 %) | percentile:20:above | share:20 "
             "(closest to 20 % of events, any kind of series) | stay:30min[:200m] | contacts:watchlist.txt | "
             "file:landmarks.json|csv (indices) | calendar:sun@09:00-12:00 (declared windows) | ics:calendar.ics (a "
             "person's appointments) | times:times.txt (declared date/times) | place:LAT,LON,RADIUS_M (events near a "
             "declared place) | none")
DEFAULT_STAY_DISTANCE_M = 200.0
"""Stay-point distance of a ``stay:`` rule that names none (a common choice for GeoLife-like traces)."""
_DURATION_UNITS = {"s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600, "hour": 3600, "d": 86400}


@dataclass(frozen=True)
class LandmarkRule:
    """A policy's landmark rule (parsed from text such as ``percentile:20``); ``indices`` applies it to a series."""

    kind: str
    number: float | None = None
    side: str = "below"
    distance_m: float | None = None
    path: str | None = None
    spec: str | None = None  # the calendar: rule's text
    place: tuple[float, float] | None = None  # place: (lat, lon) in degrees; distance_m its radius

    @property
    def data_dependent(self) -> bool:
        """True when the rule reads the values (locations, contacts) being released to choose the landmarks."""
        return self.kind in DATA_DEPENDENT_KINDS

    def indices(self, series, tz: str | None = None) -> np.ndarray:
        """Landmark positions of ``series`` (an ``lmdk.data.Series``) under this rule; ``tz``: the zone whose wall
        clock a calendar rule's windows are read in (naive times: their zone)."""
        n = len(series)
        if self.kind == "none":
            return _EMPTY.copy()
        if self.kind == "calendar":
            from lmdk.declared.calendar import parse

            return parse(self.spec or "").indices(series, tz)
        if self.kind in ("ics", "times"):
            from lmdk.declared.marks import positions

            return positions(self.kind, self._path(), series, tz)
        if self.kind == "place":
            _require_kind(series, "trajectory", self.kind)
            latlon = series.latlon()
            return near_place(latlon[:, 0], latlon[:, 1], self.place or (0.0, 0.0), self.distance_m or 0.0)
        if self.kind in ("below", "above"):
            _require_kind(series, "values", self.kind)
            return by_threshold(series.values, **{self.kind: self.required_number()})
        if self.kind == "percentile":
            _require_kind(series, "values", self.kind)
            return by_percentile(series.values, self.required_number() / 100.0, self.side)
        if self.kind == "share":
            return by_fraction(series, self.required_number() / 100.0)
        if self.kind == "stay":
            _require_kind(series, "trajectory", self.kind)
            latlon = series.latlon()
            distance = self.distance_m if self.distance_m is not None else DEFAULT_STAY_DISTANCE_M
            return stay_points(series.seconds, latlon[:, 0], latlon[:, 1], distance, self.required_number())
        if self.kind == "contacts":
            _require_kind(series, "contacts", self.kind)
            return by_contacts(series.contacts, _read_watchlist(self._path()))
        return as_indices(_read_indices(self._path()), n, name=f"landmark file {self.path}")

    def required_number(self) -> float:
        """The rule's number (threshold, percentage or stay duration), which its kind needs."""
        if self.number is None:
            raise ParameterError(f"the landmark rule {self.kind!r} needs a number (number=…), e.g. {RULE_HELP}")
        return self.number

    def _path(self) -> str:
        """The rule's file (watchlist or indices), which its kind needs."""
        if self.path is None:
            raise ParameterError(f"the landmark rule {self.kind!r} needs a file (path=…), e.g. {RULE_HELP}")
        return self.path


def _require_kind(series, kind: str, rule: str) -> None:
    """Refuse a rule that does not apply to the series' kind, naming both."""
    if getattr(series, "kind", "values") != kind:
        raise ParameterError(f"landmark rule '{rule}' needs a {kind} series; this one holds {series.kind} "
                             f"(use share:P for any kind)")


def _number(text: str, rule: str, low: float | None = None, high: float | None = None) -> float:
    """A finite number for ``rule``, within [low, high] when given."""
    try:
        value = float(text)
    except ValueError:
        raise ParameterError(f"landmark rule '{rule}': {text!r} is not a number") from None
    if not np.isfinite(value) or (low is not None and value < low) or (high is not None and value > high):
        bounds = f" in {low:g}..{high:g}" if low is not None and high is not None else ""
        raise ParameterError(f"landmark rule '{rule}': {text!r} must be a finite number{bounds}")
    return value


def _duration_s(text: str, rule: str) -> float:
    """Seconds from '30min', '2h', '90s' or a bare number of seconds."""
    digits = text.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = text[len(digits):] or "s"
    if unit not in _DURATION_UNITS:
        raise ParameterError(f"landmark rule '{rule}': unknown duration unit {unit!r}; use s, min, h or d")
    return _number(digits, rule, 0.0, None) * _DURATION_UNITS[unit]


def parse_rule(text: str) -> LandmarkRule:
    """Parse a landmark rule (``RULE_HELP`` lists the forms); errors name the rule and the fix."""
    raw = str(text).strip()
    kind, _, rest = raw.partition(":")
    kind = kind.lower()
    if kind not in RULE_KINDS:
        raise ParameterError(f"unknown landmark rule {raw!r}; use one of: {RULE_HELP}")
    parts = rest.split(":") if rest else []
    if kind == "none":
        return LandmarkRule("none")
    if kind == "calendar":
        from lmdk.declared.calendar import parse

        return LandmarkRule("calendar", spec=parse(raw).text)
    if kind == "place":
        return _place(rest, raw)
    if kind in PATH_KINDS:
        if not rest:
            raise ParameterError(f"landmark rule '{kind}' needs a file: {kind}:PATH")
        return LandmarkRule(kind, path=rest)
    if not parts:
        raise ParameterError(f"landmark rule '{kind}' needs a value, e.g. {RULE_HELP}")
    if kind in ("below", "above"):
        return LandmarkRule(kind, number=_number(parts[0], raw))
    if kind in ("percentile", "share"):
        side = parts[1].lower() if len(parts) > 1 else "below"
        if side not in ("below", "above"):
            raise ParameterError(f"landmark rule {raw!r}: the side must be 'below' or 'above', not {side!r}")
        return LandmarkRule(kind, number=_number(parts[0], raw, 0.0, 100.0), side=side)
    distance = None
    if len(parts) > 1:
        distance = _number(parts[1].lower().removesuffix("m"), raw, 0.0, None)
    return LandmarkRule("stay", number=_duration_s(parts[0].lower(), raw), distance_m=distance)


def web_rule(text: str) -> LandmarkRule:
    """``parse_rule`` for a link or a box of the app: a rule naming a file (PATH_KINDS) is refused unread."""
    if (kind := str(text).strip().partition(":")[0].lower()) in PATH_KINDS:
        raise ParameterError(f"landmark rule '{kind}:…': the app reads no file on its server; use calendar: "
                             f"windows or another rule without a path ({kind}:PATH is for the command line)")
    return parse_rule(text)


def _place(text: str, rule: str) -> LandmarkRule:
    """A ``place:LAT,LON,RADIUS_M`` rule."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3:
        raise ParameterError(f"landmark rule {rule!r}: give place:LAT,LON,RADIUS_M, e.g. place:52.52,13.40,200")
    lat, lon = _number(parts[0], rule, -90.0, 90.0), _number(parts[1], rule, -180.0, 180.0)
    radius = _number(parts[2].lower().removesuffix("m"), rule, 0.0, None)
    return LandmarkRule("place", place=(lat, lon), distance_m=radius)


def near_place(lat, lon, place: tuple[float, float], radius_m: float) -> np.ndarray:
    """Events within ``radius_m`` metres (great circle) of ``place`` (lat, lon degrees)."""
    points = _unit_vectors(np.asarray(lat, dtype=np.float64), np.asarray(lon, dtype=np.float64))
    centre = _unit_vectors(np.array([place[0]]), np.array([place[1]]))
    return np.flatnonzero(np.sum((points - centre) ** 2, axis=1) <= _chord2(float(radius_m))).astype(np.int64)


def _read_watchlist(path: str) -> list:
    """Contact ids, one per line or separated by commas/whitespace; integers where they all are."""
    tokens = [t for t in read_text(path, "watchlist").replace(",", " ").split() if t]
    try:
        return [int(t) for t in tokens]
    except ValueError:
        return tokens


def _read_indices(path: str) -> list[int]:
    """Landmark positions from the app's landmark JSON ({"landmarks": [...]}) or a list of integers."""
    return landmark_positions(read_text(path, "landmark file"), name=f"the landmark file {path!r}").tolist()


def landmark_positions(text: str, timestamps=None, *, name: str = "the landmark file") -> np.ndarray:
    """Landmarks from text: the app's landmark JSON, a JSON list, or one value per line/comma — event positions,
    or (with ``timestamps``) date/times matched exactly to the series' timestamps."""
    import json

    text = text.lstrip("\ufeff")
    if text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise ParameterError(f"{name} is not valid JSON") from None
        items = data.get("landmarks") if isinstance(data, dict) else data
        items = [str(v) for v in (items or [])]
    else:
        items = [t.strip().strip('"') for line in text.splitlines() for t in line.split(",") if t.strip()]
        if items and not items[0].lstrip("-").isdigit() and not (items[0][:4].isdigit() and len(items[0]) >= 8):
            items = items[1:]  # a header line such as "index" or "timestamp"
    if all(v.lstrip("-").isdigit() for v in items):
        return np.unique(np.asarray([int(v) for v in items], dtype=np.int64))
    if timestamps is None:
        raise ParameterError(f"{name} must hold whole-number event positions")
    index = pd.DatetimeIndex(timestamps)
    try:
        wanted = pd.DatetimeIndex(pd.to_datetime(items, format="mixed"))
    except (ValueError, TypeError):
        raise ParameterError(f"{name}: its entries are neither event positions nor date/times") from None
    if index.tz is not None and wanted.tz is None:
        wanted = wanted.tz_localize(index.tz)
    elif index.tz is None and wanted.tz is not None:
        wanted = wanted.tz_convert(None)
    found = index.get_indexer(wanted)
    missing = int((found < 0).sum())
    if missing:
        raise ParameterError(f"{name}: {missing} of {len(items)} date/times are not timestamps of this series "
                             f"(e.g. {items[int(np.flatnonzero(found < 0)[0])]})")
    return np.unique(found.astype(np.int64))
