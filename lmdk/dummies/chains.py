"""Nested dummy-landmark chains: the order in which regular timestamps join L.

Paper §3.4.1 and the thesis chapter "Selection of events" (papers/003).

Every generator returns an *addition order*: a permutation of the regular timestamps T∖L.
Option j is then L ∪ order[:j+1], so options are nested by construction and the last one is T.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError, TooLargeError

OPTIMAL_MAX_REGULAR = 20
"""The optimal search visits all 2^(n−|L|) subsets of regular events; above this many regular events it refuses."""

METRICS = ("euclidean", "wasserstein")


def validate_landmarks(n: int, landmarks) -> np.ndarray:
    """Return L as a sorted unique int64 array, raising ParameterError on a bad n or landmark set."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"n (the series length) must be a positive integer, got {n!r}")
    n = int(n)
    arr = np.asarray(landmarks)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ParameterError(
                f"landmarks given as a boolean mask must have shape ({n},), got {arr.shape}; "
                "pass a mask over all n timestamps or an array of landmark timestamps")
        return np.flatnonzero(arr).astype(np.int64)
    if arr.ndim != 1:
        raise ParameterError(f"landmarks must be a 1-D array of timestamps, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.size > n:
        raise ParameterError(
            f"n={n} is smaller than the number of landmarks |L|={arr.size}; "
            "a series of n events has at most n landmarks")
    if not np.issubdtype(arr.dtype, np.number) or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ParameterError("landmarks must be integer timestamps in 0..n−1; found non-integer values")
    ints = arr.astype(np.int64)
    if ints.min() < 0 or ints.max() >= n:
        bad = ints[(ints < 0) | (ints >= n)][:5].tolist()
        raise ParameterError(f"landmarks must lie in 0..{n - 1} (n={n}); out of range: {bad}")
    uniq, counts = np.unique(ints, return_counts=True)
    if uniq.size != ints.size:
        raise ParameterError(f"landmarks must not repeat a timestamp; duplicated: {uniq[counts > 1][:5].tolist()}")
    return uniq


def regular_timestamps(n: int, landmarks: np.ndarray) -> np.ndarray:
    """T∖L as a sorted int64 array."""
    member = np.zeros(n, dtype=bool)
    member[landmarks] = True
    return np.flatnonzero(~member).astype(np.int64)


def _neighbours(n: int, landmarks: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Previous/next landmark of each regular t, with sentinels −1 and n for the series ends."""
    padded = np.concatenate(([-1], landmarks, [n]))
    idx = np.searchsorted(landmarks, t)
    return padded[idx], padded[idx + 1]


def gap_sumsq(n: int, members: np.ndarray) -> float:
    """calcMetric: Σ of squared gaps between consecutive members of a sorted set, with sentinels −1 and n."""
    gaps = np.diff(np.concatenate(([-1], members, [n])))
    return float(np.sum(gaps.astype(np.float64) ** 2))


def gap_std(n: int, sumsq, count):
    """evalSeq: standard deviation of the |S|+1 gaps (they always sum to n+1), from Σgap² and the gap count."""
    mean = (n + 1) / np.asarray(count, dtype=np.float64)
    return np.sqrt(np.maximum(np.asarray(sumsq, dtype=np.float64) / count - mean**2, 0.0))


def evaluation_gap(n: int, landmarks, order) -> float:
    """Mean over the chain's sets of |evalSeq(L ∪ order[:j+1]) − evalSeq(L)| — the objective Optimal minimises."""
    lm = validate_landmarks(n, landmarks)
    order = np.asarray(order, dtype=np.int64)
    if order.size == 0:
        return 0.0
    orig = gap_std(n, gap_sumsq(n, lm), lm.size + 1)
    evals = np.array([gap_std(n, gap_sumsq(n, np.sort(np.concatenate((lm, order[: j + 1])))), lm.size + j + 2)
                      for j in range(order.size)])
    return float(np.mean(np.abs(evals - orig)))


def heuristic_order(n: int, landmarks: np.ndarray) -> np.ndarray:
    """Thesis Heuristic: add, one at a time, the regular timestamp keeping the gap std closest to L's.

    Incremental: inserting r into the gap (a, b) changes Σgap² by (r−a)² + (b−r)² − (b−a)², so every
    step is one O(n) vectorised pass and the neighbour arrays are patched only inside the split gap —
    O(n·|T∖L|) in total.
    """
    t = np.arange(n, dtype=np.int64)
    prev, nxt = _neighbours(n, landmarks, t)
    available = np.ones(n, dtype=bool)
    available[landmarks] = False
    sumsq = gap_sumsq(n, landmarks)
    count = landmarks.size + 1
    target = gap_std(n, sumsq, count)
    m = n - landmarks.size
    order = np.empty(m, dtype=np.int64)
    tf = t.astype(np.float64)
    for step in range(m):
        delta = (tf - prev) ** 2 + (nxt - tf) ** 2 - (nxt - prev).astype(np.float64) ** 2
        diff = np.abs(gap_std(n, sumsq + delta, count + 1) - target)
        diff[~available] = np.inf
        r = int(np.argmin(diff))
        a, b = int(prev[r]), int(nxt[r])
        nxt[a + 1:r] = r
        prev[r + 1:b] = r
        available[r] = False
        sumsq += float(delta[r])
        count += 1
        order[step] = r
    return order


def optimal_order(n: int, landmarks: np.ndarray) -> np.ndarray:
    """Thesis Optimal (calcMetric/evalSeq/getOpts): the nested chain minimising the mean evaluation gap, exactly.

    Instead of enumerating all (n−|L|)! chains, a dynamic programme over the 2^(n−|L|) subsets of T∖L:
    best[S] = cost(S) + min_{r∈S} best[S∖{r}], cost(S) = |evalSeq(L∪S) − evalSeq(L)| — same optimum, O(m·2^m).
    The chain's score is the mean of the per-set gaps; the thesis pseudo-code compares |mean eval − evalOrig|,
    which lets over- and undershoots cancel, so we average the absolute gaps (what the heuristic also minimises
    step by step, making the two comparable).
    """
    regular = regular_timestamps(n, landmarks)
    m = regular.size
    if m > OPTIMAL_MAX_REGULAR:
        raise TooLargeError(
            f"method='optimal' is exponential in the number of regular events (2^(n−|L|) subsets); "
            f"n−|L| = {m} exceeds the limit {OPTIMAL_MAX_REGULAR}. Use method='heuristic' or 'partitioned'.")
    if m == 0:
        return regular
    size = 1 << m
    lm_prev, lm_next = _neighbours(n, landmarks, regular)
    sumsq = np.empty(size)
    sumsq[0] = gap_sumsq(n, landmarks)
    highest = np.full(size, -1, dtype=np.int64)  # index of the highest set bit
    for j in range(m):  # subsets whose highest regular is regular[j]: all others lie below it
        low = np.arange(1 << j)
        prev = np.maximum(lm_prev[j], np.where(highest[low] >= 0, regular[np.maximum(highest[low], 0)], -1))
        r, nx = regular[j], lm_next[j]
        sumsq[low + (1 << j)] = sumsq[low] - (nx - prev) ** 2.0 + (r - prev) ** 2.0 + (nx - r) ** 2.0
        highest[low + (1 << j)] = j
    subsets = np.arange(size)
    popcount = np.zeros(size, dtype=np.int64)
    for j in range(m):
        popcount += (subsets >> j) & 1
    target = gap_std(n, sumsq[0], landmarks.size + 1)
    cost = np.abs(gap_std(n, sumsq, landmarks.size + 1 + popcount) - target)
    best = np.full(size, np.inf)
    best[0] = 0.0
    for k in range(1, m + 1):
        layer = subsets[popcount == k]
        cand = np.full(layer.size, np.inf)
        for j in range(m):
            has = ((layer >> j) & 1).astype(bool)
            cand[has] = np.minimum(cand[has], best[layer[has] ^ (1 << j)])
        best[layer] = cost[layer] + cand
    order_rev = []
    s = size - 1
    while s:
        bits = [j for j in range(m) if (s >> j) & 1]
        j = bits[int(np.argmin([best[s ^ (1 << b)] for b in bits]))]
        order_rev.append(regular[j])
        s ^= 1 << j
    return np.array(order_rev[::-1], dtype=np.int64)


def random_order(n: int, landmarks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random baseline: regular timestamps join in a uniformly random order (ignores where L lies)."""
    return rng.permutation(regular_timestamps(n, landmarks))


@dataclass(frozen=True)
class Bins:
    """Freedman–Diaconis partition of T = 0..n−1 into bins of width h (the last may be shorter)."""
    width: int
    capacity: np.ndarray  # timestamps per bin
    reference: np.ndarray  # L's histogram as a probability vector (uniform over T when L = ∅)
    counts: np.ndarray  # L's histogram (landmarks per bin)

    def of(self, t: np.ndarray) -> np.ndarray:
        """Bin index of each timestamp."""
        return np.asarray(t, dtype=np.int64) // self.width


def fd_bins(n: int, landmarks: np.ndarray) -> Bins:
    """getHist (Alg. 1 line 1): bin width h = 2·IQR(L)/|L|^(1/3) (Freedman–Diaconis), rounded up to whole timestamps.

    When the rule is undefined (|L| < 2 or IQR(L) = 0) Sturges' bin count ⌈log2 n⌉+1 over T is used instead.
    """
    h = 0.0
    if landmarks.size >= 2:
        q75, q25 = np.percentile(landmarks, [75, 25])
        h = 2.0 * (q75 - q25) / landmarks.size ** (1.0 / 3.0)
    if not h > 0:
        h = n / (np.ceil(np.log2(n)) + 1) if n > 1 else 1.0
    width = int(min(max(np.ceil(h), 1), n))
    nbins = -(-n // width)
    capacity = np.full(nbins, width, dtype=np.int64)
    capacity[-1] = n - width * (nbins - 1)
    counts = np.bincount(landmarks // width, minlength=nbins).astype(np.int64)
    reference = counts / landmarks.size if landmarks.size else capacity / n
    return Bins(width, capacity, reference, counts)


def _bin_centres(bins: Bins) -> np.ndarray:
    """Centre of each bin on the time axis."""
    starts = np.arange(bins.capacity.size) * bins.width
    return starts + (bins.capacity - 1) / 2.0


def histogram_distance(bins: Bins, counts: np.ndarray, metric: str) -> np.ndarray:
    """Normalised distance (in [0, 1]) of histogram(s) ``counts`` (…, B) from L's (§4.3.1).

    Euclidean: ‖p − q‖₂/√2 on probability vectors (√2 is the largest possible value).
    Wasserstein: W₁ over bin centres divided by the span between the first and last centre.
    """
    counts = np.asarray(counts, dtype=np.float64)
    q = counts / np.maximum(counts.sum(axis=-1, keepdims=True), 1)
    p = bins.reference
    if metric == "euclidean":
        return np.sqrt(np.sum((q - p) ** 2, axis=-1)) / np.sqrt(2.0)
    if metric == "wasserstein":
        centres = _bin_centres(bins)
        if centres.size < 2:
            return np.zeros(q.shape[:-1])
        step = np.diff(centres)
        cdf_gap = np.abs(np.cumsum(q, axis=-1) - np.cumsum(p))[..., :-1]
        return np.sum(cdf_gap * step, axis=-1) / (centres[-1] - centres[0])
    raise ParameterError(f"metric must be one of {METRICS}, got {metric!r}")


def partitioned_bin_sequence(n: int, landmarks: np.ndarray, bins: Bins, metric: str = "euclidean") -> np.ndarray:
    """Algorithm 1 (§3.4.1): grow L's histogram one bin at a time, always to the version closest to the original.

    Returns the bin chosen at each step (length n−|L|). Per step only the candidate bins are scored:
    Euclidean — adding to bin i changes ‖q − p‖² by (2(c_i/S − p_i) + 1/S)/S (S = new total), so the best bin
    minimises c_i − p_i·S; Wasserstein — prefix/suffix sums of the CDF gaps give all candidates in O(B).
    """
    if metric not in METRICS:
        raise ParameterError(f"metric must be one of {METRICS}, got {metric!r}")
    cur = bins.counts.astype(np.float64).copy()
    cap = bins.capacity
    p = bins.reference
    total = float(landmarks.size)
    m = n - landmarks.size
    seq = np.empty(m, dtype=np.int64)
    if metric == "wasserstein":
        centres = _bin_centres(bins)
        step_w = np.append(np.diff(centres), 0.0)
        cum_p = np.cumsum(p)
    for k in range(m):
        new_total = total + 1.0
        if metric == "euclidean":
            score = cur - p * new_total
        else:
            a = np.abs(np.cumsum(cur) / new_total - cum_p) * step_w
            b = np.abs((np.cumsum(cur) + 1.0) / new_total - cum_p) * step_w
            score = np.concatenate(([0.0], np.cumsum(a)[:-1])) + np.cumsum(b[::-1])[::-1]
        score = np.where(cur < cap, score, np.inf)
        i = int(np.argmin(score))
        cur[i] += 1.0
        total = new_total
        seq[k] = i
    return seq


def realise_bin_sequence(n: int, landmarks: np.ndarray, bins: Bins, seq: np.ndarray,
                         rng: np.random.Generator) -> np.ndarray:
    """Turn a histogram chain into a timestamp order: the k-th time bin i grows it takes the k-th regular
    timestamp of a uniformly random permutation of bin i's regular events (sampling without replacement, §3.4.2)."""
    regular = regular_timestamps(n, landmarks)
    reg_bin = bins.of(regular)
    shuffled = regular[np.argsort(reg_bin + rng.random(regular.size), kind="stable")]
    start = np.concatenate(([0], np.cumsum(np.bincount(reg_bin, minlength=bins.capacity.size))[:-1]))
    by_bin = np.argsort(seq, kind="stable")
    occurrence = np.empty(seq.size, dtype=np.int64)
    sorted_bins = seq[by_bin]
    first = np.searchsorted(sorted_bins, sorted_bins)
    occurrence[by_bin] = np.arange(seq.size) - first
    return shuffled[start[seq] + occurrence]
