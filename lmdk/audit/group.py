"""The group neighbour of a privately selected landmark set: the k positions the rule marks on the series (computed
without noise, fixed before any release), moved together across the public range, each neighbour released with
its own private selection (:func:`lmdk.selection.private.select_masks`), as every export selects.

Moving k values moves every count the threshold's exponential mechanism scores by up to k and can flip k bits of
randomized response, so the promise for this pair is ε + k·ε_sel (:func:`lmdk.selection.private.group_epsilon`,
derived in :mod:`lmdk.selection.private`, step 4). The attacker sees the selected set (the statement says it is an
output; budgets and repeats show it) and the released values: the statistic is the exact log-likelihood ratio of
the selected set (:func:`lmdk.selection.private.mask_log_likelihood`) plus that of the released values at the
changed events (:func:`lmdk.audit.neighbours.llr`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GroupWorlds:
    """The two neighbours of the group pair: the changed positions and each neighbour's values."""

    cells: np.ndarray  # the k positions the non-private rule marks on the series
    first: np.ndarray  # the series as given (clamped to the public range)
    second: np.ndarray  # the same with every cell moved to the far end of the public range


def group_worlds(x: np.ndarray, rule, value_range: tuple[float, float]) -> GroupWorlds | str:
    """The group neighbours of ``x`` under ``rule`` (a note when the rule marks nothing): each marked value moved
    to the end of the public range farther from it, so that its landmark status flips."""
    from lmdk.data.series import from_values
    from lmdk.landmarks import LandmarkRule, parse_rule

    parsed = rule if isinstance(rule, LandmarkRule) else parse_rule(rule)
    low, high = float(value_range[0]), float(value_range[1])
    first = np.clip(np.asarray(x, dtype=float), low, high)
    cells = np.unique(np.asarray(parsed.indices(from_values(first)), dtype=np.int64))
    if cells.size == 0:
        text = rule if isinstance(rule, str) else parsed.kind
        return f"the landmark rule {text} marks no event of this series: no group neighbours"
    second = first.copy()
    second[cells] = np.where(first[cells] - low < high - first[cells], high, low)
    return GroupWorlds(cells, first, second)


def group_statistic(release, masks: np.ndarray, worlds: GroupWorlds, rule, selection_epsilon: float,
                    value_range: tuple[float, float]) -> np.ndarray:
    """The attacker's statistic of every release (trials,): ln P(set | second) − ln P(set | first) of the selected
    landmark set, plus the released values' log-likelihood ratio at the changed events."""
    from lmdk.audit.neighbours import llr
    from lmdk.selection.private import mask_log_likelihood

    m = np.atleast_2d(np.asarray(masks, dtype=bool))
    sets = (mask_log_likelihood(m, worlds.second, rule, selection_epsilon, value_range)
            - mask_log_likelihood(m, worlds.first, rule, selection_epsilon, value_range))
    c = worlds.cells
    values = np.asarray(release.values)[:, c]
    ratio = llr(values, np.asarray(release.budgets)[:, c], np.asarray(release.published)[:, c], worlds.first[c],
                worlds.second[c], release.mechanism, release.sensitivity).sum(axis=1)
    return sets + ratio
