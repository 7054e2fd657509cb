"""Timings of lmdk.dummies.selection against issue #4's targets; run ``python benchmarks/bench_dummies.py``."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmdk import dummies as dm


def best_of(fn, runs: int = 5) -> float:
    """Fastest wall time of ``runs`` calls, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def landmarks(n: int, fraction: float, seed: int) -> np.ndarray:
    """Uniformly placed landmarks, ``fraction`` of n."""
    return np.sort(np.random.default_rng(seed).choice(n, size=int(fraction * n), replace=False))


def main() -> None:
    """Print each case as: name, seconds, target, verdict."""
    l10k, l1k = landmarks(10_000, 0.2, 0), landmarks(1_000, 0.2, 1)
    clustered = np.sort(np.random.default_rng(2).choice(2_500, size=2_000, replace=False))
    cases = [
        ("options partitioned n=10,000, 20 % L (euclidean)", lambda: dm.options(10_000, l10k, rng=0), 1.0),
        ("options partitioned n=10,000, 20 % L (wasserstein)",
         lambda: dm.options(10_000, l10k, metric="wasserstein", rng=0), None),
        ("options partitioned n=10,000, 20 % L in the first 25 %",
         lambda: dm.options(10_000, clustered, rng=0), None),
        ("options heuristic n=1,000, 20 % L", lambda: dm.options(1_000, l1k, "heuristic"), 2.0),
        ("options optimal n=24, |T∖L|=20 (the limit)", lambda: dm.options(24, np.arange(0, 24, 6), "optimal"), None),
        ("select partitioned/position n=1,000", lambda: dm.select(1_000, l1k, 0.01, rng=0), 0.2),
        ("select partitioned/count n=1,000", lambda: dm.select(1_000, l1k, 0.01, utility="count", rng=0), 0.2),
        ("select heuristic/position n=1,000", lambda: dm.select(1_000, l1k, 0.01, method="heuristic", rng=0), 0.2),
        ("landmark_sets_for_release heuristic n=1,000, 100 reps", lambda: dm.landmark_sets_for_release(
            1_000, l1k, 1.0, dm.DummySpec("heuristic"), 100, np.random.default_rng(0)), None),
        ("landmark_sets_for_release n=1,000, 100 reps",
         lambda: dm.landmark_sets_for_release(1_000, l1k, 1.0, dm.DummySpec(), 100, np.random.default_rng(0)), None),
        ("materialise all 8,000 partitioned options n=10,000",
         lambda: list(dm.options(10_000, l10k, rng=0)), None),
    ]
    print(f"{'case':58s} {'seconds':>9s} {'target':>8s}")
    for name, fn, target in cases:
        sec = best_of(fn, 3 if "materialise" in name else 5)
        verdict = "" if target is None else ("OK" if sec < target else "SLOW")
        print(f"{name:58s} {sec:9.4f} {('<' + str(target)) if target else '-':>8s} {verdict}")


if __name__ == "__main__":
    main()
