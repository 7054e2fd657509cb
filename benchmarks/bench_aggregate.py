"""Aggregate streams at scale (issue 36): USERS users × BINS half-hours in a Parquet long table sorted by user,
built into the per-bin sum in process and on a 2-worker Dask cluster. python benchmarks/bench_aggregate.py
[--users 10000] [--bins 17520] [--folder DIR]"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def write_table(path: Path, users: int, bins: int, seed: int = 0) -> int:
    """A long table (user, timestamp, value) sorted by user, written a block of users at a time; returns rows."""
    rng = np.random.default_rng(seed)
    start = np.datetime64("2024-01-01T00:00", "ns")
    times = start + np.arange(bins) * np.timedelta64(30, "m")
    hours = (np.arange(bins) // 2) % 24
    profile = 0.3 + 0.5 * np.exp(-((hours - 19) ** 2) / 8)
    writer = None
    block = max(1, 2_000_000 // bins)
    for first in range(0, users, block):
        ids = np.arange(first, min(users, first + block))
        scale = rng.gamma(4, 0.25, size=ids.size)[:, None]
        values = np.round(profile[None, :] * scale * rng.gamma(2, 0.5, size=(ids.size, bins)), 3)
        table = pa.table({"user": np.repeat(ids, bins), "timestamp": np.tile(times, ids.size),
                          "value": values.ravel()})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    assert writer is not None
    writer.close()
    return users * bins


def main() -> None:
    """Write the table once, then time the in-process build (and the Dask one when asked)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--bins", type=int, default=17_520)
    parser.add_argument("--folder", default="benchmarks/results")
    args = parser.parse_args()
    from lmdk.aggregate import build

    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"aggregate_{args.users}x{args.bins}.parquet"
    if not path.exists():
        t0 = time.perf_counter()
        rows = write_table(path, args.users, args.bins)
        print(f"wrote {rows:,} rows in {time.perf_counter() - t0:.1f} s ({path.stat().st_size / 1e6:.0f} MB)")
    t0 = time.perf_counter()
    agg = build(path, "sum", value_range=(0, 25), bin="30min")
    seconds = time.perf_counter() - t0
    print(f"in process: {seconds:.1f} s for {args.users:,} users × {args.bins:,} bins "
          f"({args.users * args.bins / seconds / 1e6:.1f} M rows/s); warnings {agg.warnings}")


if __name__ == "__main__":
    main()
