"""Privacy-preserving dummy-landmark selection (paper §3.4, thesis "Selection of events").

When the landmark timestamps L are themselves secret, the per-timestamp budgets of a scheme reveal them
(Example 3.1). This module builds nested candidate sets L ⊂ L′ ⊆ T (``options``), scores them with a
utility (``position_utility`` / ``count_utility``) and picks one with the exponential mechanism
(``select``); the schemes then run on L′ (``landmark_sets_for_release``, called by ``schemes.release``).

Neighbouring inputs, stated once for the whole module: the secret is the landmark set L ⊆ T = {0..n−1}
with n public; two inputs are neighbours when their landmark sets differ in exactly one timestamp
(one event's landmark status flips). The selection step is ε_sel-DP with respect to that relation *for
a fixed list of candidates*. The candidates themselves are computed from L (every one contains L), so
the released L′ still tells that L ⊆ L′: the module hides which members of L′ are real among the
dummies, it does not make L′ independent of L — exactly the guarantee §3.4 argues for.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lmdk.dummies.chains import (
    METRICS,
    OPTIMAL_MAX_REGULAR,
    Bins,
    fd_bins,
    heuristic_order,
    histogram_distance,
    optimal_order,
    partitioned_bin_sequence,
    random_order,
    realise_bin_sequence,
    regular_timestamps,
    validate_landmarks,
)
from lmdk.errors import ParameterError
from lmdk.rng import as_generator

METHODS = ("optimal", "heuristic", "partitioned", "random")
UTILITIES = ("position", "count")
RELEASE_CHUNK_ELEMENTS = 2_000_000
"""landmark_sets_for_release handles repetitions in chunks of about this many (repetition × timestamp) cells."""
__all__ = [
    "METHODS", "UTILITIES", "METRICS", "OPTIMAL_MAX_REGULAR", "DummySpec", "Options", "Selection",
    "options", "position_utility", "count_utility", "utility_sensitivity", "select",
    "landmark_sets_for_release", "landmark_set_distance", "MembershipDisclosure", "membership_disclosure",
]


@dataclass(frozen=True)
class DummySpec:
    """How a scheme protects L: selection ``method``, ``share`` of ε spent on selection (§4.3.2), ``utility``."""

    method: str = "partitioned"
    share: float = 0.01
    utility: str = "position"

    def __post_init__(self) -> None:
        """Validate every field with a message naming it."""
        if self.method not in METHODS:
            raise ParameterError(f"DummySpec.method must be one of {METHODS}, got {self.method!r}")
        if self.utility not in UTILITIES:
            raise ParameterError(f"DummySpec.utility must be one of {UTILITIES}, got {self.utility!r}")
        if isinstance(self.share, bool) or not isinstance(self.share, (int, float, np.floating, np.integer)):
            raise ParameterError(f"DummySpec.share must be a number in (0, 1), got {self.share!r}")
        if not (np.isfinite(self.share) and 0.0 < float(self.share) < 1.0):
            raise ParameterError(
                f"DummySpec.share is the fraction of ε spent on selecting dummies and must lie strictly "
                f"between 0 and 1 (the paper uses 0.01), got {self.share!r}")


class Options(Sequence):
    """Nested candidate sets as a lazy list: item j is the sorted array L ∪ order[:j+1] (item 0 is T when L = T)."""

    def __init__(self, n: int, landmarks: np.ndarray, order: np.ndarray, method: str,
                 bins: Bins | None = None, bin_sequence: np.ndarray | None = None) -> None:
        """Store L, the addition order of the regular timestamps and (partitioned only) the histogram chain."""
        self.n, self.landmarks, self.order, self.method = n, landmarks, order, method
        self.bins, self.bin_sequence = bins, bin_sequence
        rank = np.full(n, -1, dtype=np.int64)
        rank[order] = np.arange(order.size)
        self.rank = rank  # position at which each timestamp joins; −1 for the real landmarks

    def histograms(self) -> tuple[Bins, np.ndarray] | None:
        """(bins, bin_sequence): the histogram chain of partitioned options; None for the others."""
        if self.bins is None or self.bin_sequence is None:
            return None
        return self.bins, self.bin_sequence

    def __len__(self) -> int:
        """Number of options: n−|L| (one when L = T)."""
        return max(self.order.size, 1)

    @property
    def sizes(self) -> np.ndarray:
        """|L′| of every option (strictly increasing, the last is n)."""
        return self.landmarks.size + np.arange(1, len(self) + 1) if self.order.size else np.array([self.n])

    def masks(self, index) -> np.ndarray:
        """Boolean mask(s) over T of option(s) ``index`` (int → (n,), array → (k, n))."""
        idx = np.asarray(index, dtype=np.int64)
        return self.rank < (idx[..., None] + 1)

    def __getitem__(self, index):
        """Option ``index`` as a sorted int64 array (a slice gives a list)."""
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = int(index)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"option index {index} out of range for {len(self)} options")
        return np.flatnonzero(self.masks(i)).astype(np.int64)

    def __repr__(self) -> str:
        """Short summary."""
        return f"Options(method={self.method!r}, n={self.n}, |L|={self.landmarks.size}, count={len(self)})"


def _check_choice(value: str, allowed: tuple, name: str) -> None:
    """Raise ParameterError unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ParameterError(f"{name} must be one of {allowed}, got {value!r}")


def options(n: int, landmarks, method: str = "partitioned", *, metric: str = "euclidean", rng=None) -> Options:
    """Candidate landmark sets L ⊂ L′ ⊆ T, nested with sizes |L|+1..n (§3.4.1); a lazy list of sorted arrays.

    ``optimal``: exact thesis search (TooLargeError when n−|L| > OPTIMAL_MAX_REGULAR). ``heuristic``: greedy
    thesis algorithm on the std of gaps between consecutive landmarks. ``partitioned``: Algorithm 1 with
    ``metric`` ('euclidean' or 'wasserstein'), timestamps drawn per bin without replacement with ``rng``.
    ``random``: the baseline — dummies join in a random order. Its weakness: the dummies ignore where L
    lies, so dense clusters of real landmarks still stand out in L′ (the thesis's other baseline, a random
    set of |L| timestamps, is worse still: it drops real landmarks, which then lose their protection).
    When L = T the only candidate is T itself.
    """
    _check_choice(method, METHODS, "method")
    _check_choice(metric, METRICS, "metric")
    lm = validate_landmarks(n, landmarks)
    n = int(n)
    if method == "optimal":
        return Options(n, lm, optimal_order(n, lm), method)
    if method == "heuristic":
        return Options(n, lm, _deterministic_chain(n, lm.tobytes(), method, metric), method)
    gen = as_generator(rng)
    if method == "random":
        return Options(n, lm, random_order(n, lm, gen), method)
    bins = fd_bins(n, lm)
    seq = _deterministic_chain(n, lm.tobytes(), method, metric)
    return Options(n, lm, realise_bin_sequence(n, lm, bins, seq, gen), method, bins, seq)


@lru_cache(maxsize=8)
def _deterministic_chain(n: int, landmarks: bytes, method: str, metric: str) -> np.ndarray:
    """The part of the options that depends on n and L only (Heuristic's order, Partitioned's bin sequence; one
    Python step per regular event): computed once per landmark set, so another ε (the selection's budget) or
    another seed only redraws what is random. Read-only (shared between calls)."""
    lm = np.frombuffer(landmarks, dtype=np.int64)
    chain = heuristic_order(n, lm) if method == "heuristic" else partitioned_bin_sequence(n, lm, fd_bins(n, lm), metric)
    chain.setflags(write=False)
    return chain


def _as_options(n: int, landmarks, opts) -> tuple[np.ndarray, list[np.ndarray] | Options]:
    """Validate L and a list of candidate sets (each a superset of L within 0..n−1)."""
    lm = validate_landmarks(n, landmarks)
    if isinstance(opts, Options):
        if opts.n != n or not np.array_equal(opts.landmarks, lm):
            raise ParameterError("options were generated for a different n or landmark set; regenerate them")
        return lm, opts
    checked = []
    for j, o in enumerate(opts):
        arr = validate_landmarks(n, o)
        if np.setdiff1d(lm, arr).size:
            raise ParameterError(f"options[{j}] does not contain every landmark; each option must be a superset of L")
        checked.append(arr)
    if not checked:
        raise ParameterError("options is empty; pass at least one candidate set")
    return lm, checked


def _distance_to_landmarks(n: int, landmarks: np.ndarray) -> np.ndarray:
    """|t − nearest landmark| / (n−1) for every t, in [0, 1]; 1 everywhere when L = ∅."""
    if landmarks.size == 0:
        return np.ones(n)
    t = np.arange(n)
    idx = np.searchsorted(landmarks, t)
    left = np.abs(t - landmarks[np.maximum(idx - 1, 0)])
    right = np.abs(landmarks[np.minimum(idx, landmarks.size - 1)] - t)
    return np.minimum(left, right) / max(n - 1, 1)


def position_utility(n: int, landmarks, opts) -> np.ndarray:
    """Temporal-position utility (§3.4.2): u(L, L′) = 1 − mean over dummies d ∈ L′∖L of dist(d, L)/(n−1).

    Dummies close to the real landmarks keep more utility, so u ∈ [0, 1] (1 when there is no dummy).
    Sensitivity Δu = 1, from the range [0, 1]. No bound shrinking with n holds: one added landmark can
    halve every dummy's distance (L = {0} → {0, n−1} with L′ = T moves u from ≈ 1/2 to ≈ 3/4 for any n).
    Partitioned options are scored by the *expected* value under per-bin sampling, a function of the
    chosen histogram alone, because the exponential mechanism selects a histogram (§3.4.2).
    """
    lm, opts = _as_options(n, landmarks, opts)
    dist = _distance_to_landmarks(int(n), lm)
    if isinstance(opts, Options):
        if opts.order.size == 0:
            return np.ones(1)
        chain = opts.histograms()
        if chain is not None:
            bins, bin_sequence = chain
            regular = regular_timestamps(opts.n, lm)
            reg_bin = bins.of(regular)
            nb = bins.capacity.size
            mean_in_bin = np.bincount(reg_bin, dist[regular], nb) / np.maximum(np.bincount(reg_bin, minlength=nb), 1)
            per_step = mean_in_bin[bin_sequence]
        else:
            per_step = dist[opts.order]
        return 1.0 - np.cumsum(per_step) / np.arange(1, per_step.size + 1)
    scores = []
    for o in opts:
        dummies = np.setdiff1d(o, lm)
        scores.append(1.0 - dist[dummies].mean() if dummies.size else 1.0)
    return np.array(scores)


def count_utility(n: int, landmarks, opts) -> np.ndarray:
    """Dummy-count utility (§3.4.2): u(L, L′) = 1 − |L′∖L|/n ∈ [0, 1]; fewer dummies, more utility.

    Sensitivity Δu = 1/n: for a fixed candidate L′ and neighbours L, L̃ = L ∪ {x}, |L′∖L̃| = |L′∖L| − [x ∈ L′],
    so the dummy count moves by at most one and u by at most 1/n.
    """
    lm, opts = _as_options(n, landmarks, opts)
    if isinstance(opts, Options):
        return 1.0 - (opts.sizes - lm.size) / n
    return np.array([1.0 - np.setdiff1d(o, lm).size / n for o in opts])


def utility_sensitivity(utility: str, n: int) -> float:
    """Δu of a utility (derived in its docstring): 1 for 'position', 1/n for 'count'."""
    _check_choice(utility, UTILITIES, "utility")
    return 1.0 if utility == "position" else 1.0 / int(n)


def _scores(n: int, lm: np.ndarray, opts: Options, utility: str) -> np.ndarray:
    """Utility of every option."""
    return position_utility(n, lm, opts) if utility == "position" else count_utility(n, lm, opts)


@dataclass(frozen=True)
class Selection:
    """Result of ``select``: the chosen L′, all candidates with their utilities and probabilities, ε spent."""

    chosen: np.ndarray
    index: int
    options: Options
    scores: np.ndarray
    probabilities: np.ndarray
    epsilon: float
    sensitivity: float
    method: str
    utility: str

    @property
    def dummies(self) -> np.ndarray:
        """The dummy landmarks L′∖L."""
        return np.setdiff1d(self.chosen, self.options.landmarks)


def _validate_epsilon(epsilon, name: str = "epsilon") -> float:
    """A finite ε > 0 as float."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating, np.integer)) \
            or not np.isfinite(epsilon) or epsilon <= 0:
        raise ParameterError(f"{name} must be a finite number > 0, got {epsilon!r}")
    return float(epsilon)


def select(n: int, landmarks, epsilon: float, *, method: str = "partitioned", utility: str = "position",
           metric: str = "euclidean", rng=None) -> Selection:
    """Generate the options and pick one with the exponential mechanism at budget ``epsilon`` (§3.4.2)."""
    from lmdk.mechanisms import exponential

    eps = _validate_epsilon(epsilon)
    _check_choice(utility, UTILITIES, "utility")
    gen = as_generator(rng)
    opts = options(n, landmarks, method, metric=metric, rng=gen)
    scores = _scores(int(n), opts.landmarks, opts, utility)
    delta = utility_sensitivity(utility, n)
    index, probs = exponential(scores, eps, delta, gen)
    return Selection(opts[index], int(index), opts, scores, probs, eps, delta, method, utility)


def landmark_sets_for_release(n: int, landmarks: np.ndarray, epsilon: float, spec: DummySpec, repetitions: int,
                              rng: np.random.Generator) -> tuple[np.ndarray, float, float]:
    """(mask (repetitions, n) of L′ — one private selection per repetition, ε for publishing = (1−share)·ε,
    ε spent on selection = share·ε); sequential composition keeps the total at ε (§3.4.2).

    Each repetition is an independent release: it makes its own exponential-mechanism draw and, for
    'partitioned', its own per-bin sampling of the chosen histogram, vectorised over repetitions (what is
    deterministic in n and L is computed once); for 'random', whose options *are* a random order, it draws its
    own order (one ~1 ms step per repetition at n = 10,000: the scores depend on the order).
    """
    from lmdk.mechanisms import exponential

    if not isinstance(spec, DummySpec):
        raise ParameterError(f"spec must be a DummySpec, got {type(spec).__name__}")
    eps = _validate_epsilon(epsilon)
    if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)) or repetitions < 1:
        raise ParameterError(f"repetitions must be a positive integer, got {repetitions!r}")
    gen = as_generator(rng)
    n = int(n)
    eps_sel = float(spec.share) * eps
    if spec.method == "random" and spec.utility == "position":
        return _random_position_sets(n, landmarks, eps_sel, repetitions, gen), eps - eps_sel, eps_sel
    opts = options(n, landmarks, spec.method, rng=gen)
    scores = _scores(n, opts.landmarks, opts, spec.utility)
    delta = utility_sensitivity(spec.utility, n)
    mask = np.empty((repetitions, n), dtype=bool)
    chunk = max(1, RELEASE_CHUNK_ELEMENTS // max(n, scores.size))  # bounds the (reps, n) temporaries
    for start in range(0, repetitions, chunk):
        stop = min(start + chunk, repetitions)
        index, _ = exponential(scores, np.full(stop - start, eps_sel), delta, gen)
        if spec.method == "random":  # count utility: the same scores for every order, a fresh order per row
            mask[start:stop] = _random_prefixes(opts, np.asarray(index), gen)
        elif opts.bin_sequence is None:
            mask[start:stop] = opts.masks(index)
        else:
            mask[start:stop] = _sample_histograms(opts, np.asarray(index), gen)
    return mask, eps - eps_sel, eps_sel


def _random_position_sets(n: int, landmarks, eps_sel: float, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """Mask (repetitions, n) for the random baseline with position utility: its scores depend on the order, so each
    repetition draws an order, scores its prefixes and makes its own exponential-mechanism draw (§3.4.1)."""
    from lmdk.mechanisms import exponential

    delta = utility_sensitivity("position", n)
    mask = np.empty((repetitions, n), dtype=bool)
    for r in range(repetitions):
        opts = options(n, landmarks, "random", rng=rng)
        index, _ = exponential(_scores(n, opts.landmarks, opts, "position"), np.full(1, eps_sel), delta, rng)
        mask[r] = opts.masks(index)[0]
    return mask


def _random_prefixes(opts: Options, index: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per repetition, option ``index`` of the random baseline under a fresh random order of the regular events
    (ranks of i.i.d. uniform keys): L plus the first index + 1 regular events of that order."""
    regular = regular_timestamps(opts.n, opts.landmarks)
    rank = np.argsort(rng.random((index.size, regular.size)), axis=1).argsort(axis=1)
    mask = np.zeros((index.size, opts.n), dtype=bool)
    mask[:, opts.landmarks] = True
    mask[:, regular] = rank <= index[:, None]
    return mask


def _sample_histograms(opts: Options, index: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per repetition, realise the chosen histogram: in each bin keep that many of its regular events,
    drawn uniformly without replacement (ranks of i.i.d. uniform keys within the bin)."""
    chain = opts.histograms()
    if chain is None:
        raise ParameterError(f"{opts.method!r} options have no histograms to sample; only partitioned options do")
    bins, bin_sequence = chain
    reps, n = index.size, opts.n
    nb = bins.capacity.size
    # dummies in bin b for option j = number of steps ≤ j that grew bin b (search in keys bin·m + step)
    m = bin_sequence.size
    keys = np.sort(bin_sequence * m + np.arange(m))
    first = np.searchsorted(keys, np.arange(nb) * m)
    wanted = np.searchsorted(keys, np.arange(nb)[None, :] * m + index[:, None], side="right") - first[None, :]
    regular = regular_timestamps(n, opts.landmarks)
    reg_bin = bins.of(regular)
    keys = rng.random((reps, regular.size)) + reg_bin[None, :]
    # not a stable sort (2.5× slower): the keys tie with probability ~10^-9 per row, and any fixed tie-break keeps the
    # draw uniform up to that
    order = np.argsort(keys, axis=1)
    start = np.concatenate(([0], np.cumsum(np.bincount(reg_bin, minlength=nb))[:-1]))
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(regular.size), order.shape), axis=1)
    rank -= start[reg_bin][None, :]
    mask = np.zeros((reps, n), dtype=bool)
    mask[:, opts.landmarks] = True
    mask[:, regular] = rank < np.take_along_axis(wanted, np.broadcast_to(reg_bin, (reps, regular.size)), axis=1)
    return mask


def landmark_set_distance(opts, landmarks, n: int, metric: str = "euclidean") -> np.ndarray:
    """Normalised distance in [0, 1] of each candidate's histogram from L's, on L's Freedman–Diaconis bins
    (Figure 10, §4.3.1): Euclidean ‖p−q‖₂/√2, Wasserstein W₁ over bin centres / span of the centres."""
    _check_choice(metric, METRICS, "metric")
    lm, checked = _as_options(n, landmarks, opts)
    bins = fd_bins(int(n), lm)
    nb = bins.capacity.size
    if isinstance(checked, Options) and checked.order.size and checked.order.size * nb <= 20_000_000:
        steps = bins.of(checked.order)
        one_hot = np.zeros((steps.size, nb))
        one_hot[np.arange(steps.size), steps] = 1.0
        counts = bins.counts[None, :] + np.cumsum(one_hot, axis=0)
    else:
        counts = np.array([np.bincount(bins.of(o), minlength=nb) for o in checked])
    return histogram_distance(bins, counts, metric)


@dataclass(frozen=True)
class MembershipDisclosure:
    """What an observer who knows the selection mechanism learns about landmark membership from L′ (§3.4).

    ``per_option[j]``: probability that a member of option j is a real landmark, |L| / |L′_j| (members are
    exchangeable to the observer); ``expected``: the same averaged over the exponential mechanism's choice;
    ``chosen``: for the option actually released. A timestamp outside L′ is a regular event with certainty:
    every option contains L, so "t ∉ L′" rules out "t ∈ L" — no finite ε protects membership that way.
    """

    per_option: np.ndarray
    expected: float
    chosen: float
    outside: float = 0.0


def membership_disclosure(selection: Selection) -> MembershipDisclosure:
    """Posterior probability that an event marked in L′ is a real landmark, per option, on average and as chosen."""
    k = selection.options.landmarks.size
    sizes = np.asarray(selection.options.sizes, dtype=np.float64)
    per_option = np.divide(k, sizes, out=np.zeros_like(sizes), where=sizes > 0)
    return MembershipDisclosure(per_option=per_option,
                                expected=float(np.dot(selection.probabilities, per_option)),
                                chosen=float(per_option[selection.index]))
