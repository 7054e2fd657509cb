"""Empirical privacy loss: Clopper–Pearson bounds of ln(P₁(E)/P₀(E)) over the tail events of a 1-D test statistic.

An (ε-DP) mechanism gives P₁(E) ≤ e^ε·P₀(E) for every output set E and both orders of the two neighbours
(paper §2.1, Definition 1; for landmark neighbours Definition 4 and Theorem 2). Releases of the two neighbours
are drawn ``trials`` times each; a test statistic S of one release (the log-likelihood ratio of the changed
events, :mod:`lmdk.audit.neighbours`) is turned into candidate events E = {S ≥ c} and {S < c} at thresholds c
spread over the pooled sample. By Neyman–Pearson, when S is the likelihood ratio these tails are the events
that separate the neighbours best. Every candidate's ratio gets a Clopper–Pearson interval (both binomials) at
a Bonferroni-corrected level, so all of them hold together with probability ≥ ``confidence``; the reported event
is the one with the largest lower bound (Ding et al. 2018, StatDP; Bichsel et al. 2021, DP-Sniper, use the same
scheme). ``lower`` is then a valid lower confidence bound of the mechanism's ε; ``upper`` bounds the loss of
that event only — no finite experiment bounds the loss over every event.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv

from lmdk.errors import ParameterError

THRESHOLDS = 48
"""Candidate thresholds c (quantiles of the pooled statistic); 4 tests each (two tails × two orders)."""


@dataclass(frozen=True)
class LossEstimate:
    """ε̂ of one neighbouring pair: the confidence interval [lower, upper] of ln(P₁(E)/P₀(E)) for the best event E."""

    lower: float  # ≥ 0: a lower confidence bound of the mechanism's privacy loss
    upper: float  # upper confidence bound of the same event's loss (inf when the event never occurred in one world)
    estimate: float  # the point estimate ln(k₁/k₀) of that event
    event: str  # the event in words, e.g. "S ≥ 0.83 (more often under the second neighbour)"
    counts: tuple[int, int]  # occurrences of the event in the (more likely, less likely) world
    trials: int
    confidence: float

    def to_dict(self) -> dict:
        """JSON-ready fields (an infinite bound is null)."""
        def num(v: float):
            return float(v) if np.isfinite(v) else None

        return {"lower": num(self.lower), "upper": num(self.upper), "estimate": num(self.estimate),
                "event": self.event, "counts": list(self.counts), "trials": self.trials,
                "confidence": self.confidence}


def clopper_pearson(k, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact one-sided bounds (lower, upper) of a binomial proportion, each at level 1 − alpha (arrays of k)."""
    k = np.asarray(k, dtype=float)
    # betaincinv(a, b, q) is the Beta(a, b) quantile (= scipy.stats.beta.ppf, the same numbers) without importing
    # scipy.stats, which the app's every page would otherwise pay at a cold start (~1 s, issue 34)
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, betaincinv(np.maximum(k, 1e-300), n - k + 1, alpha), 0.0)
        high = np.where(k < n, betaincinv(k + 1, np.maximum(n - k, 1e-300), 1 - alpha), 1.0)
    return low, high


def _validate(s0, s1, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Two equally long 1-D finite samples and a confidence in (0, 1)."""
    a, b = np.asarray(s0, dtype=float).ravel(), np.asarray(s1, dtype=float).ravel()
    if a.size != b.size or a.size < 10:
        raise ParameterError(f"the two neighbours need the same number of trials (≥ 10), got {a.size} and {b.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ParameterError("the test statistic contains NaN or infinity")
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must lie strictly between 0 and 1 (e.g. 0.95), got {confidence!r}")
    return a, b


def _log(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(p)


def empirical_epsilon(s0, s1, confidence: float = 0.95, thresholds: int = THRESHOLDS) -> LossEstimate:
    """ε̂ from ``trials`` values of the statistic under each neighbour (s0, s1): see the module docstring."""
    a, b = _validate(s0, s1, confidence)
    trials = a.size
    pooled = np.sort(np.concatenate([a, b]))
    cuts = np.unique(np.quantile(pooled, np.linspace(0, 1, thresholds + 2)[1:-1], method="inverted_cdf"))
    cuts = np.unique(np.concatenate([cuts, np.nextafter(cuts, np.inf)]))  # S ≥ c and S > c (point masses)
    upper0 = trials - np.searchsorted(np.sort(a), cuts, side="left")  # #(S ≥ c) under neighbour 0
    upper1 = trials - np.searchsorted(np.sort(b), cuts, side="left")
    # every test: (count in the numerator world, count in the denominator world)
    num = np.concatenate([upper1, upper0, trials - upper1, trials - upper0])
    den = np.concatenate([upper0, upper1, trials - upper0, trials - upper1])
    alpha = (1 - confidence) / (2 * num.size)  # Bonferroni over every test and its two binomials
    num_low, num_high = clopper_pearson(num, trials, alpha)
    den_low, den_high = clopper_pearson(den, trials, alpha)
    lower = _log(num_low) - _log(den_high)
    best = int(np.argmax(lower))
    upper = float(_log(num_high[best]) - _log(den_low[best]))
    with np.errstate(divide="ignore"):
        estimate = float(np.log(num[best] / den[best])) if num[best] > 0 else -np.inf
    which, c = divmod(best, cuts.size)
    tail = "≥" if which in (0, 1) else "<"
    world = "second" if which in (0, 2) else "first"
    event = f"S {tail} {cuts[c]:.4g} (more often under the {world} neighbour)"
    return LossEstimate(max(float(lower[best]), 0.0), max(upper, 0.0), estimate, event,
                        (int(num[best]), int(den[best])), trials, confidence)
