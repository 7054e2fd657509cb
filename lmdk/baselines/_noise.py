"""The noise of the baselines, drawn as :func:`lmdk.schemes.release` draws it for the landmark schemes.

``sampler="textbook"``: floating-point Laplace (views, experiments). ``sampler="discrete"``: the exact discrete
Laplace of :mod:`lmdk.discrete_laplace` on the public ``value_range`` (exports of values): released values through
the same helpers as the landmark schemes (``release_common.discrete_cells`` for a budget known in advance,
``release_common.discrete_step`` for a budget decided at each step), and the baselines' internal noisy statistics
(BD/BA's dissimilarity, PeGaSus's deviation and threshold) rounded to a 2^k grid with integer discrete-Laplace noise,
so that every decision is made by an ε-DP integer mechanism too (the module docstring of
:mod:`lmdk.discrete_laplace`, steps 2–3: rounding moves neighbours at most Δ_int grid steps apart).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from lmdk.errors import ParameterError
from lmdk.mechanisms import unit_noise

if TYPE_CHECKING:  # annotations only
    from lmdk.discrete_laplace import Calibration


@dataclass
class Noise:
    """Where a baseline's noise comes from: one Generator, (reps, n) cells, Δ and the public range (discrete)."""

    gen: np.random.Generator
    reps: int
    n: int
    sensitivity: float
    value_range: tuple[float, float] | None  # None: the textbook sampler

    @property
    def discrete(self) -> bool:
        return self.value_range is not None

    @property
    def width(self) -> float:
        """The largest change of one clamped value: min(Δ, high − low) (discrete), else Δ."""
        if self.value_range is None:
            return self.sensitivity
        low, high = self.value_range
        return min(self.sensitivity, high - low)

    def releases(self, x: np.ndarray, epsilon: float) -> np.ndarray:
        """(reps, n) noisy values of ``x`` at the budget ``epsilon`` in every cell (drawn at once)."""
        if self.discrete:
            from lmdk.release_common import discrete_cells

            budgets = np.full((self.reps, self.n), float(epsilon))
            return discrete_cells(x, budgets, np.ones(budgets.shape, dtype=bool), self.sensitivity,
                                  self.value_range, self.gen)
        return x + unit_noise("laplace", (self.reps, self.n), self.gen) * (self.sensitivity / epsilon)

    def stepper(self, levels=None):
        """``draw(t, x_t, budget, pub, level=None)``: step t's noisy values at per-repetition budgets, for the rows
        where ``pub`` (the others keep x_t). ``levels``: the few budgets a scheme can spend (BA: k·ε/(2w)); ``level``
        then gives each row's index into them, and the discrete calibration is computed once per level."""
        delta = self.sensitivity
        if self.value_range is not None:
            from lmdk import discrete_laplace as dl
            from lmdk.discrete_lockstep import LockstepNoise

            noise = LockstepNoise.from_generator(self.gen, self.reps, self.n)
            low, high = self.value_range
            fixed = None if levels is None else dl.calibrate_unchecked(np.asarray(levels, dtype=float), delta, low,
                                                                       high)

            # every ε ≤ 1 has this grid, Δ_int and range
            unit_cal = dl.calibrate_unchecked(np.ones(1), delta, low, high)

            def calibrate(eps):
                """dl.calibrate_unchecked(eps, …): for budgets ≤ 1 only the integer scale t = ⌈Δ_int/ε⌉ differs from
                ε = 1's (the grid comes from min(Δ, Δ/ε) = Δ), computed as calibrate_unchecked computes it."""
                if not np.all(eps <= 1.0):
                    return dl.calibrate_unchecked(eps, delta, low, high)
                t_int = np.ceil(unit_cal.steps[0] / eps * (1.0 + 2.0**-40))
                if np.any(t_int > dl.MAX_SCALE):
                    return dl.calibrate_unchecked(eps, delta, low, high)  # raises, naming the budget
                return dl.Calibration(unit_cal.exponent[0], unit_cal.steps[0], t_int.astype(np.int64), unit_cal.low[0],
                                      unit_cal.high[0], unit_cal.sensitivity)

            def draw_discrete(t, x_t, budget, pub, level=None):
                rows = np.flatnonzero(pub)
                out = np.array(np.broadcast_to(x_t, pub.shape), dtype=np.float64)
                if rows.size:
                    cal = fixed.take(level[rows]) if fixed is not None else calibrate(budget[rows])
                    out[rows] = dl.on_grid(out[rows], cal, noise.step(t, cal.scale, rows))
                return out

            return draw_discrete
        unit = np.ascontiguousarray(unit_noise("laplace", (self.reps, self.n), self.gen).T)

        def draw(t, x_t, budget, pub, level=None):
            return x_t + unit[t] * (delta / budget)

        return draw

    def samples(self, epsilon: float, m: int) -> Samples:
        """Noise for at most ``m`` noisy samples per repetition at one budget ``epsilon`` (FAST): the j-th sample of a
        repetition gets its j-th draw (i.i.d. draws, so indexing them by sample instead of timestamp changes no law)."""
        if self.value_range is not None:
            from lmdk import discrete_laplace as dl

            cal = dl.calibrate_unchecked(np.asarray(float(epsilon)), self.sensitivity, *self.value_range)
            return Samples(cal, dl.discrete_laplace(cal.scale, 1, self.gen, size=(self.reps, m)))
        return Samples(None, unit_noise("laplace", (self.reps, m), self.gen) * (self.sensitivity / epsilon))

    def statistic(self, epsilon: float, sensitivity: float, scales: tuple[float, ...] = (1.0,)) -> Statistic:
        """Noisy values of a statistic of the given sensitivity, one draw per (repetition, timestamp) and scale:
        scale c adds Lap(c·sensitivity/ε) (textbook) or Lap_Z(⌈c·Δ_int/ε⌉) on one shared grid (discrete)."""
        shape = (len(scales), self.n, self.reps)
        if not self.discrete:
            unit = unit_noise("laplace", shape, self.gen)
            return Statistic(None, unit * (np.asarray(scales)[:, None, None] * sensitivity / epsilon))
        from lmdk import discrete_laplace as dl

        cal = dl.calibrate_unchecked(np.asarray([float(epsilon)]), float(sensitivity), 0.0, float(sensitivity))
        steps = int(cal.steps[0])
        draws = []
        for c in scales:  # ⌈c·Δ_int/ε⌉ with the calibration's margin: c·Δ_int/t ≤ ε exactly
            t = int(np.ceil(c * steps / epsilon * (1.0 + 2.0**-40)))
            if t > dl.MAX_SCALE:
                raise ParameterError(f"epsilon {epsilon:g} is too small for the exact discrete Laplace "
                                     "(its integer scale would exceed 2^52); give a larger budget")
            draws.append(dl.discrete_laplace(t, 1, self.gen, size=shape[1:]))
        return Statistic(int(cal.exponent[0]), np.stack(draws))


@dataclass
class Samples:
    """Pre-drawn noise of FAST's samples: ``noisy(x_t, rows, j)`` is x_t released with row r's j-th draw."""

    calibration: Calibration | None  # of the one budget (discrete), else None
    noise: np.ndarray  # (reps, m): float noise (textbook) or int64 grid steps (discrete)

    def noisy(self, x_t: float, rows: np.ndarray, j: np.ndarray) -> np.ndarray:
        z = self.noise[rows, j]
        if self.calibration is None:
            return x_t + z
        from lmdk.discrete_laplace import on_grid

        return on_grid(np.full(rows.size, x_t), self.calibration, z)


@dataclass
class Statistic:
    """Pre-drawn noise of a statistic: ``noisy(s, t, j)`` is s with the j-th scale's noise of step t (rows of
    ``rows`` only, if given). Discrete: s rounded to the grid 2^exponent, integer noise, the result on the grid."""

    exponent: int | None
    noise: np.ndarray  # (scales, n, reps): float noise (textbook) or int64 grid steps (discrete)

    def noisy(self, s: np.ndarray, t: int, j: int = 0, rows=None) -> np.ndarray:
        z = self.noise[j, t] if rows is None else self.noise[j, t, rows]
        if self.exponent is None:
            return s + z
        return np.ldexp(np.rint(np.ldexp(s, -self.exponent)) + z, self.exponent)

    def cutoff(self, threshold: np.ndarray, t: int, j: int = 0) -> np.ndarray:
        """T per row with noisy(s, t, j) ≥ threshold ⟺ s ≥ T, up to ties at T (discrete: rint's half-way point)."""
        if self.exponent is None:
            return threshold - self.noise[j, t]
        return threshold - np.ldexp(self.noise[j, t] + 0.5, self.exponent)

    def on_grid(self, value: float) -> float:
        """A public number (a threshold) as the mechanism compares it: rounded to the grid (discrete)."""
        if self.exponent is None:
            return float(value)
        return float(np.ldexp(np.rint(np.ldexp(value, -self.exponent)), self.exponent))
