"""The table of reproducible figures: name → :class:`~lmdk.experiments.spec.FigureSpec`, in paper order.

A plain table the runner reads; the figure modules only define their specs (no registration side effects),
and the charts module never imports a figure module.
"""
from __future__ import annotations

from lmdk.experiments import baselines, landmark, priste
from lmdk.experiments.spec import FigureSpec

ORDER = ("fig7", "fig8", "fig9", "fig10", "fig11", "baselines", "priste-budget", "priste-utility", "priste-runtime",
         "priste-table2")
GROUPS = {"all": None, "landmark": "landmark", "priste": "priste"}

FIGURES: dict[str, FigureSpec] = {spec.name: spec for spec in (
    landmark.FIG7, landmark.FIG8, landmark.FIG9, landmark.FIG10, landmark.FIG11, baselines.FIGURE,
    priste.PRISTE_BUDGET, priste.PRISTE_UTILITY, priste.PRISTE_RUNTIME, priste.PRISTE_TABLE2,
)}


def ordered_names() -> list[str]:
    """Figure names in paper order (ORDER first, anything added later after, in insertion order)."""
    rank = {n: i for i, n in enumerate(ORDER)}
    return sorted(FIGURES, key=lambda n: rank.get(n, len(ORDER)))


def figures() -> dict[str, FigureSpec]:
    """The reproducible figures (name → spec), in paper order."""
    return {n: FIGURES[n] for n in ordered_names()}


def figure_names(group: str = "all") -> list[str]:
    """Figure names of a group ('all', 'landmark' or 'priste'), in paper order."""
    paper = GROUPS.get(group, "?")
    return [n for n in ordered_names() if paper is None or FIGURES[n].paper == paper]
