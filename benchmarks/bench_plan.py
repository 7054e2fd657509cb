"""Time lmdk.plan over the six schemes at n = 8,760 (a year of hourly readings). Target: < 2 s.

A plan is: the closed forms (event, user, w-event, uniform), the searches with common random numbers (Skip, Adaptive:
one vectorised release with ε per row) and one validation of every answer with the exports' exact discrete Laplace
(Adaptive's is the largest part: n sequential steps). Series: an hourly AR(1) of HUE's level and spread, clamped at 0;
landmarks: the lowest 20 % of readings; relation: any reading in the public range 0–25 kWh (Δ = 25); target: a MAE
of 0.5 kWh over all hours; w = 24.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmdk import landmarks, plan, relation, synthetic

N, RUNS, TARGET_S = 8_760, 5, 2.0


def main() -> None:
    """Print the median wall and CPU time of RUNS plans and the answers of the last one."""
    x = np.clip(synthetic.values(N, 0.9, rng=0, mean=0.88, std=0.6), 0, None)
    L = landmarks.by_percentile(x, 0.2)
    protected = relation.public_range(0, 25, "kWh")
    target = plan.Target(0.5)
    wall, cpu = [], []
    result = None
    for run in range(RUNS):
        w0, c0 = time.perf_counter(), time.process_time()
        result = plan.plan(x, L, target, protects=protected, w=24, rng=run)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    print(f"plan: six schemes, n = {N:,}, |L| = {len(L):,}, target MAE {target.error:g} kWh, range 0–25 kWh; median "
          f"of {RUNS} runs (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"  wall {np.median(wall):.2f} s, cpu {np.median(cpu):.2f} s (min {min(cpu):.2f} s) — "
          f"target < {TARGET_S:g} s "
          f"of CPU: {'OK' if np.median(cpu) < TARGET_S else 'TOO SLOW'} (wall time is inflated when other processes "
          f"share the cores)")
    print(f"  {'scheme':<9} {'ε':>10} {'achieved MAE ± 95 % CI':>26} {'reps':>5}  {'cpu':>7}  method")
    for name, p in result.schemes.items():
        c0 = time.process_time()
        plan.plan(x, L, target, protects=protected, w=24, rng=0, schemes=[name])
        alone = time.process_time() - c0
        eps = f"{p.epsilon:.4g}" if p.feasible else "infeasible"
        half = (p.ci95[1] - p.ci95[0]) / 2
        print(f"  {name:<9} {eps:>10} {p.achieved_mae:>15.4f} ± {half:.4f} {p.repetitions:>5}  {alone:>5.2f} s  "
              f"{p.method}")
    from lmdk import schemes
    c0 = time.process_time()
    schemes.release(x, L, "adaptive", result.schemes["adaptive"].epsilon, repetitions=result.schemes["adaptive"]
                    .repetitions, rng=0, w=24, protects=protected)
    print(f"  of which Adaptive's validation with the exact discrete Laplace: {time.process_time() - c0:.2f} s")


if __name__ == "__main__":
    main()
