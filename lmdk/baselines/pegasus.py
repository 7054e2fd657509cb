"""PeGaSus: event-level privacy by a perturber, an online grouper and a smoother (Chen, Machanavajjhala, Hay &
Miklau, "PeGaSus: data-adaptive differentially private stream processing", CCS 2017, §4, Algorithms 1–2), for one
series of values and every repetition at once.

- Perturber: every value gets its own Lap(Δ/ε_p): ε_p per event.
- Grouper (Alg. 2, deviation-based): the stream is cut online into groups of consecutive timestamps whose values
  are nearly constant. A new group G = {t} draws a noisy threshold θ̃ = θ + Lap(4Δ/ε_g); each next t joins G while
  dev(G ∪ {t}) + Lap(8Δ/ε_g) < θ̃, dev(S) = Σ_{i∈S} |c_i − mean(S)| (sensitivity 2Δ); otherwise G is closed and
  {t} becomes a group of its own, closed at once, so the next timestamp starts a fresh group with a fresh threshold.
  Each group is one run of the sparse vector technique (Lyu, Su & Li 2017, Alg. 1 with ε₁ = ε₂ = ε_g/2), and each
  event belongs to one group: ε_g per event.
- Smoother (§4.3, the median smoother): the release at t is the median of the noisy values of t's group so far —
  post-processing.

So each event is protected at ε_p + ε_g = ε (event level; ``budgets`` are ε at every timestamp). Defaults of §6.1:
ε_p = 0.8ε, ε_g = 0.2ε, θ = 5Δ/ε_g (the paper's 5/ε_g for counts, Δ = 1).
"""
from __future__ import annotations

import numpy as np

from lmdk.baselines._noise import Noise
from lmdk.baselines._wavelet import WaveletMatrix

PERTURBER_SHARE = 0.8  # ε_p = 0.8ε, ε_g = 0.2ε (§6.1)
THRESHOLD = 5.0  # θ = 5Δ/ε_g (§6.1)
_MEDIAN_CELLS = 2**18  # the smoother's wavelet matrices hold at most this many noisy values (rows at once)
_DIRECT = 256  # groups up to this long: their deviation is summed directly (longer: the wavelet matrix)


def groups(x: np.ndarray, epsilon_g: float, noise: Noise) -> np.ndarray:
    """The deviation-based grouper (Alg. 2): (reps, n) first timestamp of the group each timestamp belongs to
    (its group so far, as the online smoother sees it at that timestamp)."""
    reps, n = noise.reps, noise.n
    delta = noise.width
    svt = noise.statistic(epsilon_g, 2.0 * delta, scales=(2.0, 4.0))  # ρ: Lap(4Δ/ε_g), ν: Lap(8Δ/ε_g)
    theta = THRESHOLD * delta / epsilon_g
    tree = WaveletMatrix(x, weights=True)
    prefix = np.concatenate([[0.0], np.cumsum(x)])
    closed = np.ones(reps, dtype=bool)
    start = np.zeros(reps, dtype=np.int64)
    size = np.zeros(reps)  # |G| of each open group and Σ of its values
    total = np.zeros(reps)
    noisy_theta = np.zeros(reps)
    # Bounds on dev of each open group, so that most steps decide without summing the group: adding c to a group of
    # L values with mean m gives dev(G ∪ {c}) ∈ [dev(G), dev(G) + 2·|c − m|] (the mean moves by |c − m|/(L + 1),
    # which changes each |c_i − mean| by at most that, and |c − mean'| = |c − m|·L/(L + 1)). The test is monotone in
    # dev, so a bound that decides it gives the exact outcome; the undecided rows are summed exactly.
    low = np.zeros(reps)
    high = np.zeros(reps)
    step = np.empty(reps)
    tol = 1e-9 * (theta + n * (float(np.ptp(x)) + delta))  # float slack of the bounds (speed only, never the outcome)
    starts = np.empty((n, reps), dtype=np.int64)
    for t in range(n):
        new = closed
        np.divide(total, np.maximum(size, 1.0), out=step)
        np.subtract(step, x[t], out=step)
        np.abs(step, out=step)
        high += step
        high += step
        cut = svt.cutoff(noisy_theta, t, 1)  # close ⟺ dev(G ∪ {t}) ≥ cut
        close = low > cut + tol
        undecided = ~(close | (high < cut - tol) | new)
        close &= ~new
        if undecided.any():  # does dev(G ∪ {t}) + Lap(8Δ/ε_g) stay below θ̃? (summed exactly)
            rows = np.flatnonzero(undecided)
            dev = _deviation(x, prefix, tree, start[rows], t)
            low[rows] = high[rows] = dev
            close[rows] = svt.noisy(dev, t, 1, rows) >= noisy_theta[rows]
        # a closed G is followed by {t} as a group of its own, closed at once; after a closed group, G = {t} opens
        # with a fresh θ̃ = θ + Lap(4Δ/ε_g) (no test at its first timestamp)
        restart = new | close
        if restart.any():
            start[restart] = t
            low[restart] = 0.0
            high[restart] = 0.0
            size[restart] = 0.0
            total[restart] = 0.0
            if new.any():
                rows = np.flatnonzero(new)
                noisy_theta[rows] = svt.noisy(np.full(rows.size, theta), t, 0, rows)
        size += 1.0
        total += x[t]
        closed = close
        starts[t] = start
    return starts.T.copy()


def _deviation(x: np.ndarray, prefix: np.ndarray, tree: WaveletMatrix, start: np.ndarray, t: int) -> np.ndarray:
    """dev(x[s..t]) = Σ_{i=s}^{t} |x_i − mean| for every group start s in ``start``: directly over the window shared by
    the short groups (groups are mostly short: the grouper's noise is large next to θ), by the wavelet matrix's
    count and sum below the mean for groups longer than _DIRECT."""
    size = t + 1 - start
    mean = (prefix[t + 1] - prefix[start]) / size
    dev = np.empty(start.size)
    short = size <= _DIRECT
    if short.any():
        longest = int(size[short].max())
        window = x[t + 1 - longest:t + 1]
        inside = np.arange(t + 1 - longest, t + 1)[None, :] >= start[short, None]
        dev[short] = (np.abs(window[None, :] - mean[short, None]) * inside).sum(axis=1)
    if not short.all():
        s, m, k = start[~short], mean[~short], size[~short]
        total = prefix[t + 1] - prefix[s]
        below, below_sum = tree.count_sum_below(s, np.full(s.size, t + 1), m)
        dev[~short] = np.maximum((m * below - below_sum) + (total - below_sum - m * (k - below)), 0.0)
    return dev


def median_smoother(noisy: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per (repetition, t): the median of ``noisy[r, starts[r, t] : t + 1]`` (the mean of the two middle values
    of an even count), every cell at once through one wavelet matrix per block of repetitions."""
    reps, n = noisy.shape
    out = np.array(noisy, dtype=np.float64)
    chunk = max(1, _MEDIAN_CELLS // n)
    ends = np.arange(1, n + 1)
    for r0 in range(0, reps, chunk):
        block = out[r0:r0 + chunk]
        rows = block.shape[0]
        offsets = (np.arange(rows) * n)[:, None]
        a = (starts[r0:r0 + rows] + offsets).ravel()
        b = (ends[None, :] + offsets).ravel()
        size = b - a
        flat = block.reshape(-1)
        values = noisy[r0:r0 + rows].reshape(-1)
        two = np.flatnonzero(size == 2)  # groups of one are their own median; two and three directly
        flat[two] = (values[b[two] - 2] + values[b[two] - 1]) / 2.0
        three = np.flatnonzero(size == 3)
        u, v, w = values[b[three] - 3], values[b[three] - 2], values[b[three] - 1]
        flat[three] = np.maximum(np.minimum(u, v), np.minimum(np.maximum(u, v), w))
        longer = np.flatnonzero(size > 3)
        if not longer.size:
            continue
        tree = WaveletMatrix(noisy[r0:r0 + rows])
        a, b, size = a[longer], b[longer], size[longer]
        low = tree.kth(a, b, (size - 1) // 2)
        high = low.copy()
        even = np.flatnonzero(size % 2 == 0)
        high[even] = tree.kth(a[even], b[even], size[even] // 2)
        flat[longer] = (low + high) / 2.0
        out[r0:r0 + rows] = flat.reshape(rows, n)
    return out


def pegasus(x: np.ndarray, epsilon: float, noise: Noise):
    """PeGaSus (Chen et al. 2017, Alg. 1) on values ``x`` (n,): (values, budgets, published), each (reps, n)."""
    eps_p = PERTURBER_SHARE * epsilon
    eps_g = epsilon - eps_p
    noisy = noise.releases(x, eps_p)  # Alg. 1: the perturber, Lap(Δ/ε_p) per event
    starts = groups(x, eps_g, noise)  # Alg. 1: the grouper (Alg. 2, on the true values, with its own ε_g)
    values = median_smoother(noisy, starts)  # Alg. 1: the smoother (post-processing of the noisy values)
    budgets = np.full(noisy.shape, float(epsilon))
    return values, budgets, np.ones(noisy.shape, dtype=bool)
