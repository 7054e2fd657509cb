"""The Schemes & utility page's releases (the original against each scheme's median and band, a panel per
scheme) and MAE per scheme."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import plotly.graph_objects as go

from ui.charts.decimate import DRAW_POINTS, band_envelope, grid_decimate, minmax_decimate, regular_step, rounded
from ui.charts.figure import figure
from ui.charts.panels import stacked_panels
from ui.charts.style import ORIGINAL, SCHEME_COLOURS, common_layout, number, rgba, time_values


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
) -> go.Figure:
    """Original series against each scheme's release (median line and band across repetitions), one panel per
    scheme (``landmarks`` is accepted for symmetry; the budget chart marks them)."""
    schemes = list(summaries)
    original = np.asarray(original, dtype=float)
    xs = time_values(x)
    layout, axes, _ = stacked_panels(len(schemes), [f"{s} — {y_title}" for s in schemes], rug=False, gap_px=34,
                                     row_px=row_height)  # the unit in the heading: see ui.charts.budget_chart
    data: list[dict] = []  # landmarks are marked on the budget chart; here they would double the drawing cost
    step = regular_step(xs)
    k = int(np.ceil(xs.size / (DRAW_POINTS // 2))) if step is not None and xs.size > DRAW_POINTS else 1
    orig = rounded(grid_decimate(k, original)[0] if k > 1 else original, 4)
    for n_panel, ((xa, ya), scheme) in enumerate(zip(axes, schemes, strict=True)):
        med, lo, hi = (np.asarray(a, dtype=float) for a in summaries[scheme])
        if k > 1:
            med, lo, hi = grid_decimate(k, med, lo, hi)
        med, lo, hi = (rounded(a, 4) for a in (med, lo, hi))  # hover shows 3 significant digits
        colour = SCHEME_COLOURS.get(scheme, "#555555")
        common = {"type": "scatter", "mode": "lines", "xaxis": xa, "yaxis": ya}
        band = {"line": {"width": 0}, "fillcolor": rgba(colour, 0.25), "name": band_label, "legendgroup": "band",
                "hoverinfo": "skip"}
        first = n_panel == 0
        if step is not None:  # evenly spaced: no x arrays at all, band filled between its two edges
            common.update(x0=float(xs[0]), dx=step * k / 2 if k > 1 else step)
            data += [{**common, **band, "y": lo, "showlegend": False},
                     {**common, **band, "y": hi, "fill": "tonexty", "showlegend": first},
                     {**common, "y": orig}]
            my = med
        else:
            bx, blo, bhi = band_envelope(xs, lo, hi)
            ox, oy = minmax_decimate(xs, orig)
            mx, my = minmax_decimate(xs, med)
            data += [{**common, **band, "x": np.concatenate([bx, bx[::-1]]), "y": np.concatenate([bhi, blo[::-1]]),
                      "fill": "toself", "showlegend": first},
                     {**common, "x": ox, "y": oy}]
            common = {**common, "x": mx}
        data[-1].update(line={"color": ORIGINAL, "width": 1.2}, name="original", legendgroup="original",
                        showlegend=first, hovertemplate="original %{y:.3g}<extra></extra>")
        data.append({**common, "y": my, "line": {"color": colour, "width": 1.6}, "name": f"{scheme} median",
                     "showlegend": False,  # the panel heading names the scheme; a 2-row legend would cover it
                     "hovertemplate": "median %{y:.3g}<extra>" + scheme + "</extra>"})
    for key in [k for k in layout if k.startswith("xaxis")]:
        layout[key]["type"] = "date"
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
) -> go.Figure:
    """MAE per scheme with its 95 % CI; rows: {scheme, mae, low, high[, clamped, clamped_low, clamped_high]}."""
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
    positive = [v for r in rows for v in (r["mae"], r.get("clamped")) if v is not None and v > 0]
    log = len(positive) > 1 and max(positive) / min(positive) > 30  # errors spanning decades: log axis
    layout = common_layout(height=90 + 55 * max(len(rows), 1) * (2 if len(data) > 1 else 1),
                           meta={"eps": epsilon, **(meta or {})})
    layout.update(barmode="group", margin={"l": 90, "r": 60, "t": 70, "b": 50},
                  xaxis={"title": {"text": f"mean absolute error ({unit})" + (", log scale" if log else "")},
                         "type": "log" if log else "linear", "rangemode": "tozero", **({"dtick": 1} if log else {})},
                  yaxis={"autorange": "reversed"})
    return figure(data, layout)
