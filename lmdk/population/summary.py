"""Per-user summary of a population release and the population aggregates.

Per user: n, |L|, landmark share, the worst Σ ε over L ∪ {t} (Theorem 2, against the real L, plus the ε
spent selecting dummies) and its verdict, the MAE against the original (for the officer's eyes only: it
and |L| describe the private data), the share of events published with fresh noise, the MAE user-level
privacy would give on average, and whether the policy is *degenerate* for the user: every event is a
landmark, or the release is no more accurate than user-level privacy. Sums along time run over each user's
own cells only (users grouped by length), so a user's numbers do not depend on the batch (or padding) it ran in.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from lmdk.population.batch import BatchRelease, valid_mask

TOLERANCE = 1e-9  # relative, as ``lmdk release``'s verdict
MAE_QUANTILES = (0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0)
SHARE_BINS = np.linspace(0.0, 1.0, 11)
SUMMARY_COLUMNS = ("user", "n", "landmarks", "landmark_share", "worst_sigma", "theorem2_holds", "mae",
                   "published_share", "user_level_mae", "degenerate", "dropped")


def _row_sums(cells: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Σ of each row's first lengths[r] cells, summed over exactly those cells (independent of padding)."""
    out = np.empty(len(lengths))
    for size in np.unique(lengths).tolist():
        rows = lengths == size
        part = cells[:, :size] if rows.all() else cells[rows, :size]
        out[rows] = part.sum(axis=1)
    return out


def absolute_errors(original: np.ndarray, released: np.ndarray, mechanism: str) -> np.ndarray:
    """|o − x| (laplace), distance in metres (planar_laplace), 100·[o ≠ x] (randomized response), per cell."""
    if mechanism == "planar_laplace":
        return np.hypot(released[..., 0] - original[..., 0], released[..., 1] - original[..., 1])
    if mechanism == "randomized_response":
        return 100.0 * (released != original)
    return np.abs(released - original)


def user_level_mae(mechanism: str, epsilon: float, lengths: np.ndarray, sensitivity: float, original=None,
                   value_range: tuple[float, float] | None = None) -> np.ndarray:
    """Expected MAE of user-level privacy (ε/n per event) per user: Δn/ε, 2n/ε metres, 100·P(flip) %; with a
    public range the values are clamped as the release clamps them, so the Laplace error is the clamped one
    (:func:`lmdk.metrics.laplace_expected_error`, averaged over each user's ``original`` values; padding ignored)."""
    per_event = epsilon / lengths.astype(np.float64)
    if mechanism == "planar_laplace":
        return 2.0 / per_event
    if mechanism == "randomized_response":
        return 100.0 * expit(-per_event)
    if value_range is None or original is None:
        return sensitivity / per_event
    from lmdk.metrics import laplace_expected_error

    valid = valid_mask(lengths, original.shape[1])
    errors = laplace_expected_error(original, (sensitivity / per_event)[:, None], value_range)
    return _row_sums(np.where(valid, errors, 0.0), lengths) / lengths


def batch_summary(users, original: np.ndarray, real_landmarks: np.ndarray, rel: BatchRelease,
                  dropped=None) -> pd.DataFrame:
    """One row per user of a batch (``SUMMARY_COLUMNS``); ``original`` is the mechanism input before noise."""
    lengths = rel.lengths
    valid = valid_mask(lengths, rel.budgets.shape[1])
    count = real_landmarks.sum(axis=1)
    on_landmarks = _row_sums(np.where(real_landmarks, rel.budgets, 0.0), lengths)
    regular_max = np.where(real_landmarks | ~valid, 0.0, rel.budgets).max(axis=1)
    worst = on_landmarks + regular_max + rel.selection_epsilon
    errors = np.where(valid, absolute_errors(original, np.asarray(rel.values), rel.mechanism), 0.0)
    mae = _row_sums(errors, lengths) / lengths
    baseline = user_level_mae(rel.mechanism, rel.epsilon, lengths, rel.sensitivity, np.asarray(original),
                              rel.value_range)
    return pd.DataFrame({
        "user": list(users), "n": lengths, "landmarks": count, "landmark_share": count / lengths,
        "worst_sigma": worst, "theorem2_holds": worst <= rel.epsilon * (1 + TOLERANCE), "mae": mae,
        "published_share": rel.published.sum(axis=1) / lengths, "user_level_mae": baseline,
        "degenerate": (count == lengths) | (mae >= baseline),
        "dropped": np.zeros(len(lengths), dtype=np.int64) if dropped is None else np.asarray(dropped, np.int64),
    })


def aggregates(summary: pd.DataFrame) -> dict:
    """Population figures: users, events, MAE quantiles, landmark-share histogram, violated/degenerate counts."""
    mae = summary["mae"].to_numpy(dtype=np.float64)
    share = summary["landmark_share"].to_numpy(dtype=np.float64)
    counts, _ = np.histogram(share, bins=SHARE_BINS)
    quantiles = np.quantile(mae, MAE_QUANTILES) if mae.size else np.full(len(MAE_QUANTILES), np.nan)
    return {
        "users": int(len(summary)),
        "events": int(summary["n"].sum()),
        "landmarks": int(summary["landmarks"].sum()),
        "mae_quantiles": {f"{q:g}": float(v) for q, v in zip(MAE_QUANTILES, quantiles, strict=True)},
        "mae_mean": float(mae.mean()) if mae.size else float("nan"),
        "landmark_share_histogram": {"bins": SHARE_BINS.round(2).tolist(), "counts": counts.tolist()},
        "published_share": float(summary["published_share"].mean()) if len(summary) else float("nan"),
        "violated": int((~summary["theorem2_holds"].astype(bool)).sum()),
        "degenerate": int(summary["degenerate"].astype(bool).sum()),
        "dropped_events": int(summary["dropped"].sum()),
        "worst_sigma_max": float(summary["worst_sigma"].max()) if len(summary) else float("nan"),
    }
