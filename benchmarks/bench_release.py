"""Time schemes.release for all six schemes × 100 repetitions × n = 1,000 (Laplace). Target: < 100 ms in total."""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmdk import schemes, synthetic  # noqa: E402

N, REPS, RUNS, TARGET_MS = 1_000, 100, 15, 100.0


def main() -> None:
    """Print the median time per scheme over RUNS runs and the total against the target."""
    series = synthetic.values(N, 0.9, rng=0, mean=1.0, std=0.5)
    lm = synthetic.landmarks(N, 0.4, "uniform", rng=1)
    times = {s: [] for s in schemes.SCHEMES}
    for run in range(RUNS):
        for s in schemes.SCHEMES:
            t0 = time.perf_counter()
            schemes.release(series, lm, s, 1.0, repetitions=REPS, rng=run, w=10)
            times[s].append(time.perf_counter() - t0)
    total = 0.0
    print(f"release: {REPS} repetitions × n={N}, Laplace, 40 % landmarks; median of {RUNS} runs")
    for s, ts in times.items():
        ms = 1000 * float(np.median(ts))
        total += ms
        print(f"  {s:<9} {ms:7.2f} ms")
    verdict = "OK" if total < TARGET_MS else "TOO SLOW"
    print(f"  total     {total:7.2f} ms   (target < {TARGET_MS:.0f} ms: {verdict})")


if __name__ == "__main__":
    main()
