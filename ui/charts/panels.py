"""Vertically stacked panels sharing the x axis, and the landmark strip "L" above them (one path of ticks, or the
share of landmarks per stretch of time when there are many)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ui.charts.style import DUMMY_COLOUR, LANDMARK_COLOUR


def stacked_panels(rows: int, titles: Sequence[str], *, rug: bool, gap_px: float, row_px: float, rug_px: float = 34):
    """Layout dict of vertically stacked panels sharing the x axis (faster than make_subplots).

    Returns (layout, axis names per panel, rug axis names or None); panel 1 is the top one.
    """
    heights = ([rug_px] if rug else []) + [row_px] * rows
    total = sum(heights) + gap_px * (len(heights) - 1)
    layout: dict = {"annotations": []}
    axes = []
    top = 1.0
    for k, h in enumerate(heights):
        lo = max(0.0, top - h / total)
        idx = "" if k == 0 else str(k + 1)
        layout[f"xaxis{idx}"] = {"anchor": f"y{idx}", "domain": [0, 1], "showticklabels": k == len(heights) - 1,
                                 **({} if k == 0 else {"matches": "x"})}
        layout[f"yaxis{idx}"] = {"anchor": f"x{idx}", "domain": [lo, top]}
        axes.append((f"x{idx}", f"y{idx}"))
        top = lo - gap_px / total
    rug_axes = axes.pop(0) if rug else None
    for (_, ya), title in zip(axes, titles, strict=True):
        domain = layout["yaxis" + ya[1:]]["domain"]
        layout["annotations"].append({"text": title, "x": 0, "xref": "paper", "xanchor": "left", "y": domain[1],
                                      "yref": "paper", "yanchor": "bottom", "yshift": 2, "showarrow": False,
                                      "font": {"size": 13}})
    return layout, axes, rug_axes


def _ticks(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y of vertical ticks at ``positions`` as ONE NaN-separated path (hundreds of markers cost ~50 ms)."""
    x = np.repeat(positions.astype(float), 3)
    x[2::3] = np.nan
    y = np.tile([-1.0, 1.0, np.nan], positions.size)
    return x, y


RUG_DENSITY_LIMIT = 150  # above this many landmarks the L strip shows their density (~900 px: ticks merge into a band)
DENSITY_BINS = 120


def _density_band(landmarks: np.ndarray, x: np.ndarray, xa: str, ya: str) -> list[dict]:
    """The L strip as the share of landmarks per stretch of time: a filled profile standing on the strip's floor."""
    n = x.size
    edges = np.linspace(0, n, min(DENSITY_BINS, n) + 1).astype(np.int64)
    counts = np.histogram(landmarks, bins=edges)[0]
    share = counts / np.maximum(np.diff(edges), 1)
    centre = x[np.minimum((edges[:-1] + edges[1:]) // 2, n - 1)]
    floor = {"type": "scatter", "x": centre, "y": np.full(centre.size, -1.0), "mode": "lines", "xaxis": xa,
             "yaxis": ya, "line": {"width": 0}, "hoverinfo": "skip", "showlegend": False}
    profile = {"type": "scatter", "x": centre, "y": -1.0 + 2.0 * share, "mode": "lines", "fill": "tonexty",
               "line": {"shape": "hvh", "color": LANDMARK_COLOUR, "width": 1}, "fillcolor": "rgba(0,0,0,0.55)",
               "name": "landmark share", "xaxis": xa, "yaxis": ya, "customdata": 100 * share,
               "hovertemplate": "%{customdata:.0f} % of events are landmarks here<extra></extra>"}
    return [floor, profile]


def landmark_strip(rug_axes, landmarks: np.ndarray, dummies: np.ndarray, x: np.ndarray) -> list[dict]:
    """The landmark strip above the panels: black ticks (dummies dotted), drawn once for all panels."""
    xa, ya = rug_axes
    if landmarks.size > RUG_DENSITY_LIMIT:
        traces = _density_band(landmarks, x, xa, ya)
    else:
        tx, ty = _ticks(x[landmarks]) if landmarks.size else (np.array([]), np.array([]))
        traces = [{"type": "scatter", "x": tx, "y": ty, "mode": "lines", "xaxis": xa, "yaxis": ya,
                   "line": {"color": LANDMARK_COLOUR, "width": 1.5}, "name": "landmark", "hoverinfo": "x"}]
    if dummies.size:
        dx, dy = _ticks(x[dummies])
        traces.append({"type": "scatter", "x": dx, "y": dy, "mode": "lines", "name": "dummy landmark",
                       "line": {"color": DUMMY_COLOUR, "width": 1.5, "dash": "dot"}, "xaxis": xa, "yaxis": ya,
                       "hoverinfo": "x"})
    return traces
