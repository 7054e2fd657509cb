"""Population release of a synthetic fleet (issue 17): time per scheme and peak memory, in-process.

Writes a fleet of USERS households × EVENTS hourly readings as one Parquet file (generated in chunks of
users, so the generator never holds the table), then runs ``lmdk population`` once per scheme under
``/usr/bin/time -v`` (one repetition each, per-user percentile landmarks) and reports wall time, events/s,
peak RSS and the load average. Targets at 10,000 × 8,760 (87.6 M events) on 2 cores: uniform < 60 s,
adaptive < 3 min, peak RSS < 4 GB.

    python benchmarks/bench_population.py                      # full size (read /tmp/lmdk_quiet first)
    python benchmarks/bench_population.py --users 500          # reduced size
    python benchmarks/bench_population.py --seed 0             # demonstration mode (textbook sampler)
    python benchmarks/bench_population.py --workers 2          # the same on a 2-worker Dask LocalCluster
    python benchmarks/bench_population.py --schemes uniform --ledger sqlite:///ledger.db   # each user's ε reserved

Without --seed the runs are exports: fresh unrecorded entropy and the snapping sampler with --bound 10 (kWh).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SCHEMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")
TARGETS_S = {"uniform": 60.0, "adaptive": 180.0}
TARGET_RSS_GB = 4.0
BOUND_KWH = 10.0


def write_fleet(path: Path, users: int, events: int, chunk_users: int = 250, seed: int = 0) -> dict:
    """A Parquet long table user,timestamp,value (hourly kWh with a daily profile), written chunk by chunk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    times = np.datetime64("2024-01-01T00:00", "ns") + np.arange(events) * np.timedelta64(3600, "s")
    hours = np.arange(events) % 24
    profile = 0.6 + 0.35 * np.sin(2 * np.pi * (hours - 7) / 24)
    start = time.perf_counter()
    with pq.ParquetWriter(path, pa.schema([("user", pa.int64()), ("timestamp", pa.timestamp("ns")),
                                           ("value", pa.float64())])) as writer:
        for first in range(0, users, chunk_users):
            count = min(chunk_users, users - first)
            scale = rng.gamma(4.0, 0.25, (count, 1))
            values = np.clip(scale * profile * rng.gamma(2.0, 0.5, (count, events)), 0.0, BOUND_KWH)
            writer.write_table(pa.table({
                "user": np.repeat(np.arange(first, first + count, dtype=np.int64), events),
                "timestamp": np.tile(times, count), "value": values.ravel()}))
    return {"seconds": time.perf_counter() - start, "bytes": path.stat().st_size,
            "in_memory_bytes": users * events * 24}


def _time_v(report: str, label: str) -> str:
    """One field of /usr/bin/time -v's report."""
    found = re.search(rf"{re.escape(label)}: (.+)", report)
    return found.group(1).strip() if found else ""


def _seconds(clock: str) -> float:
    """h:mm:ss or m:ss.ss → seconds."""
    parts = [float(p) for p in clock.split(":")]
    return sum(p * 60 ** i for i, p in enumerate(reversed(parts)))


def run_scheme(fleet: Path, scheme: str, work: Path, seed: int | None, workers: int | None,
               ledger: str | None = None) -> dict:
    """``lmdk population`` for one scheme under /usr/bin/time -v: wall seconds, peak RSS, load average; with
    ``ledger`` every user's ε is reserved there first (dataset ``fleet-SCHEME-…``, a cap no user reaches)."""
    policy = work / f"policy-{scheme}.json"
    policy.write_text(json.dumps({"landmarks": "percentile:20", "scheme": scheme, "epsilon": 1.0,
                                  **({"w": 168} if scheme == "w-event" else {})}))
    out, report = work / f"out-{scheme}", work / f"time-{scheme}.txt"
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "lmdk", "population", str(fleet), "--config", str(policy), "--out", str(out),
               "--quiet", "--allow-violation", "--allow-data-landmarks"]  # per-user percentiles, as before
    command += ["--seed", str(seed)] if seed is not None else ["--bound", str(BOUND_KWH)]
    command += ["--workers", str(workers)] if workers else []
    if ledger:
        command += ["--ledger", ledger, "--dataset", f"fleet-{scheme}-{os.getpid()}-{time.time_ns()}", "--cap", "1e6"]
    load_before = os.getloadavg()[0]
    done = subprocess.run(["/usr/bin/time", "-v", "-o", str(report), *command], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{scheme}: exit {done.returncode}\n{done.stderr[-2000:]}")
    text = report.read_text()
    aggregates = json.loads((out / "aggregates.json").read_text())
    shutil.rmtree(out, ignore_errors=True)  # ~1 GB of released Parquet per scheme at full size
    seconds = _seconds(_time_v(text, "Elapsed (wall clock) time (h:mm:ss or m:ss)"))
    # the pool reports its children separately: with --workers the peak is the largest single process
    return {"scheme": scheme, "seconds": seconds, "events_per_s": aggregates["events"] / seconds,
            "peak_rss_gb": int(_time_v(text, "Maximum resident set size (kbytes)")) / 1024**2,
            "load_before": load_before, "load_after": os.getloadavg()[0], "users": aggregates["users"],
            "violated": aggregates["violated"], "mae_median": aggregates["mae_quantiles"]["0.5"]}


def main(argv=None) -> int:
    """Generate the fleet, run the schemes, print the table (and write it as JSON beside the fleet)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=8_760)
    parser.add_argument("--schemes", default=",".join(SCHEMES))
    parser.add_argument("--seed", type=int, default=None, help="demonstration mode (default: exports)")
    parser.add_argument("--workers", type=int, default=None, help="Dask LocalCluster workers (default in-process)")
    parser.add_argument("--workdir", default=None, help="where the fleet and outputs go (default: a temp folder)")
    parser.add_argument("--ledger", metavar="URL", default=None,
                        help="reserve every user's ε in this ledger first (compare the time with a run without)")
    args = parser.parse_args(argv)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="lmdk-bench-population-"))
    work.mkdir(parents=True, exist_ok=True)
    fleet = work / f"fleet-{args.users}x{args.events}.parquet"
    if not fleet.exists():
        made = write_fleet(fleet, args.users, args.events)
        print(f"fleet: {args.users:,} users × {args.events:,} events = {args.users * args.events:,} events; "
              f"Parquet {made['bytes'] / 1e9:.2f} GB (as a pandas table {made['in_memory_bytes'] / 1e9:.2f} GB), "
              f"written in {made['seconds']:.1f} s", flush=True)
    mode = f"demonstration seed {args.seed}" if args.seed is not None else f"export (snapping, bound {BOUND_KWH:g})"
    engine = f"Dask LocalCluster of {args.workers}" if args.workers else "in-process"
    engine += f"; ledger {args.ledger}" if args.ledger else "; no ledger"
    print(f"mode: {mode}; engine: {engine}; cores: {os.cpu_count()}", flush=True)
    rows = []
    print(f"{'scheme':<9} {'seconds':>8} {'events/s':>12} {'peak RSS GB':>12} {'load 1-min':>14} {'target':>8}")
    for scheme in args.schemes.split(","):
        row = run_scheme(fleet, scheme, work, args.seed, args.workers, args.ledger)
        rows.append(row)
        target = TARGETS_S.get(scheme)
        verdict = "" if target is None else ("ok" if row["seconds"] < target and row["peak_rss_gb"] < TARGET_RSS_GB
                                             else "MISSED")
        print(f"{scheme:<9} {row['seconds']:>8.1f} {row['events_per_s']:>12,.0f} {row['peak_rss_gb']:>12.2f} "
              f"{row['load_before']:>6.2f}→{row['load_after']:<6.2f} {verdict:>8}", flush=True)
    (work / "results.json").write_text(json.dumps({"users": args.users, "events": args.events, "mode": mode,
                                                   "engine": engine, "rows": rows}, indent=2))
    print(f"results: {work / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
