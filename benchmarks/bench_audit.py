"""Speed of the adversary lab (issue 26): 2,000 trials of n = 1,000 in under 10 s on one core.

    python benchmarks/bench_audit.py                  # HUE, percentile:20, ε = 1, range 0–25 kWh, 2,000 trials
    python benchmarks/bench_audit.py --trials 5000 --schemes skip

For each scheme, one ``lmdk.audit.audit`` of the first 1,000 HUE hours: the empirical loss of the three neighbouring
pairs (a pilot of 64 releases, then 4 × 2,000 releases with the exact discrete Laplace), the position attack
(200 releases without dummies and with heuristic, partitioned and random dummies; optimal does not apply to 800
regular events), the value attack (from the loss releases), and — in the second column — the correlated attack
(2,000 chains, moderate correlation s = 0.1). The process is pinned to one core (sched_setaffinity, BLAS threads 1);
CPU seconds (time.process_time) are reported beside wall seconds, which other processes on the machine inflate.
"""
from __future__ import annotations

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import lmdk
from lmdk import relation
from lmdk.audit import audit

LIMIT_S = 10.0


def measure(series, L, scheme: str, trials: int, s: float | None) -> tuple[float, float, dict]:
    """(CPU seconds, wall seconds, the audit's JSON) of one audit."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = audit(series, L, scheme, 1.0, protects=relation.public_range(0, 25, "kWh"), trials=trials, seed=0, s=s,
                   w=10, dummy_methods=("heuristic", "partitioned", "random"))
    return time.process_time() - cpu, time.perf_counter() - wall, result.to_dict()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--schemes", nargs="+", default=["uniform", "skip", "adaptive"])
    parser.add_argument("--json", help="also write the measurements as JSON")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    series = lmdk.sample("hue", n=args.n)
    L = lmdk.landmarks.parse_rule("percentile:20").indices(series)
    audit(series, L, "uniform", 1.0, protects=relation.public_range(0, 25), trials=100, dummy_methods=())  # warm-up
    print(f"HUE n = {len(series):,}, |L| = {len(L)}, ε = 1, range 0–25 kWh, {args.trials:,} trials, one core")
    print(f"{'scheme':<10}{'CPU s':>8}{'wall s':>8}{'+corr CPU s':>13}{'wall s':>8}   ε̂ lower–upper   AUC   verdict")
    rows, worst = [], 0.0
    for scheme in args.schemes:
        cpu, wall, out = measure(series, L, scheme, args.trials, None)
        cpu_c, wall_c, _ = measure(series, L, scheme, args.trials, 0.1)
        worst = max(worst, cpu_c)
        upper = out["epsilon_upper"] if out["epsilon_upper"] is not None else float("inf")
        print(f"{scheme:<10}{cpu:>8.2f}{wall:>8.2f}{cpu_c:>13.2f}{wall_c:>8.2f}   "
              f"{out['epsilon_lower']:.2f}–{upper:.2f}"
              f"   {out['landmark_inference']['auc']:.2f}   {'leaks' if out['exceeds_claim'] else 'within ε'}")
        rows.append({"scheme": scheme, "cpu_s": cpu, "wall_s": wall, "cpu_with_correlation_s": cpu_c,
                     "wall_with_correlation_s": wall_c, "epsilon_lower": out["epsilon_lower"],
                     "epsilon_upper": out["epsilon_upper"], "auc": out["landmark_inference"]["auc"]})
    verdict = "under" if worst < LIMIT_S else "OVER"
    print(f"slowest full audit (with correlation): {worst:.2f} CPU s — {verdict} the {LIMIT_S:g} s goal")
    if args.json:
        Path(args.json).write_text(json.dumps({"trials": args.trials, "n": len(series), "rows": rows}, indent=2))
    return 0 if worst < LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
