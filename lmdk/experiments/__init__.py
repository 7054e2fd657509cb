"""Reproduction of the papers' experiments: figure specs, their registry, the runner and the charts.

Landmark privacy (papers/000 §4, Figs. 7–11) in :mod:`~lmdk.experiments.landmark` (with
:mod:`~lmdk.experiments.tpl` and :mod:`~lmdk.experiments.dummies`), PriSTE (papers/001 §5, Figs. 8–15,
Table 2) in :mod:`~lmdk.experiments.priste` (with :mod:`~lmdk.experiments.priste_drivers`).
Run them with ``lmdk experiments FIGURE`` (``python -m lmdk experiments FIGURE`` from a checkout).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# imported on first use (PEP 562): the runner brings numpy, pandas and the figures, which a module reading one
# helper of this package (ui.charts.style: lmdk.experiments.charts) does not need (issue 34: a first page opening)
_HOMES = {"FIGURES": "registry", "figure_names": "registry", "figures": "registry", "load_cached": "runner",
          "run_figure": "runner", "FigureSpec": "spec"}

__all__ = ["FIGURES", "FigureSpec", "figure_names", "figures", "load_cached", "run_figure"]


def __getattr__(name: str):
    """One of ``__all__``, imported from its module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module 'lmdk.experiments' has no attribute {name!r}")
    return getattr(importlib.import_module(f"lmdk.experiments.{_HOMES[name]}"), name)


if TYPE_CHECKING:
    from lmdk.experiments.registry import FIGURES, figure_names, figures
    from lmdk.experiments.runner import load_cached, run_figure
    from lmdk.experiments.spec import FigureSpec
