"""PriSTE figures (papers/001 §5: Figures 8–15, Table 2) as runner specs; the maths is in lmdk.priste*."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from lmdk.experiments import FigureSpec, by_measures, register

EPSILONS = (0.1, 0.5, 1.0)
ALPHAS = (0.2, 1.0)  # the paper names 0.2-PLM for Fig. 8a; the second PLM of Fig. 8b is not stated
DELTA = 0.1  # δ of the location-set variant (Fig. 11); the paper does not state it
PANELS = {  # panel → (event windows in the paper's 1-based [first:last] timestamps, δ)
    "fig8 T=[4:8]": (((4, 8),), None),
    "fig9 T=[16:20]": (((16, 20),), None),
    "fig10 both events": (((4, 8), (16, 20)), None),
    "fig11 δ-location set, T=[4:8]": (((4, 8),), DELTA),
}


@lru_cache(maxsize=2)
def setup():
    """§5.1: 20×20 grid, Gaussian transitions (σ = 1 cell), one 50-step trajectory from seed 0."""
    from lmdk.priste_experiments import synthetic_setup

    return synthetic_setup(rng=0)


def budget_configs() -> list[dict]:
    """Panels (Figs. 8–11) × ε × initial α of the PLM."""
    return [{"panel": p, "epsilon": e, "alpha0": a} for p in PANELS for e in EPSILONS for a in ALPHAS]


def budget_run(cfg: dict, reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """α used per timestamp by PriSTE (Algorithms 2/3) for PRESENCE(S = [1:10], T) events."""
    from lmdk.priste_experiments import alpha_per_timestamp, paper_event

    s = setup()
    windows, delta = PANELS[cfg["panel"]]
    events = [paper_event("presence", 1, 10, a, b, s.grid.m) for a, b in windows]
    out = alpha_per_timestamp(s, events, [cfg["epsilon"]], [cfg["alpha0"]], reps, delta=delta, rng=rng)
    return out.rename(columns={"rep": "repetition"})[["repetition", "t", "alpha", "distance_m", "leakage"]]


register(FigureSpec(
    name="priste-budget", paper="priste", title="PriSTE: α per timestamp (Figs. 8–11)",
    claim="A strict PLM (small α) meets ε-spatiotemporal event privacy with little calibration, a loose one "
          "must cut α a lot; α drops during the event window; two events cost more; δ-location sets need smaller α.",
    configs=budget_configs, run=budget_run, summarise=by_measures("alpha", "distance_m", "leakage", extra_keys=["t"]),
    block=10, page_repetitions=3,
))
