"""Speed of the baselines (issue 29): BD, BA, FAST and PeGaSus beside the uniform scheme (and Adaptive, the other
step-by-step scheme) on one year of hourly readings, n = 8,760, 100 repetitions.

    python benchmarks/bench_baselines.py               # n = 8,760 and the app's default view (n = 1,000)
    python benchmarks/bench_baselines.py --runs 5      # best of 5 instead of 3

The series is HUE residence 1 (the bundled 1,000 hours) repeated to 8,760 hours; ε = 1, w = 24, no landmarks
(the baselines ignore them). Two samplers: "textbook" (the papers' figures, Δ = 1) and "discrete" (the app's views
and every export of values: the exact discrete Laplace on the public range 0–25 kWh, Δ = 25). Each time is the
best of ``--runs`` runs (the machine is shared: the minimum is the least disturbed), with its ratio to uniform's.
"""
from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lmdk
from lmdk import relation, schemes

SCHEMES = ("uniform", "adaptive", "bd", "ba", "fast", "pegasus")
SAMPLERS = {"textbook": {"protects": relation.PAPERS_UNIT_CHANGE},  # the papers' Δ = 1, textbook sampler
            "discrete": {"protects": relation.public_range(0, 25)}}  # the exports' exact discrete Laplace, Δ = 25


def best(fn, runs: int) -> float:
    """The smallest wall time of ``fn()`` over ``runs`` runs (seconds)."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def table(x: np.ndarray, reps: int, runs: int) -> list[tuple[str, str, float, float]]:
    """(scheme, sampler, seconds, × uniform) for every scheme and sampler."""
    rows = []
    for sampler, options in SAMPLERS.items():
        times = {s: best(partial(schemes.release, x, [], s, 1.0, repetitions=reps, rng=0, w=24, **options), runs)
                 for s in SCHEMES}
        rows += [(s, sampler, t, t / times["uniform"]) for s, t in times.items()]
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    hue = lmdk.sample("hue").values
    for n, label in ((8_760, "one year hourly (n = 8,760), 100 repetitions"),
                     (1_000, "the app's default view (n = 1,000), 100 repetitions")):
        x = np.resize(hue, n)
        print(f"\n{label}\n| scheme | sampler | seconds | × uniform |\n|---|---|---|---|")
        for scheme, sampler, t, ratio in table(x, 100, args.runs):
            print(f"| {scheme} | {sampler} | {t:.3f} | {ratio:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
