"""Small drivers for the PriSTE experiments of §5 (Figures 8–15), each returning a tidy DataFrame.

The synthetic setting of §5.1: a 20×20 grid, a Gaussian transition matrix of scale σ (cells), a
trajectory of 50 timestamps simulated from it; events such as PRESENCE(S = [1:10], T = [4:8]),
which in our 0-based API is ``make_event("presence", range(10), range(3, 8), m)``.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError, TooLargeError
from lmdk.priste.calibration import audit_worst_case, release
from lmdk.priste.events import Event, make_event
from lmdk.priste.grid import Grid, gaussian_transition, planar_laplace_emission, simulate_trajectory
from lmdk.priste.quantify import check_observations, check_prior, check_transition, emission_at, joint_probability
from lmdk.priste.worst import worst_case_leakage
from lmdk.rng import as_generator


@dataclass(frozen=True)
class Setup:
    """A map, its transition matrix and one true trajectory."""

    grid: Grid
    M: np.ndarray
    trajectory: np.ndarray


def synthetic_setup(rows: int = 20, cols: int = 20, *, cell_size_m: float = 1000.0, sigma: float = 1.0,
                    length: int = 50, rng=None) -> Setup:
    """§5.1 synthetic data: Gaussian transitions of scale σ (cells) and a simulated trajectory."""
    grid = Grid(rows, cols, cell_size_m)
    M = gaussian_transition(grid, sigma)
    return Setup(grid, M, simulate_trajectory(M, length, rng=rng))


def paper_event(kind: str, first_cell: int, last_cell: int, first_t: int, last_t: int, m: int) -> Event:
    """The paper's KIND(S = [first_cell:last_cell], T = [first_t:last_t]) (1-based, inclusive) as a 0-based Event."""
    return make_event(kind, range(first_cell - 1, last_cell), range(first_t - 1, last_t), m)


def alpha_per_timestamp(setup: Setup, events, epsilons, alphas, repetitions: int, *, delta: float | None = None,
                        rng=None, exact_leakage: bool = True) -> pd.DataFrame:
    """Figures 8–11: α used, distance and leakage per timestamp for every (ε, α₀) and repetition.

    ``exact_leakage=False``: same releases, but the leakage column is only a certified lower bound (faster).
    """
    streams = iter(as_generator(rng).spawn(len(epsilons) * len(alphas) * repetitions))
    rows = []
    for eps, a0 in itertools.product(epsilons, alphas):
        for rep in range(repetitions):
            res = release(setup.trajectory, events, eps, a0, setup.M, setup.grid, delta=delta, rng=next(streams),
                          exact_leakage=exact_leakage)
            df = res.to_frame()
            df.insert(0, "rep", rep)
            df.insert(0, "alpha0", a0)
            df.insert(0, "epsilon", eps)
            rows.append(df)
    out = pd.concat(rows, ignore_index=True)
    out["delta"] = np.nan if delta is None else delta
    return out


def utility_vs_epsilon(setup: Setup, events, epsilons, alphas, repetitions: int, *, deltas=(None,),
                       rng=None) -> pd.DataFrame:
    """Figures 12–14: per repetition the α and Euclidean distance averaged over timestamps, for ε × α₀ × δ."""
    frames = []
    g = as_generator(rng)
    for delta in deltas:
        df = alpha_per_timestamp(setup, events, epsilons, alphas, repetitions, delta=delta, rng=g,
                                 exact_leakage=False)  # only α, distances and halvings are kept
        frames.append(df.groupby(["epsilon", "alpha0", "rep"], as_index=False)
                      .agg(mean_alpha=("alpha", "mean"), mean_distance_m=("distance_m", "mean"),
                           halvings=("halvings", "sum"))
                      .assign(delta=np.nan if delta is None else delta))
    return pd.concat(frames, ignore_index=True)


def check_comparison(setup: Setup, events, epsilon: float, alpha: float, repetitions: int, *,
                     checks=("any_prior", "fixed_prior"), prior=None, rng=None) -> pd.DataFrame:
    """Counterpart of Table 2 (§5.4): per run and check, the release's runtime, uniform-fallback count and utility.

    ``any_prior`` is the exact check of the paper's definition (no time limit, so no conservative
    release); ``fixed_prior`` checks only at ``prior`` (uniform by default, the §3 quantification). The
    runtime covers the whole release (Algorithm 2 over all timestamps); afterwards, outside the timing,
    every run is audited with the exact any-prior leakage (``worst_leakage``, ``violations`` = timestamps
    above ε). Both checks of one repetition share its random stream. Distances in km, α per km.
    """
    streams = as_generator(rng).spawn(int(repetitions))
    rows = []
    for rep, stream in enumerate(streams):
        seed = stream.integers(2**63)
        for check in checks:
            kw = {"check": check, "prior": prior} if check == "fixed_prior" else {"check": check}
            t0, c0 = time.perf_counter(), time.process_time()
            res = release(setup.trajectory, events, epsilon, alpha, setup.M, setup.grid, rng=seed,
                          keep_emissions=True, **kw)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            worst = res.leakage if check == "any_prior" else audit_worst_case(res, events, setup.M, grid=setup.grid)
            rows.append({
                "rep": rep, "check": check, "runtime_s": wall, "cpu_s": cpu,
                "uniform_releases": int(np.sum(res.alpha == 0.0)), "halvings": int(res.halvings.sum()),
                "mean_alpha": float(res.alpha.mean()), "mean_distance_km": float(res.distance_m.mean() / 1000.0),
                "max_checked_leakage": float(res.max_leakage.max()), "max_worst_leakage": float(worst.max()),
                "violations": int(np.sum(worst.max(axis=1) > epsilon * (1 + 1e-9))),
            })
    return pd.DataFrame(rows)


def scale_scan(cell_kms, alpha0: float, repetitions: int, *, epsilon: float = 1.0, sigma: float = 1.0,
               seed: int = 0) -> pd.DataFrame:
    """Exact-check releases of the Table 2 setting (§5.4) at several cell sizes: mean α (per km) and distance (km).

    Calibration depends only on α·cell (the PLM and the §5.1 transitions are in cells), so a scan over the
    cell size at one α₀ locates the scale at which the paper's Table 2 (α 0.31 per km, 0.97 km) is met.
    Every cell size gets the same random streams (from ``seed``).
    """
    frames = []
    for c in cell_kms:
        s = synthetic_setup(cell_size_m=float(c) * 1000.0, sigma=sigma, rng=0)
        events = [paper_event("presence", 1, 10, 4, 8, s.grid.m)]
        df = check_comparison(s, events, epsilon, alpha0, repetitions, checks=("any_prior",), rng=seed)
        frames.append(df.assign(cell_km=float(c), alpha0=float(alpha0)))
    return pd.concat(frames, ignore_index=True)


def brute_force_joint(event: Event, pi, M, E, observations, *, max_combos: int = 10**6) -> float:
    """Baseline of §5.4: Pr(EVENT, o) by enumerating every in-region cell sequence of the event (width^length).

    Each sequence s_1..s_n is a cylinder set {l_{τ_k} = s_k ∀k}; a PATTERN is their disjoint union and
    a PRESENCE is the complement of the out-of-region sequences' union. Each cylinder costs a
    forward pass with clamped states, so the total is O(width^length · T·m²).
    """
    P = check_transition(M)
    p = check_prior(pi, P.shape[0])
    obs = check_observations(observations, P.shape[0])
    T = max(obs.size, event.end + 1)
    sets = [np.flatnonzero(r if event.kind == "pattern" else ~r) for r in event.regions]
    n = int(np.prod([len(s) for s in sets], dtype=float))
    if n > max_combos:
        raise TooLargeError(f"the baseline would enumerate {n} cell sequences (> max_combos={max_combos})")
    pos = {int(t): k for k, t in enumerate(event.times)}
    total = 0.0
    for combo in itertools.product(*sets):
        x = p.copy()
        for t in range(T):
            if t > 0:
                x = x @ P
            if t in pos:
                keep = x[combo[pos[t]]]
                x = np.zeros_like(x)
                x[combo[pos[t]]] = keep
            if t < obs.size:
                x = x * emission_at(E, t)[:, obs[t]]
        total += x.sum()
    if event.kind == "pattern":
        return float(total)
    x = p.copy()
    for t in range(obs.size):
        x = (x @ P if t > 0 else x) * emission_at(E, t)[:, obs[t]]
    return float(x.sum() - total)


def _random_event(kind: str, width: int, length: int, m: int, g: np.random.Generator) -> Event:
    """Random event over ``width`` cells at timestamps 0..length−1 (so the observation count equals the length)."""
    return make_event(kind, g.choice(m, size=width, replace=False), range(length), m)


def runtime_vs_event_size(setup: Setup, *, vary: str = "length", sizes=range(5, 16), fixed: int = 5,
                          kind: str = "pattern", n_events: int = 5, alpha: float = 1.0,
                          baseline_budget_s: float = 2.0, baseline_cylinders: int | None = None,
                          rng=None) -> pd.DataFrame:
    """Figure 15: seconds per event for PriSTE (joint probability and exact worst case) vs the brute-force baseline.

    ``vary`` is "length" (|T|, width fixed) or "width" (|S|, length fixed). The baseline is timed on
    as many cell sequences as fit in ``baseline_budget_s`` — or, given ``baseline_cylinders``, on at most that
    many, so that which points are extrapolated does not depend on the machine's load — and extrapolated
    linearly to all of them (column ``extrapolated``).
    """
    if vary not in ("length", "width"):
        raise ParameterError(f"vary must be 'length' or 'width', got {vary!r}")
    g = as_generator(rng)
    grid, M = setup.grid, setup.M
    E = planar_laplace_emission(grid, alpha)
    pi = np.full(grid.m, 1.0 / grid.m)
    rows = []
    for size in sizes:
        width, length = (fixed, size) if vary == "length" else (size, fixed)
        for _ in range(n_events):
            ev = _random_event(kind, width, length, grid.m, g)
            obs = g.integers(0, grid.m, ev.end + 1)
            t0 = time.perf_counter()
            joint_probability(ev, pi, M, E, obs)
            t1 = time.perf_counter()
            worst_case_leakage(ev, M, E, obs, grid_shape=(grid.rows, grid.cols))
            t2 = time.perf_counter()
            n_combos = float(np.prod([len(np.flatnonzero(r if kind == "pattern" else ~r)) for r in ev.regions],
                                     dtype=float))
            k = 0
            t3 = time.perf_counter()
            while k < n_combos and (k < baseline_cylinders if baseline_cylinders
                                    else time.perf_counter() - t3 < baseline_budget_s / n_events):
                _one_cylinder(pi, M, E, obs, ev)
                k += 1
            per = (time.perf_counter() - t3) / max(k, 1)
            base = {"seconds": per * n_combos, "extrapolated": k < n_combos}
            common = {"vary": vary, "size": size, "width": width, "length": length}
            rows.append({**common, "method": "priste_joint", "seconds": t1 - t0, "extrapolated": False})
            rows.append({**common, "method": "priste_worst_case", "seconds": t2 - t1, "extrapolated": False})
            rows.append({**common, "method": "brute_force_joint", **base})
    return pd.DataFrame(rows)


def _one_cylinder(pi, M, E, obs, ev: Event) -> float:
    """One clamped forward pass of :func:`brute_force_joint` (first region cell at every event time)."""
    x = np.asarray(pi, dtype=float).copy()
    first = {int(t): int(np.flatnonzero(r)[0]) if r.any() else 0 for t, r in zip(ev.times, ev.regions, strict=True)}
    for t in range(obs.size):
        if t > 0:
            x = x @ M
        if t in first:
            keep = x[first[t]]
            x = np.zeros_like(x)
            x[first[t]] = keep
        x = x * emission_at(E, t)[:, obs[t]]
    return float(x.sum())
