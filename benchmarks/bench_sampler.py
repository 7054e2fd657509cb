"""Speed and accuracy of the export samplers: numpy textbook, Mironov's snapping, the exact discrete Laplace, OpenDP.

    python benchmarks/bench_sampler.py                      # everything; the fleet on 2,000 users, extrapolated
    python benchmarks/bench_sampler.py --users 10000        # the fleet at full size (10,000 × 8,760)
    python benchmarks/bench_sampler.py --no-dask            # skip the 2-worker Dask LocalCluster

1. Raw samplers, 10⁵ draws (issue 15 §2): numpy textbook, lmdk snapping, lmdk discrete Laplace, and OpenDP's
   vectorised Laplace where it is installed (it is not a dependency of lmdk). Median of 7 runs.
2. One series of 17,520 values (two years hourly): ``discrete_laplace``, ``release_values`` and
   ``lmdk.schemes.release`` (uniform, adaptive) with sampler="discrete" vs "textbook", µs per value.
3. A fleet of 10,000 users × 8,760 hours (the population benchmark's profile, public range 0–10 kWh, Δ = 10,
   per-user top-20 % landmarks): ``lmdk.population.batch.release_batch`` in lockstep batches of
   ``BATCH_CELLS`` cells, in-process and on a 2-worker Dask LocalCluster (the batch function mapped over
   batches — at least 4 —, each task generating its users), uniform and adaptive, discrete vs textbook. Measured on
   ``--users`` users and extrapolated linearly to 10,000 (the work is per batch; the table says which).
4. MAE of the released values against the originals at the same Δ: discrete, textbook, and textbook clamped
   to the public range (the discrete release is clamped, which only lowers its error).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmdk import discrete_laplace, mechanisms, relation, schemes, snapping

N = 100_000
SERIES = 17_520
FLEET_USERS, HOURS = 10_000, 8_760
RANGE_KWH = (0.0, 10.0)
SCHEMES = ("uniform", "adaptive")


def timed(fn, runs: int = 7) -> float:
    """Median seconds of ``fn()`` over ``runs``."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def raw_samplers() -> list[tuple[str, float]]:
    """Section 1: ms per 10⁵ draws."""
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, 0.4, N)
    cal = discrete_laplace.calibrate(1.0, 10.0, (0.0, 10.0))
    rows = {
        "numpy textbook (x + λ·Laplace)": lambda: mechanisms.laplace(x, 1.0, rng=rng),
        "lmdk snapping (U*, S·ln U*, snap, clamp)": lambda: snapping.snap(
            np.clip(x, -10, 10) + snapping.unit_noise("laplace", N, rng), 1.0, 10.0),
        f"lmdk discrete_laplace (t = {int(cal.scale)})": lambda: discrete_laplace.discrete_laplace(cal.scale, 1, rng,
                                                                                                  size=N),
        "lmdk release_values (clamp, grid, Lap_Z, clamp)": lambda: discrete_laplace.release_values(
            x, 1.0, 10.0, (0.0, 10.0), rng),
    }
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        measurement = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float),
                                        scale=1.0)
        values = x.tolist()
        rows["OpenDP make_laplace (vector)"] = lambda: measurement(values)
    except ImportError:
        print("OpenDP is not installed: skipped (pip install opendp to compare)")
    return [(name, 1000 * timed(fn)) for name, fn in rows.items()]


def one_series() -> list[tuple[str, float, float]]:
    """Section 2: (what, µs per value discrete, µs per value textbook) for one 17,520-value series."""
    rng = np.random.default_rng(1)
    hours = np.arange(SERIES) % 24
    x = np.clip(rng.gamma(2.0, 0.5, SERIES) * (0.6 + 0.35 * np.sin(2 * np.pi * (hours - 7) / 24)), *RANGE_KWH)
    landmarks = np.flatnonzero(x >= np.quantile(x, 0.8))
    delta = RANGE_KWH[1] - RANGE_KWH[0]
    cal = discrete_laplace.calibrate(1.0 / (len(landmarks) + 1), delta, RANGE_KWH)
    per = 1e6 / SERIES
    rows = [("discrete_laplace, uniform's t", per * timed(lambda: discrete_laplace.discrete_laplace(
        cal.scale, 1, rng, size=SERIES)), per * timed(lambda: mechanisms.unit_noise("laplace", SERIES, rng))),
            ("release_values (ε = 1)", per * timed(lambda: discrete_laplace.release_values(x, 1.0, delta, RANGE_KWH,
                                                                                           rng)),
             per * timed(lambda: mechanisms.laplace(x, 1.0, delta, rng)))]
    for scheme in SCHEMES:
        runs = 3 if scheme == "adaptive" else 7

        def run(sampler, scheme=scheme):  # the exports' relation, or the same Δ with the textbook sampler
            protects = (relation.public_range(*RANGE_KWH) if sampler == "discrete"
                        else relation.Relation("papers", d=delta))
            return schemes.release(x, landmarks, scheme, 1.0, protects=protects, rng=rng)

        rows.append((f"schemes.release {scheme}", per * timed(lambda: run("discrete"), runs),
                     per * timed(lambda: run("textbook"), runs)))
    return rows


def fleet_batch(first: int, count: int, scheme: str, sampler: str, seed: int = 0) -> dict:
    """Users first..first+count−1 of the synthetic fleet, released in one lockstep batch: seconds (release only) and
    the sums of |released − original| per sampler view (the batch function a population engine maps)."""
    from lmdk.population import seeding
    from lmdk.population.batch import release_batch

    rng = np.random.default_rng([seed, first])
    hours = np.arange(HOURS) % 24
    profile = 0.6 + 0.35 * np.sin(2 * np.pi * (hours - 7) / 24)
    x = np.clip(rng.gamma(4.0, 0.25, (count, 1)) * profile * rng.gamma(2.0, 0.5, (count, HOURS)), *RANGE_KWH)
    mask = x >= np.quantile(x, 0.8, axis=1, keepdims=True)  # per-user top 20 %
    lengths = np.full(count, HOURS)
    delta = RANGE_KWH[1] - RANGE_KWH[0]
    options = {"value_range": RANGE_KWH} if sampler == "discrete" else {}
    t0 = time.perf_counter()
    rel = release_batch(x, mask, lengths, scheme, 1.0, sensitivity=delta, sampler=sampler, **options,
                        generators=seeding.generators(seed, scheme, range(first, first + count)))
    seconds = time.perf_counter() - t0
    out = {"seconds": seconds, "cells": count * HOURS, "abs": float(np.abs(rel.values - x).sum())}
    if sampler == "textbook":
        out["abs_clamped"] = float(np.abs(np.clip(rel.values, *RANGE_KWH) - x).sum())
    return out


def _batches(users: int, tasks: int = 1) -> list[tuple[int, int]]:
    """(first user, count) of the lockstep batches: BATCH_CELLS cells each, as lmdk.population groups them, and at
    least ``tasks`` of them (so that every Dask worker gets work)."""
    from lmdk.population.process import BATCH_CELLS

    size = max(1, min(BATCH_CELLS // HOURS, -(-users // tasks)))
    return [(first, min(size, users - first)) for first in range(0, users, size)]


def fleet(users: int, dask: bool) -> list[dict]:
    """Section 3 and 4: in-process (and Dask) runs of the fleet's first ``users`` users."""
    rows = []
    engines = [("in-process", None)]
    cluster = None
    if dask:
        try:
            from distributed import Client, LocalCluster

            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
            engines.append(("Dask LocalCluster, 2 workers", Client(cluster)))
        except ImportError:
            print("dask/distributed are not installed: Dask skipped")
    try:
        for engine, client in engines:
            for scheme in SCHEMES:
                for sampler in ("textbook", "discrete"):
                    t0 = time.perf_counter()
                    if client is None:
                        parts = [fleet_batch(a, n, scheme, sampler) for a, n in _batches(users)]
                    else:
                        futures = [client.submit(fleet_batch, a, n, scheme, sampler, pure=False)
                                   for a, n in _batches(users, tasks=4)]
                        parts = client.gather(futures)
                    wall = time.perf_counter() - t0
                    cells = sum(p["cells"] for p in parts)
                    row = {"engine": engine, "scheme": scheme, "sampler": sampler, "users": users, "wall": wall,
                           "release": sum(p["seconds"] for p in parts), "us_per_value": 1e6 * wall / cells,
                           "full_s": wall * FLEET_USERS / users, "mae": sum(p["abs"] for p in parts) / cells}
                    if sampler == "textbook":
                        row["mae_clamped"] = sum(p["abs_clamped"] for p in parts) / cells
                    rows.append(row)
                    print(f"  {engine:<30} {scheme:<8} {sampler:<8} {wall:7.1f} s", flush=True)
    finally:
        for _, client in engines[1:]:
            client.close()
        if cluster is not None:
            cluster.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=2_000, help="fleet users measured (extrapolated to 10,000)")
    parser.add_argument("--no-dask", action="store_true", help="skip the 2-worker Dask LocalCluster")
    args = parser.parse_args()

    print("1. Raw samplers, ms per 10^5 draws (median of 7)")
    for name, ms in raw_samplers():
        print(f"   {name:<50} {ms:9.1f} ms")

    print(f"\n2. One series of {SERIES:,} values, µs per value (discrete | textbook)")
    for name, disc, text in one_series():
        print(f"   {name:<50} {disc:8.3f} | {text:8.3f}  ({disc / text:5.1f}×)")

    print(f"\n3. Fleet {FLEET_USERS:,} users × {HOURS:,} h, measured on {args.users:,} users"
          + ("" if args.users == FLEET_USERS else f", extrapolated ×{FLEET_USERS / args.users:g}") + ":")
    rows = fleet(args.users, not args.no_dask)
    print(f"\n   {'engine':<30} {'scheme':<9} {'sampler':<9} {'wall s':>8} {'µs/value':>9} {'10k users s':>12}")
    for r in rows:
        print(f"   {r['engine']:<30} {r['scheme']:<9} {r['sampler']:<9} {r['wall']:8.1f} {r['us_per_value']:9.3f} "
              f"{r['full_s']:12.0f}")

    print("\n4. MAE of the released values (kWh) at Δ = 10 (the public range 0–10 kWh), fleet above, in-process")
    print(f"   {'scheme':<9} {'discrete':>10} {'textbook':>10} {'textbook clamped to the range':>31}")
    for scheme in SCHEMES:
        mine = {r["sampler"]: r for r in rows if r["scheme"] == scheme and r["engine"] == "in-process"}
        print(f"   {scheme:<9} {mine['discrete']['mae']:10.3f} {mine['textbook']['mae']:10.3f} "
              f"{mine['textbook']['mae_clamped']:31.3f}")


if __name__ == "__main__":
    main()
