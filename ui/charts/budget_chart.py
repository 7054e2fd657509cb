"""The per-timestamp budget chart (Overview and Schemes & utility pages): a bar panel per scheme up to
``BAR_LIMIT`` timestamps, one plot with a row per scheme beyond; landmarks in the strip "L" on top."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import plotly.graph_objects as go

from ui.charts.decimate import rounded, step_points
from ui.charts.downsample import DISPLAY_POINTS, bucket_max
from ui.charts.figure import figure
from ui.charts.panels import landmark_strip, stacked_panels
from ui.charts.style import SCHEME_COLOURS, common_layout, number, rgba

ABSOLUTE_RANGE = (-5.0, 2.3)  # log10 of the shared εₜ axis: 10⁻⁵ … 200, every budget the app can produce at n ≤ 400
BAR_LIMIT = 400  # above this many timestamps, budget bars are drawn as a filled step line (same look, faster)


def _index_sets(landmarks, dummies, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted landmark and dummy indices inside [0, n); a dummy that is also a landmark counts as a landmark."""
    lm = np.unique(np.asarray(list(landmarks), dtype=np.int64))
    dm = np.setdiff1d(np.asarray(list(dummies), dtype=np.int64), lm)
    return lm[(lm >= 0) & (lm < n)], dm[(dm >= 0) & (dm < n)]


def budgets(
    budgets_by_scheme: dict[str, np.ndarray],
    landmarks: Iterable[int],
    *,
    epsilon: float,
    dummies: Iterable[int] = (),
    meta: dict | None = None,
    row_height: int = 120,
    absolute: bool = False,
    window: tuple[int, int] | None = None,
) -> go.Figure:
    """Per-timestamp budgets per scheme, landmark budgets darkened and landmarks marked in a strip "L" on top.

    Up to ``BAR_LIMIT`` timestamps: real bars, one panel per scheme, landmark bars hatched; every panel on one
    linear εₜ axis (the largest εₜ of any scheme), or with ``absolute`` one fixed logarithmic εₜ axis shared by every
    panel and every ε (``ABSOLUTE_RANGE``), so a change of ε or between schemes is seen as a change of height.
    Beyond: one filled step line per scheme, all in ONE plot as rows on one shared scale (the row label states each
    scheme's largest εₜ; hover shows εₜ) — the same picture as separate panels at a fraction of the browser's work.
    ``window``: the timestamps [first, stop) drawn (ui.charts.zoom; default all); a row of more than ``DISPLAY_POINTS``
    steps is drawn by the largest εₜ per bucket of timestamps (ui.charts.downsample.bucket_max)."""
    schemes = list(budgets_by_scheme)
    n = max((len(b) for b in budgets_by_scheme.values()), default=0)
    lm, dm = _index_sets(landmarks, dummies, n)
    first, stop = window if window is not None else (0, n)
    if (first, stop) != (0, n):  # only the window: its budgets, its landmarks (positions relative to it)
        budgets_by_scheme = {s: np.asarray(b)[first:stop] for s, b in budgets_by_scheme.items()}
        lm, dm = lm[(lm >= first) & (lm < stop)] - first, dm[(dm >= first) & (dm < stop)] - first
        n = stop - first
    mask = np.zeros(n, dtype=bool)
    mask[lm] = True
    meta = {"eps": epsilon, **(meta or {})}
    if n > BAR_LIMIT:
        return _budget_rows(budgets_by_scheme, mask, lm, dm, meta=meta, row_height=row_height, t0=first)
    # the unit sits in each panel's heading, not in a y-axis title: a titled axis measures all its tick labels on
    # every redraw (plotly's title standoff), and these labels change with ε (not on the fixed ``absolute`` axis)
    layout, axes, rug_axes = stacked_panels(len(schemes), [f"{s} — budget εₜ per timestamp (nats)" for s in schemes],
                                            rug=True, gap_px=30, row_px=row_height)
    t = first + np.arange(n)
    data: list[dict] = landmark_strip(rug_axes, lm, dm, t)
    top = shared_top(budgets_by_scheme)
    for (xa, ya), scheme in zip(axes, schemes, strict=True):
        b = np.asarray(budgets_by_scheme[scheme], dtype=float)
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        data.append({"type": "bar", "x": t, "y": b, "name": scheme, "showlegend": False, "xaxis": xa, "yaxis": ya,
                     "marker": {"color": colour, "line": {"width": np.where(mask, 1.5, 0), "color": "#000"},
                                "pattern": {"shape": np.where(mask, "x", ""), "fgcolor": "#000", "size": 6,
                                            "fillmode": "overlay", "fgopacity": 0.6}},
                     "hovertemplate": "t=%{x}<br>ε_t=%{y:.4g}<extra>" + scheme + "</extra>"})
        if absolute:
            layout["yaxis" + ya[1:]].update(type="log", range=list(ABSOLUTE_RANGE), tick0=0, dtick=2, tickformat="~g",
                                            title={"text": "εₜ, log", "font": {"size": 12}})
            continue
        layout["yaxis" + ya[1:]].update(range=[0, 1.15 * top if top > 0 else 1.0])
    ry = "yaxis" + rug_axes[1][1:]
    layout[ry].update(range=[-1.1, 1.1], showticklabels=False, showgrid=False, zeroline=False, ticks="",
                      title={"text": "L", "font": {"size": 12}})
    layout["xaxis" + axes[-1][0][1:] if axes else "xaxis"].update(title={"text": "timestamp t"})
    layout["bargap"] = 0.25 if n <= 60 else 0
    layout.update(common_layout(height=110 + (row_height + 30) * len(schemes), meta=meta))
    return figure(data, layout)


ROW_FILL = 0.8  # share of a row's height the largest budget of any scheme reaches (budget rows, n > BAR_LIMIT)


def shared_top(budgets_by_scheme: dict) -> float:
    """The largest εₜ of any scheme: the one scale every panel or row of the budget chart is drawn on (rows each
    scaled to their own largest εₜ all looked equally full)."""
    return max((float(np.max(b)) for b in budgets_by_scheme.values() if np.size(b)), default=0.0)


def _thin_steps(values: np.ndarray, t0: int = 0, labels: bool = True) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``step_points`` of the values (x from ``t0``); beyond ``DISPLAY_POINTS`` change points, the largest value per
    bucket of timestamps instead — the outline of filled bars at screen resolution (``labels`` False: no hover
    labels)."""
    sx, sy, label = step_points(values, labels)
    if sx.size <= DISPLAY_POINTS:
        if t0 and labels:  # the labels name real timestamps ("t=a" or "t=a–b")
            label = ["t=" + "–".join(str(int(v) + t0) for v in lab[2:].split("–")) for lab in label]
        return sx + t0, sy, label
    starts, ends, top = bucket_max(values)
    label = [f"t={a + t0}–{b + t0} (largest)" for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    x, y = starts + t0, rounded(top, 5)
    if starts[-1] != values.size - 1:
        x, y, label = np.append(x, values.size - 1 + t0), np.append(y, y[-1]), label + label[-1:]
    return x, y, label


def _row_outline(values: np.ndarray, base: float, top: float, t0: int = 0, labels: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """A per-timestamp series as a closed "hv" step outline standing on ``base`` (change points only), its heights
    scaled so ``top`` reaches ROW_FILL; returns x, y, the unscaled values (rounded for hover) and hover labels
    (``labels`` False: none, for an outline without hover)."""
    sx, sy, label = _thin_steps(values, t0, labels)
    scale = ROW_FILL / top if top > 0 else 0.0
    x = np.concatenate([sx[:1], sx, sx[-1:]])
    y = np.concatenate([[base], base + sy * scale, [base]])
    return x, rounded(y, 5), np.concatenate([[0.0], sy, [0.0]]), ["", *label, ""]


def _budget_rows(budgets_by_scheme: dict, mask: np.ndarray, lm: np.ndarray, dm: np.ndarray, *, meta: dict,
                 row_height: int, t0: int = 0) -> go.Figure:
    """The budget chart for many timestamps: one plot, a row per scheme (top to bottom in the given order) and
    the landmark strip on top; each row is a filled step outline, every row on one scale (``shared_top``)."""
    schemes = list(budgets_by_scheme)
    rows = len(schemes)
    data: list[dict] = []
    rug = landmark_strip(("x", "y"), lm, dm, t0 + np.arange(mask.size, dtype=float))
    for trace in rug:  # ticks from the strip's base to its top (they were drawn from −1 to 1)
        trace["y"] = rows + 0.05 + (trace["y"] + 1.0) * ROW_FILL / 2
    data += rug
    tickvals, ticktext = [], []
    shared = shared_top(budgets_by_scheme)
    for i, scheme in enumerate(schemes):
        base = float(rows - 1 - i)
        b = np.asarray(budgets_by_scheme[scheme], dtype=float)
        own = float(b.max()) if b.size else 0.0
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        x, y, eps_t, label = _row_outline(b, base, shared, t0)
        data.append({"type": "scatter", "x": x, "y": y, "customdata": eps_t, "text": label, "mode": "lines",
                     "name": scheme, "showlegend": False, "fill": "toself", "fillcolor": rgba(colour, 0.6),
                     "line": {"color": colour, "width": 1, "shape": "hv"},
                     "hovertemplate": "%{text}<br>ε_t=%{customdata:.4g}<extra>" + scheme + "</extra>"})
        if lm.size:
            lx, ly, _, _ = _row_outline(np.where(mask, b, 0.0), base, shared, t0, labels=False)  # hover: skip
            data.append({"type": "scatter", "x": lx, "y": ly, "mode": "lines", "name": "budget on landmarks",
                         "legendgroup": "lmbudget", "showlegend": i == 0, "fill": "toself",
                         "fillcolor": "rgba(0,0,0,0.55)", "line": {"width": 0, "shape": "hv"}, "hoverinfo": "skip"})
        tickvals.append(base + ROW_FILL / 2)
        ticktext.append(f"<b>{scheme}</b><br><span style='font-size:11px'>max εₜ {number(own)}</span>")
    tickvals.append(rows + 0.05 + ROW_FILL / 2)
    ticktext.append("<b>L</b>")
    layout = common_layout(height=round(130 + row_height * 0.8 * (rows + 0.6)), meta=meta)
    plot_px = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    layout.update(
        margin={**layout["margin"], "l": 110},
        # the legend on a line of its own above the heading, from the left: at 1024 px a legend at the right end of
        # the heading's line covered it, and the (hover-only) toolbar takes the top right corner
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1 + 28 / plot_px, "yanchor": "bottom"},
        xaxis={"title": {"text": "timestamp t"}, "range": [t0 - 0.5, t0 + mask.size - 0.5], "zeroline": False},
        yaxis={"range": [-0.08, rows + 0.95], "tickvals": tickvals, "ticktext": ticktext, "showgrid": False,
               "zeroline": False, "ticks": "", "fixedrange": True},
        annotations=[{"text": f"εₜ per timestamp (nats), one scale for every row: a full row is εₜ = {number(shared)}",
                      "x": 0, "xref": "paper", "xanchor": "left", "y": 1.0, "yref": "paper", "yanchor": "bottom",
                      "yshift": 4, "showarrow": False, "font": {"size": 13}}],
    )
    return figure(data, layout)
