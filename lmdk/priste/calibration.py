"""PriSTE release (paper §4, Algorithms 1–3): calibrate the planar-Laplace budget α per timestamp.

At each timestamp t an observation o_t is drawn from the α-PLM around the true cell; while the
exact worst-case leakage (over all initial distributions, :mod:`lmdk.priste.worst`) of any event
would exceed ε, α is halved and o_t redrawn (Algorithm 2, line 19). After ``max_halvings`` failed
halvings the uniform mechanism (α = 0) is used: its column is constant, so the leakage at t
equals the accepted leakage at t − 1 (or 0 at t = 0) and ε holds by induction. With ``delta``
the output is restricted to the δ-location set of the running posterior (Algorithm 3, Eq. 21),
starting from a uniform prior as in §4.4. ``epsilon=np.inf`` releases the plain α-PLM and only
records its leakage.

Two checks (``check``): "any_prior" (default) is the paper's definition — the supremum over every
initial distribution π (§4.2, Theorem 4.1), computed exactly; "fixed_prior" checks only the leakage at
one known π (the §3 quantification, uniform unless ``prior`` is given), which is what a check that
misses the worst-case priors yields. With ``audit=True`` the exact any-prior leakage of what was
released is recorded as well (``worst_leakage``), so the two checks can be compared side by side.

Speed: the halvings of one timestamp are drawn and checked in batches of ``BATCH`` (their emission
columns go through one matrix product, :meth:`EventTracker.candidates`), then the random stream is
rewound so that exactly one uniform per candidate tried is consumed — the release is the one that
drawing candidates one at a time gives. Each batch is first tested against a cheap certified lower
bound (the leakage at the simplex vertices and on the segments among the four most extreme cells,
:func:`lmdk.priste.worst.lower_bound_rows`), vectorised over the batch: a value above ε rejects at
once. Survivors, in order, get the quick search of :func:`lmdk.priste.worst.leakage_lower_bound` and
then the exact supremum, which stops at the first value above ε and is the recorded leakage of the
accepted candidate (``exact_leakage=False``: only certified ≤ ε). The §5.1 Gaussian transition matrix
is used as a Kronecker product (:mod:`lmdk.priste.transition`); the planar-Laplace matrices are cached
per (grid, α).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError
from lmdk.priste.events import Event
from lmdk.priste.grid import Grid, delta_location_set, planar_laplace_emission, restricted_emission
from lmdk.priste.quantify import EventTracker, check_transition
from lmdk.priste.transition import transition_operator
from lmdk.priste.worst import (
    QUICK_K,
    lower_bound_rows,
    prepare_vectors,
    quick_search,
    screen_from,
    worst_case_from_vectors,
)
from lmdk.rng import as_generator

CHECKS = ("any_prior", "fixed_prior")

REL_TOL = 1e-9
"""Relative slack on ε when comparing a computed leakage (guards against last-bit rounding only)."""
BATCH = 8
"""Halvings of α drawn and checked together at a timestamp: one matrix product for all of them."""


@dataclass
class ReleaseResult:
    """Per-timestamp outcome of :func:`release`: released cells, α used, halvings and worst-case leakage per event."""

    true_cells: np.ndarray
    released_cells: np.ndarray
    alpha: np.ndarray  # α used per timestamp, per km (0 = uniform fallback)
    halvings: np.ndarray
    leakage: np.ndarray  # (T, n_events) the check's leakage: exact any-prior value (a lower bound ≤ ε with
    # exact_leakage=False), or the leakage at the fixed prior
    distance_m: np.ndarray
    epsilon: float
    alpha0: float  # the PLM's initial α, per km
    delta: float | None = None
    emissions: list = field(default_factory=list, repr=False)  # E used at each t (only with keep_emissions)
    check: str = "any_prior"
    worst_leakage: np.ndarray | None = None  # (T, n_events) exact any-prior leakage (check any_prior or audit)

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
        if self.worst_leakage is not None and self.check != "any_prior":
            df["worst_leakage"] = self.worst_leakage.max(axis=1) if self.worst_leakage.size else 0.0
        return df


@lru_cache(maxsize=48)
def _plm(grid: Grid, alpha: float) -> np.ndarray:
    """Read-only α-PLM emission matrix, shared by all releases on the same grid."""
    E = planar_laplace_emission(grid, alpha)
    E.setflags(write=False)
    return E


def _fixed_prior_leakage(pi: np.ndarray, a, a_not, b, d):
    """|log Pr(o|EVENT)/Pr(o|¬EVENT)| at the one prior π (Definition 2.4); 0 where a conditional is undefined.

    b and d may be m×k (one column per candidate); the result is then a length-k array.
    """
    x, v, y, u = pi @ a, pi @ a_not, pi @ b, pi @ d
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.abs(np.log(y) + np.log(v) - np.log(x) - np.log(u))
    val = np.where((x > 0) & (v > 0) & (y + u > 0), val, 0.0)
    return float(val) if np.ndim(val) == 0 else val


def _check_prior_arg(check: str, prior, m: int) -> np.ndarray | None:
    """The fixed prior of check="fixed_prior" (uniform by default), None for "any_prior"; ParameterError otherwise."""
    if check not in CHECKS:
        raise ParameterError(f"check must be one of {CHECKS}, got {check!r}")
    if check == "any_prior":
        if prior is not None:
            raise ParameterError("prior is only used with check='fixed_prior'; drop it or set check='fixed_prior'")
        return None
    if prior is None:
        return np.full(m, 1.0 / m)
    p = np.asarray(prior, dtype=float)
    if p.shape != (m,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise ParameterError(f"prior must be a probability vector over the {m} cells (non-negative, summing to 1)")
    return p


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
            rng=None, max_halvings: int = 30, method: str = "screen", keep_emissions: bool = False,
            check: str = "any_prior", prior=None, audit: bool = False, exact_leakage: bool = True) -> ReleaseResult:
    """Algorithms 1–3: release a perturbed cell per timestamp keeping every event ε-spatiotemporal-event private.

    ``check="any_prior"`` (default) guarantees ε against every initial distribution (the paper's §4.2);
    ``check="fixed_prior"`` only at ``prior`` (uniform if None). ``audit=True`` also records the exact
    any-prior leakage of the released sequence in ``worst_leakage``. ``exact_leakage=False`` (any-prior
    check) releases exactly the same cells but records only a certified lower bound of each accepted
    leakage (the search stops once no prior can exceed ε) — for runs that need the releases, not the leakage.
    """
    traj, evs, P = _check_release_args(trajectory_cells, events, epsilon, alpha, M, grid, delta)
    pi_fixed = _check_prior_arg(check, prior, grid.m)
    if audit and not exact_leakage:
        raise ParameterError("audit=True records exact leakage; drop audit or keep exact_leakage=True")
    g = as_generator(rng)
    T, m = traj.size, grid.m
    op = transition_operator(P, grid.rows, grid.cols)
    trackers = [EventTracker(ev, op) for ev in evs]
    out_cells = np.empty(T, dtype=np.int64)
    out_alpha, out_h = np.empty(T), np.empty(T, dtype=np.int64)
    out_leak = np.zeros((T, len(evs)))
    out_worst = np.zeros((T, len(evs))) if audit or (pi_fixed is None and exact_leakage) else None
    emissions = []
    p_minus = np.full(m, 1.0 / m)
    limit = epsilon * (1 + REL_TOL)
    alphas = [float(alpha) * 0.5**h for h in range(max_halvings + 1)] + [0.0]  # the last: uniform fallback
    for t in range(T):
        allowed = delta_location_set(p_minus, delta) if delta is not None else None
        state = g.bit_generator.state
        u = g.random(len(alphas))
        for lo in range(0, len(alphas), BATCH):
            hs = range(lo, min(lo + BATCH, len(alphas)))
            Es = [_plm(grid, alphas[h]) for h in hs]
            obs, C = _draw_batch(Es, traj[t], allowed, u[lo:lo + len(hs)])
            vectors = [tr.candidates(C) for tr in trackers]
            found = _first_safe(trackers, vectors, pi_fixed, [None if h > max_halvings else limit for h in hs], method,
                                exact_leakage)
            if found is not None:
                q, leaks = found
                break
        h = lo + q
        g.bit_generator.state = state
        g.random(h + 1)  # consume exactly the candidates' draws, as drawing them one at a time would
        col = C[:, q]
        for tr in trackers:
            tr.commit(col)
        out_cells[t], out_h[t], out_leak[t], out_alpha[t] = obs[q], h, leaks, alphas[h]
        if out_worst is not None:
            out_worst[t] = leaks if pi_fixed is None else [
                worst_case_from_vectors(tr.a, b[q], d[q], a_not=tr.a_not, method=method)[0]
                for tr, (b, d) in zip(trackers, vectors, strict=True)]
        if keep_emissions:
            emissions.append(Es[q] if allowed is None else restricted_emission(Es[q], allowed))
        if delta is not None:
            w = p_minus * col
            p_minus = (w / w.sum()) @ P  # Eq. (21), then one Markov step
    dist = np.linalg.norm(grid.cell_to_xy(out_cells) - grid.cell_to_xy(traj), axis=1)
    return ReleaseResult(traj, out_cells, out_alpha, out_h, out_leak, dist, float(epsilon), float(alpha),
                         delta, emissions, check, out_worst)


def _draw_batch(Es: list, true_cell: int, allowed: np.ndarray | None, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One observation per emission matrix from row ``true_cell`` (restricted to ``allowed``, Algorithm 3) by inverse
    CDF with the uniforms ``u``, and their emission columns as an m×k matrix."""
    rows = np.stack([E[true_cell] for E in Es])
    if allowed is not None:
        rows = np.where(allowed, rows, 0.0)
    cum = np.cumsum(rows, axis=1)
    obs = np.minimum(np.sum(cum <= (u * cum[:, -1])[:, None], axis=1), rows.shape[1] - 1)
    C = np.stack([E[:, o] for E, o in zip(Es, obs, strict=True)], axis=1)
    if allowed is None:
        return obs, C
    rowsums = np.stack([E @ allowed.astype(float) for E in Es], axis=1)  # restricted_emission's normalisers
    if np.any(rowsums <= 0):
        raise ParameterError("the emission gives zero probability to every allowed cell for some true cell")
    return obs, C / rowsums


def _first_safe(trackers, vectors, pi_fixed, limits: list, method: str,
                exact: bool = True) -> tuple[int, np.ndarray] | None:
    """(q, leakage per event) of the first candidate q that may be released (its limit None = always), else None.

    any-prior: a cheap lower bound, vectorised over all candidates, rejects most of them at once
    (:func:`lmdk.priste.worst.lower_bound_rows`); the rest go through :func:`_check_candidate` in order.
    """
    lim = np.array([np.inf if x is None else x for x in limits])
    if pi_fixed is not None:
        leaks = np.stack([_fixed_prior_leakage(pi_fixed, tr.a, tr.a_not, b.T, d.T)
                          for tr, (b, d) in zip(trackers, vectors, strict=True)], axis=1)
        ok = np.flatnonzero(np.all(leaks <= lim[:, None], axis=1))
        return (int(ok[0]), leaks[ok[0]]) if ok.size else None
    maybe = np.ones(lim.size, dtype=bool)
    if method == "screen":
        for tr, (b, d) in zip(trackers, vectors, strict=True):
            maybe &= lower_bound_rows(tr.a, tr.a_not, b, d) <= lim
    for q in np.flatnonzero(maybe):
        found = _check_candidate(trackers, [(b[q], d[q]) for b, d in vectors], limits[q], method, exact)
        if found is not None:
            return int(q), found
    return None


def _check_candidate(trackers, vectors, limit: float | None, method: str, exact: bool = True) -> np.ndarray | None:
    """Exact any-prior leakage per event if the candidate may be released (``limit`` None = always), else None.

    First every event's quick lower bound (a feasible prior above the limit rejects), then the exact
    supremum per event (the recorded value), stopping at the first value above the limit. ``exact=False``
    only certifies that no prior exceeds the limit and returns lower bounds (same decision, less search).
    """
    if method != "screen":
        leaks = np.zeros(len(trackers))
        for k, (tr, (b, d)) in enumerate(zip(trackers, vectors, strict=True)):
            leaks[k] = worst_case_from_vectors(tr.a, b, d, a_not=tr.a_not, method=method, stop_above=limit)[0]
            if limit is not None and leaks[k] > limit:
                return None
        return leaks
    vecs, quick = [], []
    for tr, (b, d) in zip(trackers, vectors, strict=True):
        v = prepare_vectors(tr.a, b, d, tr.a_not)
        q = quick_search(v, QUICK_K, limit)
        if limit is not None and q[0] > limit:
            return None  # a feasible prior leaks more than ε: rejected before any exact search
        vecs.append(v)
        quick.append(q)
    leaks = np.zeros(len(trackers))
    for k, (v, q) in enumerate(zip(vecs, quick, strict=True)):
        leaks[k] = screen_from(v, q, stop_above=limit, floor=None if exact or limit is None else limit)[0]
        if limit is not None and leaks[k] > limit:
            return None
    return leaks


def audit_worst_case(result: ReleaseResult, events, M, *, method: str = "screen",
                     grid: Grid | None = None) -> np.ndarray:
    """Exact any-prior leakage (T, n_events) of an already released sequence (needs ``keep_emissions=True``).

    ``grid``: the release's grid, so that a Kronecker-factored M (:mod:`lmdk.priste.transition`) is used.
    """
    evs = [events] if isinstance(events, Event) else list(events)
    if len(result.emissions) != result.released_cells.size:
        raise ParameterError("the result has no emission matrices; release it with keep_emissions=True")
    out = np.zeros((result.released_cells.size, len(evs)))
    for k, ev in enumerate(evs):
        tr = EventTracker(ev, M, grid_shape=None if grid is None else (grid.rows, grid.cols))
        for t, (E, o) in enumerate(zip(result.emissions, result.released_cells, strict=True)):
            col = E[:, o]
            b, d = tr.candidate(col)
            out[t, k] = worst_case_from_vectors(tr.a, b, d, a_not=tr.a_not, method=method)[0]
            tr.commit(col)
    return out


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
