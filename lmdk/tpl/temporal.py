"""Temporal privacy loss under Markov correlation, with and without landmarks.

papers/000 §2.3 (Cao et al.'s BPL/FPL/TPL, Definition 2), §3.3 and the thesis chapter
(papers/004, Definition "landmark temporal privacy loss", segments [i⁻+1, i] and [i, i⁺−1]).
The maths of L(α) lives in lmdk.tpl.loss, the shared recursions in lmdk.tpl.chains.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError
from lmdk.privacy import landmark_mask
from lmdk.tpl import chains
from lmdk.tpl.loss import (  # noqa: F401  (re-exported public API)
    CORRELATION,
    LossFunction,
    loss_function,
    loss_increment,
    privacy_loss_supremum,
    transition_matrix,
    validate_transition_matrix,
)

__all__ = [
    "CORRELATION", "LandmarkLoss", "LossFunction", "TemporalDistance", "landmark_temporal_privacy_loss",
    "loss_function", "loss_increment", "privacy_loss_supremum", "temporal_distance", "temporal_privacy_loss",
    "transition_matrix", "validate_transition_matrix",
]


@dataclass(frozen=True)
class LandmarkLoss:
    """Per timestamp t: the thesis' overall loss, the current event's own term α_t, and min(overall, Σε)."""

    overall: np.ndarray
    own: np.ndarray
    bound: np.ndarray


@dataclass(frozen=True)
class TemporalDistance:
    """Figure 8: per regular event its distance to the nearest landmark or series edge, and the mean."""

    timestamps: np.ndarray
    distance: np.ndarray
    mean: float


def _as_budgets(budgets) -> np.ndarray:
    """Validate budgets of shape (n,) or (repetitions, n): finite and ≥ 0 (0 = nothing released)."""
    try:
        b = np.asarray(budgets, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError("budgets must be a numeric array of shape (n,) or (repetitions, n)") from exc
    if b.ndim not in (1, 2) or b.shape[-1] == 0 or b.size == 0:
        raise ParameterError(f"budgets must have shape (n,) or (repetitions, n) with n ≥ 1, got {b.shape}")
    if not np.all(np.isfinite(b)) or np.any(b < 0):
        raise ParameterError("budgets must be finite and ≥ 0 (ε_t spent at every timestamp t)")
    return b


def _loss_pair(P_backward, P_forward) -> tuple[LossFunction, LossFunction]:
    """The LossFunctions of the backward and forward matrices (forward defaults to backward)."""
    back = P_backward if isinstance(P_backward, LossFunction) else loss_function(P_backward)
    if P_forward is None:
        return back, back
    fwd = P_forward if isinstance(P_forward, LossFunction) else loss_function(P_forward)
    return back, fwd


def temporal_privacy_loss(budgets, P_backward, P_forward=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(BPL, FPL, TPL) at every t (Cao et al.; §2.3 Eq. 2): BPL_t = L_B(BPL_{t−1}) + ε_t, TPL = BPL + FPL − ε.

    Following Cao et al., P_backward[i, j] = Pr(state j at t−1 | state i at t) and
    P_forward[i, j] = Pr(state j at t | state i at t−1); the paper uses one matrix for both (the
    default). Budgets: (n,) or (repetitions, n), 0 allowed; each output has the budgets' shape.
    The asymptote of TPL under a constant ε is sup_B + sup_F − ε (privacy_loss_supremum).
    """
    b = _as_budgets(budgets)
    back, fwd = _loss_pair(P_backward, P_forward)
    b2 = np.atleast_2d(b)
    none = np.zeros(b2.shape, dtype=bool)
    bpl = chains.restarted(b2, none, back)
    fpl = np.flip(chains.restarted(np.flip(b2, axis=1), none, fwd), axis=1)
    tpl = bpl + fpl - b2
    shape = b.shape
    return bpl.reshape(shape), fpl.reshape(shape), tpl.reshape(shape)


def landmark_temporal_privacy_loss(budgets, landmarks, P_backward, P_forward=None) -> LandmarkLoss:
    """Landmark temporal privacy loss at every t (thesis Definition; papers/000 Definition 5).

    overall(t) = Σ_{i∈L∪{t}} α_i with α_i = BPL over [i⁻+1, i] + FPL over [i, i⁺−1] − ε_i, each
    recursion restarted at its segment start (i⁻, i⁺: neighbours of i in the sorted L ∪ {t}; the
    series edge where there is none). Adding t to L only changes the terms of t and of its two
    neighbouring landmarks, so overall(t) = Σ_{l∈L} α_l + α_t + (new − old FPL of the landmark
    before t) + (new − old BPL of the landmark after t), and every piece is a restarted chain that
    lmdk.tpl.chains computes for all t at once. ``bound`` = min(overall, Σ_all ε): sequential
    composition over the whole series always holds, the definition can exceed it.
    Landmarks: indices, a boolean (n,) mask, or a (repetitions, n) mask.
    """
    b = _as_budgets(budgets)
    mask = landmark_mask(landmarks, b.shape[-1])
    back, fwd = _loss_pair(P_backward, P_forward)
    if b.ndim == 2 and mask.ndim == 2 and b.shape[0] != mask.shape[0]:
        raise ParameterError(f"landmarks mask has {mask.shape[0]} repetitions but budgets has {b.shape[0]}")
    b2, lm = np.broadcast_arrays(np.atleast_2d(b), np.atleast_2d(mask))
    b2, lm = np.ascontiguousarray(b2), np.ascontiguousarray(lm)
    rows, n = b2.shape

    after_landmark = np.zeros_like(lm)
    after_landmark[:, 1:] = lm[:, :-1]
    back_own = chains.restarted(b2, after_landmark, back)  # BPL over [i⁻+1, t]
    back_next = chains.to_next_landmark(b2, lm, back)  # BPL of the next landmark, restarted at t+1

    rb, rl = np.flip(b2, axis=1), np.flip(lm, axis=1)
    before_landmark = np.zeros_like(rl)
    before_landmark[:, 1:] = rl[:, :-1]
    fwd_own = np.flip(chains.restarted(rb, before_landmark, fwd), axis=1)  # FPL over [t, i⁺−1]
    fwd_prev = np.flip(chains.to_next_landmark(rb, rl, fwd), axis=1)  # FPL of the previous landmark, to t−1

    own = back_own + fwd_own - b2
    base = np.where(lm, own, 0.0).sum(axis=1, keepdims=True)
    idx = np.arange(n)
    prev = np.maximum.accumulate(np.where(lm, idx, -1), axis=1)  # for t ∉ L: the landmark before t, or −1
    nxt = chains.next_landmark(lm)
    fwd_at_prev = np.take_along_axis(fwd_own, np.clip(prev, 0, n - 1), axis=1)
    back_at_next = np.take_along_axis(back_own, np.clip(nxt, 0, n - 1), axis=1)
    change_prev = np.where(prev >= 0, fwd_prev - fwd_at_prev, 0.0)
    change_next = np.where(nxt < n, back_next - back_at_next, 0.0)
    with np.errstate(invalid="ignore"):
        regular = base + own + np.nan_to_num(change_prev) + np.nan_to_num(change_next)
    overall = np.where(lm, base, regular)
    bound = np.minimum(overall, b2.sum(axis=1, keepdims=True))
    shape = (n,) if (b.ndim == 1 and mask.ndim == 1) else (rows, n)
    return LandmarkLoss(overall=overall.reshape(shape), own=own.reshape(shape), bound=bound.reshape(shape))


def temporal_distance(n: int, landmarks) -> TemporalDistance:
    """Figure 8 (§4.2.2): events strictly between each regular event and its nearest landmark or series edge.

    The edges act as landmarks at −1 and n, so an event next to a landmark, or the first/last
    event of the series, has distance 0. The mean is NaN when there is no regular event.
    """
    mask = landmark_mask(landmarks, n)
    if mask.ndim != 1:
        raise ParameterError("landmarks must be one set (indices or an (n,) mask) for temporal_distance")
    idx = np.arange(n)
    prev = np.maximum.accumulate(np.where(mask, idx, -1))
    nxt = np.flip(np.minimum.accumulate(np.flip(np.where(mask, idx, n))))
    dist = np.minimum(idx - prev, nxt - idx) - 1
    regular = np.flatnonzero(~mask)
    values = dist[regular]
    mean = float(values.mean()) if values.size else float("nan")
    return TemporalDistance(timestamps=regular, distance=values, mean=mean)
