"""The neighbours an audit releases and the attacker's statistic: one event changed across the public range — at a
regular event and at a landmark — and the landmark-privacy neighbour of Theorem 2 (every landmark and one regular
event changed at once, paper §3.1, Definitions 3–4).

A changed event moves from ``a`` to ``b``: the ends of the public range (``range``), ``low`` to ``low + d``
(``up_to``), the statistic's low end to low + Δ (``aggregate``: one user's reading across its range), a location
to one ``radius`` metres east (``radius``), or bit 0 to 1 (``flip``). The statistic of
one release is the sum, over the changed events that drew fresh noise, of the log-likelihood ratio
ln p(o_t | b) − ln p(o_t | a) of the mechanism at that event's budget: (|o−a| − |o−b|)·ε_t/Δ for Laplace
(§2.1.1), the same with distances in metres for planar Laplace, ±ε_t for randomized response. Budgets and
publication times are functions of the released values (Adaptive's schedule is post-processing, Theorem 1), so
the attacker can compute S; a statistic that is only approximately the likelihood ratio (the exact discrete
Laplace, clamping) still gives valid, if looser, bounds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError


@dataclass(frozen=True)
class Pair:
    """One neighbouring pair: the changed timestamps, its name and the ε the policy claims for it."""

    name: str  # "regular", "landmark", "theorem2"
    cells: np.ndarray  # timestamps whose event differs between the two neighbours
    claimed: float  # the ε the policy promises for this pair
    description: str


def values_ab(x: np.ndarray, mechanism: str, protected) -> tuple[np.ndarray, np.ndarray]:
    """Per timestamp, the two values a changed event takes in the two neighbours (a, b), shaped like x."""
    if mechanism == "randomized_response":
        return np.zeros_like(x), np.ones_like(x)
    if mechanism == "planar_laplace":
        if protected is None or protected.kind != "radius":
            raise ParameterError("auditing locations needs the protected radius (e.g. --radius 200)")
        return x.copy(), x + np.array([protected.d, 0.0])
    if protected is None or protected.value_range is None:
        raise ParameterError("auditing values needs the public range of one value (e.g. --range 0 25): the "
                             "neighbours change one event across it")
    low, high = protected.value_range
    if protected.kind == "aggregate":  # one user's reading from the range's low end to its high end (every other
        b = min(high, low + protected.sensitivity)  # user at low): the statistic moves by Δ, not across its range
    else:
        b = high if protected.kind == "range" else min(high, low + protected.d)
    return np.full_like(x, low, dtype=float), np.full_like(x, b, dtype=float)


def worlds(x: np.ndarray, cells_all: np.ndarray, pair: Pair, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """(neighbour 0, neighbour 1): x with every audited timestamp at a, and the same with the pair's cells at b."""
    x0 = np.array(x, dtype=float if x.dtype.kind == "f" else x.dtype)
    x0[cells_all] = a[cells_all]
    x1 = x0.copy()
    x1[pair.cells] = b[pair.cells]
    return x0, x1


def llr(values: np.ndarray, budgets: np.ndarray, published: np.ndarray, a, b, mechanism: str,
        sensitivity: float) -> np.ndarray:
    """Per release and changed event, ln p(o | b) − ln p(o | a) where fresh noise was drawn (0 elsewhere).

    ``values``: (trials, k[, 2]) releases at the k changed timestamps; budgets/published (trials, k); a, b (k[, 2]).
    """
    if mechanism == "randomized_response":
        out = np.where(values == b, budgets, -budgets)
    elif mechanism == "planar_laplace":
        da = np.hypot(*np.moveaxis(values - a, -1, 0))
        db = np.hypot(*np.moveaxis(values - b, -1, 0))
        out = (da - db) * budgets / sensitivity
    else:
        out = (np.abs(values - a) - np.abs(values - b)) * budgets / sensitivity
    return np.where(published, out, 0.0)


def statistic(release, cells: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The attacker's statistic S of every release (trials,): the summed log-likelihood ratio of the changed events."""
    values = np.asarray(release.values)[:, cells]
    budgets = np.asarray(release.budgets)[:, cells]
    published = np.asarray(release.published)[:, cells]
    return llr(values, budgets, published, a[cells], b[cells], release.mechanism, release.sensitivity).sum(axis=1)


def choose_cells(budgets: np.ndarray, mask: np.ndarray) -> tuple[int | None, int | None]:
    """The worst regular event and the worst landmark: the largest mean budget spent (first on ties), or None."""
    mean = np.asarray(budgets, dtype=float).mean(axis=0)
    regular = np.flatnonzero(~mask)
    landmarks = np.flatnonzero(mask)
    t = int(regular[np.argmax(mean[regular])]) if regular.size else None
    lm = int(landmarks[np.argmax(mean[landmarks])]) if landmarks.size else None
    return t, lm


def pairs(n: int, landmarks: np.ndarray, t: int | None, lm: int | None, epsilon: float, event: str = "event"
          ) -> list[Pair]:
    """The audited pairs: one regular event, one landmark, and every landmark plus that regular event (Theorem 2)."""
    out = []
    if t is not None:
        out.append(Pair("regular", np.array([t]), epsilon, f"one regular {event} (t = {t}) changed"))
    if lm is not None:
        out.append(Pair("landmark", np.array([lm]), epsilon, f"one landmark {event} (t = {lm}) changed"))
    if landmarks.size and t is not None:
        cells = np.union1d(landmarks, [t]).astype(np.int64)
        out.append(Pair("theorem2", cells, epsilon,
                        f"all {landmarks.size:,} landmarks and one regular {event} changed at once (Theorem 2)"))
    return out
