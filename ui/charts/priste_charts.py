"""The Spatiotemporal events page's charts: the grid map with the event's region and the paths (pydeck), the
leakage and α bands over time (plotly) and their text alternatives."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pydeck as pdk

from ui.charts import maps
from ui.charts.style import FONT, rgba, top_legend

PLAIN, PRISTE = "#D55E00", "#0072B2"  # Okabe–Ito vermilion / blue
REGION_RGBA, CELL_RGBA = [230, 159, 0, 150], [255, 255, 255, 0]


def band_figure(t, bands: dict, *, y_title: str, reference: float, reference_label: str, window, log_y: bool,
                eps: float) -> go.Figure:
    """Median line and 10–90 % band per method, a dashed reference line and the event window shaded."""
    fig = go.Figure()
    fig.add_vrect(x0=window[0] - 0.5, x1=window[1] + 0.5, fillcolor="rgba(230,159,0,0.15)", line_width=0,
                  annotation_text="event window", annotation_position="top left")
    for name, (band, colour) in bands.items():
        fig.add_trace(go.Scatter(x=t, y=band["high"], mode="lines", line=dict(width=0), hoverinfo="skip",
                                 showlegend=False))
        fig.add_trace(go.Scatter(x=t, y=band["low"], mode="lines", line=dict(width=0), fill="tonexty",
                                 fillcolor=rgba(colour, 0.2), name=f"{name}: 10–90 % of repetitions",
                                 hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=t, y=band["median"], mode="lines+markers", marker=dict(size=4),
                                 line=dict(color=colour, width=2), name=f"{name}: median",
                                 hovertemplate="t = %{x}<br>%{y:.3g}<extra>" + name + "</extra>"))
    fig.add_hline(y=reference, line=dict(color="black", dash="dash", width=1.2), annotation_text=reference_label,
                  annotation_position="bottom right")
    fig.update_layout(height=360, margin=dict(l=70, r=20, t=40, b=50), template="plotly_white", font=FONT,
                      legend=top_legend(x=0, xanchor="left"),
                      meta={"eps": eps}, xaxis_title="timestamp t", yaxis_title=y_title)
    if log_y:
        values = np.concatenate([np.asarray(b[k], float) for b, _ in bands.values() for k in ("low", "high")]
                                + [[reference]])
        ticks = ticks_125(values[values > 0])
        fig.update_yaxes(type="log", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
    return fig


def ticks_125(values: np.ndarray) -> list[float]:
    """1-2-5 tick values per decade spanning ``values`` (Plotly's default log ticks label bare digits)."""
    lo, hi = np.floor(np.log10(values.min())), np.ceil(np.log10(values.max()))
    ticks = [m * 10.0**d for d in np.arange(lo, hi + 1) for m in (1, 2, 5)]
    inside = [v for v in ticks if values.min() / 1.5 <= v <= values.max() * 1.5]
    return inside if len(inside) >= 2 else ticks


def positive(band: dict) -> bool:
    """Whether a band's lower edge stays above 0 everywhere (then its chart can take a log axis)."""
    return bool(np.all(band["low"] > 0))


def band_table(t, bands: dict) -> pd.DataFrame:
    """t, then the median and 10–90 % band of every method (a chart's text alternative)."""
    table = pd.DataFrame({"t": t})
    for name, band in bands.items():
        for part in ("median", "low", "high"):
            table[f"{name} {part}"] = np.asarray(band[part], dtype=float)
    return table


def grid_deck(grid, region, true_cells, paths: dict) -> pdk.Deck:
    """The grid (region cells filled), the true path (black) and released paths, cells pickable."""
    corners = grid.corners_latlon()
    in_region = np.zeros(grid.m, dtype=bool)
    in_region[list(region)] = True
    cells = [{"cell": i, "polygon": corners[i].tolist(), "fill": REGION_RGBA if in_region[i] else CELL_RGBA,
              "what": "in the event's region" if in_region[i] else "click to add"} for i in range(grid.m)]
    layers = [pdk.Layer("PolygonLayer", data=cells, id="cells", get_polygon="polygon", get_fill_color="fill",
                        get_line_color=[120, 120, 120, 160], line_width_min_pixels=1, stroked=True, filled=True,
                        pickable=True, auto_highlight=True)]
    for name, (cell_ids, rgb, width) in {"true path": (true_cells, [0, 0, 0], 3), **paths}.items():
        lat, lon = grid.cell_to_latlon(np.asarray(cell_ids))
        # zero-length segments (the path stays in a cell) make deck.gl draw degenerate giant quads: drop them
        seg = [{"s": [lon[k], lat[k]], "e": [lon[k + 1], lat[k + 1]], "name": name} for k in range(lat.size - 1)
               if cell_ids[k] != cell_ids[k + 1]]
        layers.append(pdk.Layer("LineLayer", data=seg, id=name.replace(" ", "-"), get_source_position="s",
                                get_target_position="e", get_color=rgb, get_width=width,
                                width_units="'pixels'"))  # quoted: pydeck turns bare strings into expressions
    lat, lon = grid.cell_to_latlon(np.arange(grid.m))
    view = maps.view_state(lat, lon, height_px=520)
    return pdk.Deck(layers=layers, initial_view_state=view, map_provider=None, map_style=None,
                    tooltip={"text": "cell {cell}: {what}"}, height=520)


def steps(T: int) -> np.ndarray:
    """The timestamps 0 … T − 1 the band charts and tables draw."""
    return np.arange(T)


def trace_table(cells: np.ndarray, region, paths: dict) -> pd.DataFrame:
    """The map's text alternative: t, the true cell, whether it is in the region, every released path's cell."""
    true_cells = np.asarray(cells)
    return pd.DataFrame({"t": np.arange(true_cells.size), "true cell": true_cells,
                         "true cell in the region": np.isin(true_cells, sorted(region)),
                         **{f"{name} cell": np.asarray(ids) for name, (ids, _, _) in paths.items()}})


def cells_in_region(cells, region) -> int:
    """At how many timestamps the path ``cells`` is in the region."""
    return int(np.isin(np.asarray(cells), sorted(region)).sum())


def largest(band: dict) -> float:
    """The largest median of a band (the headline's leakage)."""
    return float(np.max(band["median"]))
