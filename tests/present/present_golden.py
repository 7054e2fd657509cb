"""Fixed inputs for every generated script and report, so their bytes can be compared across refactors."""
from __future__ import annotations

import hashlib
import re

import numpy as np

SCRIPT_CFG = dict(data="sample:hue", events=300, landmarks=tuple(range(5, 300, 10)), schemes=("uniform", "adaptive"),
                  mechanism="laplace", epsilon=1.0, w=10, repetitions=4, seed=3)
FIGURE = {"data": [{"type": "bar", "x": [0, 1, 2], "y": [0.5, 0.25, 0.25]}], "layout": {"title": {"text": "budgets"}}}


def outputs() -> dict[str, str]:
    """Every generated script and report of the app, from fixed inputs."""
    import pandas as pd

    from lmdk import priste, tpl
    from lmdk.exports.runconfig import RunConfig
    from lmdk.present import report, reproduce
    from lmdk.priste import views as pv
    from ui.session import state

    cfg = RunConfig(**SCRIPT_CFG)
    view = {"source": "walk", "T": 12, "cell_m": 500, "side": 6, "trace_seed": 2, "estimate": False, "sigma": 1.0,
            "kind": "presence", "window": (3, 6), "region": [0, 1, 2, 7], "epsilon": 0.5, "alpha": 0.5, "delta": None,
            "repetitions": 2, "seed": 4}
    grid, M, cells = pv.synthetic_walk(6, 6, 500.0, 1.0, 12, 2)
    mask = np.zeros(grid.m, dtype=bool)
    mask[[0, 1, 2, 7]] = True
    res = pv.compare(cells, priste.Event("presence", mask, np.arange(3, 7)), 0.5, 0.5, M, grid, 2, seed=4)
    budgets = {"uniform": np.full(8, 0.25), "skip": np.array([0.5, 0.5, 0, 0.5, 0, 0.5, 0, 0.5])}
    table = pd.DataFrame({"scheme": ["uniform", "adaptive"], "MAE": [1.25, 0.5]})
    description = {"series": "hue", "kind": "values"}
    return {
        "schemes_script": reproduce.schemes_script(cfg),
        "schemes_script_file": reproduce.schemes_script(RunConfig(**{**SCRIPT_CFG, "data": "sha256:" + "0" * 64}),
                                                         data_path="/data/meter.csv"),
        "tpl_script": reproduce.tpl_script(cfg, "adaptive", tpl.transition_matrix("strong")),
        "overview_script": reproduce.overview_script([1, 3, 5], 1.0),
        "spatiotemporal_script": reproduce.spatiotemporal_script(view),
        "dummies_script": reproduce.dummies_script(cfg, "partitioned", "position", 0.05, state.SCHEME_NAMES),
        "html_report": report.html_report("Schemes", "*Skip* keeps it", {"ε": "1"}, {"skip": (True, 1.0)},
                                          {"MAE": table}, [FIGURE], description),
        "overview_report": report.overview_report(("headline", 1.0, [1, 3, 5], budgets, FIGURE)),
        "spatiotemporal_report": report.spatiotemporal_report(("headline", {"α₀ (per km)": 0.5}, res, 0.5, [FIGURE],
                                                               description)),
        "dummies_report": report.dummies_report(("headline", {"ε": "1"}, {"uniform": (True, 1.0)}, table, table,
                                                 [FIGURE], description)),
    }


def digest(text: str) -> str:
    """sha256 of an output with the report's creation time and plotly's random div ids taken out."""
    text = re.sub(r"on \d{4}-\d\d-\d\d \d\d:\d\d UTC", "on <made>", text)
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", text)  # plotly's div ids
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
