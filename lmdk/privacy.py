"""Privacy accounting for landmark privacy: the Theorem 2 loss Σ_{i ∈ L ∪ {t}} ε_i at every t (paper §3.1)."""
from __future__ import annotations

import numpy as np

from lmdk.errors import ParameterError
from lmdk.mechanisms import validate_epsilon


def landmark_mask(landmarks, n: int, name: str = "landmarks") -> np.ndarray:
    """Turn landmark indices (1-D ints) or a boolean mask ((n,) or (reps, n)) into a boolean mask."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n (series length) must be a positive integer, got {n!r}")
    arr = np.asarray(landmarks)
    if arr.dtype == bool:
        if arr.ndim not in (1, 2) or arr.shape[-1] != n:
            raise ParameterError(
                f"{name} as a boolean mask must have shape (n,) or (repetitions, n) with n={n}, got {arr.shape}"
            )
        return arr
    if arr.size == 0:
        return np.zeros(n, dtype=bool)
    if arr.ndim != 1:
        raise ParameterError(f"{name} as indices must be 1-D (one landmark timestamp per entry), got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        as_float = np.asarray(arr, dtype=float) if np.issubdtype(arr.dtype, np.number) else None
        if as_float is None or not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
            raise ParameterError(f"{name} must be integer timestamps 0..n-1 or a boolean mask, got dtype {arr.dtype}")
        arr = as_float.astype(np.int64)
    if arr.min() < 0 or arr.max() >= n:
        raise ParameterError(f"{name} must lie in 0..{n - 1} (timestamps of the series), got {arr.min()}..{arr.max()}")
    mask = np.zeros(n, dtype=bool)
    mask[arr] = True
    return mask


def _budgets(budgets) -> np.ndarray:
    """Validate a (n,) or (reps, n) array of non-negative, finite budgets."""
    try:
        b = np.asarray(budgets, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError("budgets must be a numeric array of shape (n,) or (repetitions, n)") from exc
    if b.ndim not in (1, 2) or b.shape[-1] == 0:
        raise ParameterError(f"budgets must have shape (n,) or (repetitions, n) with n ≥ 1, got {b.shape}")
    if not np.all(np.isfinite(b)) or np.any(b < 0):
        raise ParameterError("budgets must be finite and ≥ 0 (0 = nothing released at that timestamp)")
    return b


def landmark_loss(budgets, landmarks) -> np.ndarray:
    """Theorem 2 loss at every t: Σ_{i∈L} ε_i + ε_t·[t ∉ L], in O(n) per repetition; shape of the broadcast."""
    b = _budgets(budgets)
    mask = landmark_mask(landmarks, b.shape[-1])
    if mask.ndim == 2 and b.ndim == 2 and mask.shape[0] != b.shape[0]:
        raise ParameterError(f"landmarks mask has {mask.shape[0]} repetitions but budgets has {b.shape[0]}")
    on_landmarks = np.where(mask, b, 0.0).sum(axis=-1, keepdims=True)
    return on_landmarks + np.where(mask, 0.0, b)


def satisfies_landmark_privacy(budgets, landmarks, epsilon, tol: float = 1e-9) -> bool:
    """True when every timestamp (and every repetition) satisfies Theorem 2: loss ≤ ε + tol."""
    eps = validate_epsilon(epsilon)
    if eps.ndim != 0:
        raise ParameterError("epsilon must be a single total privacy budget (a scalar) here")
    return bool(np.all(landmark_loss(budgets, landmarks) <= float(eps) + tol))
