"""The landmark-position attack: from the released values alone (no flags, no budgets) rank timestamps as likely
landmarks, and measure the ranking against the real landmark set L (paper §3.4, Example 3.1).

Fixed attackers, each a score per timestamp (higher = more likely a landmark):

- ``repeats``: o_t equals o_{t−1} — Skip republishes at every landmark, Adaptive between samples (Example 3.1);
  a repeat of a value that is rare in the release (not a clamped end of the range) counts more, since fresh
  noise repeats a rare value almost never;
- ``noise``: an unusual local noise level — |z| of the mean absolute change over a short window, for schemes
  whose budgets (hence noise) differ around landmarks;
- ``combined``: the repeats score, ties broken by the noise score.

Measures: ROC AUC (probability that a random landmark outranks a random regular event, ties count one half;
chance 0.5) and precision at |L| (share of real landmarks among the |L| top-ranked timestamps, ties broken
uniformly at random in expectation; chance |L|/n). With dummy landmarks the scheme runs on L′ ⊃ L, and the
attacker's target is still the real L.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ATTACKERS = ("repeats", "noise", "combined")
NOISE_WINDOW = 5  # timestamps on each side of t in the local noise level


@dataclass(frozen=True)
class PositionResult:
    """One release configuration's position attack: mean AUC and precision@|L| over trials, with 95 % CIs."""

    auc: float
    auc_ci: tuple[float, float]
    precision_at_k: float
    precision_ci: tuple[float, float]
    chance: float  # |L|/n, the precision of a random ranking
    attacker: str  # the strongest of ATTACKERS
    by_attacker: dict  # attacker → mean AUC
    trials: int
    marked: float = float("nan")  # mean |L′| (|L| without dummies)

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return {"auc": self.auc, "auc_ci": list(self.auc_ci), "precision_at_k": self.precision_at_k,
                "precision_ci": list(self.precision_ci), "chance": self.chance, "auc_chance": 0.5,
                "attacker": self.attacker, "by_attacker": dict(self.by_attacker), "trials": self.trials,
                "marked": self.marked}


def _equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise equality of releases (all coordinates for locations)."""
    eq = a == b
    return eq.all(axis=-1) if eq.ndim == 3 else eq


def _value_share(values: np.ndarray) -> np.ndarray:
    """(trials, n): the share of the row's releases equal to each release (1/n for a value seen once)."""
    flat = values if values.ndim == 2 else values[..., 0] + 1j * values[..., 1]
    trials, n = flat.shape
    order = np.argsort(flat, axis=1, kind="stable")
    ranked = np.take_along_axis(flat, order, axis=1)
    starts = np.ones((trials, n), dtype=bool)
    starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    run = np.cumsum(starts, axis=1) - 1 + (np.arange(trials) * n)[:, None]
    counts = np.bincount(run.ravel(), minlength=trials * n)
    share = np.empty((trials, n))
    np.put_along_axis(share, order, counts[run] / n, axis=1)
    return share


def repeats_score(values: np.ndarray) -> np.ndarray:
    """(trials, n): 0 without a repeat; 2 − (share of equal releases) when o_t = o_{t−1}."""
    rep = np.zeros(values.shape[:2], dtype=bool)
    rep[:, 1:] = _equal(values[:, 1:], values[:, :-1])
    return np.where(rep, 2.0 - _value_share(values), 0.0)


def noise_score(values: np.ndarray) -> np.ndarray:
    """(trials, n): |z| of the local mean absolute change (window ±NOISE_WINDOW) within its row."""
    step = np.abs(np.diff(values, axis=1))
    if step.ndim == 3:
        step = np.hypot(step[..., 0], step[..., 1])
    trials, n = values.shape[:2]
    change = np.zeros((trials, n + 1))
    change[:, 1:n] = step  # change into t (0 at t = 0)
    csum = np.cumsum(change, axis=1)
    idx = np.arange(n)
    lo, hi = np.maximum(idx - NOISE_WINDOW, 0), np.minimum(idx + NOISE_WINDOW + 1, n)
    level = (csum[:, hi] - csum[:, lo]) / (hi - lo)
    sd = level.std(axis=1, keepdims=True)
    return np.abs(level - level.mean(axis=1, keepdims=True)) / np.where(sd > 0, sd, 1.0)


def scores(values: np.ndarray) -> dict[str, np.ndarray]:
    """Every attacker's (trials, n) score of the releases ``values`` ((trials, n) or (trials, n, 2))."""
    rep, noise = repeats_score(values), noise_score(values)
    top = noise.max(axis=1, keepdims=True)
    return {"repeats": rep, "noise": noise, "combined": rep + 0.5 * noise / np.where(top > 0, top, 1.0)}


def auc(score: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, the ROC AUC of ``score`` for the real landmarks ``mask`` (n,) (ties one half; NaN if L = ∅ or T)."""
    k = int(mask.sum())
    n = score.shape[1]
    if k in (0, n):
        return np.full(score.shape[0], np.nan)
    from scipy.stats import rankdata  # here: scipy.stats costs ~1 s of a cold server start

    ranks = rankdata(score, axis=1)
    return (ranks[:, mask].sum(axis=1) - k * (k + 1) / 2) / (k * (n - k))


def precision_at_k(score: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, the expected share of real landmarks among the |L| top-scored timestamps (ties broken at random)."""
    k = int(mask.sum())
    if k == 0:
        return np.full(score.shape[0], np.nan)
    kth = -np.partition(-score, k - 1, axis=1)[:, k - 1:k]
    above, tied = score > kth, score == kth
    hits = (above & mask).sum(axis=1) + (k - above.sum(axis=1)) * (tied & mask).sum(axis=1) / tied.sum(axis=1)
    return hits / k


def _mean_ci(values: np.ndarray) -> tuple[float, tuple[float, float]]:
    """Mean and its normal 95 % interval over trials."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return float("nan"), (float("nan"), float("nan"))
    half = 1.96 * v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0
    return float(v.mean()), (float(v.mean() - half), float(v.mean() + half))


def attack(values: np.ndarray, mask: np.ndarray, marked: float = float("nan")) -> PositionResult:
    """The position attack on ``values`` (trials, n[, 2]) against the real landmarks ``mask`` (n,)."""
    mask = np.asarray(mask, dtype=bool)
    every = scores(np.asarray(values))
    by = {name: auc(s, mask) for name, s in every.items()}
    means = {name: float(np.nanmean(a)) if np.isfinite(a).any() else float("nan") for name, a in by.items()}
    best = max(ATTACKERS, key=lambda name: -np.inf if np.isnan(means[name]) else means[name])
    mean_auc, auc_ci = _mean_ci(by[best])
    precision, precision_ci = _mean_ci(precision_at_k(every[best], mask))
    return PositionResult(mean_auc, auc_ci, precision, precision_ci, float(mask.mean()), best, means,
                          int(np.asarray(values).shape[0]), float(marked))
