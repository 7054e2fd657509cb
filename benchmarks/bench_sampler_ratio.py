"""The exact discrete Laplace against numpy's textbook Laplace, in one process (issue 34's target: within 3×).

    python benchmarks/bench_sampler_ratio.py             # n = 1,000 × 100 (a page's release), 21 rounds
    python benchmarks/bench_sampler_ratio.py --rounds 51

Both samplers draw the same count with the scale of a default page (Δ = 10 on 0–10 kWh, ε = 1); the rounds
alternate so that other load on the machine hits both alike. Prints µs per value (median) and the ratio of
medians, with the machine's load average (the ratio is what to compare across machines).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmdk import discrete_laplace as dl


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    count = args.n * args.reps
    rng = np.random.default_rng(0)
    cal = dl.calibrate(np.ones((args.reps, args.n)), 10.0, (0.0, 10.0))
    scale = 10.0
    dl.discrete_laplace(cal.scale, 1, rng)  # compile / load the kernel
    textbook, exact = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        rng.laplace(0.0, scale, size=(args.reps, args.n))
        t1 = time.perf_counter()
        dl.discrete_laplace(cal.scale, 1, rng)
        t2 = time.perf_counter()
        textbook.append((t1 - t0) / count * 1e6)
        exact.append((t2 - t1) / count * 1e6)
    a, b = statistics.median(textbook), statistics.median(exact)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; n = {args.n} × {args.reps}, "
          f"{args.rounds} rounds")
    print("| sampler | µs per value (median) |")
    print("|---|---|")
    print(f"| numpy textbook Laplace | {a:.4f} |")
    print(f"| lmdk exact discrete Laplace (t = {int(cal.scale.flat[0])}) | {b:.4f} |")
    print(f"| ratio | {b / a:.2f}× |")


if __name__ == "__main__":
    main()
