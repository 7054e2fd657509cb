"""The Spatiotemporal events page's runs: the synthetic taxi trace and the plain α-PLM and PriSTE of one event, each
cached on its own inputs."""
from __future__ import annotations

import numpy as np

from lmdk import priste
from lmdk.priste import views as priste_views
from ui.session.cache_scope import bounded_cache


@bounded_cache(16)
def taxi_latlon(n: int, seed: int) -> np.ndarray:
    """The synthetic taxi sample's first n fixes as (lat, lon)."""
    from lmdk import data

    return data.sample("taxi", n=n, seed=seed).latlon()


@bounded_cache(16)
def run_side(cells, kind, region, window, eps, alpha, M, grid, reps, delta, seed):
    """Cached lmdk.priste.views.runs for one event: the plain α-PLM (eps = inf, kept while ε changes) or PriSTE."""
    mask = np.zeros(grid.m, dtype=bool)
    mask[list(region)] = True
    event = priste.Event(kind, mask, np.arange(window[0], window[1] + 1))
    return priste_views.runs(cells, event, eps, alpha, M, grid, reps, delta=delta, seed=seed)


def run_comparison(cells, kind, region, window, eps, alpha, M, grid, reps, delta, seed):
    """lmdk.priste.views.compare for one event, each side cached on its own inputs."""
    plain = run_side(cells, kind, region, window, float("inf"), alpha, M, grid, reps, delta, seed)
    return priste_views.comparison(plain, run_side(cells, kind, region, window, eps, alpha, M, grid, reps, delta,
                                                   seed))
