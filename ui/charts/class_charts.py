"""The live class's distribution of predictions (issue 56): a bar per choice, or a histogram of the numbers the
room predicted; after the reveal the right choices (or the computed number) are marked in words and colour."""
from __future__ import annotations

import html
import math
import re
import textwrap

import numpy as np
import plotly.graph_objects as go

from ui.charts.figure import figure
from ui.charts.style import FONT, number

BAR = "#0072B2"  # Okabe–Ito blue: the room's predictions
RIGHT = "#009E73"  # bluish green: a right choice after the reveal (also said in words on its label and bar)
ANSWER = "#000000"  # the computed number's line on a histogram
BINS_MAX = 12  # a histogram a room reads from the back row
PROJECTOR_FONT = {**FONT, "size": 18}
LABEL_ROOM = 2.2  # the count axis reaches 2.2 × the longest bar: room for "12 (100 %) ✓ right" beyond it
TICKS_MAX = 5  # count ticks on an axis
# a choice's label sits above its bar, wrapped at word boundaries: beside the answer at 1024 px the chart is about
# 260 px wide, where a label on the left of the bars (a long sentence) left them no room
WRAP = 24  # characters per label line: ~220 px at 18 px
LINE_PX = 23  # a label line's height at 18 px
BAR_PX = 40  # a bar's thickness
SLOT_PAD_PX = 16  # between a bar and the next choice's label
MARGIN = {"l": 12, "r": 40, "t": 4, "b": 64}  # no y tick labels: the bars start at the chart's left edge


def count_ticks(top: float) -> dict:
    """Whole-number ticks from 0 at a 1-2-5 step, at most ``TICKS_MAX`` up to ``top``: never a repeated "1" from
    rounded 0.2 steps, nor a tick per student."""
    step = max(1.0, top / TICKS_MAX)
    power = 10 ** math.floor(math.log10(step))
    return {"tick0": 0, "dtick": next(m * power for m in (1, 2, 5, 10) if m * power >= step), "tickformat": "d"}


def wrapped(label: str, width: int = WRAP) -> str:
    """``label`` as plotly text: HTML-escaped and broken with ``<br>`` at word boundaries into lines of at most
    ``width`` characters (a longer word stays whole); nothing of it is dropped."""
    glued = re.sub(r" (?=[%)])", "\u00a0", label)  # "95 %)" stays whole: no line of "%)" alone
    lines = textwrap.wrap(glued, width, break_long_words=False, break_on_hyphens=False) or [label]
    return "<br>".join(html.escape(line, quote=False) for line in lines)


def choices(counts: dict[str, int], right: tuple[str, ...] = (), *, meta: dict | None = None) -> go.Figure:
    """A horizontal bar per choice (in lesson order, top first) with its count, the choice's full text wrapped above
    its bar; ``right``: the choices revealed as correct, drawn in ``RIGHT`` and said in words ("✓" before the label,
    "✓ right" after the count)."""
    names = list(counts)
    values = np.asarray([counts[name] for name in names], dtype=np.int64)
    total = int(values.sum())
    labels = [f"{v} ({100 * v / total:.0f} %)" if total else "0" for v in values]
    labels = [f"{label} ✓ right" if name in right else label for name, label in zip(names, labels, strict=True)]
    colours = [RIGHT if name in right else BAR for name in names]
    trace = {"type": "bar", "orientation": "h", "y": names, "x": values, "text": labels, "textposition": "outside",
             "marker": {"color": colours}, "hovertemplate": "%{y}: %{x} predictions<extra></extra>",
             "textfont": PROJECTOR_FONT, "cliponaxis": False}
    texts = [wrapped(f"✓ {name}" if name in right else name) for name in names]
    texts = [f"<b>{t}</b>" if name in right else t for name, t in zip(names, texts, strict=True)]
    lines = max((t.count("<br>") + 1 for t in texts), default=1)
    slot = lines * LINE_PX + BAR_PX + SLOT_PAD_PX  # one choice: its label, then its bar
    bar = BAR_PX / slot  # a bar's thickness in category units (a category is 1 unit)
    # on a category axis choice i is at i; its label fills the gap above its bar, so the axis starts a gap above the
    # first bar and ends just below the last
    notes = [{"xref": "paper", "x": 0, "xanchor": "left", "y": i - bar / 2, "yanchor": "bottom", "yshift": 2,
              "text": t, "align": "left", "showarrow": False, "font": PROJECTOR_FONT} for i, t in enumerate(texts)]
    top = max(1, int(values.max(initial=0)))
    # the counts sit beyond the bars (never clipped by a short bar), so the axis leaves them room; no grid: each bar
    # says its count, and grid lines ran through the labels
    xaxis = {"title": {"text": "predictions (students)"}, "rangemode": "tozero", "range": [0, top * LABEL_ROOM],
             "showgrid": False, **count_ticks(top * LABEL_ROOM / 2)}
    yaxis = {"type": "category", "categoryorder": "array", "categoryarray": names, "showticklabels": False,
             "ticks": "", "showgrid": False, "range": [len(names) - 1 + bar / 2 + 0.1, -(1 - bar / 2)]}
    layout = {"height": round((len(names) + 0.1) * slot) + MARGIN["t"] + MARGIN["b"], "margin": MARGIN,
              "font": PROJECTOR_FONT, "showlegend": False, "meta": meta or {}, "bargap": 1 - bar,
              "xaxis": xaxis, "yaxis": yaxis, "annotations": notes}
    return figure([trace], layout, title_room=False)  # no y tick labels or title: the labels start at the left


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
             "textfont": PROJECTOR_FONT, "cliponaxis": False,
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
                                  "showarrow": False, "yanchor": "bottom", "font": PROJECTOR_FONT}]
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
