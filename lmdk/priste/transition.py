"""Transition matrix M as an operator: dense, or the Kronecker product of a row and a column factor.

The §5.1 Gaussian mobility M[(r, c), (r', c')] ∝ exp(−((r − r')² + (c − c')²)/(2σ²)) factorises
exactly: the weight is exp(−(r − r')²/2σ²)·exp(−(c − c')²/2σ²) and so is every row sum, hence
M = A ⊗ B with A (rows×rows) and B (cols×cols) row-stochastic. Multiplying an m×m matrix by
A ⊗ B takes m²·(rows + cols) multiply-adds instead of m³ (10× fewer on 20×20, ≈ 4× faster in
practice); those products are most of PriSTE's forward pass (:class:`lmdk.priste.quantify.EventTracker`).
:func:`transition_operator` detects the structure from the dense matrix, so callers keep passing M.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KRON_RTOL = 1e-12
"""Largest entrywise relative difference between M and A ⊗ B for the factors to be used."""
TINY = np.finfo(float).tiny


@dataclass(frozen=True)
class TransitionOp:
    """M (m×m, row-stochastic) with optional factors M = A ⊗ B over a rows×cols grid (cell = row·cols + col)."""

    dense: np.ndarray
    row_factor: np.ndarray | None = None  # A, rows×rows
    col_factor: np.ndarray | None = None  # B, cols×cols

    @property
    def factored(self) -> bool:
        """Whether products use the Kronecker factors."""
        return self.row_factor is not None

    def _factors(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(A, B) when products use the Kronecker factors (both are set together), else None."""
        if self.row_factor is None or self.col_factor is None:
            return None
        return self.row_factor, self.col_factor

    def right(self, X: np.ndarray) -> np.ndarray:
        """X @ M for X of shape (k, m); subnormal intermediates are flushed to 0 (they slow later products)."""
        factors = self._factors()
        if factors is None:
            return X @ self.dense
        A, B = factors
        R, C = A.shape[0], B.shape[0]
        Y = flush_subnormal((X.reshape(-1, C) @ B).reshape(-1, R, C))  # Σ_c X[i, (r, c)]·B[c, c']
        return np.matmul(A.T, Y).reshape(X.shape)  # Σ_r A[r, r']·Y[i, r, c']

    def left(self, V: np.ndarray) -> np.ndarray:
        """M @ V for V of shape (m,) or (m, k)."""
        factors = self._factors()
        if factors is None:
            return self.dense @ V
        A, B = factors
        R, C = A.shape[0], B.shape[0]
        W = (A @ V.reshape(R, -1)).reshape(R, C, -1)  # Σ_r' A[r, r']·V[(r', c'), ·]
        return np.matmul(B, W).reshape(V.shape)  # Σ_c' B[c, c']·W[r, c', ·]


def flush_subnormal(X: np.ndarray) -> np.ndarray:
    """Set entries below the smallest normal double (of non-negative X, e.g. a block rescaled to max 1) to 0, in place.

    Subnormal operands make every later m×m product 5–10× slower on x86 (σ = 0.5 on the 20×20 grid),
    and they carry fewer than 52 significant bits anyway; they change a row's sum by < m·2.2e-308.
    """
    small = X < TINY
    if small.any():
        X[small] = 0.0
    return X


def transition_operator(M: np.ndarray, rows: int | None = None, cols: int | None = None) -> TransitionOp:
    """M as a :class:`TransitionOp`, factored as A ⊗ B when the grid shape is given and M is such a product."""
    M = np.asarray(M, dtype=float)
    if rows is None or cols is None or rows * cols != M.shape[0] or min(rows, cols) < 2:
        return TransitionOp(M)
    factors = kronecker_factors(M, rows, cols)
    return TransitionOp(M) if factors is None else TransitionOp(M, *factors)


def kronecker_factors(M: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Row-stochastic (A, B) with M = A ⊗ B to KRON_RTOL in every entry (zeros of M may be < TINY in A ⊗ B), else None.

    Rearranged as N[(r, r'), (c, c')] = M[(r, c), (r', c')], a Kronecker product is the rank-1 matrix
    vec(A)·vec(B)ᵀ, so A is read off the column and B off the row through N's largest entry.
    """
    N = M.reshape(rows, cols, rows, cols).transpose(0, 2, 1, 3).reshape(rows * rows, cols * cols)
    i, j = np.unravel_index(int(np.argmax(N)), N.shape)
    if N[i, j] <= 0:
        return None
    A = N[:, j].reshape(rows, rows)
    B = N[i, :].reshape(cols, cols)
    ra, rb = A.sum(axis=1, keepdims=True), B.sum(axis=1, keepdims=True)
    if np.any(ra <= 0) or np.any(rb <= 0):
        return None
    A, B = A / ra, B / rb
    K = np.kron(A, B)
    ok = (np.abs(K - M) <= KRON_RTOL * M) | ((M == 0) & (K < TINY))
    return (A, B) if bool(ok.all()) else None
