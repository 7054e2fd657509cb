"""The Schemes & utility page's releases (the original against each scheme's median and band, a panel per
scheme) and MAE per scheme."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.charts.decimate import DRAW_POINTS, band_envelope, grid_decimate, minmax_decimate, regular_step, rounded
from ui.charts.figure import figure
from ui.charts.panels import stacked_panels
from ui.charts.style import ORIGINAL, SCHEME_COLOURS, common_layout, number, rgba, time_values, top_legend


def releases(
    x: Sequence,
    original: np.ndarray,
    summaries: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    landmarks: Iterable[int],
    *,
    y_title: str,
    epsilon: float,
    band_label: str = "90 % of repetitions",
    meta: dict | None = None,
    row_height: int = 130,
    fixed_scale: bool = True,
) -> go.Figure:
    """Original series against each scheme's release (median line and band across repetitions), one panel per
    scheme (``landmarks`` is accepted for symmetry; the budget chart marks them).

    ``fixed_scale``: every panel on the original's own scale (``original_scale``): a band wider than it runs off
    the panel (zoom out to see it) instead of painting the public range in solid colour, and a median that would
    swing across the panel is left out (``median_readable``); the panel's note says how far either reaches."""
    schemes = list(summaries)
    original = np.asarray(original, dtype=float)
    xs = time_values(x)
    layout, axes, _ = stacked_panels(len(schemes), [f"{s} — {y_title}" for s in schemes], rug=False, gap_px=34,
                                     row_px=row_height)  # the unit in the heading: see ui.charts.budget_chart
    data: list[dict] = []  # landmarks are marked on the budget chart; here they would double the drawing cost
    step = regular_step(xs)
    k = int(np.ceil(xs.size / (DRAW_POINTS // 2))) if step is not None and xs.size > DRAW_POINTS else 1
    orig = rounded(grid_decimate(k, original)[0] if k > 1 else original, 4)
    scale = original_scale(original) if fixed_scale else None
    beyond: dict[str, str] = {}  # scheme → what the panel says about the noise beyond its scale
    for n_panel, ((xa, ya), scheme) in enumerate(zip(axes, schemes, strict=True)):
        med, lo, hi = (np.asarray(a, dtype=float) for a in summaries[scheme])
        show_median = True
        if scale is not None and lo.size:
            show_median, strays = median_readable(med, original, scale)
            reach = (float(np.nanmin(lo)), float(np.nanmax(hi)))
            outside = reach[0] < scale[0] or reach[1] > scale[1]
            if not show_median:
                # two lines: on one, the note ran past the panel's right edge at 1024 px (issue 35)
                beyond[scheme] = (f"median not drawn: ≥ {number(strays)} off at 1 time in 10;<br>band reaches "
                                  f"{number(reach[0])} to {number(reach[1])}")
            elif outside:
                beyond[scheme] = f"band reaches {number(reach[0])} to {number(reach[1])}, beyond this scale"
        if k > 1:
            med, lo, hi = grid_decimate(k, med, lo, hi)
        med, lo, hi = rounded(np.vstack([med, lo, hi]), 4)  # hover shows 3 significant digits; one call, 3 rows
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        common = {"type": "scatter", "mode": "lines", "xaxis": xa, "yaxis": ya}
        band = {"line": {"width": 0}, "fillcolor": rgba(colour, 0.25), "name": band_label, "legendgroup": "band",
                "hoverinfo": "skip"}
        first = n_panel == 0
        median = {"line": {"color": colour, "width": 1.6}, "name": f"{scheme} median",
                  "showlegend": False,  # the panel heading names the scheme; a 2-row legend would cover it
                  "hovertemplate": "median %{y:.3g}<extra>" + scheme + "</extra>"}
        original_line = {"line": {"color": ORIGINAL, "width": 1.4}, "name": "original", "legendgroup": "original",
                         "showlegend": first, "hovertemplate": "original %{y:.3g}<extra></extra>"}
        if step is not None:  # evenly spaced: no x arrays at all, band filled between its two edges
            common.update(x0=float(xs[0]), dx=step * k / 2 if k > 1 else step)
            data += [{**common, **band, "y": lo, "showlegend": False},
                     {**common, **band, "y": hi, "fill": "tonexty", "showlegend": first}]
            if show_median:
                data.append({**common, **median, "y": med})
            data.append({**common, **original_line, "y": orig})  # on top: the series stays readable
        else:
            bx, blo, bhi = band_envelope(xs, lo, hi)
            ox, oy = minmax_decimate(xs, orig)
            mx, my = minmax_decimate(xs, med)
            data.append({**common, **band, "x": np.concatenate([bx, bx[::-1]]), "y": np.concatenate([bhi, blo[::-1]]),
                         "fill": "toself", "showlegend": first})
            if show_median:
                data.append({**common, **median, "x": mx, "y": my})
            data.append({**common, **original_line, "x": ox, "y": oy})
    for key in [k for k in layout if k.startswith("xaxis")]:
        layout[key]["type"] = "date"
    if scale is not None:
        for _, ya in axes:
            layout["yaxis" + ya[1:]].update(range=scale, autorange=False)
        for (_, ya), scheme in zip(axes, schemes, strict=True):
            if scheme in beyond:  # inside the panel's top right corner: clear of the legend and the heading
                layout["annotations"].append({
                    "text": beyond[scheme], "x": 1, "xref": "paper", "xanchor": "right",
                    "y": layout["yaxis" + ya[1:]]["domain"][1], "yref": "paper", "yanchor": "top",
                    # right-aligned lines end at the panel's edge even when the text renders wider than plotly
                    # measured it (centred, they ran ~7 px past it at 1024 px, issue 35)
                    "align": "right", "showarrow": False, "bgcolor": "rgba(255,255,255,0.85)",
                    "font": {"size": 12, "color": "#333"}})
    if axes:
        layout["xaxis" + axes[-1][0][1:]].update(title={"text": "time"})
    layout.update(common_layout(height=110 + (row_height + 34) * len(schemes), meta={"eps": epsilon, **(meta or {})}))
    return figure(data, layout)


def mae(
    rows: Sequence[dict],
    *,
    unit: str,
    epsilon: float,
    meta: dict | None = None,
    guess: float | None = None,
) -> go.Figure:
    """MAE per scheme with its 95 % CI; rows: {scheme, mae, low, high[, clamped, clamped_low, clamped_high]}.

    ``guess``: the MAE of the data-free guess (``lmdk.metrics.data_free_guess_mae``), drawn as a dashed line the bars
    are read against: a bar reaching it is no better than guessing the middle of the public range."""
    schemes = [r["scheme"] for r in rows]
    values = [r["mae"] for r in rows]
    data = [{
        "type": "bar", "y": schemes, "x": values, "orientation": "h", "name": "MAE",
        "marker": {"color": [SCHEME_COLOURS.get(s, "#555") for s in schemes]},
        "error_x": {"type": "data", "symmetric": False, "color": "#333",
                    "array": [r["high"] - r["mae"] for r in rows], "arrayminus": [r["mae"] - r["low"] for r in rows]},
        "text": ["\u2003" + number(v) for v in values], "textposition": "outside", "cliponaxis": False,
        "hovertemplate": "%{y}: %{x:.4g} " + unit + "<extra>MAE</extra>",
    }]
    if any(r.get("clamped") is not None for r in rows):
        clamped = [r.get("clamped") for r in rows]
        data.append({
            "type": "bar", "y": schemes, "x": clamped, "orientation": "h", "name": "MAE after clamping",
            "marker": {"color": [rgba(SCHEME_COLOURS.get(s, "#555"), 0.35) for s in schemes],
                       "pattern": {"shape": "/", "fgcolor": "#333"}, "line": {"color": "#333", "width": 1}},
            "error_x": {"type": "data", "symmetric": False, "color": "#333",
                        "array": [(r["clamped_high"] - r["clamped"]) if r.get("clamped") is not None else 0
                                  for r in rows],
                        "arrayminus": [(r["clamped"] - r["clamped_low"]) if r.get("clamped") is not None else 0
                                       for r in rows]},
            "hovertemplate": "%{y}: %{x:.4g} " + unit + "<extra>clamped</extra>",
        })
    positive = [v for r in rows for v in (r["mae"], r.get("clamped"), guess) if v is not None and v > 0]
    log = len(positive) > 1 and max(positive) / min(positive) > 30  # errors spanning decades: log axis
    if guess is not None and np.isfinite(guess):
        data.append({"type": "scatter", "mode": "lines", "x": [guess, guess], "y": [schemes[0], schemes[-1]],
                     "name": "data-free guess", "showlegend": True,
                     "line": {"color": "#333", "width": 2, "dash": "dash"},
                     "hovertemplate": "guessing the middle of the public range: %{x:.3g} " + unit + "<extra></extra>"})
    layout = common_layout(height=90 + 55 * max(len(rows), 1) * (2 if len(data) > 1 else 1),
                           meta={"eps": epsilon, **(meta or {})})
    layout.update(barmode="group", margin={"l": 90, "r": 60, "t": 70, "b": 50},
                  # fixed entry widths: sized from the text, the last entry came out a few px short at any width
                  legend=top_legend(x=0.0, xanchor="left", entrywidth=150, entrywidthmode="pixels"),
                  xaxis={"title": {"text": f"mean absolute error ({unit})" + (", log scale" if log else "")},
                         "type": "log" if log else "linear", "rangemode": "tozero", **({"dtick": 1} if log else {})},
                  yaxis={"autorange": "reversed"})
    return figure(data, layout)


def median_readable(median: np.ndarray, original: np.ndarray, scale: list[float]) -> tuple[bool, float]:
    """Whether a release panel draws the median line, and its distance from the original at one timestamp in ten
    (the 90th percentile, which the panel's note says when the line is left out): not when it is
    mostly off the panel's scale or strays more than a quarter of that scale from the original at one timestamp in
    ten — such a line swings across the panel and paints it in solid colour (issue 35: 500 hours of a long series;
    Event level on HUE at ε = 1, whose median of 100 releases strays 1.8 kWh on average, 4.1 kWh at its 90th
    percentile, on a 6.9 kWh scale)."""
    ok = np.isfinite(median) & np.isfinite(original)
    if not ok.any():
        return False, float("nan")
    gap = np.abs(median[ok] - original[ok])
    inside = float(np.mean((median[ok] >= scale[0]) & (median[ok] <= scale[1])))
    far = _quantile(gap, 0.9)
    return inside >= 0.8 and far <= (scale[1] - scale[0]) / 4, far


def _quantile(values: np.ndarray, q: float) -> float:
    """``np.quantile(values, q)`` (its default "linear" method, the same rounding) from one partition: np.quantile's
    own overhead was a tenth of the release chart's server time per ε change."""
    pos = q * (values.size - 1)
    below = int(np.floor(pos))
    above = min(below + 1, values.size - 1)
    part = np.partition(values, [below, above])
    a, b, frac = float(part[below]), float(part[above]), pos - below
    return a + (b - a) * frac if frac < 0.5 else b - (b - a) * (1.0 - frac)


def original_scale(original: np.ndarray) -> list[float] | None:
    """The y range of a release panel: the original's own scale (its range plus half its spread each side), so a
    band of noise over the whole public range does not flatten the series into a line at the bottom."""
    finite = original[np.isfinite(original)]
    if finite.size == 0:
        return None
    low, high = float(finite.min()), float(finite.max())
    pad = (high - low) / 2 if high > low else max(abs(high), 1.0) / 2
    bottom = low - pad if low < 0 or low - pad >= 0 else -0.03 * (high - low + pad)  # no made-up negative kWh
    return [bottom, high + pad]
