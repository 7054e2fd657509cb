"""Core computations of Figures 10 and 11 (paper §4.3.1–4.3.2) as tidy DataFrames, one row per repetition.

``figure10_run`` / ``figure11_run`` have the experiment runner's signature (config, repetitions, rng);
``figure10`` / ``figure11`` loop over the paper's grid for direct use (dashboard, scripts).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk.assets import ASSETS
from lmdk.dummies.selection import METRICS, DummySpec, landmark_set_distance, options
from lmdk.errors import ParameterError
from lmdk.rng import as_generator

PERCENTAGES = (0, 20, 40, 60, 80, 100)
SHARES = (0.01, 0.10, 0.25, 0.50)
SYNTHETIC_N = 100
HUE_CSV = ASSETS / "hue_residential_1.csv"
HUE_ROWS = 1000


def figure10_run(cfg: dict, repetitions: int, rng) -> pd.DataFrame:
    """Mean normalised distance of the partitioned options from L (same metric for growth and measure), per repetition.

    ``cfg``: metric, distribution, landmark_pct and optionally n (default 100, §4.1.1). A fresh synthetic L
    is drawn per repetition with ``synthetic.landmarks``.
    """
    from lmdk import synthetic

    gen = as_generator(rng)
    n = int(cfg.get("n", SYNTHETIC_N))
    metric = cfg["metric"]
    if metric not in METRICS:
        raise ParameterError(f"metric must be one of {METRICS}, got {metric!r}")
    rows = []
    for _ in range(repetitions):
        lm = synthetic.landmarks(n, cfg["landmark_pct"] / 100.0, cfg["distribution"], gen)
        opts = options(n, lm, "partitioned", metric=metric, rng=gen)
        rows.append(float(np.mean(landmark_set_distance(opts, lm, n, metric))))
    return pd.DataFrame({"repetition": np.arange(repetitions), "distance": rows})


def figure10(n: int = SYNTHETIC_N, percents=PERCENTAGES, distributions=None, metrics=METRICS,
             repetitions: int = 20, rng=None) -> pd.DataFrame:
    """Figure 10 grid: columns metric, distribution, landmark_pct, repetition, distance."""
    from lmdk import synthetic

    gen = as_generator(rng)
    frames = []
    for metric in metrics:
        for dist in distributions or synthetic.DISTRIBUTIONS:
            for pct in percents:
                cfg = {"metric": metric, "distribution": dist, "landmark_pct": pct, "n": n}
                frame = figure10_run(cfg, repetitions, gen)
                frames.append(frame.assign(metric=metric, distribution=dist, landmark_pct=pct))
    out = pd.concat(frames, ignore_index=True)
    return out[["metric", "distribution", "landmark_pct", "repetition", "distance"]]


def hue_sample(rows: int = HUE_ROWS) -> np.ndarray:
    """Energy consumption (kWh) of the first ``rows`` hours of HUE residence 1 (§4.1.1)."""
    frame = pd.read_csv(HUE_CSV, nrows=rows)
    return frame["energy_kWh"].to_numpy(dtype=float)


def lowest_fraction(values: np.ndarray, fraction: float) -> np.ndarray:
    """Landmarks = the round(fraction·n) lowest values (§4.1.2: HUE landmarks lie below a kWh threshold).

    On the HUE sample the paper's thresholds 0.54/0.68/0.88/1.12 kWh give 22.6/41.8/61.1/80.5 % (the paper
    lists them out of order); ranking hits 0–100 % exactly, ties broken by time.
    """
    k = int(round(fraction * values.size))
    return np.sort(np.argsort(values, kind="stable")[:k])


def figure11_run(cfg: dict, repetitions: int, rng, values: np.ndarray | None = None) -> pd.DataFrame:
    """MAE (kWh) of the Uniform scheme with share ``cfg['dummy_share']`` of ε on dummy selection, per repetition.

    ``cfg``: landmark_pct, dummy_share (0 = no dummy module, the reference bars of Figure 7), optionally
    epsilon (default 1), method and utility of the selection. Also reports |L′|/n as landmark_share.
    """
    from lmdk import relation, schemes

    series = hue_sample() if values is None else np.asarray(values, dtype=float)
    lm = lowest_fraction(series, cfg["landmark_pct"] / 100.0)
    share = float(cfg["dummy_share"])
    spec = None if share == 0 else DummySpec(cfg.get("method", "partitioned"), share, cfg.get("utility", "position"))
    rel = schemes.release(series, lm, "uniform", float(cfg.get("epsilon", 1.0)),
                          protects=relation.PAPERS_UNIT_CHANGE, mechanism="laplace", repetitions=repetitions,
                          rng=as_generator(rng), dummies=spec)
    released = np.asarray(rel.values, dtype=float).reshape(repetitions, series.size)
    mask = np.asarray(rel.landmarks, dtype=bool).reshape(-1, series.size)
    return pd.DataFrame({
        "repetition": np.arange(repetitions),
        "mae": np.mean(np.abs(released - series[None, :]), axis=1),
        "landmark_share": np.broadcast_to(mask.mean(axis=1), (repetitions,)),
    })


def figure11(values: np.ndarray | None = None, percents=PERCENTAGES, shares=SHARES, epsilon: float = 1.0,
             repetitions: int = 20, method: str = "partitioned", utility: str = "position",
             include_reference: bool = True, rng=None) -> pd.DataFrame:
    """Figure 11 (HUE): columns dummy_share, landmark_pct, repetition, mae, landmark_share; share 0 = no dummies."""
    gen = as_generator(rng)
    series = hue_sample() if values is None else np.asarray(values, dtype=float)
    frames = []
    for share in ((0.0,) if include_reference else ()) + tuple(shares):
        for pct in percents:
            cfg = {"landmark_pct": pct, "dummy_share": share, "epsilon": epsilon, "method": method, "utility": utility}
            frames.append(figure11_run(cfg, repetitions, gen, series).assign(dummy_share=share, landmark_pct=pct))
    out = pd.concat(frames, ignore_index=True)
    return out[["dummy_share", "landmark_pct", "repetition", "mae", "landmark_share"]]
