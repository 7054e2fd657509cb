"""lmdk — landmark privacy for time series: mechanisms, budget schemes, accounting, analysis.

The names a notebook needs, importable from the top::

    import lmdk
    series = lmdk.sample("hue")                      # or lmdk.load_series("meter.csv")
    L = lmdk.landmarks.parse_rule("calendar:daily@01:00-06:00").indices(series)  # declared: night hours
    out = lmdk.release(series.values, L, "adaptive", 1.0, protects=lmdk.relation.public_range(0, 25, "kWh"),
                       repetitions=10, rng=0)

Subpackages, one per concept of the papers: :mod:`lmdk.data`, :mod:`lmdk.exports`, :mod:`lmdk.tpl`, :mod:`lmdk.dummies`,
:mod:`lmdk.priste`, :mod:`lmdk.experiments`, :mod:`lmdk.population`, :mod:`lmdk.audit` (the adversary lab);
modules :mod:`lmdk.mechanisms`, :mod:`lmdk.schemes`, :mod:`lmdk.privacy`, :mod:`lmdk.metrics`, :mod:`lmdk.landmarks`,
:mod:`lmdk.synthetic`, :mod:`lmdk.snapping`, :mod:`lmdk.relation` (what ε protects: ``protects=``).
Apart from the maths: :mod:`lmdk.present` (views, headlines, reports, generated scripts for the app) and
:mod:`lmdk.cli` (the ``lmdk`` command, one module per command).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# The version lives in lmdk.version (the modules that record it import it from there: no import order to keep).
from lmdk.version import __version__ as __version__

# The names a notebook needs, and where each lives. They are imported on first use (PEP 562): ``import lmdk`` pulled
# in scipy's spatial, optimize and special, numba and every subpackage — most of a server's first page opening
# (issue 34), where a page needs a few of them.
_NAMES = {
    "RunConfig": "lmdk.exports", "Series": "lmdk.data", "load_series": "lmdk.data", "sample": "lmdk.data",
    "DummySpec": "lmdk.dummies", "select": "lmdk.dummies", "mae": "lmdk.metrics",
    "worst_case_leakage": "lmdk.priste", "landmark_loss": "lmdk.privacy",
    "satisfies_landmark_privacy": "lmdk.privacy", "SCHEMES": "lmdk.schemes", "Release": "lmdk.schemes",
    "allocate": "lmdk.schemes", "release": "lmdk.schemes", "landmark_temporal_privacy_loss": "lmdk.tpl",
    "temporal_privacy_loss": "lmdk.tpl",
}
# Subpackages and modules, one per concept of the papers; the command line, the errors, and two presentation
# modules kept under their old names (generated scripts call ``lmdk.views.release_input``).
_MODULES = {
    "data": "lmdk.data", "exports": "lmdk.exports", "dummies": "lmdk.dummies", "experiments": "lmdk.experiments",
    "landmarks": "lmdk.landmarks", "mechanisms": "lmdk.mechanisms", "metrics": "lmdk.metrics",
    "priste": "lmdk.priste", "privacy": "lmdk.privacy", "schemes": "lmdk.schemes", "synthetic": "lmdk.synthetic",
    "tpl": "lmdk.tpl", "relation": "lmdk.relation", "discrete_laplace": "lmdk.discrete_laplace",
    "snapping": "lmdk.snapping", "ledger": "lmdk.ledger", "population": "lmdk.population", "cli": "lmdk.cli",
    "errors": "lmdk.errors", "plan": "lmdk.plan", "present": "lmdk.present", "views": "lmdk.present.views",
    "views_loss": "lmdk.present.views_loss", "audit": "lmdk.audit",
}

__all__ = [
    "DummySpec", "Release", "RunConfig", "SCHEMES", "Series", "allocate", "landmark_loss",
    "landmark_temporal_privacy_loss", "load_series", "mae", "release", "sample", "satisfies_landmark_privacy",
    "select", "temporal_privacy_loss", "worst_case_leakage",
    "data", "exports", "dummies", "experiments", "landmarks", "mechanisms", "metrics", "privacy", "priste", "schemes",
    "synthetic", "tpl", "relation", "discrete_laplace", "snapping", "ledger", "population", "cli", "errors", "plan",
    "present", "views", "views_loss", "audit",
]  # what _NAMES and _MODULES hold (tests/test_lazy_imports.py checks they agree)


def __getattr__(name: str):
    """A public name or module of the package, imported on its first use and kept."""
    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
    else:
        raise AttributeError(f"module 'lmdk' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The package's names, the ones not imported yet included."""
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # the same names for the type checker and editors
    from lmdk import (
        audit,
        cli,
        data,
        discrete_laplace,
        dummies,
        errors,
        experiments,
        exports,
        landmarks,
        ledger,
        mechanisms,
        metrics,
        plan,
        population,
        present,
        priste,
        privacy,
        relation,
        schemes,
        snapping,
        synthetic,
        tpl,
    )
    from lmdk.data import Series, load_series, sample
    from lmdk.dummies import DummySpec, select
    from lmdk.exports import RunConfig
    from lmdk.metrics import mae
    from lmdk.present import views, views_loss
    from lmdk.priste import worst_case_leakage
    from lmdk.privacy import landmark_loss, satisfies_landmark_privacy
    from lmdk.schemes import SCHEMES, Release, allocate, release
    from lmdk.tpl import landmark_temporal_privacy_loss, temporal_privacy_loss
