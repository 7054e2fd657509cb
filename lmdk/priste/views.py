"""What the spatiotemporal-events page draws, computed in the core: a trace on a grid, plain α-PLM vs PriSTE."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError
from lmdk.mechanisms import metres_to_latlon
from lmdk.priste.calibration import release
from lmdk.priste.events import Event
from lmdk.priste.grid import Grid, gaussian_transition, grid_around, simulate_trajectory
from lmdk.rng import as_generator

BEIJING = (39.9042, 116.4074)
"""Anchor of the synthetic grid walk (the taxi sample is in Beijing too)."""


def snap_trace(lat, lon, cell_size_m: float, *, max_cells: int = 400) -> tuple[Grid, np.ndarray]:
    """The smallest anchored grid of ``cell_size_m`` cells around a lat/lon trace and the trace's cell ids."""
    grid = grid_around(lat, lon, cell_size_m, max_cells=max_cells)
    return grid, grid.latlon_to_cell(lat, lon, clip=True)


def centre_guess_m(grid: Grid, cells) -> float:
    """Mean distance (m) from the true cells' centres to the map's centre: the error of guessing the centre of the
    map without looking at the trace — data-free for a fixed map (synthetic_walk), not for one fitted to the trace
    (snap_trace), whose centre is read from the trace's extent."""
    xy = grid.cell_to_xy(np.asarray(cells))
    centre = np.array([grid.cols, grid.rows], dtype=float) * grid.cell_size_m / 2
    return float(np.mean(np.hypot(*(xy - centre).T)))


def spread_fixes(n: int, count: int) -> np.ndarray:
    """Indices of ``count`` fixes spread evenly over a trace of ``n`` (the whole span, not its first minutes)."""
    if n <= count:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, count)).astype(np.int64))


def synthetic_walk(rows: int, cols: int, cell_size_m: float, sigma: float, length: int,
                   seed: int) -> tuple[Grid, np.ndarray, np.ndarray]:
    """§5.1 synthetic data on a grid anchored south-west of Beijing's centre: (grid, M, trajectory cells)."""
    lat0, lon0 = metres_to_latlon(np.array([-cols * cell_size_m / 2, -rows * cell_size_m / 2]), BEIJING)
    grid = Grid(rows, cols, cell_size_m, float(lat0), float(lon0))
    M = gaussian_transition(grid, sigma)
    return grid, M, simulate_trajectory(M, length, rng=seed)


def scale_note(cell_size_m: float, alpha: float) -> str:
    """One sentence on the scale: α per km on cells of ``cell_size_m``; only α·cell matters (§4.3 PLM, §5.1)."""
    per_cell = float(alpha) * float(cell_size_m) / 1000.0
    other = 100.0 if cell_size_m != 100 else 1000.0
    return (f"Scale: {cell_size_m:g} m cells, α₀ = {alpha:g} per km (α₀·cell = {per_cell:.3g}). The noise and the "
            f"mobility model are measured in cells, so only α·cell matters for the calibration: the same grid drawn "
            f"with {other:g} m cells and α₀ = {per_cell / (other / 1000.0):.3g} per km calibrates alike, distances "
            f"×{other / cell_size_m:.3g}.")


def _band(x: np.ndarray) -> dict[str, np.ndarray]:
    """Median and central 80 % over the first axis (repetitions)."""
    return {"median": np.median(x, axis=0), "low": np.quantile(x, 0.1, axis=0), "high": np.quantile(x, 0.9, axis=0)}


@dataclass(frozen=True)
class Comparison:
    """Plain α-PLM against PriSTE over repetitions: per-timestamp bands and one repetition's released cells."""

    plain_leakage: dict
    priste_leakage: dict
    priste_alpha: dict
    plain_distance_m: float
    priste_distance_m: float
    priste_mean_alpha: float
    plain_cells: np.ndarray
    priste_cells: np.ndarray
    repetitions: int


@dataclass(frozen=True)
class Runs:
    """One side of a Comparison: per repetition the leakage and α per timestamp, the mean distance, and the cells
    released by repetition 1."""

    leakage: np.ndarray  # repetitions × T
    alpha: np.ndarray  # repetitions × T
    distance_m: np.ndarray  # mean distance per repetition
    first_cells: np.ndarray


def runs(cells, events, epsilon: float, alpha: float, M, grid: Grid, repetitions: int, *,
         delta: float | None = None, seed: int = 0) -> Runs:
    """The plain α-PLM (``epsilon`` = inf) or PriSTE side of ``compare``, alone and with the same draws: the plain
    side does not depend on ε, so a page can keep it while ε changes (Algorithms 1–3)."""
    if not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
        raise ParameterError(f"repetitions must be a positive integer, got {repetitions!r}")
    if not isinstance(seed, (int, np.integer)):
        raise ParameterError(f"seed must be an integer (each side spawns the same streams), got {seed!r}")
    evs = [events] if isinstance(events, Event) else list(events)
    streams = as_generator(seed).spawn(2 * int(repetitions))
    mine = streams[:repetitions] if np.isinf(epsilon) else streams[repetitions:]
    done = [release(cells, evs, epsilon, alpha, M, grid, delta=delta, rng=s) for s in mine]
    return Runs(leakage=np.stack([r.max_leakage for r in done]), alpha=np.stack([r.alpha for r in done]),
                distance_m=np.array([r.distance_m.mean() for r in done]), first_cells=done[0].released_cells)


def comparison(plain: Runs, priste: Runs) -> Comparison:
    """The Comparison of a plain and a PriSTE side (``runs``)."""
    return Comparison(
        plain_leakage=_band(plain.leakage),
        priste_leakage=_band(priste.leakage),
        priste_alpha=_band(priste.alpha),
        plain_distance_m=float(np.mean(plain.distance_m)),
        priste_distance_m=float(np.mean(priste.distance_m)),
        priste_mean_alpha=float(np.mean(priste.alpha.mean(axis=1))),
        plain_cells=plain.first_cells,
        priste_cells=priste.first_cells,
        repetitions=int(priste.leakage.shape[0]),
    )


def compare(cells, events, epsilon: float, alpha: float, M, grid: Grid, repetitions: int, *,
            delta: float | None = None, seed: int = 0) -> Comparison:
    """Run the plain α-PLM (ε = ∞) and PriSTE ``repetitions`` times each (Algorithms 1–3) and summarise."""
    return comparison(runs(cells, events, np.inf, alpha, M, grid, repetitions, delta=delta, seed=seed),
                      runs(cells, events, epsilon, alpha, M, grid, repetitions, delta=delta, seed=seed))
