"""Charts of the Population page: per-user MAE per scheme, and landmark share vs MAE (one point per user)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ui.charts.figure import figure
from ui.charts.style import SCHEME_COLOURS, common_layout, top_legend

FLAG_COLOURS = {"protected": "#0072B2", "no better than user level": "#E69F00", "violates Theorem 2": "#D55E00"}
LEGEND = {"protected": "protected", "no better than user level": "user-level utility", "violates Theorem 2": "violates"}


def mae_distribution(summaries: pd.DataFrame, schemes, *, unit: str, epsilon: float, guess: float | None = None):
    """One horizontal box per scheme: the distribution of the users' MAE (log axis when it spans decades);
    ``guess``: the typical user's error of the data-free guess, a dashed line the boxes are read against."""
    data = []
    for s in schemes:
        rows = summaries[summaries["scheme"] == s]
        data.append({"type": "box", "x": rows["mae"].to_numpy(), "name": s, "orientation": "h",
                     "marker": {"color": SCHEME_COLOURS.get(s, "#555"), "size": 4},
                     "line": {"color": SCHEME_COLOURS.get(s, "#555")}, "boxpoints": "outliers",
                     "customdata": rows["user"].astype(str).to_numpy(), "showlegend": False,
                     "hovertemplate": "user %{customdata}: %{x:.4g} " + unit + "<extra>" + s + "</extra>"})
    positive = summaries["mae"][summaries["mae"] > 0]
    log = len(positive) > 1 and positive.max() / positive.min() > 30
    if guess is not None and np.isfinite(guess) and schemes:
        data.append({"type": "scatter", "mode": "lines", "x": [guess, guess], "y": [schemes[0], schemes[-1]],
                     "name": "data-free guess", "showlegend": False, "line": {"color": "#333", "width": 2,
                                                                              "dash": "dash"},
                     "hovertemplate": "guessing the middle of the public range: %{x:.3g} " + unit
                                      + "<extra></extra>"})
    layout = common_layout(height=110 + 48 * max(len(schemes), 1), meta={"eps": epsilon}, legend=False)
    layout.update(margin={"l": 90, "r": 30, "t": 30, "b": 50}, yaxis={"autorange": "reversed"},
                  xaxis={"title": {"text": f"per-user mean absolute error ({unit})" + (", log scale" if log else "")},
                         "type": "log" if log else "linear"})
    return figure(data, layout)


def share_vs_mae(rows: pd.DataFrame, scheme: str, *, unit: str, epsilon: float):
    """Each user's landmark share (x) against its MAE (y) under one scheme, coloured by what the policy gives it;
    the dashed line is the user-level error (the policy is degenerate for users on or above it)."""
    status = np.where(~rows["theorem2_holds"], "violates Theorem 2",
                      np.where(rows["degenerate"] & (scheme != "user"), "no better than user level", "protected"))
    data = []
    for label, colour in FLAG_COLOURS.items():
        part = rows[status == label]
        if part.empty:
            continue
        data.append({"type": "scatter", "mode": "markers", "name": f"{LEGEND[label]} ({len(part):,})",
                     "x": 100 * part["landmark_share"].to_numpy(), "y": part["mae"].to_numpy(),
                     "customdata": part["user"].astype(str).to_numpy(),
                     "marker": {"color": colour, "size": 7, "opacity": 0.75},
                     "hovertemplate": "user %{customdata}<br>landmarks %{x:.1f} %<br>MAE %{y:.4g} " + unit
                                      + "<br>" + label + "<extra></extra>"})
    baseline = float(np.median(rows["user_level_mae"])) if len(rows) else 0.0
    layout = common_layout(height=420, meta={"eps": epsilon, "scheme": scheme})
    layout.update(margin={"l": 70, "r": 30, "t": 60, "b": 50}, clickmode="event+select",
                  # entry widths: sized from the text, one came out short
                  legend=top_legend(x=0, xanchor="left", entrywidth=210, entrywidthmode="pixels"),
                  xaxis={"title": {"text": "landmarks (% of the user's events)"}, "rangemode": "tozero"},
                  yaxis={"title": {"text": f"MAE ({unit}), log scale"}, "type": "log"},
                  shapes=[{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": baseline, "y1": baseline,
                           "line": {"dash": "dash", "color": "#6b6b6b", "width": 1}}],
                  annotations=[{"xref": "paper", "x": 1, "y": np.log10(baseline) if baseline > 0 else 0,
                                "text": "user level", "showarrow": False, "xanchor": "right", "yanchor": "bottom",
                                "font": {"color": "#6b6b6b", "size": 12}}])
    return figure(data, layout)
