"""Two-possible-world quantification of spatiotemporal event privacy (paper §3, Eqs. 3–14, Lemmas 3.1–3.3).

The user's state at time t is (l_t, f_t): the cell and a flag "the event is (still) true so far"
— the paper's bottom/top world. The flag starts False for PRESENCE and True for PATTERN and is
updated ("gated") after arriving at an event time τ_k with region r_k:

* PRESENCE: f ← f ∨ r_k[l]   (Eqs. 4–5: transitions into the region move to the true world);
* PATTERN:  f ← f ∧ r_k[l]   (Eqs. 6–8: transitions out of the region fall back to the false world).

Both worlds evolve by the same M; observations multiply both by the emission column (Eq. 10).
Everything is linear in the event length and never enumerates trajectories. Instead of the
paper's closed products (Eqs. 13–14) we combine a forward pass over the observations with a
backward "future event" vector g_t(f, l) = Pr(EVENT | f_t = f, l_t = l) computed without
observations, so Pr(EVENT, o_0..o_t) = Σ α_t·g_t covers observations before, during and after
the event uniformly (for t ≥ end, g_t is the indicator of the true world). Running products are
rescaled every step and the scale kept as a logarithm, so 1,000+ timestamps neither under- nor
overflow.
"""
from __future__ import annotations

import numpy as np

from lmdk.errors import ParameterError
from lmdk.priste.events import Event
from lmdk.priste.transition import TransitionOp, flush_subnormal, transition_operator


def check_transition(M) -> np.ndarray:
    """Return M as a float m×m row-stochastic matrix or raise ParameterError."""
    P = np.asarray(M, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] == 0:
        raise ParameterError("M must be a square m×m transition matrix")
    if np.any(P < 0) or not np.allclose(P.sum(axis=1), 1.0, atol=1e-9):
        raise ParameterError("M must be row-stochastic (non-negative rows summing to 1)")
    return P


def check_prior(pi, m: int) -> np.ndarray:
    """Return pi as a probability vector over m cells or raise ParameterError."""
    p = np.asarray(pi, dtype=float)
    if p.shape != (m,) or np.any(p < 0) or not np.isclose(p.sum(), 1.0, atol=1e-9):
        raise ParameterError(f"pi must be a probability vector of length {m} (non-negative, summing to 1)")
    return p


def check_observations(observations, m: int) -> np.ndarray:
    """Return the observed cells o_0..o_t as an int array or raise ParameterError."""
    o = np.asarray(observations)
    if o.ndim != 1 or o.size == 0 or not np.issubdtype(o.dtype, np.integer) or o.min() < 0 or o.max() >= m:
        raise ParameterError(f"observations must be a non-empty 1-D sequence of cell ids in 0..{m - 1}")
    return o.astype(np.int64)


def emission_at(E, t: int) -> np.ndarray:
    """Emission matrix in force at time t: E itself (m×m) or E[t] (one per timestamp)."""
    if isinstance(E, np.ndarray) and E.ndim == 2:
        return E
    if t >= len(E):
        raise ParameterError(f"E has {len(E)} per-timestamp matrices but timestamp {t} is needed")
    return np.asarray(E[t])


def _gate_forward(kind: str, X0: np.ndarray, X1: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move forward masses (last axis = cell) between the worlds at an event time with region r (Eqs. 4, 6, 7)."""
    if kind == "presence":
        return X0 * ~r, X1 + X0 * r
    return X0 + X1 * ~r, X1 * r


def _gate_backward(kind: str, g0: np.ndarray, g1: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Adjoint of :func:`_gate_forward`: future-event probabilities before the gate from those after it."""
    if kind == "presence":
        return np.where(r, g1, g0), g1
    return g0, np.where(r, g1, g0)


def future_vectors(event: Event, M: np.ndarray, t_max: int, *, negate: bool = False) -> list:
    """g_t = (g_t(f=0, ·), g_t(f=1, ·)) = Pr(EVENT | f_t, l_t) for t = 0..max(end, t_max) (after the gate at t).

    ``negate=True`` gives Pr(¬EVENT | f_t, l_t) = 1 − g_t, computed by the same recursion so that
    tiny complements keep full relative precision.
    """
    m = M.shape[0]
    last = max(event.end, t_max)
    out: list = [None] * (last + 1)
    g = (np.ones(m), np.zeros(m)) if negate else (np.zeros(m), np.ones(m))
    for t in range(last, -1, -1):
        out[t] = g
        r = event.region_at(t)
        h = g if r is None else _gate_backward(event.kind, g[0], g[1], r)
        g = (M @ h[0], M @ h[1])
    return out


def _initial_world(event: Event) -> int:
    return 0 if event.kind == "presence" else 1


def prior_vector(event: Event, M, *, negate: bool = False) -> np.ndarray:
    """a[i] = Pr(EVENT | l_0 = i), so Pr(EVENT) = π·a (Lemma 3.1, Eqs. 9, 17); ``negate``: Pr(¬EVENT | l_0)."""
    P = check_transition(M)
    event.validate_for(P.shape[0])
    g = future_vectors(event, P, 0, negate=negate)[0]
    r = event.region_at(0)
    h = g if r is None else _gate_backward(event.kind, g[0], g[1], r)
    return h[_initial_world(event)].copy()


def prior_probability(event: Event, pi, M) -> float:
    """Pr(EVENT) for initial distribution π (Lemma 3.1, Eq. 9)."""
    a = prior_vector(event, M)
    return float(check_prior(pi, a.size) @ a)


def _forward(event: Event | None, pi, M, E, observations):
    """Forward pass (Eq. 10) in the two worlds; returns (α_t world 0, α_t world 1, log scale, t)."""
    P = check_transition(M)
    m = P.shape[0]
    p = check_prior(pi, m)
    obs = check_observations(observations, m)
    kind = event.kind if event is not None else "presence"
    X0, X1 = (p.copy(), np.zeros(m)) if event is None or _initial_world(event) == 0 else (np.zeros(m), p.copy())
    log_scale = 0.0
    for t, o in enumerate(obs):
        if t > 0:
            X0, X1 = X0 @ P, X1 @ P
        r = event.region_at(t) if event is not None else None
        if r is not None:
            X0, X1 = _gate_forward(kind, X0, X1, r)
        col = emission_at(E, t)[:, o]
        X0, X1 = X0 * col, X1 * col
        s = max(X0.max(), X1.max())
        if s <= 0:
            return X0, X1, -np.inf, t
        X0, X1 = X0 / s, X1 / s
        log_scale += np.log(s)
    return X0, X1, log_scale, obs.size - 1


def observation_probability(pi, M, E, observations, *, log: bool = False) -> float:
    """Pr(o_0..o_t) by the forward algorithm (Eq. 10); ``log=True`` returns its logarithm (no underflow)."""
    X0, _, ls, _ = _forward(None, pi, M, E, observations)
    val = ls + np.log(X0.sum()) if np.isfinite(ls) else -np.inf
    return float(val if log else np.exp(val))


def joint_probability(event: Event, pi, M, E, observations, *, log: bool = False) -> float:
    """Pr(EVENT, o_0..o_t) for observations before, during or after the event (Lemmas 3.2–3.3, Eqs. 13–14)."""
    P = check_transition(M)
    event.validate_for(P.shape[0])
    X0, X1, ls, t = _forward(event, pi, P, E, observations)
    g = future_vectors(event, P, t)[t]
    s = X0 @ g[0] + X1 @ g[1]
    val = ls + np.log(s) if np.isfinite(ls) and s > 0 else -np.inf
    return float(val if log else np.exp(val))


def log_ratio(x: float, y: float, z: float) -> float:
    """log [Pr(o|EVENT)/Pr(o|¬EVENT)] from x = Pr(EVENT), y = Pr(EVENT, o), z = Pr(o) (Definition 2.4).

    Returns NaN when a conditional is undefined (x ∈ {0, 1} or z = 0) and ±inf when the observations
    rule out exactly one of EVENT and ¬EVENT.
    """
    u, v = z - y, 1.0 - x
    if not (0.0 < x < 1.0) or z <= 0:
        return float("nan")
    with np.errstate(divide="ignore"):
        return float(np.log(y) + np.log(v) - np.log(x) - np.log(max(u, 0.0)))


def leakage(event: Event, pi, M, E, observations) -> float:
    """max(log Pr(o|E)/Pr(o|¬E), its inverse) for prior π (Definition 2.4); 0 when a conditional is undefined."""
    P = check_transition(M)
    event.validate_for(P.shape[0])
    p = check_prior(pi, P.shape[0])
    # complements (¬EVENT) are computed by their own recursions, not as 1 − x, to keep relative precision
    x, v = p @ prior_vector(event, P), p @ prior_vector(event, P, negate=True)
    X0, X1, ls, t = _forward(event, p, P, E, observations)
    if not np.isfinite(ls) or not (0 < x and 0 < v):
        return 0.0
    g, gn = future_vectors(event, P, t)[t], future_vectors(event, P, t, negate=True)[t]
    y, u = X0 @ g[0] + X1 @ g[1], X0 @ gn[0] + X1 @ gn[1]  # common factor exp(−ls) cancels
    if y + u <= 0:
        return 0.0
    with np.errstate(divide="ignore"):
        return float(abs(np.log(y) + np.log(v) - np.log(x) - np.log(u)))


class EventTracker:
    """Incremental a, b, d of Theorem 4.1 for one event as observations arrive (Algorithm 2, lines 3–14, 21–25).

    Up to the event's end it keeps Φ_t[i, (f, l)] ∝ Pr(l_t = l, f_t = f, o_0..o_t | l_0 = i) as two m×m
    blocks (a block that is identically zero — the true world before a PRESENCE starts, the false
    world before a PATTERN starts — is stored as None and skipped). After the end the worlds no
    longer exchange mass, so Φ_t = Φ_end·B_t with B_t = Π_{k=end+1..t} M·diag(p̃_{o_k}) (the paper's
    matrix B, Algorithm 2 line 24) and only B is advanced. Every block is rescaled to max 1 each
    step (the conditions are homogeneous in b and d).

    Candidates never form Φ_{t−1}·M: by associativity b = Σ_f Φ_{t−1}[f]·(M·h_f), with h the gated
    (adjoint, :func:`_gate_backward`) emission-times-future vectors, so :meth:`candidates` costs m×m
    times the number of candidates (one matrix product for a whole batch) and only :meth:`commit` pays
    the m×m·M product — with a Kronecker-factored M (:mod:`lmdk.priste.transition`) a cheap one.
    """

    def __init__(self, event: Event, M, *, grid_shape: tuple[int, int] | None = None):
        rows, cols = grid_shape or (None, None)
        self.op = M if isinstance(M, TransitionOp) else transition_operator(check_transition(M), rows, cols)
        self.M = self.op.dense
        self.event = event
        event.validate_for(self.M.shape[0])
        self.a = prior_vector(event, self.M)
        self.a_not = prior_vector(event, self.M, negate=True)
        self._g = future_vectors(event, self.M, 0)
        self._gn = future_vectors(event, self.M, 0, negate=True)
        self.t = -1
        self._phi: list | None = None  # [X0 | None, X1 | None] at the last committed t ≤ end
        self._B: np.ndarray | None = None  # after the end

    def _in_tail(self, t: int) -> bool:
        """Whether timestamp t comes after the event's end (only B advances then)."""
        return self._phi is not None and t > self.event.end

    def candidates(self, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, d), each k×m, for k candidate observations at the next timestamp with emission columns C (m×k).

        Row q: b[q, i] ∝ Pr(EVENT, o_0..o_t | l_0 = i) and d[q, i] ∝ Pr(¬EVENT, o_0..o_t | l_0 = i) if o_t is
        candidate q (Eqs. 17–20; the paper's c = b + d); one common factor for all rows.
        """
        C = np.asarray(C, dtype=float)
        m, k = self.M.shape[0], C.shape[1]
        t = self.t + 1
        if self._phi is not None and self._in_tail(t):
            V = self.op.left(C)
            if self._B is not None:
                V = self._B @ V
            X0, X1 = self._phi
            return (np.zeros((k, m)) if X1 is None else (X1 @ V).T), (np.zeros((k, m)) if X0 is None else (X0 @ V).T)
        g, gn = self._g[min(t, len(self._g) - 1)], self._gn[min(t, len(self._gn) - 1)]
        H = [np.concatenate((C * g[w][:, None], C * gn[w][:, None]), axis=1) for w in (0, 1)]
        r = self.event.region_at(t)
        if r is not None:
            H = list(_gate_backward(self.event.kind, H[0], H[1], r[:, None]))
        if self._phi is None:  # t = 0: Φ⁻ is the identity in the initial world
            out = H[_initial_world(self.event)]
        else:
            out = sum(X @ self.op.left(h) for X, h in zip(self._phi, H, strict=True) if X is not None)
        return out[:, :k].T, out[:, k:].T

    def candidate(self, col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(b, d) of :meth:`candidates` for one emission column."""
        b, d = self.candidates(np.asarray(col, dtype=float)[:, None])
        return b[0], d[0]

    def commit(self, col: np.ndarray) -> None:
        """Accept the observation with emission column ``col`` at the next timestamp."""
        t = self.t + 1
        if self._in_tail(t):
            if self._B is None:
                B = self.M * col
            else:
                B = self.op.right(self._B)
                B *= col  # in place: each m×m pass over memory costs about as much as the product's arithmetic
            self._B = flush_subnormal(_rescale([B])[0])
        else:
            if self._phi is None:
                eye = np.eye(self.M.shape[0])
                X = [eye, None] if _initial_world(self.event) == 0 else [None, eye]
            else:
                X = [None if Y is None else self.op.right(Y) for Y in self._phi]
            r = self.event.region_at(t)
            if r is not None:
                X = _gate_forward_sparse(self.event.kind, X, r)
            X = _rescale([None if Y is None else Y * col for Y in X])
            self._phi = [None if Y is None else flush_subnormal(Y) for Y in X]
        self.t += 1


def _rescale(X: list) -> list:
    """Divide the blocks of X (fresh arrays; None = all-zero) by their common maximum, in place, if it is positive."""
    s = max(Y.max() for Y in X if Y is not None)
    if s > 0:
        for Y in X:
            if Y is not None:
                Y /= s
    return X


def _gate_forward_sparse(kind: str, X: list, r: np.ndarray) -> list:
    """:func:`_gate_forward` on [X0, X1] where None stands for an all-zero block."""
    X0, X1 = X
    if kind == "presence":
        if X0 is None:
            return [None, X1]
        return [X0 * ~r, X0 * r if X1 is None else X1 + X0 * r]
    if X1 is None:
        return [X0, None]
    return [X1 * ~r if X0 is None else X0 + X1 * ~r, X1 * r]


def event_vectors(event: Event, M, E, observations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, c): π·a = Pr(EVENT), π·b ∝ Pr(EVENT, o_0..o_t), π·c ∝ Pr(o_0..o_t) (one common factor), Eqs. 17–20."""
    a, a_not, b, d = event_vectors4(event, M, E, observations)
    return a, b, b + d


def event_vectors4(event: Event, M, E, observations, *, grid_shape: tuple[int, int] | None = None):
    """(a, ā, b, d): Pr(EVENT | l_0), Pr(¬EVENT | l_0), ∝ Pr(EVENT, o | l_0), ∝ Pr(¬EVENT, o | l_0); max(b+d) = 1.

    ``grid_shape`` = (rows, cols) lets a Kronecker-factored M (:mod:`lmdk.priste.transition`) be used.
    """
    tr = EventTracker(event, M, grid_shape=grid_shape)
    obs = check_observations(observations, tr.M.shape[0])
    for t, o in enumerate(obs[:-1]):
        tr.commit(emission_at(E, t)[:, o])
    b, d = tr.candidate(emission_at(E, obs.size - 1)[:, obs[-1]])
    s = (b + d).max()
    if s > 0:
        b, d = b / s, d / s
    return tr.a, tr.a_not, b, d
