"""Regroup streamed chunks so that a user is never split: every yielded frame holds whole users.

Clustered input (each user's rows contiguous, e.g. sorted by user) is streamed with the last, possibly
incomplete user of each chunk carried into the next. Other input is first spilled to hash buckets of users
on disk (Parquet, one bucket ≈ one chunk), then each bucket is read back whole: memory stays bounded by
about one chunk either way.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from lmdk.population.input import Source
from lmdk.population.seeding import user_key


@dataclass(frozen=True)
class Scan:
    """What one pass over the user column found: rows, users and whether each user's rows are contiguous."""

    rows: int
    users: int
    clustered: bool
    starts: np.ndarray | None = None  # clustered input: the row where each user begins


def _runs(users: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row, user) of each run of equal consecutive ids."""
    if users.size == 0:
        return np.zeros(0, dtype=np.int64), users
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
    return starts, users[starts]


def scan(source: Source, rows: int) -> Scan:
    """Count rows and users, check that users come clustered and where each begins (one pass)."""
    seen: set = set()
    total, clustered, last, begins = 0, True, None, []
    columns = source.users(rows) if source.users is not None else (c["user"].to_numpy() for c in source.chunks(rows))
    for users in columns:
        starts, runs = _runs(users)
        runs = runs.tolist()
        if runs and last is not None and runs[0] == last:
            starts, runs = starts[1:], runs[1:]  # the previous chunk's last user goes on
        for user in runs:
            if user in seen:
                clustered = False
            seen.add(user)
        if clustered:
            begins.append(starts + total)
        total += len(users)
        if len(users):
            last = users[-1]
    first_rows = np.concatenate(begins) if clustered and begins else None
    return Scan(total, len(seen), clustered, first_rows)


def user_ranges(info: Scan, rows: int) -> list[tuple[int, int]]:
    """Row ranges [a, b) of about ``rows`` rows that begin and end at user boundaries (clustered input)."""
    if not info.rows:
        return []
    bounds = np.r_[info.starts, info.rows]
    cuts, next_cut = [0], rows
    for b in bounds[1:].tolist():
        if b >= next_cut or b == info.rows:
            cuts.append(b)
            next_cut = b + rows
    return list(zip(cuts[:-1], cuts[1:], strict=True))


def read_rows(files, columns, start: int, stop: int):
    """Rows [start, stop) of Parquet files read end to end, reading only the row groups that hold them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pieces, offset = [], 0
    for name in files:
        handle = pq.ParquetFile(name)
        for group in range(handle.metadata.num_row_groups):
            size = handle.metadata.row_group(group).num_rows
            lo, hi = max(start, offset), min(stop, offset + size)
            if lo < hi:
                pieces.append(handle.read_row_group(group, columns=columns).slice(lo - offset, hi - lo))
            offset += size
            if offset >= stop:
                return pa.concat_tables(pieces)
    return pa.concat_tables(pieces)


def carried(chunks: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """Whole-user frames from clustered chunks: each chunk's last user waits for the next chunk."""
    pending: pd.DataFrame | None = None
    for chunk in chunks:
        frame = chunk if pending is None or not len(pending) else pd.concat([pending, chunk], ignore_index=True)
        users = frame["user"].to_numpy()
        if len(users) == 0:
            continue
        changes = np.flatnonzero(users[1:] != users[:-1])
        tail = int(changes[-1]) + 1 if changes.size else 0  # first row of the last user
        if tail > 0:
            yield frame.iloc[:tail]
        pending = frame.iloc[tail:]
    if pending is not None and len(pending):
        yield pending


def _bucket_of(users: np.ndarray, buckets: int) -> np.ndarray:
    """The hash bucket of every row's user (ids hashed once per distinct id)."""
    codes, uniques = pd.factorize(users)
    table = np.array([user_key(u) % buckets for u in uniques], dtype=np.int64)
    return table[codes]


def spilled(source: Source, rows: int, total_rows: int, folder: str | None = None) -> Iterator[pd.DataFrame]:
    """Whole-user frames from any chunks: hash users into on-disk buckets, then read each bucket back."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buckets = max(1, -(-total_rows // rows))
    with tempfile.TemporaryDirectory(prefix="lmdk-population-", dir=folder) as tmp:
        writers: dict[int, pq.ParquetWriter] = {}
        try:
            for chunk in source.chunks(rows):
                bucket = _bucket_of(chunk["user"].to_numpy(), buckets)
                for b in np.unique(bucket).tolist():
                    table = pa.Table.from_pandas(chunk[bucket == b], preserve_index=False)
                    if b not in writers:
                        writers[b] = pq.ParquetWriter(Path(tmp) / f"bucket-{b}.parquet", table.schema)
                    writers[b].write_table(table.cast(writers[b].schema))
        finally:
            for writer in writers.values():
                writer.close()
        for b in sorted(writers):
            frame = pq.read_table(Path(tmp) / f"bucket-{b}.parquet").to_pandas()
            codes, _ = pd.factorize(frame["user"])
            yield frame.iloc[np.argsort(codes, kind="stable")].reset_index(drop=True)


def user_frames(source: Source, rows: int, info: Scan | None = None, folder: str | None = None
                ) -> Iterator[pd.DataFrame]:
    """Frames of whole users: streamed when the input is clustered, else through hash buckets on disk."""
    if source.clustered:
        return carried(source.chunks(rows))
    info = info if info is not None else scan(source, rows)
    if info.clustered:
        return carried(source.chunks(rows))
    return spilled(source, rows, info.rows, folder)
