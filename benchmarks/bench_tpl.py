"""Speed of lmdk.tpl.temporal against the issue-3 targets, with exactness checks against the definition.

Run: python benchmarks/bench_tpl.py
Targets: landmark_temporal_privacy_loss for every t, Uniform budgets, 2-state matrix, 10 % landmarks
per distribution: n = 10,000 < 0.5 s and n = 1,000 < 20 ms, exact to 1e-9 against the from-scratch
definition; loss_increment for 200 states < 10 ms per α.
"""
from __future__ import annotations

import math
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmdk import relation, schemes, synthetic, tpl
from tests.tpl.test_tpl import reference_landmark_loss


def best_time(fn, repeat: int = 5) -> float:
    """Best wall time of ``repeat`` calls, in seconds."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def scalar_loss(P: np.ndarray):
    """A fast scalar L(α) for a single-vertex matrix (for the from-scratch reference only)."""
    fn = tpl.loss_function(P)
    q, d = float(fn.q[0]), float(fn.d[0])
    return lambda a: math.log1p(math.expm1(a) * q) - math.log1p(math.expm1(a) * d)


def max_error(budgets, marks, P, got, timestamps) -> float:
    """Largest |overall − definition| and |own − definition| over the given timestamps."""
    overall, own = reference_landmark_loss(budgets, marks, scalar_loss(P), timestamps=timestamps)
    ts = np.asarray(timestamps)
    return float(max(np.abs(got.overall[ts] - overall[ts]).max(), np.abs(got.own[ts] - own[ts]).max()))


def bench_landmark_loss() -> None:
    """Uniform and Adaptive budgets, 2-state moderate/strong matrices, 10 % landmarks."""
    rng = np.random.default_rng(2022)
    print("landmark_temporal_privacy_loss, every t, 10 % landmarks, 2-state matrix")
    print(f"{'n':>6} {'distribution':<10} {'corr':<9} {'uniform ms':>10} {'adaptive ms':>11} {'max err':>9} target")
    for n, target_ms in ((1_000, 20.0), (10_000, 500.0)):
        for dist in synthetic.DISTRIBUTIONS:
            marks = synthetic.landmarks(n, 0.10, dist, rng)
            uniform = schemes.allocate("uniform", n, marks, 1.0)
            series = synthetic.values(n, 0.9, rng)
            adaptive = schemes.release(series, marks, "adaptive", 1.0, protects=relation.PAPERS_UNIT_CHANGE,
                                       rng=rng).budgets[0]
            for corr in ("moderate", "strong"):
                P = tpl.transition_matrix(tpl.CORRELATION[corr])
                t_uni = best_time(partial(tpl.landmark_temporal_privacy_loss, uniform, marks, P))
                t_ada = best_time(partial(tpl.landmark_temporal_privacy_loss, adaptive, marks, P))
                check = np.arange(n) if n <= 1_000 else np.sort(rng.choice(n, 60, replace=False))
                err = max(
                    max_error(uniform, marks, P, tpl.landmark_temporal_privacy_loss(uniform, marks, P), check),
                    max_error(adaptive, marks, P, tpl.landmark_temporal_privacy_loss(adaptive, marks, P), check),
                )
                ok = "OK" if max(t_uni, t_ada) * 1e3 < target_ms and err < 1e-9 else "MISSED"
                print(f"{n:>6} {dist:<10} {corr:<9} {t_uni * 1e3:>10.2f} {t_ada * 1e3:>11.2f} {err:>9.1e} "
                      f"< {target_ms:g} ms, < 1e-9: {ok}")
    n, reps = 1_000, 100
    marks = synthetic.landmarks(n, 0.10, "skewed", rng)
    rel = schemes.release(synthetic.values(n, 0.9, rng), marks, "adaptive", 1.0, protects=relation.PAPERS_UNIT_CHANGE,
                          repetitions=reps, rng=rng)
    P = tpl.transition_matrix(tpl.CORRELATION["strong"])
    t = best_time(lambda: tpl.landmark_temporal_privacy_loss(rel.budgets, rel.landmarks, P), repeat=3)
    print(f"Adaptive, {reps} repetitions × n = {n} (skewed, strong): {t * 1e3:.1f} ms")
    P3 = np.array([[0.22, 0.66, 0.12], [0.39, 0.19, 0.42], [0.58, 0.24, 0.18]])
    print(f"(multi-vertex 3-state matrix, {tpl.loss_function(P3).n_vertices} vertices → direct recursion)")
    for n in (1_000, 10_000):
        marks = synthetic.landmarks(n, 0.10, "skewed", rng)
        budgets = schemes.allocate("uniform", n, marks, 1.0)
        t = best_time(partial(tpl.landmark_temporal_privacy_loss, budgets, marks, P3), repeat=1)
        print(f"  n = {n}, skewed: {t * 1e3:.0f} ms (no target)")


def bench_loss_increment() -> None:
    """Precomputation per matrix and evaluation per α for 200 states."""
    rng = np.random.default_rng(7)
    print("\nloss_increment, 200 states (target < 10 ms per α)")
    cases = {
        "Laplacian s=0.1": tpl.transition_matrix(0.1, 200),
        "random Dirichlet(1)": rng.dirichlet(np.ones(200), size=200),
        "random Dirichlet(0.3) with zeros": np.where(rng.random((200, 200)) < 0.3, 0.0,
                                                     rng.dirichlet(np.full(200, 0.3), size=200)),
    }
    for name, P in cases.items():
        P = P / P.sum(axis=1, keepdims=True)
        start = time.perf_counter()
        fn = tpl.loss_function(P)
        pre = time.perf_counter() - start
        one = best_time(partial(tpl.loss_increment, P, 1.3), repeat=20)
        alphas = np.linspace(0, 10, 10_000)
        many = best_time(partial(tpl.loss_increment, P, alphas), repeat=3) / alphas.size
        print(f"  {name:<34} vertices {fn.n_vertices:>3}  precompute once {pre * 1e3:7.1f} ms  "
              f"one α (cached matrix) {one * 1e3:6.3f} ms  per α in an array {many * 1e6:6.2f} µs")


if __name__ == "__main__":
    bench_landmark_loss()
    bench_loss_increment()
