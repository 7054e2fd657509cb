"""Per-value cost of exported noise: randomgen's AESCounter (a cryptographically secure bit generator, issue 52)
against the generator exports used before (numpy's PCG64 seeded from a fresh SeedSequence).

    python benchmarks/bench_export_rng.py            # 10⁶ values per sampler, median of 7 runs
    python benchmarks/bench_export_rng.py --n 200000

Rows: the raw 64-bit words (``random_raw``, what the exact sampler reads), the exact discrete Laplace
(``release_values``: clamp, grid, Lap_Z, clamp), the snapping sampler's full-precision noise (``unit_noise``), one
exported series (``lmdk.exports.export.export_scheme_release``, uniform, 17,520 hourly values) and keying one
generator (per export; a population batch keys one for all its users). Target: ≤ 1.5× today's cost per value.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmdk import discrete_laplace, snapping
from lmdk.rng import secure_generator


def today() -> np.random.Generator:
    """The exports' generator before issue 52: PCG64 from fresh OS entropy."""
    return np.random.default_rng(np.random.SeedSequence())


def timed(fn, runs: int = 7) -> float:
    """Median seconds of ``fn()`` over ``runs``."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def rows(n: int) -> list[tuple[str, float, float]]:
    """(what, ns per value today, ns per value with AESCounter)."""
    import lmdk
    from lmdk.data.series import from_values
    from lmdk.exports.export import export_scheme_release

    x = np.random.default_rng(0).uniform(0.0, 10.0, n)
    hourly = from_values(np.random.default_rng(1).uniform(0.0, 10.0, 17_520))
    cases = {
        "random_raw (64-bit words)": (n, lambda g: g.bit_generator.random_raw(n)),
        "exact discrete Laplace (release_values)": (n, lambda g: discrete_laplace.release_values(
            x, 1.0, 10.0, (0.0, 10.0), rng=g)),
        "snapping noise (unit_noise laplace)": (n, lambda g: snapping.unit_noise("laplace", (n,), g)),
    }
    cases["one exported series (uniform, 17,520 h)"] = (17_520, lambda g: export_scheme_release(
        hourly, "none", "uniform", 1.0, protects=lmdk.relation.public_range(0.0, 10.0), rng=g))
    out = []
    for name, (count, work) in cases.items():
        work(today()), work(secure_generator())  # warm up (compiled kernels, caches)
        before = timed(lambda w=work: w(today())) / count * 1e9
        after = timed(lambda w=work: w(secure_generator())) / count * 1e9
        out.append((name, before, after))
    keying = 2_000
    before = timed(lambda: [today() for _ in range(keying)], 3) / keying * 1e9
    after = timed(lambda: [secure_generator() for _ in range(keying)], 3) / keying * 1e9
    out.append(("keying one generator (per export or batch; ns each)", before, after))
    return out


def main(argv=None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1_000_000, help="values per sampler (default 10⁶)")
    args = parser.parse_args(argv)
    print(f"{'what':<55} {'PCG64 ns/value':>15} {'AESCounter':>11} {'ratio':>6}")
    for name, before, after in rows(args.n):
        print(f"{name:<55} {before:>15.1f} {after:>11.1f} {after / before:>5.2f}×")


if __name__ == "__main__":
    main()
