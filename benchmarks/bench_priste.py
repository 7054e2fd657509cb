"""PriSTE speed (issues 7, 8): full release on 20×20 / T=50, exact vs fixed-prior check, worst case per timestamp.

Run: ``python benchmarks/bench_priste.py [--quick]``. Targets: one release < 10 s; worst-case
leakage < 100 ms per timestamp; runtime linear in the event length (Figure 15, printed as a table).
On a shared machine prefix ``OPENBLAS_NUM_THREADS=1``: with other jobs competing for the cores,
OpenBLAS's threads oversubscribe them and the m×m products get several times slower and noisier.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmdk.experiments.priste_drivers import runtime_vs_event_size, synthetic_setup
from lmdk.priste import (
    EventTracker,
    make_event,
    planar_laplace_emission,
    release,
    worst_case_from_vectors,
    worst_case_leakage,
)


def bench_release(setup, event, epsilon: float, runs: int) -> None:
    times, cpu, halv = [], [], []
    for r in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        res = release(setup.trajectory, [event], epsilon, 1.0, setup.M, setup.grid, rng=r)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        halv.append(int(res.halvings.sum()))
    print(f"release 20×20, T=50, PRESENCE 10 cells × 5 t, α=1, ε={epsilon}: "
          f"median {np.median(times):.2f} s wall / {np.median(cpu):.2f} s CPU, max {max(times):.2f} s over {runs} "
          f"runs (target < 10 s; halvings per run {halv})")


def bench_checks(setup, event, runs: int) -> None:
    """Per release: the default exact check ('screen'), the previous hull+certification search, and a fixed prior.

    Before this speed-up (commit 6c24742, vertex-only rejection then hull + certification for every
    surviving candidate) one release took 0.80–0.85 s on a quiet machine (0.62–0.64 s CPU under load,
    1.13 s CPU with two events); the same load gave 0.33–0.35 s / 0.57 s CPU with 'screen'.
    """
    variants = {"any prior, method='screen' (default)": {}, "any prior, method='hull'": {"method": "hull"},
                "fixed uniform prior (check='fixed_prior')": {"check": "fixed_prior"}}
    for label, kw in variants.items():
        cpu, alpha = [], []
        for r in range(runs):
            c0 = time.process_time()
            res = release(setup.trajectory, [event], 1.0, 1.0, setup.M, setup.grid, rng=r, **kw)
            cpu.append(time.process_time() - c0)
            alpha.append(res.alpha.mean())
        print(f"  {label}: median {np.median(cpu):.3f} s CPU per release, mean α {np.mean(alpha):.4f} per km")


def bench_maximiser(setup, event) -> None:
    """Where the worst-case prior puts its mass, per timestamp of one exact release (ε = 1, α₀ = 1)."""
    res = release(setup.trajectory, [event], 1.0, 1.0, setup.M, setup.grid, rng=0, keep_emissions=True)
    tr = EventTracker(event, setup.M)
    region = event.regions[0]
    mass, p_event, support = [], [], []
    for E, o in zip(res.emissions, res.released_cells, strict=True):
        b, d = tr.candidate(E[:, o])
        _, pi, _ = worst_case_from_vectors(tr.a, b, d, a_not=tr.a_not)
        mass.append(pi[region].sum())
        p_event.append(pi @ tr.a)
        support.append(np.count_nonzero(pi))
        tr.commit(E[:, o])
    mass, p_event = np.array(mass), np.array(p_event)
    print(f"worst-case prior π* over {mass.size} timestamps: support {min(support)}–{max(support)} cells; "
          f"π*(region) = 0 at {np.sum(mass == 0)} timestamps, max {mass.max():.1e}; "
          f"Pr_π*(EVENT) median {np.median(p_event):.1e}, min {p_event.min():.1e}, max {p_event.max():.1e} "
          f"(uniform prior: Pr(EVENT) = {np.full(event.m, 1 / event.m) @ tr.a:.1e})")


def bench_per_timestamp(setup, event) -> None:
    """Incremental cost per timestamp (candidate vectors + exact optimum + Φ update) and the optimum alone."""
    E = planar_laplace_emission(setup.grid, 1.0)
    tr = EventTracker(event, setup.M, grid_shape=(setup.grid.rows, setup.grid.cols))  # as release() builds it
    step, opt = [], []
    g = np.random.default_rng(0)
    for true in setup.trajectory:
        o = int(g.choice(setup.grid.m, p=E[true]))
        t0 = time.perf_counter()
        b, d = tr.candidate(E[:, o])
        t1 = time.perf_counter()
        worst_case_from_vectors(tr.a, b, d, a_not=tr.a_not)
        t2 = time.perf_counter()
        tr.commit(E[:, o])
        step.append(time.perf_counter() - t0)
        opt.append(t2 - t1)
    print(f"worst-case leakage per timestamp (incremental, m=400): mean {1e3 * np.mean(step):.1f} ms, "
          f"max {1e3 * np.max(step):.1f} ms; exact optimum alone mean {1e3 * np.mean(opt):.1f} ms, "
          f"max {1e3 * np.max(opt):.1f} ms (target < 100 ms)")
    obs = g.integers(0, setup.grid.m, 50)
    t0 = time.perf_counter()
    worst_case_leakage(event, setup.M, E, obs)
    dt = time.perf_counter() - t0
    t0 = time.perf_counter()
    worst_case_leakage(event, setup.M, E, obs, method="pairs")
    dp = time.perf_counter() - t0
    print(f"worst_case_leakage from scratch at t=49: {dt:.2f} s ({1e3 * dt / 50:.1f} ms per timestamp); "
          f"all-pairs search instead of the default screen: {dp:.2f} s")


def bench_event_size(setup, quick: bool) -> None:
    sizes = range(5, 16, 5 if quick else 2)
    for vary in ("length", "width"):
        df = runtime_vs_event_size(setup, vary=vary, sizes=sizes, n_events=2 if quick else 5,
                                   baseline_budget_s=1.0, rng=1)
        tab = df.pivot_table(index="size", columns="method", values="seconds", aggfunc="median")
        tab["worst_case_ms_per_t"] = 1e3 * tab["priste_worst_case"] / df.groupby("size")["length"].first()
        print(f"\nruntime (s, median over events) vs event {vary} ({'width' if vary == 'length' else 'length'} "
              f"fixed at 5; PATTERN on 20×20; brute force extrapolated from timed cylinders):")
        print(tab.to_string(float_format=lambda v: f"{v:.3g}"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer runs and sizes")
    args = ap.parse_args()
    setup = synthetic_setup(20, 20, sigma=1.0, length=50, rng=0)
    event = make_event("presence", range(10), range(3, 8), setup.grid.m)
    bench_release(setup, event, 1.0, 1 if args.quick else 3)
    bench_release(setup, event, 0.1, 1 if args.quick else 3)
    print("checks (ε = 1, α₀ = 1):")
    bench_checks(setup, event, 1 if args.quick else 3)
    bench_maximiser(setup, event)
    bench_per_timestamp(setup, event)
    bench_event_size(setup, args.quick)


if __name__ == "__main__":
    main()
