"""What every release shares, whichever scheme allocates its budget: the :class:`Release` record, the checks of
its inputs (series, ε, w, repetitions, the public default, ``protects=``, landmarks on a Series) and the exact discrete
sampler's two entry points.

Used by the landmark schemes (:mod:`lmdk.schemes`, which re-exports every public name here) and by the state of the art
beside them (:mod:`lmdk.baselines`, a layer below the schemes: it never imports them).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lmdk.errors import ParameterError
from lmdk.mechanisms import MECHANISMS, validate_epsilon


@dataclass(frozen=True)
class Release:
    """The outcome of running one scheme ``repetitions`` times (arrays are read-only)."""

    values: np.ndarray  # (reps, n) released values, or (reps, n, 2) metres for planar_laplace
    budgets: np.ndarray  # (reps, n) ε_t actually spent (0 where the release is an approximation; BD/BA also spend
    # their dissimilarity test's ε/(2w) where they approximate)
    published: np.ndarray  # (reps, n) True where fresh noise was drawn with budget ε_t > 0 (PeGaSus: every t, then
    # smoothed; FAST: its samples, filtered)
    landmarks: np.ndarray  # (reps, n) landmark mask actually used (L′ when dummies were added)
    scheme: str
    mechanism: str
    epsilon: float  # the total privacy goal ε that was requested
    selection_epsilon: float = 0.0  # ε spent by the dummy-landmark selection (§3.4.2)
    publishing_epsilon: float = field(default=float("nan"))  # ε given to the scheme (ε − selection)
    sensitivity: float = 1.0
    w: int | None = None
    protects: object = None  # the lmdk.relation.Relation the release was calibrated by (what ε protects)

    @property
    def repetitions(self) -> int:
        """Number of repetitions (first axis)."""
        return int(self.budgets.shape[0])

    @property
    def n(self) -> int:
        """Length of the series."""
        return int(self.budgets.shape[1])


def sampler_for(mechanism: str) -> str:
    """The floating-point-safe sampler of an export for ``mechanism`` (what the ledger records of an export)."""
    return {"laplace": "discrete", "planar_laplace": "snapping"}.get(mechanism, "randomized_response")


def total_epsilon(epsilon) -> float:
    """Validate the total budget ε (a positive scalar)."""
    eps = validate_epsilon(epsilon)
    if eps.ndim != 0:
        raise ParameterError("epsilon must be one total privacy budget (a positive scalar)")
    return float(eps)


def window_length(w, n: int, scheme: str) -> int:
    """Validate the w-event window length (default: the whole series, i.e. user level); other schemes ignore w."""
    if w is None or scheme != "w-event":
        return n
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or not 1 <= w <= n:
        raise ParameterError(f"w (w-event window length) must be an integer in 1..n={n}, got {w!r}")
    return int(w)


def prepare_series(series, mechanism: str) -> np.ndarray:
    """Validate the series for a mechanism: 1-D values, 1-D 0/1 bits, or (n, 2) metres."""
    if mechanism not in MECHANISMS:
        raise ParameterError(f"mechanism must be one of {MECHANISMS}, got {mechanism!r}")
    try:
        x = np.asarray(series, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError("series must be numeric") from exc
    want = "(n, 2) metres" if mechanism == "planar_laplace" else "(n,)"
    ndim = 2 if mechanism == "planar_laplace" else 1
    if x.ndim != ndim or x.shape[0] == 0 or (ndim == 2 and x.shape[1] != 2):
        raise ParameterError(f"series for {mechanism} must have shape {want}, got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ParameterError("series contains NaN or infinity; clean or drop those events first")
    if mechanism == "randomized_response":
        if not np.all((x == 0) | (x == 1)):
            raise ParameterError("series for randomized_response must contain only 0/1 values")
        return x.astype(np.int64)
    return x


def default_value(default, series: np.ndarray, mechanism: str) -> np.ndarray:
    """The public, data-independent value released before any noisy release exists."""
    shape = series.shape[1:]
    if default is None:
        return np.zeros(shape, dtype=series.dtype)
    d = np.asarray(default, dtype=float)
    if d.shape != shape or not np.all(np.isfinite(d)):
        raise ParameterError(f"default must be a finite value of shape {shape} for {mechanism}")
    if mechanism == "randomized_response":
        if d not in (0.0, 1.0):
            raise ParameterError("default for randomized_response must be 0 or 1")
        return d.astype(np.int64)
    return d


def discrete_range(value_range, mechanism: str) -> tuple[float, float] | None:
    """The public range of sampler="discrete" (laplace), None for randomized_response; refuses locations."""
    if mechanism == "planar_laplace":
        raise ParameterError("sampler='discrete' draws values (laplace) only; locations: use sampler='snapping' "
                             "with a public bound")
    if mechanism != "laplace":
        return None  # randomized_response: its full-precision flip, as with sampler='snapping'
    if value_range is None:
        raise ParameterError("value_range is required for sampler='discrete': the public range (low, high) of one "
                             "value, e.g. value_range=(0, 25) for a 25 kWh meter — from the device or the domain, "
                             "never from the data")
    from lmdk.discrete_laplace import validate_range

    return validate_range(value_range)


def discrete_cells(x, budgets: np.ndarray, published: np.ndarray, sensitivity: float, value_range, rng) -> np.ndarray:
    """sampler="discrete" for data-independent budgets: the exact discrete Laplace at every published cell at once
    (row-major order, each at its own budget; ``x`` clamped to ``value_range`` and broadcasting to budgets);
    unpublished cells keep x (the scheme republishes there)."""
    from lmdk import discrete_laplace as dl

    xs = np.broadcast_to(x, budgets.shape)
    if budgets.ndim == 2 and budgets.shape[0] > 1 and np.array_equal(budgets, np.broadcast_to(budgets[:1],
                                                                                               budgets.shape)):
        return _column_cells(x, budgets, published, sensitivity, value_range, rng)
    values = np.array(xs, dtype=np.float64)
    cal = dl.calibrate_unchecked(budgets[published], sensitivity, *value_range)
    values[published] = dl.on_grid(xs[published], cal, dl.discrete_laplace(cal.scale, 1, rng))
    return values


def _column_cells(x, budgets: np.ndarray, published: np.ndarray, sensitivity: float, value_range,
                  rng) -> np.ndarray:
    """``discrete_cells`` for repetitions of a data-independent scheme (every row the same budgets): one calibration
    per column, the draws of the published cells in the same row-major order at the same integer scales, and
    ``on_grid`` broadcast over the rows (the same numbers as cell by cell, without (reps, n) copies of the
    calibration)."""
    from lmdk import discrete_laplace as dl

    everywhere = bool(published.all())
    used = np.ones(budgets.shape[1], dtype=bool) if everywhere else published.any(axis=0)
    cal = dl.calibrate_unchecked(np.where(used, budgets[0], 1.0), sensitivity, *value_range)  # unused columns: 0
    if everywhere:
        z = dl.discrete_laplace(np.tile(cal.scale, budgets.shape[0]), 1, rng).reshape(budgets.shape)
    else:
        z = np.zeros(budgets.shape, dtype=np.int64)
        z[published] = dl.discrete_laplace(cal.scale[np.nonzero(published)[1]], 1, rng)
    values = dl.on_grid(x, cal, z)  # the per-column calibration broadcasts over the rows
    return values if everywhere else np.where(published, values, np.broadcast_to(x, budgets.shape))


def lockstep_cells(x, budgets: np.ndarray, published: np.ndarray, sensitivity: float, value_range,
                   noise, rows_apart: bool = False) -> np.ndarray:
    """sampler="discrete" for budgets known in advance, from ``noise`` (a ``lmdk.discrete_lockstep.LockstepNoise`` of
    the budgets' shape): the exact discrete Laplace at every published cell at its own budget (``x`` clamped to
    ``value_range``, broadcasting to budgets); unpublished cells keep x (the scheme republishes there). Only the
    floors depend on the budgets, so parts drawn once serve every ε (``lmdk.schemes.draw_noise``). ``rows_apart``:
    rows from Generators of their own (``LockstepNoise.cells``)."""
    from lmdk import discrete_laplace as dl

    shape = budgets.shape
    if budgets.ndim == 2 and np.array_equal(budgets, np.broadcast_to(budgets[:1], shape)):
        used = published.any(axis=0)  # one calibration per column, broadcast over the rows (issue 34)
        cal = dl.calibrate_unchecked(np.where(used, budgets[0], 1.0), sensitivity, *value_range)
    else:
        cal = dl.calibrate_unchecked(np.where(published, budgets, 1.0), sensitivity, *value_range)
    values = dl.on_grid(x, cal, noise.cells(cal.scale, published, rows_apart))
    return values if published.all() else np.where(published, values, np.broadcast_to(x, shape))


def discrete_step(noise, sensitivity: float, value_range):
    """Adaptive's ``draw`` hook for sampler="discrete": step t's values from ``noise`` (a
    ``lmdk.discrete_lockstep.LockstepNoise``) at the step's budgets, for the publishing rows only (the others'
    values are never looked at; budget 0 happens only on padding: drawn at 1)."""
    from lmdk import discrete_laplace as dl

    low, high = value_range
    memo: dict[bytes, dl.Calibration] = {}  # the last budgets' calibration: Adaptive's change only at landmarks

    def draw(t, x_t, budget, pub):
        out = np.full(pub.shape, x_t) if np.ndim(x_t) == 0 else np.broadcast_to(x_t, pub.shape)
        if not pub.any():
            return out
        key = budget.tobytes()
        cal = memo.get(key)
        if cal is None:
            memo.clear()
            cal = memo[key] = dl.calibrate_unchecked(np.where(budget > 0, budget, 1.0), sensitivity, low, high)
        if pub.all():
            return dl.on_grid(out, cal, noise.step(t, cal.scale))
        rows = np.flatnonzero(pub)
        cal = cal.take(rows)
        out = out.copy()
        out[rows] = dl.on_grid(out[rows], cal, noise.step(t, cal.scale, rows))
        return out

    return draw


def repetition_count(repetitions) -> int:
    """Validate the number of repetitions."""
    if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
        raise ParameterError(f"repetitions must be a positive integer, got {repetitions!r}")
    return int(repetitions)


REMOVED_OPTIONS = ("sensitivity", "sampler", "bound", "value_range", "relation", "options")
"""Keywords the relation replaced (``protects=``): each is refused with a ParameterError naming it."""
PROTECTS_FIX = ("what ε protects, e.g. protects=lmdk.relation.public_range(0, 25, \"kWh\") (the papers' figures: "
                "protects=lmdk.relation.PAPERS_UNIT_CHANGE)")
"""The one-line fix a missing or removed keyword's ParameterError gives."""


def refuse_removed(where: str, removed: dict) -> None:
    """Refuse keywords ``protects=`` replaced (a ParameterError naming it), and unknown ones as Python does."""
    if not removed:
        return
    old = [k for k in removed if k in REMOVED_OPTIONS]
    if old:
        raise ParameterError(f"{where}: {', '.join(k + '=' for k in old)} no longer exist(s): the relation fixes Δ, "
                             f"sampler and public range together; give protects=, {PROTECTS_FIX}")
    raise TypeError(f"{where}() got an unexpected keyword argument {next(iter(removed))!r}")


def protects_relation(where: str, protects):
    """The Relation of ``protects=`` (a Relation or its dict); missing → a ParameterError with the one-line fix."""
    if protects is None:
        raise ParameterError(f"{where}() needs protects=: {PROTECTS_FIX}")
    from lmdk.relation import Relation

    return Relation.from_dict(protects)


def series_landmarks(series, landmarks):
    """(series as the engine takes it, landmarks): a landmark rule (``lmdk.landmarks.LandmarkRule``: anything with
    ``indices(series)``) resolved on ``series`` (an lmdk Series, or plain values for value rules); an lmdk Series
    becomes its mechanism input. A rule string is parsed first (``lmdk.landmarks.parse_rule``; ``lmdk.schemes.release``
    does it), as this layer does not read rules."""
    if isinstance(landmarks, str):
        raise ParameterError(f"landmarks {landmarks!r}: give indices, a mask or "
                             f"lmdk.landmarks.parse_rule({landmarks!r}) (lmdk.schemes.release takes the rule string)")
    is_rule = callable(getattr(landmarks, "indices", None))
    if not is_rule and not hasattr(series, "kind"):
        return series, landmarks
    if is_rule:
        target = series
        if not hasattr(series, "kind"):
            from lmdk.data.series import from_values

            target = from_values(np.asarray(series, dtype=float).ravel())
        landmarks = landmarks.indices(target)
    if hasattr(series, "kind"):
        from lmdk.data.mechanism_input import release_input

        series = release_input(series, landmarks)[0]
    return series, landmarks
