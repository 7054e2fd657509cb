"""The live class's distribution of predictions (issue 56): a bar per choice, or a histogram of the numbers the
room predicted; after the reveal the right choices (or the computed number) are marked in words and colour."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.charts.figure import figure
from ui.charts.style import FONT, number

BAR = "#0072B2"  # Okabe–Ito blue: the room's predictions
RIGHT = "#009E73"  # bluish green: a right choice after the reveal (also said in the bar's label)
ANSWER = "#000000"  # the computed number's line on a histogram
BINS_MAX = 12  # a histogram a room reads from the back row
PROJECTOR_FONT = {**FONT, "size": 18}
LABEL_ROOM = 1.7  # the count axis reaches 1.7 × the longest bar: room for "12 (100 %) ✓ right" beyond it
TICKS_MAX = 5  # count ticks on an axis


def count_ticks(top: int) -> dict:
    """Whole-number ticks from 0 for an axis of counts up to ``top``: never a repeated "1" from rounded 0.2 steps."""
    return {"tick0": 0, "dtick": max(1, int(np.ceil(top / TICKS_MAX))), "tickformat": "d"}


def choices(counts: dict[str, int], right: tuple[str, ...] = (), *, meta: dict | None = None) -> go.Figure:
    """A horizontal bar per choice (in lesson order, top first) with its count; ``right``: the choices revealed as
    correct, labelled "✓ right" and drawn in ``RIGHT``."""
    names = list(counts)
    values = np.asarray([counts[name] for name in names], dtype=np.int64)
    total = int(values.sum())
    labels = [f"{v} ({100 * v / total:.0f} %)" if total else "0" for v in values]
    labels = [f"{label} ✓ right" if name in right else label for name, label in zip(names, labels, strict=True)]
    colours = [RIGHT if name in right else BAR for name in names]
    trace = {"type": "bar", "orientation": "h", "y": names, "x": values, "text": labels, "textposition": "outside",
             "marker": {"color": colours}, "hovertemplate": "%{y}: %{x} predictions<extra></extra>",
             "textfont": {"size": 18}, "cliponaxis": False}
    top = max(1, int(values.max(initial=0)))
    # the labels sit beyond the bars (never clipped by a short bar), so the axis leaves them room
    xaxis = {"title": {"text": "predictions (students)"}, "rangemode": "tozero", "range": [0, top * LABEL_ROOM],
             **count_ticks(top)}
    # the right choice is said in words on its axis label too, not by colour alone
    yaxis = {"autorange": "reversed", "automargin": True, "ticks": "", "tickmode": "array", "tickvals": names,
             "ticktext": [f"✓ {name}" if name in right else name for name in names]}
    layout = {"height": 120 + 60 * len(names), "margin": {"l": 20, "r": 30, "t": 20, "b": 50},
              "font": PROJECTOR_FONT, "showlegend": False, "meta": meta or {}, "bargap": 0.25,
              "xaxis": xaxis, "yaxis": yaxis}
    return figure([trace], layout)


def histogram(values, answer: float | None = None, *, unit: str = "", meta: dict | None = None) -> go.Figure:
    """A histogram of the predicted numbers (at most ``BINS_MAX`` bins), and the computed ``answer`` as a line once
    it is revealed."""
    numbers = np.asarray(values, dtype=np.float64)
    edges = _edges(numbers, answer)
    counts, _ = np.histogram(numbers, bins=edges)
    middles, widths = (edges[:-1] + edges[1:]) / 2, np.diff(edges)
    spans = [f"{number(lo)}–{number(hi)}" for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
    trace = {"type": "bar", "x": middles, "y": counts, "width": widths * 0.95, "marker": {"color": BAR},
             "customdata": spans, "text": [str(c) if c else "" for c in counts], "textposition": "outside",
             "textfont": {"size": 18}, "cliponaxis": False,
             "hovertemplate": "%{customdata}: %{y} predictions<extra></extra>"}
    title = f"predicted value ({unit})" if unit else "predicted value"
    layout = {"height": 380, "margin": {"l": 70, "r": 30, "t": 40, "b": 60}, "font": PROJECTOR_FONT,
              "showlegend": False, "meta": meta or {}, "bargap": 0,
              "xaxis": {"title": {"text": title}},
              "yaxis": {"title": {"text": "predictions"}, "rangemode": "tozero",
                        "range": [0, max(1, int(counts.max(initial=0))) * 1.25],
                        **count_ticks(max(1, int(counts.max(initial=0))))}}
    if answer is not None:
        layout["shapes"] = [{"type": "line", "x0": answer, "x1": answer, "yref": "paper", "y0": 0, "y1": 1,
                             "line": {"color": ANSWER, "width": 3, "dash": "dash"}}]
        layout["annotations"] = [{"x": answer, "yref": "paper", "y": 1.02, "text": f"answer {number(answer)}",
                                  "showarrow": False, "yanchor": "bottom", "font": {"size": 18}}]
    return figure([trace], layout)


def _edges(numbers: np.ndarray, answer: float | None) -> np.ndarray:
    """Bin edges spanning the predictions (and the answer, so its line is on the chart)."""
    span = numbers[np.isfinite(numbers)]
    if answer is not None:
        span = np.append(span, answer)
    if span.size == 0:
        return np.array([0.0, 1.0])
    low, high = float(span.min()), float(span.max())
    if high <= low:
        pad = max(abs(low) * 0.1, 0.5)
        return np.linspace(low - pad, high + pad, 4)
    bins = int(min(BINS_MAX, max(3, np.ceil(np.sqrt(span.size)) + 1)))
    return np.histogram_bin_edges(span, bins=bins, range=(low, high))
