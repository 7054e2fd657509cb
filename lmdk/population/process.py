"""The batch function every engine maps over frames of whole users: mark landmarks, release, summarise, write.

``process_frame(frame, job)`` takes canonical rows of whole users (``lmdk.population.input``), sorts them by
user and time, groups users into padded batches of about ``job.batch_cells`` cells (longest first, so
padding stays small), releases each batch in lockstep (``lmdk.population.batch``), writes each user's
released rows to ``<released>/user=<id>/part-0.parquet`` and returns the per-user summary.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd

from lmdk.errors import DataError
from lmdk.population import marks, seeding
from lmdk.population.batch import release_batch, valid_mask
from lmdk.population.input import KIND_COLUMNS, OFFSET_COLUMN
from lmdk.population.summary import SUMMARY_COLUMNS, batch_summary

BATCH_CELLS = 8_000_000  # users × padded length per lockstep batch (~0.5 GB of working arrays)
POLICY_COLUMNS = (  # a per-user run's summary columns beside SUMMARY_COLUMNS (lmdk.population.per_user)
    "scheme", "epsilon", "epsilon_total", "landmark_rule", "landmark_origin", "policy", "withheld")
_WITHHELD_TYPES = {"landmarks": "Int64", "dropped": "Int64", "theorem2_holds": "boolean", "degenerate": "boolean"}


@dataclass(frozen=True)
class Job:
    """Everything a worker needs besides the rows (picklable; holds no entropy: unseeded users draw fresh)."""

    kind: str
    mechanism: str
    rule: str
    scheme: str
    epsilon: float
    w: int | None
    dummies: dict | None
    seed: int | None
    sensitivity: float
    sampler: str
    bound: float | None
    released: str | None  # folder of the released Parquet (None: do not write)
    private_columns: bool
    note: str
    batch_cells: int = BATCH_CELLS
    value_range: tuple[float, float] | None = None  # the relation's public range (values, discrete sampler)
    landmark_epsilon: float | None = None  # ε_sel of a private selection of the rule's landmarks, per user
    variants: tuple = ()  # per-user policies: (Job, summary columns) per policy (lmdk.population.per_user)
    assign: dict | None = None  # user key → index into variants, or the reason the user is withheld
    fallback: int | str | None = None  # users not in assign: a variant's index or a reason
    withheld: frozenset[str] = frozenset()  # users (as text) not to release: a ledger's cap refused them
    tz: str | None = None  # the wall clock declared windows are read on (None: each reading's own, as carried)


def summary_meta() -> pd.DataFrame:
    """An empty summary frame with the right dtypes (Dask's ``meta``)."""
    dtypes = {"user": object, "n": np.int64, "landmarks": np.int64, "landmark_share": np.float64,
              "worst_sigma": np.float64, "theorem2_holds": bool, "mae": np.float64, "published_share": np.float64,
              "user_level_mae": np.float64, "degenerate": bool, "dropped": np.int64}
    return pd.DataFrame({c: pd.Series(dtype=dtypes[c]) for c in SUMMARY_COLUMNS})


def _clean(frame: pd.DataFrame, kind: str) -> tuple[pd.DataFrame, pd.Series]:
    """Drop events with a missing time or payload; returns (rows, dropped events per user)."""
    payload = list(KIND_COLUMNS[kind])
    bad = frame["timestamp"].isna().to_numpy() | frame[payload].isna().any(axis=1).to_numpy()
    dropped = pd.Series(frame["user"].to_numpy()[bad]).value_counts()
    return (frame[~bad] if bad.any() else frame), dropped


def _codes(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code per row, user per code) in order of first appearance; from runs when users come grouped (no hashing
    of every row), else by ``pd.factorize``."""
    if ids.size:
        change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
        runs = ids[np.r_[0, change]]
        if len(pd.unique(runs)) == len(runs):
            codes = np.zeros(ids.size, dtype=np.int64)
            codes[change] = 1
            return np.cumsum(codes), runs
    return pd.factorize(ids)


def _ordered(frame: pd.DataFrame, kind: str) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Rows grouped by user (order of first appearance) and sorted by time; returns (rows, users, starts)."""
    codes, users = _codes(frame["user"].to_numpy())
    ns = frame["timestamp"].array.asi8  # no copy (tz-aware too)
    step, change = np.diff(ns), np.diff(codes)
    same = change == 0
    if not (np.all(change >= 0) and np.all(step[same] >= 0)):
        order = np.lexsort((ns, codes))
        frame, codes, ns = frame.iloc[order], codes[order], ns[order]
        step, same = np.diff(ns), np.diff(codes) == 0
    if kind != "contacts" and np.any(same & (step == 0)):
        at = int(np.flatnonzero(same & (step == 0))[0])
        raise DataError(f"user {users[codes[at]]!r} has two events at {frame['timestamp'].iloc[at]}; a {kind} "
                        "series needs one event per timestamp (merge or drop duplicates first)")
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    return frame, np.asarray(users, dtype=object), starts  # later steps index by position


def _batches(lengths: np.ndarray, cells: int) -> list[np.ndarray]:
    """Users (indices) in batches of at most ``cells`` padded cells, longest first."""
    order = np.argsort(-lengths, kind="stable")
    out, start = [], 0
    while start < len(order):
        width = int(lengths[order[start]])
        size = max(1, cells // width)
        out.append(order[start:start + size])
        start += size
    return out


def _padded(column: np.ndarray, starts: np.ndarray, lengths: np.ndarray, fill=0.0) -> np.ndarray:
    """(users, max length) array of each user's cells, ``fill`` after its end (a view when users are adjacent
    and of equal length, the common case of a fleet)."""
    width = int(lengths.max())
    if np.all(lengths == width) and np.all(np.diff(starts) == width):
        return column[starts[0]:starts[0] + width * len(lengths)].reshape(len(lengths), width)
    out = np.full((len(lengths), width), fill, dtype=column.dtype if column.dtype != object else object)
    rows = np.repeat(np.arange(len(lengths)), lengths)
    cols = np.arange(rows.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    out[rows, cols] = column[np.repeat(starts, lengths) + cols]
    return out


def _row_index(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions in the frame of the batch's rows, user after user."""
    cols = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.repeat(starts, lengths) + cols


def _series_of(kind: str, frame: pd.DataFrame, start: int, length: int):
    """One user's rows as an ``lmdk.data.Series`` (for per-user landmark rules)."""
    from lmdk.data import series as ds

    rows = frame.iloc[start:start + length]
    times = pd.DatetimeIndex(rows["timestamp"])
    if kind == "values":
        series = ds.from_values(rows["value"].to_numpy(), times)
    elif kind == "trajectory":
        series = ds.from_trajectory(times, rows["lat"].to_numpy(), rows["lon"].to_numpy())
    else:
        series = ds.from_contacts(times, rows["contact"].to_numpy())
    if OFFSET_COLUMN in rows.columns and times.tz is not None:  # the UTC offset each reading carried in its file
        offsets = rows[OFFSET_COLUMN].to_numpy()
        known = ~pd.isna(offsets)
        if known.any():
            points = ds.offset_points(ds.epoch_ns(times)[known], offsets[known].astype(np.int64))
            series = replace(series, utc_offsets=points)
    return series


def _selected(job: Job, x, lengths, users) -> np.ndarray:
    """The batch's landmark mask selected privately per user (lmdk.selection.private.select at ε_sel on each user's
    values clamped to the public range), from generators of their own (fresh entropy, or the demonstration seed)."""
    from lmdk.selection.private import select, select_masks
    from lmdk.snapping import fresh_generator

    eps, value_range = float(job.landmark_epsilon or 0.0), job.value_range or (0.0, 1.0)
    if job.seed is None:  # an export: one fresh generator for the batch, every user's selection at once
        return select_masks(x, job.rule, eps, value_range, fresh_generator(), valid_mask(lengths, x.shape[1]))
    mask = np.zeros(x.shape[:2], dtype=bool)  # a demonstration: per-user streams, whatever the partitioning
    gens = seeding.selection_generators(job.seed, users)
    for r, n in enumerate(lengths.tolist()):
        mask[r, select(x[r, :n], job.rule, eps, value_range, gens[r]).indices] = True
    return mask


def _wall_clock(job: Job, frame, starts, lengths):
    """The batch's rows on each user's wall clock (:func:`marks.batch_wall_clock`), or None when some user's
    Series could not be built (the per-user path then raises as it always did)."""
    rows = _row_index(starts, lengths)
    times = pd.DatetimeIndex(frame["timestamp"].array.take(rows))
    if times.unit != "ns":
        return None
    if job.kind == "values" and not np.all(np.isfinite(frame["value"].to_numpy(np.float64)[rows])):
        return None
    if job.kind == "trajectory":
        lat, lon = frame["lat"].to_numpy(np.float64)[rows], frame["lon"].to_numpy(np.float64)[rows]
        if not (np.all(np.abs(lat) <= 90) and np.all(np.abs(lon) <= 180)):
            return None
    if job.tz is not None:
        from lmdk.declared.calendar import check_zone

        check_zone(job.tz)
    offsets = frame[OFFSET_COLUMN].to_numpy()[rows] if OFFSET_COLUMN in frame.columns else None
    return marks.batch_wall_clock(times, lengths, offsets, job.tz)


def _landmarks(job: Job, frame, starts, lengths, x, users=(), rules=None) -> np.ndarray:
    """The batch's real landmark mask under the policy's rule (selected privately when the job says so), or under
    each user's own declared rule (``rules``: {user: rule text}, users whose policies differ only there);
    declared windows of every user read at once (:func:`marks.declared_mask`)."""
    from lmdk.landmarks import parse_rule

    n = int(lengths.max())
    if rules is None:
        rule = parse_rule(job.rule)
        if job.landmark_epsilon is not None and rule.data_dependent and job.kind == "values":
            return _selected(job, x, lengths, users)
        if job.kind == "values":
            mask = marks.values_mask(rule, x, valid_mask(lengths, n), lengths)
            if mask is not None:
                return mask
        elif rule.kind == "none":
            return np.zeros((len(lengths), n), dtype=bool)
        each = [rule] * len(lengths)
    else:
        parsed = {text: parse_rule(text) for text in {rules[user] for user in users}}
        each = [parsed[rules[user]] for user in users]
    wall = _wall_clock(job, frame, starts, lengths) if any(r.kind == "calendar" for r in each) else None
    mask = marks.declared_mask(each, wall, lengths, n) if wall is not None else np.zeros((len(lengths), n), bool)
    rest = [r for r, rule in enumerate(each) if rule.kind != "none" and (wall is None or rule.kind != "calendar")]
    series = [_series_of(job.kind, frame, int(starts[r]), int(lengths[r])) for r in rest]  # ics:, times:, …
    for r, one in zip(rest, series, strict=True):
        mask[r, each[r].indices(one, job.tz)] = True
    return mask


def _mechanism_input(job: Job, frame, starts, lengths) -> tuple[np.ndarray, list]:
    """(x padded, per-user origins): values; local metres around each user's mean point (as the single path)."""
    if job.kind == "values":
        return _padded(frame["value"].to_numpy(np.float64), starts, lengths), []
    if job.kind == "contacts":
        return np.zeros((len(lengths), int(lengths.max()))), []
    from lmdk.mechanisms import latlon_to_metres

    lat, lon = frame["lat"].to_numpy(np.float64), frame["lon"].to_numpy(np.float64)
    x = np.zeros((len(lengths), int(lengths.max()), 2))
    origins = []
    for r, (s, n) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        x[r, :n], origin = latlon_to_metres(lat[s:s + n], lon[s:s + n])
        origins.append(origin)
    return x, origins


def _released_columns(job: Job, rel, valid, origins, lengths) -> dict[str, np.ndarray]:
    """The released cells of a batch, user after user: released value(s) and the private flags if asked."""
    values = np.asarray(rel.values)
    full = bool(valid.all())
    def cells(a):
        return a.reshape((-1,) + a.shape[2:]) if full else a[valid]
    if job.mechanism == "planar_laplace":
        from lmdk.mechanisms import metres_to_latlon

        lat, lon = np.empty(valid.shape), np.empty(valid.shape)
        for r, n in enumerate(lengths.tolist()):
            lat[r, :n], lon[r, :n] = metres_to_latlon(values[r, :n], origins[r])
        columns = {"released_lat": cells(lat), "released_lon": cells(lon)}
    else:
        dtype = np.float64 if job.mechanism == "laplace" else np.int8
        columns = {"released": cells(values).astype(dtype, copy=False)}
    if job.private_columns:
        columns.update(budget=cells(rel.budgets), published=cells(rel.published).astype(np.int8),
                       landmark=cells(rel.landmarks).astype(np.int8))
    return columns


def _write(job: Job, released: Path, users, times, columns: dict, lengths: np.ndarray) -> None:
    """Each user's released rows to ``<released>/user=<id>/part-0.parquet`` (the export note in the metadata)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"timestamp": pa.array(times), **{k: pa.array(v) for k, v in columns.items()}})
    table = table.replace_schema_metadata({b"lmdk": job.note.encode()})
    offset = 0
    for user, n in zip(users, lengths.tolist(), strict=True):
        folder = released / f"user={quote(str(user), safe='')}"
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(table.slice(offset, n), folder / "part-0.parquet", use_dictionary=False,
                       write_statistics=False)
        offset += n


def process_frame(frame: pd.DataFrame, job: Job, rules: dict | None = None) -> pd.DataFrame:
    """Release every (whole) user of ``frame``; returns their summary rows (see the module docstring). ``rules``:
    {user: the declared landmark rule (text) that user is released under}, in place of ``job.rule``."""
    if len(frame) == 0:
        return summary_meta()
    if job.withheld:
        frame = frame[~frame["user"].astype(str).isin(job.withheld).to_numpy()]
        if len(frame) == 0:
            return summary_meta()
    if job.variants:
        return process_assigned(frame, job)
    frame, dropped = _clean(frame, job.kind)
    frame, users, starts = _ordered(frame, job.kind)
    lengths = np.diff(np.r_[starts, len(frame)])
    parts = []
    for members in _batches(lengths, job.batch_cells):
        b_users, b_starts, b_lengths = users[members], starts[members], lengths[members]
        x, origins = _mechanism_input(job, frame, b_starts, b_lengths)
        real = _landmarks(job, frame, b_starts, b_lengths, x, b_users, rules)
        if job.kind == "contacts":
            x = real.astype(np.float64)
        rel = release_batch(x, real, b_lengths, job.scheme, job.epsilon, mechanism=job.mechanism,
                            generators=seeding.generators(job.seed, job.scheme, b_users), w=job.w,
                            sensitivity=job.sensitivity, dummies=job.dummies, sampler=job.sampler, bound=job.bound,
                            **({"value_range": job.value_range} if job.value_range is not None else {}))
        lost = dropped.reindex(b_users).fillna(0).to_numpy(np.int64)
        parts.append(batch_summary(b_users, x, real, rel, lost))
        if job.released is not None:
            valid = valid_mask(b_lengths, x.shape[1])
            times = frame["timestamp"].array.take(_row_index(b_starts, b_lengths))
            _write(job, Path(job.released), b_users, times, _released_columns(job, rel, valid, origins, b_lengths),
                   b_lengths)
    return pd.concat(parts, ignore_index=True)


def lockstep_groups(jobs) -> list[list[int]]:
    """The per-user variants ``jobs`` (indices) in groups released as one lockstep batch: variants that differ only
    in a declared landmark rule (and, writing nothing, in the note naming it) run together, each user on its own
    rule; any other variant alone. Seeded or not, each user's release is what its own variant's run gives."""
    from lmdk.landmarks import parse_rule

    groups: list[list[int]] = []
    keys: list = []
    for index, job in enumerate(jobs):
        key = None if parse_rule(job.rule).data_dependent else {
            **vars(job), "rule": None, "note": None if job.released is None else job.note}
        at = next((g for g, other in enumerate(keys) if key is not None and other == key), None)
        if at is None:
            groups.append([index])
            keys.append(key)
        else:
            groups[at].append(index)
    return groups


def process_assigned(frame: pd.DataFrame, job) -> pd.DataFrame:
    """The summary rows of a frame of whole users, each released under their own variant (or withheld)."""
    from lmdk.policies.table import user_key

    codes, users = pd.factorize(frame["user"])
    assign = job.assign or {}
    choice = np.array([assign.get(user_key(u), job.fallback) for u in users], dtype=object)
    parts = []
    for group in lockstep_groups([variant for variant, _ in job.variants]):
        members = np.flatnonzero(np.fromiter((c in group for c in choice), bool, len(choice)))
        if not members.size:
            continue
        variant, columns = job.variants[group[0]]
        rows = frame if members.size == len(users) else frame[np.isin(codes, members)]
        if len(group) == 1:
            part = process_frame(rows, variant)
            parts.append(part.assign(**columns, withheld=None))
            continue
        own = {users[k]: choice[k] for k in members.tolist()}  # the group's users, each under its own declared rule
        part = process_frame(rows, variant, rules={user: job.variants[v][0].rule for user, v in own.items()})
        taken = [job.variants[own[user]][1] for user in part["user"]]  # each user's own policy columns
        parts.append(pd.concat([part, pd.DataFrame({**{name: [c[name] for c in taken] for name in columns},
                                                    "withheld": [None] * len(part)}, index=part.index)], axis=1)
                     if taken else part.assign(**columns, withheld=None))
    withheld = np.flatnonzero(np.fromiter((isinstance(c, str) or c is None for c in choice), bool, len(choice)))
    if withheld.size:
        counts = np.bincount(codes, minlength=len(users))[withheld]
        rows = pd.DataFrame({"user": list(users[withheld]), "n": counts.astype(np.int64),
                             "withheld": [str(choice[k]) for k in withheld]})
        parts.append(rows.reindex(columns=[*SUMMARY_COLUMNS, *POLICY_COLUMNS]).astype(_WITHHELD_TYPES))
    return pd.concat(parts, ignore_index=True)
