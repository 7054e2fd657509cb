"""Compiled loops of the aggregates (numba): what is sequential by nature, one pass over the rows."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def cap_rows(bins: np.ndarray, a: np.ndarray, b: np.ndarray, k: int, people: int) -> np.ndarray:
    """Keep row i while both a[i] and b[i] have fewer than k kept rows in bin bins[i] (rows sorted by bin, then
    time): the first k contacts of each person per bin count, later ones are dropped."""
    keep = np.zeros(bins.size, dtype=np.bool_)
    kept = np.zeros(people, dtype=np.int64)
    touched = np.empty(2 * bins.size, dtype=np.int64)
    n_touched = 0
    for i in range(bins.size):
        if i > 0 and bins[i] != bins[i - 1]:
            for j in range(n_touched):
                kept[touched[j]] = 0
            n_touched = 0
        if kept[a[i]] < k and kept[b[i]] < k and a[i] != b[i]:
            keep[i] = True
            for person in (a[i], b[i]):
                if kept[person] == 0:
                    touched[n_touched] = person
                    n_touched += 1
                kept[person] += 1
    return keep
