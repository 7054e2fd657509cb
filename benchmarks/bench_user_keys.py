"""The user key rule at a nation's scale (issue 52): the keys of 1 M and 10 M numeric user ids, vectorised
(:func:`lmdk.data.ids.user_keys` on a column of numbers) against the per-value rule (:func:`lmdk.data.ids.user_key`
per id, what ``user_keys`` did for every column before), for the shapes the callers hand it: a float column (ids
exported as floats), an int column, and the list of distinct ids ``lmdk.population.users.user_ids`` returns; and
:func:`lmdk.data.ids.key_map` (distinct ids and their keys) of a float column with repeats.

    python benchmarks/bench_user_keys.py                  # 1 M and 10 M ids
    python benchmarks/bench_user_keys.py --sizes 100000   # a quick run
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmdk.data.ids import key_map, user_key, user_keys  # noqa: E402


def seconds(fn) -> tuple[float, object]:
    """Wall-clock seconds of one call and its result."""
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def columns(size: int) -> dict[str, object]:
    """The columns measured: ``size`` distinct ids in each shape."""
    ids = np.random.default_rng(0).permutation(size).astype(np.int64) + 1_000_000
    return {"float64 array": ids.astype(np.float64), "int64 array": ids, "list of floats": ids.astype(float).tolist(),
            "list of ints": ids.tolist()}


def main(argv: list[str] | None = None) -> int:
    """Print the seconds of each path per size and shape, and whether their keys agree."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--no-per-value", action="store_true", help="skip the per-value rule (slow at 10 M)")
    args = parser.parse_args(argv)
    print(f"{'ids':>11} {'column':<15} {'vectorised':>11} {'per value':>10} {'speed-up':>9}")
    for size in args.sizes:
        for name, column in columns(size).items():
            fast_s, fast = seconds(lambda column=column: user_keys(column))
            if args.no_per_value:
                print(f"{size:>11,} {name:<15} {fast_s:>10.2f}s {'—':>10} {'—':>9}")
                continue
            slow_s, slow = seconds(lambda column=column: [user_key(v) for v in column])
            assert fast == slow, "the vectorised keys differ from the per-value rule"
            print(f"{size:>11,} {name:<15} {fast_s:>10.2f}s {slow_s:>9.2f}s {slow_s / fast_s:>8.1f}×")
        repeated = np.tile(columns(size // 4)["float64 array"], 4)  # every id four times (four days)
        map_s, found = seconds(lambda repeated=repeated: key_map(repeated))
        print(f"{size:>11,} key_map of {size:,} floats ({len(found):,} distinct ids): {map_s:.2f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
