"""Aggregate streams at scale (issue 36): USERS users × BINS half-hours in a Parquet long table sorted by user,
built into the per-bin sum in process and on a 2-worker Dask cluster. python benchmarks/bench_aggregate.py
[--users 10000] [--bins 17520] [--folder DIR] [--workers 2] [--release]

Prints the time of each build (in process, and on a LocalCluster of --workers Dask workers when given) and,
with --release, of one export of the sum under Skip at ε = 1 with declared landmarks (Sundays 09:00–12:00).
No timed tests: the numbers go in the closing note."""
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
    parser.add_argument("--workers", type=int, default=0, help="also build on a LocalCluster of this many workers")
    parser.add_argument("--release", action="store_true", help="also time one export of the sum")
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
    if args.workers:
        t0 = time.perf_counter()
        dagg = build(path, "sum", value_range=(0, 25), bin="30min", workers=args.workers)
        seconds = time.perf_counter() - t0
        same = np.allclose(dagg.series["all"].to_numpy(), agg.series["all"].to_numpy())
        print(f"Dask, {args.workers} workers (LocalCluster start included): {seconds:.1f} s "
              f"({args.users * args.bins / seconds / 1e6:.1f} M rows/s); same sums as in process: {same}")
    if args.release:
        from lmdk import landmarks, relation
        from lmdk.exports.export import export_scheme_release

        series = agg.to_series(units="kWh")
        L = landmarks.parse_rule("calendar:sun@09:00-12:00").indices(series)
        protects = relation.aggregate("sum", users=agg.users["all"], low=0, high=25, unit="kWh")
        t0 = time.perf_counter()
        out = export_scheme_release(series, L, "skip", 1.0, protects=protects, event="half-hour")
        seconds = time.perf_counter() - t0
        truth = series.values
        mae = float(np.mean(np.abs(out.frame["released"].to_numpy() - truth)))
        print(f"export (skip, ε = 1, |L| = {len(L):,}): {seconds:.2f} s; MAE {mae:.1f} kWh, relative "
              f"{mae / np.mean(np.abs(truth)):.4f}")


if __name__ == "__main__":
    main()
