"""A wavelet matrix (Claude & Navarro, "The wavelet matrix", SPIRE 2012) answering range queries of a static array,
every query of a batch at once: how many values of positions [a, b) are below v and what they sum to, and the k-th
smallest of positions [a, b).

PeGaSus needs both at every timestamp for groups that differ between repetitions: the deviation of a group
Σ|c_i − mean| (Chen et al. 2017, Alg. 2) from the count and sum of the group's values below its mean, and the
median smoother's median of the group's noisy values. Each query costs O(log K) vectorised steps (K distinct values)
instead of O(group length).
"""
from __future__ import annotations

import numpy as np

from lmdk.errors import ParameterError


class WaveletMatrix:
    """Rank, range-sum and quantile queries over ``values`` (any real numbers), vectorised over queries.

    Values are replaced by their rank among the distinct values (``codes``, ``bits`` = ⌈log₂ K⌉ levels); at each
    level, from the top bit down, positions are stably partitioned by that bit (zeros first) and the prefix counts
    of zeros (and, with ``weights``, the prefix sums of the zeros' weights) are kept.
    """

    def __init__(self, values: np.ndarray, weights: bool = False):
        values = np.asarray(values, dtype=np.float64).reshape(-1)
        self.sorted, codes = np.unique(values, return_inverse=True)
        self.n = int(values.size)
        self.bits = max(1, int(self.sorted.size - 1).bit_length())
        index = np.int32 if self.n < 2**31 - 1 else np.int64
        self._zeros: list[np.ndarray] = []  # per level: (n + 1,) zeros among the first i positions
        self._count: list[int] = []  # per level: zeros in all
        self._weight: list[np.ndarray] = []  # per level: (n + 1,) sum of the zeros' values among the first i
        cur = codes.astype(np.int64)
        w = values.copy() if weights else None
        self._prefix = np.concatenate([[0.0], np.cumsum(values)]) if weights else None
        for level in range(self.bits - 1, -1, -1):
            bit = (cur >> level) & 1
            zero = bit == 0
            z = np.zeros(self.n + 1, dtype=index)
            np.cumsum(zero, out=z[1:])
            self._zeros.append(z)
            self._count.append(int(z[-1]))
            order = np.concatenate([np.flatnonzero(zero), np.flatnonzero(~zero)])  # stable partition
            if w is not None:
                s = np.zeros(self.n + 1)
                np.cumsum(np.where(zero, w, 0.0), out=s[1:])
                self._weight.append(s)
                w = w[order]
            cur = cur[order]

    def count_sum_below(self, a: np.ndarray, b: np.ndarray, threshold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per query: how many values at positions [a, b) are < ``threshold`` and their sum (needs ``weights``)."""
        if self._prefix is None:
            raise ParameterError("count_sum_below needs the sums: build the WaveletMatrix with weights=True")
        v = np.searchsorted(self.sorted, threshold, side="left")  # codes < v ⟺ values < threshold
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        all_below = v >= 2**self.bits  # v = K = 2^bits: every value is below (the bit walk cannot say so)
        count = np.where(all_below, b - a, 0)
        total = np.where(all_below, self._prefix[b] - self._prefix[a], 0.0)
        for i, level in enumerate(range(self.bits - 1, -1, -1)):
            z, s, nz = self._zeros[i], self._weight[i], self._count[i]
            a0, b0 = z[a], z[b]
            one = (((v >> level) & 1) == 1) & ~all_below  # the values with a 0 here are below v: count them
            count += np.where(one, b0 - a0, 0)
            total += np.where(one, s[b] - s[a], 0.0)
            a = np.where(one, nz + (a - a0), a0)
            b = np.where(one, nz + (b - b0), b0)
        return count, total

    def kth(self, a: np.ndarray, b: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Per query: the k-th smallest (0-based) of the values at positions [a, b) (0 ≤ k < b − a)."""
        a = np.asarray(a, dtype=np.int64).copy()
        b = np.asarray(b, dtype=np.int64).copy()
        k = np.asarray(k, dtype=np.int64).copy()
        code = np.zeros(a.shape, dtype=np.int64)
        for i, level in enumerate(range(self.bits - 1, -1, -1)):
            z, nz = self._zeros[i], self._count[i]
            a0, b0 = z[a], z[b]
            zeros = b0 - a0
            right = k >= zeros
            k = np.where(right, k - zeros, k)
            a = np.where(right, nz + (a - a0), a0)
            b = np.where(right, nz + (b - b0), b0)
            code |= right.astype(np.int64) << level
        return self.sorted[code]
