"""Quickstart: the lmdk core from Python — run it with ``python docs/quickstart.py`` (CI runs it too).

Loads the bundled HUE smart-meter sample, marks the night hours 01:00–06:00 as landmarks (a declared calendar
rule, the app's default: it does not read the values, so Theorem 2 holds as stated), releases the
series with every budget scheme at ε = 1, checks (ε, L)-landmark privacy (Theorem 2) and prints the
MAE table, then the temporal privacy loss of Uniform under strong correlation.

Your own file: ``lmdk.load_series("my_meter.csv")`` detects its import mapping like the app and the ``lmdk``
command (``series.mapping`` and ``print(series)`` say which; ``series.warnings`` what loading chose or changed);
``strict=True`` keeps the strict reader of a ``timestamp,value`` header.
"""
import numpy as np

import lmdk

series = lmdk.sample("hue")  # or lmdk.load_series("my_meter.csv"): mapping detected as in the app
landmarks = lmdk.landmarks.parse_rule("calendar:daily@01:00-06:00").indices(series)
print(f"{series.name}: {len(series):,} hourly readings ({series.units}), {landmarks.size} landmarks")

protects = lmdk.relation.public_range(0, 25, "kWh")  # what ε protects: any reading in 0–25 kWh (Δ = 25)
rng = np.random.default_rng(0)  # a demonstration seed: exported releases use fresh entropy instead
print(f"\n{'scheme':<10}{'MAE (kWh)':>12}{'95 % CI':>22}   Theorem 2")
for scheme in lmdk.SCHEMES:
    release = lmdk.release(series.values, landmarks, scheme, 1.0, protects=protects, mechanism="laplace",
                           repetitions=100, rng=rng, w=24)
    error = lmdk.mae(series.values, release.values)
    verdict = "holds" if lmdk.satisfies_landmark_privacy(release.budgets, landmarks, 1.0) else "violated"
    print(f"{scheme:<10}{error.mean:>12.3f}{f'[{error.ci[0]:.3f}, {error.ci[1]:.3f}]':>22}   {verdict}")

budgets = lmdk.allocate("uniform", len(series), landmarks, 1.0)
loss = lmdk.landmark_temporal_privacy_loss(budgets, landmarks, lmdk.tpl.transition_matrix("strong"))
print(f"\nUniform, strong correlation: worst landmark temporal privacy loss {loss.bound.max():.3f} "
      f"(ε = 1 without correlation)")
