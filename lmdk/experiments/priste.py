"""PriSTE figures (papers/001 §5: Figures 8–15, Table 2) as runner specs; the maths is in lmdk.priste*.

Scale: the paper's 20×20 map (§5.1) has no stated cell size and α no stated unit. Every figure takes the cell
side ``cell_km`` (a figure-wide parameter, ``--cell-km`` on the command line, a CSV column and a JSON field);
α is per km. The PLM (§4.3, Pr(o | l) ∝ exp(−α·d(l, o))) and the §5.1 Gaussian transitions are in cells, so
the calibration depends only on α·cell: the cell size decides how hard a given α₀ is calibrated.
``DEFAULT_CELL_KM`` is the scale inferred from Table 2 (docs/REPRODUCTION.md); 1 km is the second, labelled one.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from lmdk.experiments.assumptions import DEFAULT_CELL_KM, TABLE2_EPSILON, UNITS
from lmdk.experiments.spec import FigureSpec, by_measures

EPSILONS = (0.1, 0.5, 1.0)
ALPHAS = (0.2, 1.0)  # α₀ per km; the paper names 0.2-PLM for Fig. 8a; Fig. 8b's PLM is not stated
DELTA = 0.1  # δ of the location-set variant (Fig. 11); the paper does not state it
PANELS = {  # panel → (event windows in the paper's 1-based [first:last] timestamps, δ)
    "fig8 T=[4:8]": (((4, 8),), None),
    "fig9 T=[16:20]": (((16, 20),), None),
    "fig10 both events": (((4, 8), (16, 20)), None),
    "fig11 δ-location set, T=[4:8]": (((4, 8),), DELTA),
}


@lru_cache(maxsize=4)
def setup(cell_km: float = DEFAULT_CELL_KM):
    """§5.1: 20×20 grid of ``cell_km`` cells, Gaussian transitions (σ = 1 cell), one 50-step trajectory from seed 0."""
    return setup_sigma(1.0, cell_km)


def _cell(cfg: dict) -> float:
    """The configuration's cell side in km (the default scale if it has none)."""
    return float(cfg.get("cell_km", DEFAULT_CELL_KM))


def budget_configs() -> list[dict]:
    """Panels (Figs. 8–11) × ε × initial α of the PLM (per km)."""
    return [{"panel": p, "epsilon": e, "alpha0": a} for p in PANELS for e in EPSILONS for a in ALPHAS]


def budget_run(cfg: dict, reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """α used per timestamp by PriSTE (Algorithms 2/3) for PRESENCE(S = [1:10], T) events."""
    from lmdk.experiments.priste_drivers import alpha_per_timestamp, paper_event

    s = setup(_cell(cfg))
    windows, delta = PANELS[cfg["panel"]]
    events = [paper_event("presence", 1, 10, a, b, s.grid.m) for a, b in windows]
    out = alpha_per_timestamp(s, events, [cfg["epsilon"]], [cfg["alpha0"]], reps, delta=delta, rng=rng)
    return out.rename(columns={"rep": "repetition"})[["repetition", "t", "alpha", "distance_m", "leakage"]]


PRISTE_BUDGET = FigureSpec(
    name="priste-budget", paper="priste", title="PriSTE: α per timestamp (Figs. 8–11)",
    claim="A strict PLM (small α) meets ε-spatiotemporal event privacy with little calibration, a loose one "
          "must cut α a lot; α drops during the event window; two events cost more; δ-location sets need smaller α.",
    configs=budget_configs, run=budget_run, summarise=by_measures("alpha", "distance_m", "leakage", extra_keys=["t"]),
    block=10, page_repetitions=3, parameters={"cell_km": DEFAULT_CELL_KM}, extra={"units": UNITS},
)


# --------------------------------------------------------------------------- Figs. 12–14: utility vs ε

UTILITY_EPSILONS = (0.1, 0.5, 1.0, 2.0)
UTILITY_PANELS = {  # panel → list of (α₀, δ, σ); δ NaN = Geo-Indistinguishability (papers/001 §5.3)
    "fig12 α-PLM": [(a, np.nan, 1.0) for a in (0.5, 1.0, 3.0, 5.0)],  # the α named in §5.3
    "fig13 δ-location set (0.5-PLM)": [(0.5, d, 1.0) for d in (0.01, 0.1, 0.3)],  # δ values not stated
    "fig14 σ of transitions (1-PLM)": [(1.0, np.nan, s) for s in (0.5, 1.0, 2.0)],  # σ values not stated
}


@lru_cache(maxsize=8)
def setup_sigma(sigma: float, cell_km: float = DEFAULT_CELL_KM):
    """§5.1 synthetic setting with transition scale σ (cells) on ``cell_km`` cells; trajectory from seed 0."""
    from lmdk.experiments.priste_drivers import synthetic_setup

    return synthetic_setup(cell_size_m=float(cell_km) * 1000.0, sigma=sigma, rng=0)


def utility_configs() -> list[dict]:
    """Panels (Figs. 12–14) × their series (α₀, δ, σ) × ε."""
    return [{"panel": p, "alpha0": a, "delta": d, "sigma": s, "epsilon": e}
            for p, series in UTILITY_PANELS.items() for a, d, s in series for e in UTILITY_EPSILONS]


def utility_setting(cfg: dict) -> tuple:
    """What a utility configuration runs, whatever panel shows it (Fig. 14's 1-PLM at σ = 1 is Fig. 12's 1-PLM)."""
    return (repr(_cell(cfg)),) + tuple(repr(float(cfg[k])) for k in ("alpha0", "delta", "sigma", "epsilon"))


def utility_run(cfg: dict, reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """α and Euclidean distance averaged over timestamps (§5.3) for PRESENCE(S = [1:10], T = [4:8])."""
    from lmdk.experiments.priste_drivers import paper_event, utility_vs_epsilon

    s = setup_sigma(float(cfg["sigma"]), _cell(cfg))
    delta = None if np.isnan(cfg["delta"]) else float(cfg["delta"])
    events = [paper_event("presence", 1, 10, 4, 8, s.grid.m)]
    out = utility_vs_epsilon(s, events, [cfg["epsilon"]], [cfg["alpha0"]], reps, deltas=(delta,), rng=rng)
    return out.rename(columns={"rep": "repetition"})[["repetition", "mean_alpha", "mean_distance_m", "halvings"]]


PRISTE_UTILITY = FigureSpec(
    name="priste-utility", paper="priste", title="PriSTE: average α and distance vs ε (Figs. 12–14)",
    claim="Utility grows with ε; a larger α-PLM is calibrated more heavily at small ε and a larger average α "
          "need not mean a smaller distance; larger δ gives smaller α but smaller distance; a strong mobility "
          "pattern (small σ) forces a smaller α.",
    configs=utility_configs, run=utility_run,
    summarise=by_measures("mean_alpha", "mean_distance_m", "halvings"),
    default_repetitions=100, block=10, page_repetitions=3, run_key=utility_setting,
    parameters={"cell_km": DEFAULT_CELL_KM}, extra={"units": UNITS},
    notes="Synthetic 20×20 data for all panels (the paper uses Geolife for Figs. 12–13); δ and σ values are ours. "
          "Fig. 14's σ = 1 series is the same setting as Fig. 12's 1-PLM: it is run once and shown in both.",
)


# --------------------------------------------------------------------------- Fig. 15: runtime vs event size

RUNTIME_SIZES = (5, 7, 9, 11, 13, 15)  # §5.4: length (width 5) and width (length 5) from 5 to 15
# brute force timed on at most this many cell sequences per event (≤ ~0.1 s), extrapolated beyond
BASELINE_CYLINDERS = 128


def runtime_configs() -> list[dict]:
    """Event length, then event width, × size."""
    return [{"vary": v, "size": n} for v in ("length", "width") for n in RUNTIME_SIZES]


def runtime_run(cfg: dict, reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """Seconds per random PATTERN event (one per repetition) for PriSTE and the brute-force baseline (§5.4)."""
    from lmdk.experiments.priste_drivers import runtime_vs_event_size

    out = runtime_vs_event_size(setup(_cell(cfg)), vary=cfg["vary"], sizes=[cfg["size"]], fixed=5, n_events=reps,
                                baseline_cylinders=BASELINE_CYLINDERS, rng=rng)
    out["repetition"] = np.arange(len(out)) // out["method"].nunique()
    out["extrapolated"] = out["extrapolated"].astype(float)
    return out[["repetition", "width", "length", "method", "seconds", "extrapolated"]]


PRISTE_RUNTIME = FigureSpec(
    name="priste-runtime", paper="priste", title="PriSTE: runtime vs event length and width (Fig. 15)",
    claim="The brute-force baseline is exponential in event length and width; PriSTE is linear in the length "
          "and polynomial in the width.",
    configs=runtime_configs, run=runtime_run,
    summarise=by_measures("seconds", "extrapolated", extra_keys=["width", "length", "method"]),
    default_repetitions=100, page_repetitions=3, parameters={"cell_km": DEFAULT_CELL_KM}, extra={"units": UNITS},
    notes=f"Baseline seconds are extrapolated (column 'extrapolated' = share of events) from at most "
          f"{BASELINE_CYLINDERS} enumerated cell sequences per event (the time per sequence is stable); "
          "100 random events per size as in §5.4.",
)


# --------------------------------------------------------------------------- Table 2: exact vs fixed-prior check

TABLE2_ALPHAS = (0.2, 1.0)  # α₀ per km: the 0.2-PLM of Fig. 8a and the 1-PLM of Fig. 14
PAPER_TABLE2 = {  # threshold (s) → (ave. total runtime s, # conservative releases, ave. α, ave. distance km)
    "0.01": (1.1, 33, 0.16, 2.22), "0.1": (2.6, 30, 0.23, 1.51), "1": (5.9, 21, 0.22, 1.52),
    "2": (10.4, 12, 0.29, 0.93), "5": (19.5, 8, 0.27, 1.41), "none": (52.5, 0, 0.31, 0.97),
}


def table2_configs() -> list[dict]:
    """The PLM's initial α (per km); both checks run inside each configuration on shared random streams."""
    return [{"alpha0": a} for a in TABLE2_ALPHAS]


def table2_run(cfg: dict, reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """Per run and check: runtime of the whole release, uniform-fallback timestamps, mean α, mean distance (km)."""
    from lmdk.experiments.priste_drivers import check_comparison, paper_event

    s = setup(_cell(cfg))
    events = [paper_event("presence", 1, 10, 4, 8, s.grid.m)]
    out = check_comparison(s, events, TABLE2_EPSILON, cfg["alpha0"], reps, rng=rng)
    return out.rename(columns={"rep": "repetition"})


PRISTE_TABLE2 = FigureSpec(
    name="priste-table2", paper="priste",
    title="PriSTE Table 2 counterpart: exact any-prior check vs a fixed (uniform) prior check",
    claim="Table 2: a longer solver time limit means fewer conservative releases, a longer runtime and better "
          "utility; without a limit (exact) 52.5 s per run, α 0.31, 0.97 km.",
    configs=table2_configs, run=table2_run,
    summarise=by_measures("runtime_s", "cpu_s", "uniform_releases", "halvings", "mean_alpha", "mean_distance_km",
                          "max_checked_leakage", "max_worst_leakage", "violations", extra_keys=["check"]),
    default_repetitions=100, block=10, page_repetitions=3, parameters={"cell_km": DEFAULT_CELL_KM},
    extra={"units": UNITS},
    notes="Our exact check has no time limit and so no conservative release; its counterpart is the uniform "
          "fallback after 30 halvings (column uniform_releases). check=fixed_prior tests ε only at the uniform "
          "prior (§3); max_worst_leakage/violations audit every run with the exact any-prior leakage. "
          "Assumed (the paper does not say): ε = 1, α₀ ∈ {0.2, 1} per km, the cell side of column cell_km, σ = 1 cell, "
          "PRESENCE(S = [1:10], T = [4:8]). Paper's rows (threshold s: runtime s, # conservative, α, km): "
          + "; ".join(f"{k}: {v[0]}, {v[1]}, {v[2]}, {v[3]}" for k, v in PAPER_TABLE2.items()) + ".",
)
