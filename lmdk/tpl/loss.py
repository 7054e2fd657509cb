"""Markov correlation matrices and Cao et al.'s loss increment L(α), exact and precomputed per matrix.

Cao, Yoshikawa, Xiao, Xiong, "Quantifying Differential Privacy under Temporal Correlations"
(ICDE 2017; TKDE 2018 = reference [9] of papers/000). For a transition matrix P the backward
(or forward) privacy loss grows by

    L(α) = max over ordered row pairs (q, d) and state subsets S of
           log((q_S·(e^α − 1) + 1) / (d_S·(e^α − 1) + 1)),    q_S = Σ_{k∈S} q_k,

so BPL_t = L_B(BPL_{t−1}) + ε_t (papers/000 §2.3, Definition 2).

How it is made exact and fast. With x = e^α − 1 ≥ 0 the value of S is the ratio
(1 + x·Q)/(1 + x·D) of the point (D, Q) = (d_S, q_S). For fixed x, adding state k raises the
ratio iff q_k/d_k exceeds it, so the best S of a pair is a threshold set: a prefix of the states
with q_k > d_k sorted by q_k/d_k descending. Writing u = 1/x, the ratio is the slope from
(−u, −u) to (D, Q), and the largest slope from a point below-left of every candidate is reached
on the upper convex hull of the candidates. Only hull vertices whose incoming edge is steeper
than 1 can win (every candidate has slope > 1 from the diagonal). So L is the maximum of a few
"vertex" functions log((1+xQ_v)/(1+xD_v)) — computed once per matrix; evaluating L on an array
of α is then O(#vertices) per α and exact (every vertex is a real subset of a real pair).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lmdk.errors import ParameterError, TooLargeError

CORRELATION = {"weak": 1.0, "moderate": 0.1, "strong": 0.01}
"""Laplacian-smoothing strengths s of papers/000 §4.1.2 (smaller s = stronger correlation)."""

MAX_STATES = 500
"""Largest matrix accepted by loss_function: its precomputation is O(m³ log m)."""

_ROW_SUM_TOL = 1e-9
_BLOCK_ELEMENTS = 1_000_000  # candidate entries handled per block while precomputing
_ROUNDING = 64 * float(np.finfo(float).eps)  # relative error of a height (a sum of a row's entries), generously
_SLOPE_TOL = 1e-12  # an edge of slope ≤ 1 + 1e-12 raises L by ≤ ~1e-12 (2-state rows give slope exactly 1)
_PRUNE_TOL = 1e-13  # a pair whose chain rises above the envelope by less than this changes L by < 1e-13


def transition_matrix(s: float | str, n: int = 2) -> np.ndarray:
    """Laplacian-smoothed identity (§4.1.2): P[i,j] = (I[i,j] + s) / Σ_k (I[i,k] + s); s = inf → no correlation."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ParameterError(f"n (number of states) must be an integer ≥ 2, got {n!r}")
    if isinstance(s, str):
        if s not in CORRELATION:
            raise ParameterError(f"s must be a positive number or one of {tuple(CORRELATION)}, got {s!r}")
        s = CORRELATION[s]
    try:
        s = float(s)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"s (smoothing strength) must be a positive number, got {s!r}") from exc
    if np.isnan(s) or s <= 0:
        raise ParameterError(f"s (smoothing strength) must be > 0 (smaller = stronger correlation), got {s!r}")
    if np.isinf(s):
        return np.full((n, n), 1.0 / n)
    raw = np.eye(n) + s
    return raw / raw.sum(axis=1, keepdims=True)


def validate_transition_matrix(P, name: str = "P") -> np.ndarray:
    """Return P as a float array after checking it is square, finite, non-negative and row-stochastic."""
    try:
        arr = np.asarray(P, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name} must be a square numeric matrix (a Markov transition matrix)") from exc
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 1:
        raise ParameterError(f"{name} must be a square matrix (states × states), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} contains NaN or infinity; every transition probability must be finite")
    if np.any(arr < 0):
        raise ParameterError(f"{name} has negative entries (smallest {arr.min():g}); probabilities must be ≥ 0")
    sums = arr.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > _ROW_SUM_TOL)
    if bad.size:
        raise ParameterError(
            f"{name} must be row-stochastic: row {bad[0]} sums to {sums[bad[0]]:.12g}, not 1 "
            f"(within {_ROW_SUM_TOL:g}); normalise each row by its sum"
        )
    return arr


@dataclass(frozen=True)
class LossFunction:
    """L(α) of one matrix as the maximum over envelope vertices (D_v, Q_v) (never below 0)."""

    q: np.ndarray
    d: np.ndarray

    @property
    def n_vertices(self) -> int:
        """Number of vertex functions besides the constant 0."""
        return int(self.q.size)

    def __call__(self, alpha) -> np.ndarray:
        """Exact L(α) for an array of α ≥ 0 (any shape); α = inf gives the limit (inf when some d_S = 0)."""
        a = np.asarray(alpha, dtype=float)
        if np.any(np.isnan(a)) or np.any(a < 0):
            raise ParameterError("alpha (a privacy loss) must be ≥ 0 and not NaN")
        return evaluate(a, self.q, self.d)

    def scalar(self, alpha: float) -> float:
        """L(α) of one finite α ≥ 0 with plain floats (no checks): the hot path of step-by-step recursions."""
        x = math.expm1(alpha)
        if math.isinf(x):
            return float(evaluate(np.asarray(alpha, dtype=float), self.q, self.d))
        best = 0.0
        for q, d in zip(self.q.tolist(), self.d.tolist(), strict=True):
            best = max(best, math.log1p(x * (q - d) / (1.0 + x * d)))
        return best


def evaluate(a: np.ndarray, q: np.ndarray, d: np.ndarray) -> np.ndarray:
    """max(0, max_v log((1 + xQ_v)/(1 + xD_v))) with x = e^α − 1, as log1p(x(Q−D)/(1+xD)): stable for all α."""
    if q.size == 0:
        return np.zeros_like(a)
    with np.errstate(over="ignore"):
        x = np.expm1(a)[..., None]
    finite = np.isfinite(x)
    xs = np.where(finite, x, 0.0)
    vals = np.log1p(xs * (q - d) / (1.0 + xs * d))
    if not finite.all():  # e^α overflowed: the limit log(Q/D), or α + log Q when D = 0
        with np.errstate(divide="ignore"):
            limit = np.where(d > 0, np.log(q) - np.log(np.where(d > 0, d, 1.0)), a[..., None] + np.log(q))
        vals = np.where(finite, vals, limit)
    return np.maximum(vals.max(axis=-1), 0.0)


def loss_function(P) -> LossFunction:
    """Precompute L for matrix P (cached per matrix): the envelope vertices of all pairs' threshold sets."""
    arr = validate_transition_matrix(P)
    if arr.shape[0] > MAX_STATES:
        raise TooLargeError(
            f"P has {arr.shape[0]} states; at most {MAX_STATES} are supported (precomputation is O(m³ log m)); "
            "aggregate states into fewer, coarser ones"
        )
    arr = np.ascontiguousarray(arr)
    return _cached_loss_function(arr.tobytes(), arr.shape[0])


@lru_cache(maxsize=64)
def _cached_loss_function(raw: bytes, m: int) -> LossFunction:
    """Build the LossFunction of the m×m matrix stored in ``raw``."""
    P = np.frombuffer(raw, dtype=float).reshape(m, m)
    summary = _pair_summaries(P)
    d_v, q_v = _envelope(np.concatenate([summary[0], summary[2]]), np.concatenate([summary[1], summary[3]]))
    # A pair's threshold sets form a concave chain from the origin with slopes in (1, r_max]: it lies
    # under the lines Q = r_max·D and Q = Q_full + (D − D_full). If their corner is under the
    # envelope, so is the whole chain and the pair cannot add a vertex.
    d_full, q_full, _, _, r_max, pair_i, pair_j = summary
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d_corner = np.where(np.isinf(r_max), 0.0, (q_full - d_full) / (r_max - 1.0))
    d_corner = np.clip(np.nan_to_num(d_corner), 0.0, d_full)
    q_corner = q_full - (d_full - d_corner)
    open_pairs = (q_corner > _envelope_height(d_v, q_v, d_corner) + _PRUNE_TOL) & (q_full > d_full)
    rows = max(1, _BLOCK_ELEMENTS // m)
    idx = np.flatnonzero(open_pairs)
    for start in range(0, idx.size, rows):
        sel = idx[start:start + rows]
        d_c, q_c = _pair_threshold_sets(P[pair_i[sel]], P[pair_j[sel]])
        above = q_c > _envelope_height(d_v, q_v, d_c)  # points under the envelope can never win
        if np.any(above):
            d_v, q_v = _envelope(np.concatenate([d_v, d_c[above]]), np.concatenate([q_v, q_c[above]]))
    keep = q_v > d_v  # drop the origin (value 0 is the floor in evaluate)
    q_v, d_v = q_v[keep].copy(), d_v[keep].copy()
    q_v.setflags(write=False)
    d_v.setflags(write=False)
    return LossFunction(q=q_v, d=d_v)


def _pair_summaries(P: np.ndarray):
    """Per ordered pair (q = P[i], d = P[j]): full set {k: q_k > d_k}, best single state, max ratio, i, j."""
    m = P.shape[0]
    rows = max(1, _BLOCK_ELEMENTS // (m * m))
    parts = []
    for start in range(0, m, rows):
        q = P[start:start + rows][:, None, :]
        d = P[None, :, :]
        pos = q > d
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = np.where(pos, q / d, 0.0)
        best = ratio.argmax(axis=-1)[..., None]
        q_b = np.broadcast_to(q, pos.shape)
        d_b = np.broadcast_to(d, pos.shape)
        parts.append((
            np.where(pos, d, 0.0).sum(axis=-1).ravel(),
            np.where(pos, q, 0.0).sum(axis=-1).ravel(),
            np.take_along_axis(d_b, best, -1).ravel() * (np.take_along_axis(ratio, best, -1).ravel() > 1),
            np.take_along_axis(q_b, best, -1).ravel() * (np.take_along_axis(ratio, best, -1).ravel() > 1),
            np.take_along_axis(ratio, best, -1).ravel(),
        ))
    cols = [np.concatenate(c) for c in zip(*parts, strict=True)]
    pair_i, pair_j = np.divmod(np.arange(m * m), m)
    return (*cols, pair_i, pair_j)


def _envelope_height(d_v: np.ndarray, q_v: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Height of the current envelope at D (continued with slope 1 past its last vertex)."""
    inside = np.interp(D, d_v, q_v)
    return np.where(D > d_v[-1], q_v[-1] + (D - d_v[-1]), inside)


def _pair_threshold_sets(q: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(d_S, q_S) of every threshold set S of the pairs (q[r], d[r]): prefixes by q_k/d_k descending."""
    pos = q > d  # only states with q_k > d_k can be in an optimal S (the ratio is ≥ 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.where(pos, q / d, -1.0)  # q_k / 0 = inf: such states come first
    order = np.argsort(-ratio, axis=-1)
    q_s = np.take_along_axis(np.where(pos, q, 0.0), order, axis=-1).cumsum(axis=-1)
    d_s = np.take_along_axis(np.where(pos, d, 0.0), order, axis=-1).cumsum(axis=-1)
    keep = q_s > d_s
    return d_s[keep], q_s[keep]


def _envelope(D: np.ndarray, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the upper hull of the points ∪ origin whose incoming edge is steeper than 1."""
    D = np.concatenate([[0.0], D])
    Q = np.concatenate([[0.0], Q])
    order = np.lexsort((-Q, D))  # D ascending, Q descending among ties
    D, Q = D[order], Q[order]
    best_before = np.maximum.accumulate(Q)
    pareto = np.ones(D.size, dtype=bool)
    pareto[1:] = Q[1:] > best_before[:-1]  # drop points with a smaller-or-equal D and a larger-or-equal Q
    hull_d: list[float] = []
    hull_q: list[float] = []
    for dk, qk in zip(D[pareto].tolist(), Q[pareto].tolist(), strict=True):
        while len(hull_d) >= 2 and (
            (hull_d[-1] - hull_d[-2]) * (qk - hull_q[-2]) - (hull_q[-1] - hull_q[-2]) * (dk - hull_d[-2]) >= 0
        ):
            hull_d.pop()
            hull_q.pop()
        hull_d.append(dk)
        hull_q.append(qk)
    hd, hq = np.asarray(hull_d), np.asarray(hull_q)
    if hd.size > 1:
        # an edge is steeper than 1 when Q rises by more than D beyond the rounding of the two heights: Q − D of
        # nearly equal rows cancels (P = [[1, 0], [1.4e-6, 1 − 1.4e-6]] gave slope 1 + 3e-11 and a second vertex)
        rise = np.diff(hq) - np.diff(hd)
        rounding = _ROUNDING * (np.abs(hq[:-1]) + np.abs(hq[1:]))
        steep = np.concatenate([[True], rise > _SLOPE_TOL * np.diff(hd) + rounding])
        stop = np.flatnonzero(~steep)
        if stop.size:
            hd, hq = hd[: stop[0]], hq[: stop[0]]
    return hd, hq


def loss_increment(P, alpha) -> np.ndarray:
    """Cao et al.'s L(α) for transition matrix P at every α of an array (exact; α ≥ 0)."""
    fn = P if isinstance(P, LossFunction) else loss_function(P)
    return fn(alpha)


def privacy_loss_supremum(P, epsilon) -> np.ndarray:
    """lim BPL_t under a constant budget ε (Cao et al. §IV-C), inf where BPL grows without bound.

    BPL_t increases to the smallest α with L(α) + ε ≤ α. Per vertex that is a quadratic in
    y = e^α: D·y² + (1 − D − e^ε·Q)·y − e^ε·(1 − Q) = 0 (one positive root; none when D = 0 and
    e^ε·Q ≥ 1), and the limit of the maximum of the vertices is the largest of their roots.
    """
    fn = P if isinstance(P, LossFunction) else loss_function(P)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps < 0):
        raise ParameterError("epsilon must be finite and ≥ 0 (the budget spent at every timestamp)")
    if fn.n_vertices == 0:
        return eps.copy() if eps.ndim else eps * 1.0
    e = np.exp(eps)[..., None]
    q, d = fn.q, fn.d
    b = e * q + d - 1.0
    c = e * (1.0 - q)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        disc = np.sqrt(b * b + 4.0 * d * c)
        # stable positive root of d·y² − b·y − c = 0
        y_quad = np.where(b >= 0, (b + disc) / (2.0 * np.where(d > 0, d, 1.0)), 2.0 * c / (disc - b))
        y_lin = np.where(e * q < 1.0, c / (1.0 - e * q), np.inf)
        y = np.where(d > 0, y_quad, y_lin)
        alpha = np.log(y).max(axis=-1)
    return np.where(eps == 0, 0.0, np.maximum(alpha, eps))
