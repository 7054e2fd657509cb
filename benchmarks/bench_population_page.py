"""The Population page's first load with its defaults: python benchmarks/bench_population_page.py [--users 200]
[--hours 1000] [--repeat 3] [--check FILE]

Draws the page's synthetic fleet (lmdk.population.fleet, seed 1, shares 0.05–0.6) and times what
``ui.population.summaries`` asks of the core: ``lmdk.present.population.compare_schemes`` over the six schemes at
ε = 1, w = 10, seed 0, public range 0–25 kWh, once with each user's own declared rule (the page's default,
``declared``) and once with one rule shared by every user (the night hours), best of ``--repeat``, after a tiny
fleet has run both (imports, compiled kernels). ``--check FILE``: write the declared run's summaries to FILE
(Parquet) the first time and compare with it afterwards (the outputs of a faster path must not change). No
timed tests: the numbers go in the closing note."""
from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

SCHEMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")  # ui.session.state.SCHEME_NAMES
SHARED = "calendar:daily@01:00-06:00"  # ui.population.DEFAULT_RULES: one rule for every user


def timed(run, repeat: int):
    """((best wall-clock seconds, best CPU seconds of this process) of ``repeat`` runs, the last result); the CPU
    time is the steadier number on a shared machine."""
    wall, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = run()
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return (wall, cpu), out


def main() -> None:
    """Time the declared and the shared-rule summaries; optionally check the declared ones against a stored run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--hours", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", default=None, help="Parquet file of the declared summaries to write or compare")
    args = parser.parse_args()
    import pandas as pd

    from lmdk import relation
    from lmdk.population import Policy
    from lmdk.population.fleet import synthetic_fleet
    from lmdk.population.input import frame_source
    from lmdk.present.population import compare_schemes

    protected = relation.public_range(0.0, 25.0, "kWh")
    base = Policy(landmarks="none", scheme=SCHEMES[0], epsilon=1.0, w=10, seed=0, relation=protected.to_dict())
    warm = synthetic_fleet(4, 48, (0.05, 0.6), rng=1)  # imports and compiled kernels, before any timing
    compare_schemes(frame_source(warm.table), base, SCHEMES, rules=warm.declared())
    compare_schemes(frame_source(warm.table), replace(base, landmarks=SHARED), SCHEMES)
    fleet = synthetic_fleet(args.users, args.hours, (0.05, 0.6), rng=1)
    source = frame_source(fleet.table)
    rules = fleet.declared()
    print(f"{args.users} users × {args.hours} hours, {len(set(rules.values()))} distinct declared rules")
    declared, table = timed(lambda: compare_schemes(source, base, SCHEMES, rules=rules), args.repeat)
    shared, _ = timed(lambda: compare_schemes(source, replace(base, landmarks=SHARED), SCHEMES), args.repeat)
    print(f"declared rules (one per user): {declared[0]:.2f} s wall, {declared[1]:.2f} s CPU")
    print(f"one shared rule:               {shared[0]:.2f} s wall, {shared[1]:.2f} s CPU")
    print(f"ratio:                         {declared[0] / shared[0]:.2f}× wall, {declared[1] / shared[1]:.2f}× CPU")
    if args.check:
        path = Path(args.check)
        if not path.exists():
            table.to_parquet(path)
            print(f"wrote {path}")
        else:
            pd.testing.assert_frame_equal(table, pd.read_parquet(path))
            print(f"same summaries as {path}")


if __name__ == "__main__":
    main()
