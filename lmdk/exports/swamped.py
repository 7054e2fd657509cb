"""When the noise swamps the answer: most released values sit at an end of the public range, or the noise scale is
wider than the range itself — said in words with the fix, by ``lmdk aggregate``, ``lmdk release`` and the app."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MOST = 0.5
"""A release with more than this share of its values at a range end is warned about."""


@dataclass(frozen=True)
class Swamped:
    """The share of released values at an end of the range, the median noise scale, and the warning (or None)."""

    clamped_share: float
    noise_scale: float | None
    warning: str | None


def swamped(released, value_range: tuple[float, float] | None, budgets, sensitivity: float,
            what: str = "bins") -> Swamped:
    """How much of a release sits at an end of ``value_range`` and whether the Laplace scale Δ/ε_t (median over the
    values that drew fresh noise, ``budgets`` > 0) exceeds the range's width; the warning names the fix."""
    values = np.asarray(released, dtype=float).ravel()
    if value_range is None or not values.size:
        return Swamped(0.0, None, None)
    low, high = float(value_range[0]), float(value_range[1])
    width = high - low
    tol = 1e-9 * max(abs(width), 1.0)
    ends = (np.abs(values - low) <= tol) | (np.abs(values - high) <= tol)
    share = float(np.mean(ends))
    spent = np.asarray(budgets, dtype=float).ravel()
    spent = spent[np.isfinite(spent) & (spent > 0)]
    scale = float(np.median(float(sensitivity) / spent)) if spent.size and sensitivity > 0 else None
    reasons = []
    if share > MOST:
        reasons.append(f"{100 * share:.0f} % of the released {what} sit at an end of the range "
                       f"[{low:g}, {high:g}]")
    if scale is not None and width > 0 and scale > width:
        reasons.append(f"the noise scale (Δ/ε per {what[:-1]} ≈ {scale:.4g}) exceeds the range's width ({width:g})")
    if not reasons:
        return Swamped(share, scale, None)
    fix = "fewer landmarks, a larger ε, " + ("wider bins, " if what == "bins" else "") + "or the Skip scheme"
    return Swamped(share, scale, "the noise swamps the answer: " + " and ".join(reasons)
                   + f"; the release says little about the data — use {fix}")


def release_swamped(release, what: str = "values") -> Swamped:
    """:func:`swamped` of a scheme's :class:`lmdk.release_common.Release` (its first repetition), on the range of the
    relation it was calibrated by (none: nothing is said)."""
    value_range = getattr(release.protects, "value_range", None)
    values = np.asarray(release.values, dtype=float)
    if values.ndim != 2:  # locations (metres): no range to sit at
        return Swamped(0.0, None, None)
    return swamped(values[0], value_range, np.asarray(release.budgets)[0], float(release.sensitivity), what)
