"""PriSTE map model (paper §2.1, §4.3–4.4, §5.1): grid cells, planar-Laplace emission, δ-location set, transitions.

A location is a cell id ``0..m-1`` of a ``rows × cols`` grid (row-major, row 0 in the south,
column 0 in the west). Cell centres are in local metres ``(x east, y north)`` from the grid's
south-west corner; an optional latitude/longitude anchor of that corner lets a page draw the
grid on a map (equirectangular projection of :mod:`lmdk.mechanisms`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lmdk.errors import DataError, ParameterError
from lmdk.mechanisms import latlon_to_metres, metres_to_latlon
from lmdk.priste.transition import flush_subnormal
from lmdk.rng import as_generator

MAX_CELLS = 2500
"""Largest grid the dense m×m matrices are built for (50×50; m² doubles = 50 MB)."""


@dataclass(frozen=True)
class Grid:
    """A rows×cols grid of square cells of side ``cell_size_m`` metres, optionally anchored at a lat/lon SW corner."""

    rows: int
    cols: int
    cell_size_m: float = 1000.0
    origin_lat: float | None = None
    origin_lon: float | None = None

    def __post_init__(self):
        for name in ("rows", "cols"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ParameterError(f"{name} must be a positive integer, got {v!r}")
        if self.rows * self.cols > MAX_CELLS:
            raise ParameterError(f"rows*cols = {self.rows * self.cols} exceeds {MAX_CELLS}; use a coarser grid")
        if not np.isfinite(self.cell_size_m) or self.cell_size_m <= 0:
            raise ParameterError(f"cell_size_m must be a positive number of metres, got {self.cell_size_m!r}")
        if (self.origin_lat is None) != (self.origin_lon is None):
            raise ParameterError("give both origin_lat and origin_lon (the grid's south-west corner) or neither")

    @property
    def m(self) -> int:
        """Number of cells."""
        return self.rows * self.cols

    @property
    def anchored(self) -> bool:
        """Whether the grid has a lat/lon anchor."""
        return self.origin_lat is not None

    def _cells(self, cells) -> np.ndarray:
        c = np.asarray(cells)
        if c.size and (not np.issubdtype(c.dtype, np.integer) or c.min() < 0 or c.max() >= self.m):
            raise ParameterError(f"cells must be integer cell ids in 0..{self.m - 1}")
        return c.astype(np.int64)

    def cell_to_rowcol(self, cells) -> tuple[np.ndarray, np.ndarray]:
        """Row and column of each cell id."""
        c = self._cells(cells)
        return c // self.cols, c % self.cols

    def cell_to_xy(self, cells) -> np.ndarray:
        """Centre of each cell in metres from the SW corner, shape (..., 2) = (x east, y north)."""
        r, c = self.cell_to_rowcol(cells)
        return np.stack(((c + 0.5) * self.cell_size_m, (r + 0.5) * self.cell_size_m), axis=-1)

    def xy_to_cell(self, xy, *, clip: bool = False) -> np.ndarray:
        """Cell id containing each point (metres from the SW corner); outside points raise unless ``clip``."""
        p = np.asarray(xy, dtype=float)
        if p.ndim < 1 or p.shape[-1] != 2 or not np.all(np.isfinite(p)):
            raise DataError("xy must be finite metres of shape (..., 2)")
        col = np.floor(p[..., 0] / self.cell_size_m).astype(np.int64)
        row = np.floor(p[..., 1] / self.cell_size_m).astype(np.int64)
        if clip:
            col, row = np.clip(col, 0, self.cols - 1), np.clip(row, 0, self.rows - 1)
        elif col.size and (col.min() < 0 or col.max() >= self.cols or row.min() < 0 or row.max() >= self.rows):
            raise DataError("some points lie outside the grid; pass clip=True to snap them to the border cells")
        return row * self.cols + col

    def cell_to_latlon(self, cells) -> tuple[np.ndarray, np.ndarray]:
        """Latitude and longitude of each cell centre (needs the anchor)."""
        return metres_to_latlon(self.cell_to_xy(cells), self._origin())

    def latlon_to_cell(self, lat, lon, *, clip: bool = False) -> np.ndarray:
        """Cell id of each lat/lon point (needs the anchor); see :meth:`xy_to_cell` for ``clip``."""
        xy, _ = latlon_to_metres(lat, lon, origin=self._origin())
        return self.xy_to_cell(xy, clip=clip)

    def corners_latlon(self) -> np.ndarray:
        """Polygon corners (lon, lat) of every cell, shape (m, 4, 2), for drawing the grid on a map."""
        xy = self.cell_to_xy(np.arange(self.m))
        h = self.cell_size_m / 2
        off = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
        lat, lon = metres_to_latlon(xy[:, None, :] + off[None], self._origin())
        return np.stack((lon, lat), axis=-1)

    def distances_m(self) -> np.ndarray:
        """m×m Euclidean distances in metres between cell centres."""
        xy = self.cell_to_xy(np.arange(self.m))
        return np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])

    def _origin(self) -> tuple[float, float]:
        if self.origin_lat is None or self.origin_lon is None:
            raise ParameterError("this grid has no lat/lon anchor; create it with origin_lat and origin_lon")
        return (float(self.origin_lat), float(self.origin_lon))


class GridTooLarge(ParameterError):
    """A trace that needs more cells than allowed at this cell size (``rows``×``cols`` > ``max_cells``)."""

    def __init__(self, rows: int, cols: int, cell_size_m: float, max_cells: int):
        super().__init__(f"covering the trace with {cell_size_m:g} m cells needs {rows}×{cols} cells (> {max_cells}); "
                         "increase cell_size_m")
        self.rows, self.cols, self.cell_size_m, self.max_cells = rows, cols, cell_size_m, max_cells


def grid_around(lat, lon, cell_size_m: float, *, max_cells: int = 400) -> Grid:
    """Smallest anchored grid of ``cell_size_m`` cells covering the points (lat, lon), at most ``max_cells`` cells."""
    xy, origin = latlon_to_metres(lat, lon)
    lo, hi = xy.reshape(-1, 2).min(axis=0), xy.reshape(-1, 2).max(axis=0)
    cols, rows = (np.floor((hi - lo) / cell_size_m).astype(int) + 1).tolist()
    if rows * cols > max_cells:
        raise GridTooLarge(rows, cols, cell_size_m, max_cells)
    lat0, lon0 = metres_to_latlon(lo, origin)
    return Grid(rows, cols, cell_size_m, float(lat0), float(lon0))


@lru_cache(maxsize=8)
def _distances_km(grid: Grid) -> np.ndarray:
    """Read-only m×m distances between cell centres in kilometres (cached per grid)."""
    d = grid.distances_m() / 1000.0
    d.setflags(write=False)
    return d


def planar_laplace_emission(grid: Grid, alpha: float) -> np.ndarray:
    """Discretised α-planar-Laplace mechanism (§4.3) as a row-stochastic m×m matrix E[i, o] = Pr(o | true i).

    Discretisation: the planar Laplace density D_α(o | i) ∝ exp(−α·d(i, o)) (α per kilometre,
    d the Euclidean distance between cell centres) is evaluated at every cell centre and each row
    is normalised over the grid, i.e. the continuous mechanism followed by snapping to the nearest
    cell centre, with the mass falling outside the map redistributed proportionally (truncation).
    α = 0 gives the uniform mechanism (no information about the true cell).
    """
    if not np.isfinite(alpha) or alpha < 0:
        raise ParameterError(f"alpha must be a finite number ≥ 0 (per km), got {alpha!r}")
    d_km = _distances_km(grid)
    w = np.exp(-float(alpha) * (d_km - d_km.min(axis=1, keepdims=True)))
    return w / w.sum(axis=1, keepdims=True)


def delta_location_set(prior, delta: float) -> np.ndarray:
    """δ-location set of Xiao & Xiong (§4.4): boolean mask of the fewest cells whose prior mass is ≥ 1 − δ."""
    p = np.asarray(prior, dtype=float)
    if p.ndim != 1 or p.size == 0 or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-8):
        raise ParameterError("prior must be a probability vector (non-negative, summing to 1)")
    if not 0 <= delta < 1:
        raise ParameterError(f"delta must lie in [0, 1), got {delta!r}")
    order = np.argsort(-p, kind="stable")
    need = np.searchsorted(np.cumsum(p[order]), (1.0 - delta) - 1e-12) + 1
    mask = np.zeros(p.size, dtype=bool)
    mask[order[: min(int(need), p.size)]] = True
    return mask


def restricted_emission(emission, allowed) -> np.ndarray:
    """Emission restricted to the output cells ``allowed`` (Algorithm 3, line 4): E[i, o]·[o∈ΔX], rows renormalised."""
    E = np.asarray(emission, dtype=float)
    mask = np.asarray(allowed, dtype=bool)
    if mask.shape != (E.shape[1],) or not mask.any():
        raise ParameterError("allowed must be a non-empty boolean mask with one entry per cell")
    R = np.where(mask[None, :], E, 0.0)
    s = R.sum(axis=1, keepdims=True)
    if np.any(s <= 0):
        raise ParameterError("the emission gives zero probability to every allowed cell for some true cell")
    return R / s


def posterior(prior, emission, observed: int) -> np.ndarray:
    """Eq. (21): Pr(l_t = i | o_t) ∝ E[i, o_t]·prior[i]."""
    w = np.asarray(prior, dtype=float) * np.asarray(emission)[:, observed]
    s = w.sum()
    if s <= 0:
        raise ParameterError("the observation has zero probability under the prior")
    return w / s


def gaussian_transition(grid: Grid, sigma: float) -> np.ndarray:
    """§5.1 synthetic mobility: M[i, j] ∝ exp(−d(i, j)² / (2σ²)), σ in cells (cell sides), rows normalised.

    Probabilities below the smallest normal double (≈ 2.2e-308) are set to 0.
    """
    if not np.isfinite(sigma) or sigma <= 0:
        raise ParameterError(f"sigma must be a positive number of cell sides, got {sigma!r}")
    d = grid.distances_m() / grid.cell_size_m
    w = np.exp(-(d**2 - d.min(axis=1, keepdims=True) ** 2) / (2.0 * float(sigma) ** 2))
    return flush_subnormal(w / w.sum(axis=1, keepdims=True))  # σ ≲ 0.6 has subnormal entries


def estimate_transition(cells, smoothing: float = 1.0, *, m: int | None = None) -> np.ndarray:
    """Maximum-likelihood transition matrix of a cell trajectory with add-``smoothing`` (Laplace) counts per row.

    ``m`` is the number of cells of the map (default: the largest cell id + 1); cells never left keep
    their mass (stay put) when ``smoothing`` is 0.
    """
    c = np.asarray(cells)
    if c.ndim == 1 and c.size and np.issubdtype(c.dtype, np.integer) and m is None:
        m = int(c.max()) + 1
    if (c.ndim != 1 or c.size < 2 or not np.issubdtype(c.dtype, np.integer) or m is None or c.min() < 0
            or c.max() >= m):
        ids = "cell ids" if m is None else f"cell ids in 0..{m - 1}"
        raise DataError(f"cells must be a 1-D integer trajectory of ≥ 2 {ids}")
    if not np.isfinite(smoothing) or smoothing < 0:
        raise ParameterError(f"smoothing must be ≥ 0, got {smoothing!r}")
    counts = np.zeros((m, m))
    np.add.at(counts, (c[:-1], c[1:]), 1.0)
    counts += float(smoothing)
    empty = counts.sum(axis=1) == 0
    counts[empty, np.arange(m)[empty]] = 1.0  # unseen cell without smoothing: stay put
    return counts / counts.sum(axis=1, keepdims=True)


def simulate_trajectory(M, length: int, start: int | None = None, rng=None) -> np.ndarray:
    """Cell trajectory of ``length`` steps from the Markov chain M (§5.1), starting at ``start`` or a uniform cell."""
    P = np.asarray(M, dtype=float)
    if length < 1:
        raise ParameterError(f"length must be ≥ 1, got {length!r}")
    g = as_generator(rng)
    m = P.shape[0]
    cum = np.cumsum(P, axis=1)
    out = np.empty(length, dtype=np.int64)
    out[0] = g.integers(m) if start is None else int(start)
    u = g.random(length)
    for t in range(1, length):
        out[t] = min(int(np.searchsorted(cum[out[t - 1]], u[t] * cum[out[t - 1], -1], side="right")), m - 1)
    return out
