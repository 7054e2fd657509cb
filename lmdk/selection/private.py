"""Private selection of a landmark set computed from the values being released.

Why. Theorem 2 of the landmark paper (§3.1) holds for a landmark set L fixed before the data is seen. A rule
such as ``below:10`` or ``percentile:20`` reads x_t to decide whether t is a landmark, and the scheme's budget,
repeat and grid at t follow from that decision: two neighbouring series that differ in one value on either
side of the threshold get different landmark sets, and Skip's repeat then tells them apart with probability 1
(the issue's attack on [20, a, 20]: a measured loss of 8.4 at a claimed ε = 1). Such a set must either be
selected privately — here — or be declared in advance (:mod:`lmdk.declared`), or the export must say that the
value of an event whose landmark status could change is not protected.

The mechanism, for a rule r and a selection budget ε_sel > 0, on the values clamped to the public range
[low, high] (the same clamping as the release):

- ``below:T`` / ``above:T``: the true bit b_t = [x_t < T] (resp. [x_t > T]) of every event is kept with
  probability e^ε_sel / (1 + e^ε_sel) and flipped otherwise (randomized response, Warner 1965), each event
  independently, from full-precision uniforms (:func:`lmdk.snapping.uniform_doubles`).
- ``percentile:P[:side]`` / ``share:P`` (values): first a threshold T̂ is chosen by the exponential mechanism
  (McSherry & Talwar 2007) over G + 1 public candidates c_j = low + j·(high − low)/G with utility
  u_j = −|#{t : x_t < c_j} − P·n/100| (for ``above``: the count of x_t > c_j), at ε_sel/2; then randomized
  response on [x_t < T̂] (resp. [x_t > T̂]) at ε_sel/2.
- Rules that read more than one event per decision (``stay:``, declared places over a trajectory) or a
  contact watch list cannot be selected this way here and are refused with the declared alternatives.

Proof. Neighbours differ in one event's value x_s (anywhere in the public range); n is public.
(1) The exponential mechanism: each count #{t : x_t < c_j} changes by at most 1, so Δu = 1 and the choice
of T̂ is ε_sel/2-DP (threshold rules skip this step: ε_q = 0).
(2) Given T̂, bit b_t reads x_t alone: only b_s can differ, and randomized response gives
P(b̂_s = y | x_s) / P(b̂_s = y | x_s') ≤ e^ε_rr for every y; the other bits have the same law. So the selected
set L̂ is (ε_q + ε_rr) = ε_sel-DP for a change of one value.
(3) Given L̂ = S, the scheme releases with (ε_pub, S)-landmark privacy (Theorem 2), in particular ε_pub-DP for
a change of any one event's value. By adaptive sequential composition (Dwork & Roth 2014, Theorem 3.16 and
§3.5.1), (L̂, release) is (ε_sel + ε_pub)-DP for a change of one event's value — whether or not the event is
a landmark, and whether or not L̂ is published. That total is the ε an export states.
(4) Groups (restated Theorem 2). For neighbours that differ in k values at once, each step pays k times: the
exponential mechanism's counts #{t : x_t < c_j} all move by up to k, so Δu = k and the threshold costs k·ε_q
(not ε_q: ε_q·Δu/1 with Δu = k, McSherry & Talwar 2007, Theorem 6); each changed value can flip its own bit, so
randomized response costs k·ε_rr; together k·(ε_q + ε_rr) = k·ε_sel for every selectable rule (``below`` /
``above``: ε_q = 0, ε_rr = ε_sel). Given L̂ = S, the release of neighbours that differ at every landmark of S and
one more event costs ε_pub (Theorem 2). So all |S| selected landmarks together with any one other event are
protected at ε_pub + (|S| + 1)·ε_sel, and several events changed together add ε_sel per event — the one formula
:func:`group_epsilon`, which the statement, the exports and the audit's group neighbour share. (The bound is
tight in order: on [0×5, 2×6] against [25×5, 2×6], ``percentile:50`` at ε_sel = 2, the exact loss of the
selection alone is 8.98 > ε_q + 5·ε_rr = 6, within 5·ε_sel = 10.)

:func:`select_masks` runs the same mechanism for many rows at once (the users of a population export, the
repetitions of an audit or a test), each row an independent selection; rows with equal values share the exponential
mechanism's probabilities and draw their own choice. Exports reach this module through
:func:`lmdk.selection.export.export_landmarks`, which decides between a declared set, this selection and a refusal.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from lmdk.errors import ParameterError
from lmdk.mechanisms import exponential, validate_epsilon
from lmdk.rng import as_generator
from lmdk.snapping import uniform_doubles

CANDIDATES = 1024
"""G: the number of steps of the public range among which the exponential mechanism picks a threshold."""
SELECTABLE = ("below", "above", "percentile", "share")
"""Rule kinds whose decision at t reads x_t alone (given a threshold): selected privately here."""


@dataclass(frozen=True)
class PrivateLandmarks:
    """A landmark set selected privately: positions, the selection budget and how it was split."""

    indices: np.ndarray
    epsilon: float
    threshold_epsilon: float
    response_epsilon: float
    threshold: float
    rule: str

    def landmark_level_epsilon(self, publishing_epsilon: float) -> float:
        """ε for neighbours that differ at every selected landmark and one more event (proof step 4)."""
        return group_epsilon(publishing_epsilon, self.epsilon, len(self.indices) + 1)


def group_epsilon(publishing_epsilon: float, selection_epsilon: float, changed: int) -> float:
    """ε of a privately selected landmark set's release for neighbours that differ in ``changed`` values at once:
    ε_pub + k·ε_sel (module docstring, step 4; k = |S| + 1 for the selected landmarks with one more event)."""
    return float(publishing_epsilon) + int(changed) * float(selection_epsilon)


def group_words(publishing_epsilon: float, selection_epsilon: float, landmarks: int | None, event: str) -> str:
    """The statement's group clause of a privately selected set: ε for all |S| selected landmarks with one more
    event (a number, or the formula in |L| when each user has their own set), and ε_sel per event changed."""
    pub, sel = float(publishing_epsilon), float(selection_epsilon)
    level = (f"{group_epsilon(pub, sel, landmarks + 1):g}" if landmarks is not None
             else f"{pub:g} + (|L| + 1)·{sel:g}")
    return (f"ε = {level} (Theorem 2 for a privately selected set: the release's {pub:g} and the selection's "
            f"ε_sel = {sel:g} for each changed {event}, threshold and randomized response together)")


def _rule(rule):
    """A LandmarkRule from a rule or its text."""
    from lmdk.landmarks import LandmarkRule, parse_rule

    return rule if isinstance(rule, LandmarkRule) else parse_rule(rule)


def _values(series, value_range: tuple[float, float]) -> np.ndarray:
    """The values to select from, clamped to the public range (refusing non-value series)."""
    kind = getattr(series, "kind", "values")
    if kind != "values":
        raise ParameterError(f"private landmark selection reads values; this series holds {kind}. Declare the "
                             "landmarks instead (calendar:…, or a file of times)")
    values = np.asarray(getattr(series, "values", series), dtype=float)
    if values.ndim != 1 or not np.all(np.isfinite(values)):
        raise ParameterError("private landmark selection needs a 1-D array of finite values")
    low, high = value_range
    return np.clip(values, low, high)


def private_threshold(values: np.ndarray, percent: float, side: str, value_range: tuple[float, float],
                      epsilon: float, rng=None) -> float:
    """T̂ by the exponential mechanism: the public candidate whose count of values below (above) it is closest
    to ``percent`` % of the events (Δu = 1; see the module docstring, step 1)."""
    thresholds = private_thresholds(np.asarray(values, dtype=float)[None, :], percent, side, value_range, epsilon,
                                    rng)
    return float(thresholds[0])


def private_thresholds(values: np.ndarray, percent: float, side: str, value_range: tuple[float, float],
                       epsilon: float, rng=None, valid: np.ndarray | None = None) -> np.ndarray:
    """:func:`private_threshold` for every row of ``values`` (rows, n) at once — users of a population, or
    repetitions of one series — each from its own draw; ``valid`` leaves padding out of the counts and of n."""
    low, high = value_range
    candidates = np.linspace(low, high, CANDIDATES + 1)
    x = np.atleast_2d(values)
    if valid is None and x.shape[0] > 1:  # identical rows (repetitions) share their probabilities: one draw each
        unique, order, bounds = _row_groups(x)
        if unique.shape[0] < x.shape[0]:
            _, probs = exponential(_utility(unique, percent, side, value_range, None), epsilon, 1.0, 0)
            draw = np.asarray(as_generator(rng).random(x.shape[0]), dtype=np.float64)
            cdf = np.cumsum(np.atleast_2d(np.asarray(probs, dtype=np.float64)), axis=1)
            index = np.empty(x.shape[0], dtype=np.int64)
            for g in range(unique.shape[0]):  # the exponential mechanism's inverse CDF, row group by row group
                rows = order[bounds[g]:bounds[g + 1]]
                index[rows] = np.searchsorted(cdf[g], draw[rows], side="right")
            return candidates[np.minimum(index, CANDIDATES)]
    index, _ = exponential(_utility(x, percent, side, value_range, valid), epsilon, 1.0, rng)
    return candidates[np.asarray(index, dtype=np.int64)]


def _row_groups(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(unique rows, row order, group bounds) of a 2-D array: rows ``order[bounds[g]:bounds[g + 1]]`` equal
    ``unique[g]``. Equal values compare equal (−0.0 = 0.0); the order of the groups is unspecified."""
    rows = x.shape[0]
    if np.array_equal(x, np.broadcast_to(x[:1], x.shape)):  # repetitions of one series: no sort at all
        return x[:1], np.arange(rows), np.array([0, rows])
    # np.unique(axis=0) sorts the rows as opaque bytes: ~25× slower than a lexicographic sort of the columns
    order = np.lexsort(x.T[::-1])
    ordered = x[order]
    starts = np.flatnonzero(np.concatenate(([True], np.any(ordered[1:] != ordered[:-1], axis=1))))
    return ordered[starts], order, np.append(starts, rows)


def _utility(x: np.ndarray, percent: float, side: str, value_range, valid) -> np.ndarray:
    """u_j = −|count_j − P·n/100| per row (Δu = 1)."""
    counts = grid_counts(x, side, value_range, valid)
    sizes = (x.shape[1] if valid is None else np.atleast_2d(valid).sum(axis=1))
    return -np.abs(counts - percent / 100.0 * np.reshape(sizes, (-1, 1)))


def grid_counts(values: np.ndarray, side: str, value_range: tuple[float, float],
                valid: np.ndarray | None = None) -> np.ndarray:
    """(rows, G + 1): per row, #{t : x_t < c_j} (``below``) or #{t : x_t > c_j} (``above``) for every public
    candidate c_j — the counts :func:`private_threshold` scores, for many rows at once (padding left out)."""
    low, high = value_range
    candidates = np.linspace(low, high, CANDIDATES + 1)
    x = np.atleast_2d(values)
    keep = np.ones(x.shape, dtype=bool) if valid is None else np.atleast_2d(valid)
    rows = x.shape[0]
    width = CANDIDATES + 2
    # below: x < c_j ⇔ j ≥ #{c ≤ x}; above: x > c_j ⇔ j < #{c < x}
    k = np.searchsorted(candidates, x, side="right" if side == "below" else "left")
    flat = (np.arange(rows)[:, None] * width + k)[keep]
    hist = np.bincount(flat, minlength=rows * width).reshape(rows, width)
    upto = np.cumsum(hist, axis=1)[:, :CANDIDATES + 1]  # #{x : k_x ≤ j}
    return upto if side == "below" else keep.sum(axis=1, keepdims=True) - upto


def randomized_bits(bits: np.ndarray, epsilon: float, rng=None) -> np.ndarray:
    """Each bit kept with probability e^ε/(1 + e^ε), else flipped, from full-precision uniforms (step 2)."""
    flip = uniform_doubles(bits.shape, rng) < expit(-epsilon)
    return bits ^ flip


def select(series, rule, epsilon: float, value_range: tuple[float, float], rng=None) -> PrivateLandmarks:
    """Select the landmarks of ``rule`` privately at ``epsilon`` (ε_sel; see the module docstring).

    ``series``: an lmdk Series of values or a 1-D array; ``value_range``: the public range (low, high) of one
    value, the same the release clamps to. Randomness only from ``rng``.
    """
    x, parsed, eps, (low, high) = _checked(series, rule, epsilon, value_range)
    masks, thresholds, threshold_eps = _select_rows(x[None, :], parsed, eps, (low, high), as_generator(rng), None)
    text = parsed.kind if parsed.number is None else f"{parsed.kind}:{parsed.number:g}"
    return PrivateLandmarks(np.flatnonzero(masks[0]).astype(np.int64), eps, threshold_eps, eps - threshold_eps,
                            float(thresholds[0]), text)


def select_masks(values, rule, epsilon: float, value_range: tuple[float, float], rng=None,
                 valid: np.ndarray | None = None) -> np.ndarray:
    """:func:`select` for every row of ``values`` (rows, n) at once — each row an independent selection (users of a
    population, or repetitions of one series for an audit): a (rows, n) landmark mask, padding (``valid`` False)
    never a landmark. The same mechanism and budget split as :func:`select`, row by row."""
    x = np.atleast_2d(np.asarray(values, dtype=float))
    _, parsed, eps, (low, high) = _checked(np.zeros(1), rule, epsilon, value_range)
    keep = np.ones(x.shape, dtype=bool) if valid is None else np.atleast_2d(valid)
    if not np.all(np.isfinite(x[keep])):
        raise ParameterError("private landmark selection needs finite values")
    x = np.clip(np.where(keep & np.isfinite(x), x, low), low, high)
    return _select_rows(x, parsed, eps, (low, high), as_generator(rng), valid)[0]


def _select_rows(x: np.ndarray, parsed, eps: float, value_range, gen, valid):
    """(masks, thresholds, ε_q) of a private selection of every row of clamped values ``x``."""
    threshold_eps = 0.0
    if parsed.kind in ("below", "above"):
        side = parsed.kind
        thresholds = np.full(x.shape[0], float(parsed.number if parsed.number is not None else 0.0))
    else:
        side = parsed.side
        threshold_eps = eps / 2.0
        percent = float(parsed.number if parsed.number is not None else 0.0)
        thresholds = private_thresholds(x, percent, side, value_range, threshold_eps, gen, valid)
    bits = x < thresholds[:, None] if side == "below" else x > thresholds[:, None]
    chosen = randomized_bits(bits, eps - threshold_eps, gen)
    if valid is not None:
        chosen &= np.atleast_2d(valid)
    return chosen, thresholds, threshold_eps


def mask_log_likelihood(masks, values, rule, epsilon: float, value_range: tuple[float, float]) -> np.ndarray:
    """ln P(L̂ = mask | values) of :func:`select` for every row of ``masks`` (rows, n): the exact likelihood an
    attacker who sees the selected set computes for a candidate series ``values`` (n,) — the threshold's exponential
    mechanism summed over its public candidates, times randomized response's keep/flip per event."""
    x, parsed, eps, (low, high) = _checked(np.asarray(values, dtype=float), rule, epsilon, value_range)
    m = np.atleast_2d(np.asarray(masks, dtype=bool))
    if m.shape[1] != x.size:
        raise ParameterError(f"masks need one column per value ({x.size}), got {m.shape[1]}")
    if m.shape[0] > 1 and x.size < 63:  # many selections from a short series repeat few sets: score each set once
        codes = m @ (np.int64(1) << np.arange(x.size, dtype=np.int64))
        sets, inverse = np.unique(codes, return_inverse=True)
        if sets.size < m.shape[0]:
            distinct = ((sets[:, None] >> np.arange(x.size, dtype=np.int64)) & 1).astype(bool)
            return mask_log_likelihood(distinct, x, parsed, eps, (low, high))[inverse.reshape(-1)]
    if parsed.kind in ("below", "above"):
        side, eps_rr = parsed.kind, eps
        thresholds = np.array([float(parsed.number if parsed.number is not None else 0.0)])
        log_p = np.zeros(1)
    else:
        side, eps_rr = parsed.side, eps / 2.0
        percent = float(parsed.number if parsed.number is not None else 0.0)
        _, probs = exponential(_utility(x[None, :], percent, side, (low, high), None), eps / 2.0, 1.0, 0)
        thresholds = np.linspace(low, high, CANDIDATES + 1)
        with np.errstate(divide="ignore"):
            log_p = np.log(np.asarray(probs, dtype=np.float64).reshape(-1))
    bits = x[None, :] < thresholds[:, None] if side == "below" else x[None, :] > thresholds[:, None]
    patterns, inverse = np.unique(bits, axis=0, return_inverse=True)  # at most n + 1 distinct true bit vectors
    weight = np.full(patterns.shape[0], -np.inf)
    np.logaddexp.at(weight, inverse.reshape(-1), log_p)
    agree = m.astype(np.float64) @ patterns.T.astype(np.float64) + (~m).astype(np.float64) @ (~patterns).T
    log_keep, log_flip = -np.logaddexp(0.0, -eps_rr), -np.logaddexp(0.0, eps_rr)
    terms = weight[None, :] + agree * log_keep + (x.size - agree) * log_flip
    top = terms.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(terms - top).sum(axis=1, keepdims=True)))[:, 0]


def _checked(series, rule, epsilon, value_range):
    """(clamped values, parsed rule, ε_sel, (low, high)) of a selection, refusing what it cannot do."""
    parsed = _rule(rule)
    if parsed.kind not in SELECTABLE:
        raise ParameterError(f"landmark rule {parsed.kind!r} cannot be selected privately (only "
                             f"{', '.join(SELECTABLE)}); declare the landmarks instead (calendar:…, or a file of "
                             "times), or export with --allow-data-landmarks and say what is not protected")
    eps = float(validate_epsilon(epsilon, "selection epsilon"))
    low, high = float(value_range[0]), float(value_range[1])
    if not low < high:
        raise ParameterError(f"the public range needs low < high, got [{low:g}, {high:g}]")
    return _values(series, (low, high)), parsed, eps, (low, high)
