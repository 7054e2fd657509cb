"""The landmark schemes beside the state of the art (issue 29): MAE of every scheme at the landmark paper's Figure 7
settings (papers/000 §4.1: HUE, the T-drive-like taxi trace and the Copenhagen-like contacts, ε = 1, Δ = 1,
0–100 % landmarks), with w-event BD/BA, FAST and PeGaSus (lmdk.baselines) added where they apply (values: HUE).

Only orchestration: the releases are ``lmdk.schemes.release`` (the baselines dispatch to ``lmdk.baselines``), the data
and landmark sets those of Figure 7 (``landmark.series_for``). Every repetition also records whether its budgets
satisfy Theorem 2 for the landmark set, so the chart can say which scheme protects the landmarks together.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk.experiments.landmark import DATASETS, EPSILON, PAPERS_LANDMARKS, PAPERS_RELATION, PERCENTAGES, series_for
from lmdk.experiments.spec import FigureSpec, by_measures

LANDMARK_PAPER = ("event", "user", "w-event", "uniform", "skip", "adaptive")
BASELINES = ("bd", "ba", "fast", "pegasus")
WINDOW = 24
"""w of w-event, BD and BA: one day of HUE's hourly readings (the landmark paper fixes no w for its figures)."""


def configs() -> list[dict]:
    """Data sets × landmark % × schemes; the baselines on values only (they refuse locations and contacts)."""
    return [
        {"dataset": d, "unit": DATASETS[d][1], "landmark_pct": p, "scheme": s}
        for d in DATASETS for p in PERCENTAGES
        for s in LANDMARK_PAPER + (BASELINES if DATASETS[d][0] == "laplace" else ())
    ]


def run(cfg: dict, reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """MAE and the Theorem 2 verdict of one scheme on one data set at one landmark percentage, per repetition."""
    from lmdk import metrics, privacy, relation, schemes

    series, lm = series_for(cfg["dataset"], cfg["landmark_pct"])
    mechanism = DATASETS[cfg["dataset"]][0]
    rel = schemes.release(series, lm, cfg["scheme"], EPSILON, protects=relation.PAPERS_UNIT_CHANGE,
                          mechanism=mechanism, repetitions=reps, rng=rng, w=min(WINDOW, len(series)))
    error = metrics.mae(series, rel.values, mechanism)
    loss = privacy.landmark_loss(rel.budgets, lm).max(axis=1)
    return pd.DataFrame({"repetition": np.arange(reps), "mae": error.per_repetition,
                         "theorem2": (loss <= EPSILON * (1 + 1e-9)).astype(float)})


FIGURE = FigureSpec(
    name="baselines", paper="landmark", title="MAE of the landmark schemes and the state of the art (BD, BA, FAST, "
                                              "PeGaSus) at Fig. 7's settings",
    claim="The landmark schemes protect the landmarks together (Theorem 2) at an error between event and user level; "
          "PeGaSus (event level) is the most accurate and protects no landmark set; FAST is the best user-level "
          "release; BA beats the uniform w-event split but, like BD, protects only windows of w events.",
    configs=configs, run=run, summarise=by_measures("mae", "theorem2"), default_repetitions=20, page_repetitions=10,
    notes=f"w = {WINDOW} for w-event, BD and BA; the baselines release values only, so taxi and contacts show the "
          "landmark paper's six schemes.",
    extra={"units": {"neighbouring_relation": PAPERS_RELATION, "landmark_set": PAPERS_LANDMARKS, "w": WINDOW}},
)
