"""Restarted BPL recursions ("chains") for many start points at once — the engine behind lmdk.tpl.temporal.

A chain restarted at s runs BPL_s = ε_s, BPL_k = L(BPL_{k−1}) + ε_k (papers/000 §2.3, Cao et al.).
Forward chains (FPL) are the same recursion on the time-reversed series.

Two exact strategies:

* Möbius scan (when L has one vertex (D, Q) — every Laplacian-smoothed matrix and every
  2-state matrix, whose two candidate points lie on a slope-1 line). In y = e^α one step is the linear-fractional map
  y ↦ e^{ε_k}·(Q·y + 1 − Q)/(D·y + 1 − D), i.e. the 2×2 matrix [[Q, 1−Q], [e^{−ε_k}D, e^{−ε_k}(1−D)]]
  up to scale. A chain is a product of such matrices applied to y = 1 (a restart, since L(0) = 0),
  so all chains of all start points come from segmented prefix products, computed in one compiled pass
  (numba) over the whole array. All entries are non-negative, so the products carry no cancellation:
  relative error ≈ 2·(segment length)·1e-16.
* Direct recursion (any other L): one numpy step per timestamp, vectorised over the chains of a
  stretch; chains that have converged to within 1e-13 are continued as one (see _shared_chains).

Arrays are (rows, n): rows are repetitions, each its own series.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from lmdk.tpl.loss import LossFunction, evaluate

MAX_SCAN_BUDGET = 300.0
"""Budgets above this (e^{−ε} under-flows soon after) use the direct recursion."""


def use_scan(loss: LossFunction, budgets: np.ndarray) -> bool:
    """True when the Möbius scan applies: at most one vertex and moderate budgets."""
    return loss.n_vertices <= 1 and (budgets.size == 0 or float(budgets.max()) <= MAX_SCAN_BUDGET)


def _vertex(loss: LossFunction) -> tuple[float, float]:
    """(Q, D) of L's one vertex ((0, 0) when L has none: L ≡ 0)."""
    if not loss.n_vertices:
        return 0.0, 0.0
    return float(loss.q[0]), float(loss.d[0])


@njit(cache=True, nogil=True)
def _scan_kernel(decay, starts, q, dd, transpose, top, bottom):
    """Inclusive products X_k = M_k·X_{k−1} of the steps M_k = [[Q, 1−Q], [e^{−ε_k}D, e^{−ε_k}(1−D)]] (``decay``:
    e^{−ε_k}; their transposes, entering on the right, when ``transpose``), restarting (X_k = M_k) where ``starts``,
    each product divided by its largest entry; writes X_k·(1, 1)'s two entries (of X_kᵀ's columns when
    ``transpose``) to ``top`` and ``bottom``. One pass without the steps' four arrays."""
    a = b = c = d = 0.0
    for k in range(decay.size):
        sa, sb, sc, sd = q, 1.0 - q, decay[k] * dd, decay[k] * (1.0 - dd)
        if transpose:
            sb, sc = sc, sb
        if starts[k]:
            a, b, c, d = sa, sb, sc, sd
        else:
            na = sa * a + sb * c
            nb = sa * b + sb * d
            nc = sc * a + sd * c
            nd = sc * b + sd * d
            scale = max(max(na, nb), max(nc, nd))  # > 0: every row of a step has a positive entry
            a, b, c, d = na / scale, nb / scale, nc / scale, nd / scale
        if transpose:
            top[k], bottom[k] = a + c, b + d
        else:
            top[k], bottom[k] = a + b, c + d


def _segmented_scan(budgets: np.ndarray, starts: np.ndarray, loss: LossFunction, transpose: bool = False):
    """log(top/bottom) of X_k·(1, 1) along the flat axis of (rows, n) ``budgets``, restarting where ``starts`` is
    True (index 0 always starts): a chain's value in y = e^α up to the positive scale the ratio divides out."""
    decay = np.exp(-np.ascontiguousarray(budgets)).reshape(-1)
    flags = np.array(starts, dtype=np.bool_, copy=True).reshape(-1)
    if flags.size:
        flags[0] = True
    top, bottom = np.empty(decay.size), np.empty(decay.size)
    _scan_kernel(decay, flags, *_vertex(loss), transpose, top, bottom)
    return _log_ratio(top, bottom).reshape(budgets.shape)


def _log_ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """log(top / bottom) of the product applied to (1, 1)."""
    return np.log(top) - np.log(bottom)


def restarted(budgets: np.ndarray, restarts: np.ndarray, loss: LossFunction) -> np.ndarray:
    """Per (row, t): the chain restarted at the latest restart ≤ t (column 0 always restarts), evaluated at t."""
    rows, n = budgets.shape
    starts = restarts.copy()
    starts[:, 0] = True
    if use_scan(loss, budgets):
        return _segmented_scan(budgets, starts, loss)
    out = np.empty_like(budgets)
    if rows == 1:
        eps, restart, prev = budgets[0].tolist(), starts[0].tolist(), 0.0
        for t in range(n):
            prev = eps[t] + (0.0 if restart[t] else loss.scalar(prev))
            out[0, t] = prev
        return out
    prev_rows = np.zeros(rows)
    for t in range(n):
        prev_rows = budgets[:, t] + np.where(starts[:, t], 0.0, evaluate(prev_rows, loss.q, loss.d))
        out[:, t] = prev_rows
    return out


def to_next_landmark(budgets: np.ndarray, landmarks: np.ndarray, loss: LossFunction) -> np.ndarray:
    """Per (row, t ∉ L with a later landmark l): the chain restarted at t+1, evaluated at l; NaN elsewhere."""
    rows, n = budgets.shape
    nxt = next_landmark(landmarks)
    wanted = ~landmarks & (nxt < n)
    out = np.full(budgets.shape, np.nan)
    if not wanted.any():
        return out
    if use_scan(loss, budgets):
        # R_k = M_l·M_{l−1}···M_k for k from l down to the previous landmark + 1: scan the time-reversed
        # series with transposed matrices (new factors enter on the right), restarting at each landmark.
        starts = np.flip(landmarks, axis=1).copy()
        starts[:, 0] = True
        value = np.flip(_segmented_scan(np.flip(budgets, axis=1), starts, loss, transpose=True), axis=1)
        out[:, :-1] = np.where(wanted[:, :-1], value[:, 1:], np.nan)
        return out
    for r in range(rows):
        start = 0
        for lb in np.flatnonzero(landmarks[r]).tolist():
            if lb > start:  # regular events start..lb−1; their chains start at t+1 and end at lb
                out[r, start:lb] = _shared_chains(budgets[r, start + 1:lb + 1], loss)
            start = lb + 1
    return out


def _shared_chains(eps: np.ndarray, loss: LossFunction) -> np.ndarray:
    """Value at the end of ``eps`` of the chain started at each position j, sharing converged chains.

    Chains started at different positions approach each other. Two chains whose values differ by
    at most MERGE_TOL are continued as one: L is 1-Lipschitz (every vertex function has slope ≤ 1),
    so their distance never grows afterwards. The error bound each shared chain carries is tracked
    and kept ≤ MERGE_CAP; with no merges this is the plain recursion.
    """
    g = eps.size
    vals, err = np.empty(g), np.empty(g)
    first = np.empty(g, dtype=np.int64)  # first start position each representative stands for
    k = 0
    for p in range(g):
        if k == 1:
            vals[0] = loss.scalar(vals[0]) + eps[p]
        elif k:
            vals[:k] = evaluate(vals[:k], loss.q, loss.d) + eps[p]
        vals[k], err[k], first[k] = eps[p], 0.0, p
        k += 1
        if k > 1 and (p % MERGE_EVERY == 0 or k > 4 * MERGE_EVERY):
            k = _merge_close(vals, err, first, k)
    counts = np.diff(np.append(first[:k], g))
    return np.repeat(vals[:k], counts)


MERGE_TOL = 1e-13
MERGE_EVERY = 8  # steps between merge checks (merging is optional, checking costs time)
MERGE_CAP = 1e-11


def _merge_close(vals: np.ndarray, err: np.ndarray, first: np.ndarray, k: int) -> int:
    """Merge neighbouring representatives within MERGE_TOL (in place); return the new count."""
    close = np.abs(np.diff(vals[:k])) <= MERGE_TOL
    if not close.any():
        return k
    keep = np.concatenate([[True], ~close])
    idx = np.arange(k)
    survivor = np.maximum.accumulate(np.where(keep, idx, 0))
    spread = err[:k] + np.abs(vals[:k] - vals[survivor])
    starts = np.flatnonzero(keep)
    group_err = np.maximum.reduceat(spread, starts)
    too_far = np.repeat(group_err > MERGE_CAP, np.diff(np.append(starts, k)))
    keep |= too_far  # groups that would exceed the cap stay apart
    survivor = np.maximum.accumulate(np.where(keep, idx, 0))
    spread = err[:k] + np.abs(vals[:k] - vals[survivor])
    starts = np.flatnonzero(keep)
    new_err = np.maximum.reduceat(spread, starts)
    m = starts.size
    vals[:m], err[:m], first[:m] = vals[starts], new_err, first[starts]
    return m


def next_landmark(landmarks: np.ndarray) -> np.ndarray:
    """Per (row, t): the first landmark index > t in the row, or n when there is none."""
    rows, n = landmarks.shape
    idx = np.where(landmarks, np.arange(n), n)
    after = np.full((rows, n), n)
    after[:, :-1] = np.flip(np.minimum.accumulate(np.flip(idx[:, 1:], axis=1), axis=1), axis=1)
    return after
