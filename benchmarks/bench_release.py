"""Time schemes.release for all six schemes × 100 repetitions × n = 1,000 (Laplace). Target: < 100 ms in total."""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmdk import relation, schemes, synthetic

N, REPS, RUNS, TARGET_MS = 1_000, 100, 15, 100.0


def main() -> None:
    """Print the median time per scheme over RUNS runs and the total against the target."""
    series = synthetic.values(N, 0.9, rng=0, mean=1.0, std=0.5)
    lm = synthetic.landmarks(N, 0.4, "uniform", rng=1)
    wall = {s: [] for s in schemes.SCHEMES}
    cpu = {s: [] for s in schemes.SCHEMES}
    for run in range(RUNS):
        for s in schemes.SCHEMES:
            w0, c0 = time.perf_counter(), time.process_time()
            schemes.release(series, lm, s, 1.0, protects=relation.PAPERS_UNIT_CHANGE, repetitions=REPS, rng=run, w=10)
            wall[s].append(time.perf_counter() - w0)
            cpu[s].append(time.process_time() - c0)
    print(f"release: {REPS} repetitions × n={N}, Laplace, 40 % landmarks; median of {RUNS} runs "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"  {'scheme':<9} {'wall':>9} {'cpu':>9}")
    for s in schemes.SCHEMES:
        print(f"  {s:<9} {1000 * np.median(wall[s]):6.2f} ms {1000 * np.median(cpu[s]):6.2f} ms")
    total_wall = 1000 * sum(float(np.median(v)) for v in wall.values())
    total_cpu = 1000 * sum(float(np.median(v)) for v in cpu.values())
    verdict = "OK" if total_cpu < TARGET_MS else "TOO SLOW"
    print(f"  {'total':<9} {total_wall:6.2f} ms {total_cpu:6.2f} ms   (target < {TARGET_MS:.0f} ms of CPU on one core: "
          f"{verdict}; wall time is inflated when other processes share the cores)")


if __name__ == "__main__":
    main()
