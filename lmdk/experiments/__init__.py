"""Reproduction of the papers' experiments: figure specs, their registry, the runner and the charts.

Landmark privacy (papers/000 §4, Figs. 7–11) in :mod:`~lmdk.experiments.landmark` (with
:mod:`~lmdk.experiments.tpl` and :mod:`~lmdk.experiments.dummies`), PriSTE (papers/001 §5, Figs. 8–15,
Table 2) in :mod:`~lmdk.experiments.priste` (with :mod:`~lmdk.experiments.priste_drivers`).
Run them with ``python -m lmdk.experiments FIGURE`` or ``lmdk experiments FIGURE``.
"""
from lmdk.experiments.registry import FIGURES, figure_names, figures
from lmdk.experiments.runner import load_cached, main, run_figure
from lmdk.experiments.spec import FigureSpec

__all__ = ["FIGURES", "FigureSpec", "figure_names", "figures", "load_cached", "main", "run_figure"]
