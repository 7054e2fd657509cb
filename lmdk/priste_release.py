"""PriSTE release (paper §4, Algorithms 1–3): calibrate the planar-Laplace budget α per timestamp.

At each timestamp t an observation o_t is drawn from the α-PLM around the true cell; while the
exact worst-case leakage (over all initial distributions, :mod:`lmdk.priste_worst`) of any event
would exceed ε, α is halved and o_t redrawn (Algorithm 2, line 19). After ``max_halvings`` failed
halvings the uniform mechanism (α = 0) is used: its column is constant, so the leakage at t
equals the accepted leakage at t − 1 (or 0 at t = 0) and ε holds by induction. With ``delta``
the output is restricted to the δ-location set of the running posterior (Algorithm 3, Eq. 21),
starting from a uniform prior as in §4.4. ``epsilon=np.inf`` releases the plain α-PLM and only
records its leakage.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError
from lmdk.priste_events import Event
from lmdk.priste_grid import Grid, delta_location_set, planar_laplace_emission, posterior, restricted_emission
from lmdk.priste_quantify import EventTracker, check_transition
from lmdk.priste_worst import worst_case_from_vectors
from lmdk.rng import as_generator

REL_TOL = 1e-9
"""Relative slack on ε when comparing a computed leakage (guards against last-bit rounding only)."""


@dataclass
class ReleaseResult:
    """Per-timestamp outcome of :func:`release`: released cells, α used, halvings and worst-case leakage per event."""

    true_cells: np.ndarray
    released_cells: np.ndarray
    alpha: np.ndarray
    halvings: np.ndarray
    leakage: np.ndarray  # (T, n_events) exact worst-case leakage at release
    distance_m: np.ndarray
    epsilon: float
    alpha0: float
    delta: float | None = None
    emissions: list = field(default_factory=list, repr=False)  # E used at each t (only with keep_emissions)

    @property
    def max_leakage(self) -> np.ndarray:
        """Worst-case leakage over all events at each timestamp."""
        return self.leakage.max(axis=1) if self.leakage.size else np.zeros(self.true_cells.size)

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: one row per timestamp with t, cells, α, halvings, leakage (max over events) and distance."""
        df = pd.DataFrame({
            "t": np.arange(self.true_cells.size), "true_cell": self.true_cells,
            "released_cell": self.released_cells, "alpha": self.alpha, "halvings": self.halvings,
            "leakage": self.max_leakage, "distance_m": self.distance_m,
        })
        for k in range(self.leakage.shape[1]):
            df[f"leakage_event{k}"] = self.leakage[:, k]
        return df


class _PLMCache:
    """α·2^−h planar-Laplace matrices, built on first use."""

    def __init__(self, grid: Grid, alpha: float):
        self.grid, self.alpha, self._m = grid, alpha, {}

    def get(self, h: int | None) -> np.ndarray:
        if h not in self._m:
            a = 0.0 if h is None else self.alpha * 0.5**h
            self._m[h] = planar_laplace_emission(self.grid, a)
        return self._m[h]


def _check_release_args(trajectory_cells, events, epsilon, alpha, M, grid, delta):
    traj = np.asarray(trajectory_cells)
    if traj.ndim != 1 or traj.size == 0 or not np.issubdtype(traj.dtype, np.integer) \
            or traj.min() < 0 or traj.max() >= grid.m:
        raise ParameterError(f"trajectory_cells must be a non-empty 1-D sequence of cell ids in 0..{grid.m - 1}")
    evs = [events] if isinstance(events, Event) else list(events)
    for ev in evs:
        if not isinstance(ev, Event):
            raise ParameterError("events must be an Event or a list of Event objects")
        ev.validate_for(grid.m)
    if not (np.isposinf(epsilon) or (np.isfinite(epsilon) and epsilon > 0)):
        raise ParameterError(f"epsilon must be > 0 (or inf for no calibration), got {epsilon!r}")
    if not np.isfinite(alpha) or alpha <= 0:
        raise ParameterError(f"alpha must be a positive number (per km), got {alpha!r}")
    P = check_transition(M)
    if P.shape[0] != grid.m:
        raise ParameterError(f"M is {P.shape[0]}×{P.shape[0]} but the grid has {grid.m} cells")
    if delta is not None and not 0 <= delta < 1:
        raise ParameterError(f"delta must lie in [0, 1) or be None, got {delta!r}")
    return traj.astype(np.int64), evs, P


def release(trajectory_cells, events, epsilon: float, alpha: float, M, grid: Grid, *, delta: float | None = None,
            rng=None, max_halvings: int = 30, method: str = "hull", keep_emissions: bool = False) -> ReleaseResult:
    """Algorithms 1–3: release a perturbed cell per timestamp keeping every event ε-spatiotemporal-event private."""
    traj, evs, P = _check_release_args(trajectory_cells, events, epsilon, alpha, M, grid, delta)
    g = as_generator(rng)
    T, m = traj.size, grid.m
    trackers = [EventTracker(ev, P) for ev in evs]
    cache = _PLMCache(grid, float(alpha))
    out_cells = np.empty(T, dtype=np.int64)
    out_alpha, out_h = np.empty(T), np.empty(T, dtype=np.int64)
    out_leak = np.zeros((T, len(evs)))
    emissions = []
    p_minus = np.full(m, 1.0 / m)
    for t in range(T):
        for tr in trackers:
            tr.prepare()
        allowed = delta_location_set(p_minus, delta) if delta is not None else None
        h = 0
        while True:
            fallback = h > max_halvings
            E = cache.get(None if fallback else h)
            if allowed is not None:
                E = restricted_emission(E, allowed)
            row = np.cumsum(E[traj[t]])
            o = min(int(np.searchsorted(row, g.random() * row[-1], side="right")), m - 1)
            col = E[:, o]
            leaks = np.zeros(len(evs))
            limit = epsilon * (1 + REL_TOL)
            for k, tr in enumerate(trackers):
                b, d = tr.candidate(col)
                leaks[k] = worst_case_from_vectors(tr.a, b, d, a_not=tr.a_not, method=method,
                                                   stop_above=None if fallback else limit)[0]
                if leaks[k] > limit and not fallback:
                    break  # rejected: the other events need not be checked
            if fallback or np.all(leaks <= limit):
                break
            h += 1
        for tr in trackers:
            tr.commit(col)
        out_cells[t], out_h[t], out_leak[t] = o, h, leaks
        out_alpha[t] = 0.0 if fallback else alpha * 0.5**h
        if keep_emissions:
            emissions.append(E)
        if delta is not None:
            p_minus = posterior(p_minus, E, o) @ P
    dist = np.linalg.norm(grid.cell_to_xy(out_cells) - grid.cell_to_xy(traj), axis=1)
    return ReleaseResult(traj, out_cells, out_alpha, out_h, out_leak, dist, float(epsilon), float(alpha),
                         delta, emissions)


def release_repetitions(trajectory_cells, events, epsilon: float, alpha: float, M, grid: Grid, repetitions: int, *,
                        delta: float | None = None, rng=None, **kwargs) -> pd.DataFrame:
    """Run :func:`release` ``repetitions`` times on independent streams of ``rng``; tidy frame with a ``rep`` column."""
    if not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
        raise ParameterError(f"repetitions must be a positive integer, got {repetitions!r}")
    streams = as_generator(rng).spawn(int(repetitions))
    frames = []
    for r, s in enumerate(streams):
        df = release(trajectory_cells, events, epsilon, alpha, M, grid, delta=delta, rng=s, **kwargs).to_frame()
        df.insert(0, "rep", r)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def band(frame: pd.DataFrame, column: str, by: str | list = "t") -> pd.DataFrame:
    """Per-``by`` mean, std, 10/50/90 % quantiles of ``column`` over repetitions (for median-with-band charts)."""
    grp = frame.groupby(by)[column]
    return pd.DataFrame({
        "mean": grp.mean(), "std": grp.std(ddof=0), "q10": grp.quantile(0.1),
        "median": grp.median(), "q90": grp.quantile(0.9),
    }).reset_index()
