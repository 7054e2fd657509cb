"""Small computations the temporal-loss and dummy-landmark pages draw, kept out of the UI (numpy/pandas only).

- ``read_transition_matrix``: a user's CSV → a validated Markov transition matrix (bounded size).
- ``loss_asymptotes``: where BPL/FPL and TPL level off for a budget sequence (Cao et al.'s supremum).
- ``distribution_comparison``: Figure 9 (papers/000 §4.2.2) for any matrix, n and ε, Uniform budgets.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk import synthetic
from lmdk.errors import DataError, ParameterError, TooLargeError
from lmdk.privacy import landmark_loss
from lmdk.rng import as_generator
from lmdk.tpl.temporal import landmark_temporal_privacy_loss, privacy_loss_supremum, validate_transition_matrix

MATRIX_MAX_STATES = 200
"""Largest uploaded matrix: L(α)'s precomputation is O(m³ log m), so bigger ones would stall a shared server."""
MATRIX_MAX_BYTES = 2_000_000

COMPARISON_PERCENTAGES = tuple(range(0, 101, 10))
COMPARISON_COLUMNS = ["distribution", "landmark_pct", "quantity", "statistic", "value", "reference"]


def read_transition_matrix(data: bytes | str, max_states: int = MATRIX_MAX_STATES) -> np.ndarray:
    """Parse a CSV of a square row-stochastic matrix (numbers only; one optional header row) and validate it."""
    if isinstance(data, bytes):
        if len(data) > MATRIX_MAX_BYTES:
            raise TooLargeError(f"the matrix file has {len(data):,} bytes; at most {MATRIX_MAX_BYTES:,} are accepted")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DataError("the matrix file is not UTF-8 text; save it as a plain CSV of numbers") from exc
    text = data.strip()
    if not text:
        raise DataError("the matrix file is empty; it needs one row of transition probabilities per state")
    try:
        frame = pd.read_csv(io.StringIO(text), header=None, sep=_delimiter(text), engine="python")
    except (pd.errors.ParserError, ValueError, csv.Error) as exc:
        raise DataError(f"could not read the matrix as CSV ({exc}); use one row per state, values separated "
                        "by commas") from exc
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    if numeric.shape[0] > 1 and numeric.iloc[0].isna().all():  # a header row of state names
        numeric = numeric.iloc[1:]
    if numeric.isna().to_numpy().any():
        row, col = np.argwhere(numeric.isna().to_numpy())[0]
        raise DataError(f"the matrix has a non-numeric or empty cell at row {row + 1}, column {col + 1}; "
                        "every cell must be a probability")
    P = numeric.to_numpy(dtype=float)
    if P.shape[0] > max_states or P.shape[1] > max_states:
        raise TooLargeError(f"the matrix has {P.shape[0]}×{P.shape[1]} entries; at most {max_states} states are "
                            "accepted here — aggregate states into fewer, coarser ones")
    if P.shape[0] < 2:
        raise DataError(f"the matrix must have at least 2 states (rows), got {P.shape[0]}")
    return validate_transition_matrix(P, name="the uploaded matrix")


def _delimiter(text: str) -> str:
    """Comma unless the first line uses semicolons or tabs instead (csv.Sniffer mistakes '1.0' for '.'-separated)."""
    first = text.splitlines()[0]
    for sep in (",", ";", "\t"):
        if sep in first:
            return sep
    return ","


@dataclass(frozen=True)
class Asymptotes:
    """Upper levels of the losses for budgets ≤ ``epsilon_max``; exact limits when the budgets are constant."""

    bpl: float  # sup of BPL (and FPL) at a constant budget epsilon_max; inf when it diverges
    tpl: float  # 2·bpl − epsilon_max
    epsilon_max: float
    constant: bool  # all budgets equal: the levels are the limits, not just bounds


def loss_asymptotes(budgets, P) -> Asymptotes:
    """Levels BPL/FPL and TPL never exceed (Cao et al. §IV-C): S = sup at ε_max, TPL ≤ 2S − ε_max.

    L is non-decreasing, so BPL_t ≤ S by induction (BPL_t = L(BPL_{t−1}) + ε_t ≤ L(S) + ε_max = S), and
    TPL_t = L(BPL_{t−1}) + FPL_t ≤ (S − ε_max) + S. With constant budgets both are the limits far from the edges.
    """
    b = np.asarray(budgets, dtype=float).ravel()
    if b.size == 0 or not np.all(np.isfinite(b)) or np.any(b < 0):
        raise ParameterError("budgets must be a non-empty array of finite values ≥ 0")
    eps_max = float(b.max())
    sup = float(privacy_loss_supremum(P, eps_max))
    return Asymptotes(bpl=sup, tpl=2.0 * sup - eps_max if np.isfinite(sup) else float("inf"),
                      epsilon_max=eps_max, constant=bool(np.all(b == b[0])))


def distribution_comparison(n: int, epsilon: float, P, *, percentages=COMPARISON_PERCENTAGES,
                            distributions=synthetic.DISTRIBUTIONS, repetitions: int = 5, rng=None) -> pd.DataFrame:
    """Figure 9 for one matrix: landmark temporal privacy loss per distribution and landmark %, Uniform budgets.

    One row per (distribution, %, quantity ∈ overall/own/bound, statistic ∈ max/mean over t): ``value`` under
    P and ``reference`` without correlation (lmdk.privacy.landmark_loss for overall/bound, ε_t for own), each
    the mean over ``repetitions`` landmark draws of lmdk.synthetic.landmarks.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n (series length) must be a positive integer, got {n!r}")
    eps = float(epsilon)
    if not np.isfinite(eps) or eps <= 0:
        raise ParameterError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
        raise ParameterError(f"repetitions must be a positive integer, got {repetitions!r}")
    gen = as_generator(rng)
    groups = [(dist, int(pct)) for dist in distributions for pct in percentages]
    mask = np.zeros((len(groups) * repetitions, n), dtype=bool)
    for g, (dist, pct) in enumerate(groups):  # the draws in the same order as one group at a time
        for r in range(repetitions):
            mask[g * repetitions + r, synthetic.landmarks(n, pct / 100, dist, gen)] = True
    budgets = np.repeat((eps / (mask.sum(axis=1) + 1.0))[:, None], n, axis=1)  # Uniform: ε/(|L|+1)
    # every group's repetitions in one call: each row is its own series, so the numbers are those of one call per
    # group, at a third of the time (the per-call overhead of ~30 numpy steps on small arrays dominated)
    loss = landmark_temporal_privacy_loss(budgets, mask, P)
    plain = landmark_loss(budgets, mask)
    reference = {"overall": plain, "bound": plain, "own": budgets}
    stats = {}
    for quantity in ("overall", "own", "bound"):
        for stat, reduce in (("max", np.max), ("mean", np.mean)):
            stats[quantity, stat] = (reduce(getattr(loss, quantity), axis=1).reshape(len(groups), repetitions),
                                     reduce(reference[quantity], axis=1).reshape(len(groups), repetitions))
    rows = [(dist, pct, quantity, stat, float(value[g].mean()), float(ref[g].mean()))
            for g, (dist, pct) in enumerate(groups) for (quantity, stat), (value, ref) in stats.items()]
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
