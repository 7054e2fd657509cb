"""lmdk — landmark privacy for time series: mechanisms, budget schemes, accounting, analysis.

The names a notebook needs, importable from the top (loaded on first use, so ``import lmdk`` stays light)::

    import lmdk
    series = lmdk.sample("hue")                      # or lmdk.load_series("meter.csv")
    L = lmdk.landmarks.by_percentile(series.values, 0.2)
    out = lmdk.release(series.values, L, "adaptive", 1.0, mechanism="laplace", repetitions=10, rng=0)

Subpackages, one per concept of the papers: :mod:`lmdk.data`, :mod:`lmdk.tpl`, :mod:`lmdk.dummies`,
:mod:`lmdk.priste`, :mod:`lmdk.experiments`; modules :mod:`lmdk.mechanisms`, :mod:`lmdk.schemes`,
:mod:`lmdk.privacy`, :mod:`lmdk.metrics`, :mod:`lmdk.landmarks`, :mod:`lmdk.synthetic`.
"""
from __future__ import annotations

import importlib

__version__ = "0.2.0"

_EXPORTS = {
    "load_series": "lmdk.data", "sample": "lmdk.data", "Series": "lmdk.data", "RunConfig": "lmdk.data",
    "release": "lmdk.schemes", "allocate": "lmdk.schemes", "SCHEMES": "lmdk.schemes", "Release": "lmdk.schemes",
    "landmark_loss": "lmdk.privacy", "satisfies_landmark_privacy": "lmdk.privacy",
    "mae": "lmdk.metrics",
    "landmark_temporal_privacy_loss": "lmdk.tpl", "temporal_privacy_loss": "lmdk.tpl",
    "select": "lmdk.dummies", "DummySpec": "lmdk.dummies",
    "worst_case_leakage": "lmdk.priste",
}
__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    """Load a re-exported name (or a submodule such as ``lmdk.landmarks``) on first access."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    try:
        return importlib.import_module(f"lmdk.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"lmdk.{name}":
            raise
        raise AttributeError(f"module 'lmdk' has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
