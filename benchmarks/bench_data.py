"""Speed of loading and of stay-point detection against issue #5's targets.

Targets: a 1,000,000-row values CSV loaded and validated in < 3 s; the stay points of a
100,000-point trajectory in < 1 s. Run: ``python benchmarks/bench_data.py``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lmdk.data import load_series, sample
from lmdk.data.samples import synthetic_taxi
from lmdk.landmarks import PAPER_STAY_DURATION_S, stay_points


def best_of(fn, repeats: int = 3) -> float:
    """Fastest wall-clock time of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def values_csv(rows: int) -> bytes:
    """A values CSV with ISO timestamps (hourly) and 3-decimal kWh readings."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "timestamp": pd.date_range("2012-06-01", periods=rows, freq="h").strftime("%Y-%m-%d %H:%M:%S"),
        "energy_kWh": np.round(rng.gamma(2.0, 0.45, rows), 3),
    })
    return frame.to_csv(index=False).encode()


def hue_layout_csv(rows: int) -> bytes:
    """The same size in HUE's date,hour,energy_kWh layout (m/d/Y dates, local time)."""
    times = pd.date_range("2012-06-01", periods=rows, freq="h")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"date": times.strftime("%-m/%-d/%Y"), "hour": times.hour,
                          "energy_kWh": np.round(rng.gamma(2.0, 0.45, rows), 3)})
    return frame.to_csv(index=False).encode()


def main() -> None:
    """Print each measurement next to its target."""
    rows = 1_000_000
    raw = values_csv(rows)
    seconds = best_of(lambda: load_series(raw))
    print(f"load+validate {rows:,}-row values CSV ({len(raw) / 1e6:.1f} MB): {seconds:.2f} s  (target < 3 s)")
    raw = hue_layout_csv(rows)
    seconds = best_of(lambda: load_series(raw))
    print(f"load+validate {rows:,}-row HUE-layout CSV ({len(raw) / 1e6:.1f} MB): {seconds:.2f} s  (target < 3 s)")

    taxi = synthetic_taxi(100_000, seed=1)
    t, latlon = taxi.seconds, taxi.latlon()
    for distance in (50, 500, 2000, 5000):
        found = stay_points(t, latlon[:, 0], latlon[:, 1], distance, PAPER_STAY_DURATION_S)
        seconds = best_of(lambda d=distance: stay_points(t, latlon[:, 0], latlon[:, 1], d, PAPER_STAY_DURATION_S))
        print(f"stay points, 100,000-point taxi trace, Δl={distance} m, Δt=30 min: {seconds:.3f} s "
              f"({found.size / len(taxi):.0%} in stays)  (target < 1 s)")

    from lmdk.landmarks import fit_fraction

    seconds = best_of(lambda: fit_fraction(taxi, 0.4), repeats=1)
    print(f"by_fraction(0.4) on the 100,000-point taxi trace (bisection over Δl): {seconds:.2f} s  (no target)")

    hue = sample("hue")
    seconds = best_of(lambda: sample("hue"))
    print(f"sample('hue') ({len(hue)} rows): {seconds * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
