"""lmdk — landmark privacy for time series: mechanisms, budget schemes, accounting, analysis.

The names a notebook needs, importable from the top::

    import lmdk
    series = lmdk.sample("hue")                      # or lmdk.load_series("meter.csv")
    L = lmdk.landmarks.parse_rule("calendar:daily@01:00-06:00").indices(series)  # declared: night hours
    out = lmdk.release(series.values, L, "adaptive", 1.0, protects=lmdk.relation.public_range(0, 25, "kWh"),
                       repetitions=10, rng=0)

Subpackages, one per concept of the papers: :mod:`lmdk.data`, :mod:`lmdk.tpl`, :mod:`lmdk.dummies`,
:mod:`lmdk.priste`, :mod:`lmdk.experiments`, :mod:`lmdk.population`, :mod:`lmdk.audit` (the adversary lab);
modules :mod:`lmdk.mechanisms`, :mod:`lmdk.schemes`, :mod:`lmdk.privacy`, :mod:`lmdk.metrics`, :mod:`lmdk.landmarks`,
:mod:`lmdk.synthetic`, :mod:`lmdk.snapping`, :mod:`lmdk.relation` (what ε protects: ``protects=``).
Apart from the maths: :mod:`lmdk.present` (views, headlines, reports, generated scripts for the app) and
:mod:`lmdk.cli` (the ``lmdk`` command, one module per command).
"""
from __future__ import annotations

# The names a notebook needs.
from lmdk import data, dummies, experiments, landmarks, mechanisms, metrics, priste, privacy, schemes, synthetic, tpl
from lmdk.data import RunConfig, Series, load_series, sample
from lmdk.dummies import DummySpec, select
from lmdk.metrics import mae
from lmdk.priste import worst_case_leakage
from lmdk.privacy import landmark_loss, satisfies_landmark_privacy
from lmdk.schemes import SCHEMES, Release, allocate, release
from lmdk.tpl import landmark_temporal_privacy_loss, temporal_privacy_loss

# The version lives in lmdk.version (the modules that record it import it from there: no import order to keep).
from lmdk.version import __version__ as __version__

__all__ = [
    "DummySpec", "Release", "RunConfig", "SCHEMES", "Series", "allocate", "landmark_loss",
    "landmark_temporal_privacy_loss", "load_series", "mae", "release", "sample", "satisfies_landmark_privacy",
    "select", "temporal_privacy_loss", "worst_case_leakage",
    # subpackages and modules, one per concept of the papers
    "data", "dummies", "experiments", "landmarks", "mechanisms", "metrics", "privacy", "priste", "schemes",
    "synthetic", "tpl", "relation", "discrete_laplace", "snapping", "ledger", "population", "cli", "errors", "plan",
    "present", "views", "views_loss", "audit",
]

# Public names the API reference lists: the command line, the errors, and two presentation modules kept under
# their old names (generated scripts call ``lmdk.views.release_input``).
from lmdk import audit, cli, discrete_laplace, errors, ledger, plan, population, present, relation, snapping
from lmdk.present import views, views_loss
