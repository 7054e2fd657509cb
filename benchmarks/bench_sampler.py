"""Speed of the export sampler (issue 15 §2): 10⁵ Laplace draws — numpy textbook, lmdk's snapping, OpenDP.

    python benchmarks/bench_sampler.py

OpenDP is measured only where it is installed (it is not a dependency of lmdk): its vectorised Laplace
measurement with floating-point protection. Prints the median of 7 runs per sampler.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmdk import mechanisms, snapping  # noqa: E402

N = 100_000


def timed(fn, runs: int = 7) -> float:
    """Median seconds of ``fn()`` over ``runs``."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, 0.4, N)
    rows = {
        "numpy textbook (x + λ·Laplace)": lambda: mechanisms.laplace(x, 1.0, rng=rng),
        "lmdk snapping (U*, S·ln U*, snap, clamp)": lambda: snapping.snap(
            np.clip(x, -10, 10) + snapping.unit_noise("laplace", N, rng), 1.0, 10.0),
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
    for name, fn in rows.items():
        print(f"{name:<45} {1000 * timed(fn):9.1f} ms per 10^5 draws")


if __name__ == "__main__":
    main()
