"""A policy's landmark rule applied to every user of a padded batch at once.

Thresholds and percentiles of values series are computed on the (users, n) array (a stable argsort along
the time axis, padding sorted last), giving exactly ``LandmarkRule.indices`` of each user's series; the
other rules (share, stay points, contact watch lists, files) run per user on that user's ``Series``.
"""
from __future__ import annotations

import numpy as np

from lmdk.landmarks import LandmarkRule


def _ranks(keys: np.ndarray) -> np.ndarray:
    """Rank of each cell in its row under a stable sort (ties by position, as ``by_percentile``)."""
    order = np.argsort(keys, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(keys.shape[1])[None, :], axis=1)
    return ranks


def values_mask(rule: LandmarkRule, x: np.ndarray, valid: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """The landmark mask of values rows for none/below/above/percentile rules; None for other rules."""
    if rule.kind == "none":
        return np.zeros(x.shape, dtype=bool)
    if rule.kind == "below":
        return (x <= rule.required_number()) & valid
    if rule.kind == "above":
        return (x >= rule.required_number()) & valid
    if rule.kind != "percentile":
        return None
    keys = x if rule.side == "below" else -x
    keys = np.where(valid, keys, np.inf)  # padding after every real value
    share = rule.required_number() / 100.0
    k = np.array([int(round(share * size)) for size in lengths.tolist()])
    if k.size and np.all(k == k[0]):
        return _smallest(keys, int(k[0])) & valid
    return (_ranks(keys) < k[:, None]) & valid


def _smallest(keys: np.ndarray, k: int) -> np.ndarray:
    """The k smallest cells of each row, ties by position: the first k of a stable sort, in O(n) per row."""
    if k == 0:
        return np.zeros(keys.shape, dtype=bool)
    kth = np.partition(keys, k - 1, axis=1)[:, k - 1:k]  # the k-th smallest value of each row
    below = keys < kth
    tied = keys == kth
    room = k - below.sum(axis=1, keepdims=True)  # how many of the tied cells still fit, earliest first
    if np.all(tied.sum(axis=1, keepdims=True) <= room):  # every tie fits (the usual case: one cell at the kth)
        return below | tied
    return below | (tied & (np.cumsum(tied, axis=1) <= room))


def per_user_mask(rule: LandmarkRule, series_list, n: int, tz: str | None = None) -> np.ndarray:
    """The landmark mask of a batch from ``rule.indices`` of each user's Series (padding False); declared windows
    are read on the wall clock of ``tz``, else each reading's own (the UTC offset it carried)."""
    mask = np.zeros((len(series_list), n), dtype=bool)
    for r, series in enumerate(series_list):
        mask[r, rule.indices(series, tz)] = True
    return mask


def batch_wall_clock(times, lengths: np.ndarray, offsets: np.ndarray | None, tz: str | None):
    """The naive wall-clock times of a batch's rows (user after user, ``lengths`` each) exactly as each user's own
    Series reads them (``lmdk.data.Series.wall_times``): in ``tz`` (zone-aware times), else in the UTC offsets that
    user's readings carried (``offsets``, NaN where unknown), else in the times' own zone, else as they stand."""
    import pandas as pd

    from lmdk.data.series import epoch_ns, local_ns, offset_points

    index = pd.DatetimeIndex(times)
    if index.tz is None:
        return index
    if tz is not None:
        return index.tz_convert(tz).tz_localize(None)
    wall = index.tz_localize(None)
    if offsets is None:
        return wall
    known = ~pd.isna(offsets)
    if not known.any():
        return wall
    utc, out = epoch_ns(index), epoch_ns(wall).copy()
    ends = np.cumsum(lengths)
    for start, end in zip((ends - lengths).tolist(), ends.tolist(), strict=True):
        mine = known[start:end]
        if mine.any():  # this user's readings carried offsets: read on them (Series.utc_offsets)
            points = offset_points(utc[start:end][mine], offsets[start:end][mine].astype(np.int64))
            out[start:end] = local_ns(utc[start:end], points)
    return pd.DatetimeIndex(out.view("datetime64[ns]"))


def declared_mask(rules, wall, lengths: np.ndarray, n: int) -> np.ndarray:
    """The (users, n) landmark mask of a batch whose users each declared a ``calendar:`` rule or none (``rules``:
    one :class:`lmdk.landmarks.LandmarkRule` per user; other kinds stay False): the wall-clock fields of every row
    (``wall``, user after user) read once, then each distinct rule on the rows of the users who declared it —
    exactly ``rule.indices`` of each user's series."""
    from lmdk.declared.calendar import clock_fields, parse

    owner = np.repeat(np.arange(len(lengths)), lengths)
    first = np.cumsum(lengths) - lengths  # each user's first row in ``wall``
    flat = np.zeros(owner.size, dtype=bool)
    specs = [(rule.spec or "") if rule.kind == "calendar" else None for rule in rules]
    distinct = sorted({spec for spec in specs if spec is not None})
    if distinct:
        weekday, second, day = clock_fields(wall)
        code = np.array([len(distinct) if spec is None else distinct.index(spec) for spec in specs], dtype=np.int64)
        users = np.argsort(code, kind="stable")  # users grouped by the rule they declared
        cuts = np.searchsorted(code[users], np.arange(len(distinct) + 1))
        for k, spec in enumerate(distinct):
            mine = users[cuts[k]:cuts[k + 1]]
            sizes = lengths[mine]
            rows = np.repeat(first[mine] - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
            flat[rows] = parse(spec).holds(weekday[rows], second[rows], day[rows])
    mask = np.zeros((len(lengths), n), dtype=bool)
    mask[owner, np.arange(owner.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)] = flat
    return mask
