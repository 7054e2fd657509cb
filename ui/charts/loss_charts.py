"""Plotly figures of the temporal-loss and dummy-landmark pages, in the conventions of ui.charts.style.

Line styles carry meaning on both pages: a scheme's own quantities are drawn in its colour (solid =
the headline quantity), the no-correlation reference is black dashed, asymptotes are black dotted,
the goal ε is a thin light-grey line. Landmarks over time are ticks in a strip "L" under the chart (ui.charts.rug);
under the before/after budget bars, dummies are grey thinner ticks in a row "dummy" of their own (as on the timeline).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.charts.budget_chart import BAR_LIMIT
from ui.charts.downsample import DISPLAY_POINTS, bucket_max, markers, positions
from ui.charts.figure import Draft, subplot_layout
from ui.charts.rug import add_landmark_rug
from ui.charts.style import (
    DUMMY_MARKER,
    REGULAR,
    RUG_DUMMY,
    RUG_LANDMARK,
    SCHEME_COLOURS,
    base_layout,
    rgba,
    top_legend,
)

REFERENCE = dict(color="#000000", dash="dash", width=1.5)  # no correlation
ASYMPTOTE = dict(color="#000000", dash="dot", width=1.5)
GOAL = dict(color="#AAAAAA", width=1.2)
OWN = dict(color="#555555", dash="dashdot", width=1.5)
DISTRIBUTION_STYLE = {  # one colour (the budgets are Uniform's) and a marker + dash per landmark distribution
    "skewed": dict(symbol="circle", dash="solid"),
    "symmetric": dict(symbol="square", dash="dashdot"),
    "bimodal": dict(symbol="triangle-up", dash="longdash"),
    "uniform": dict(symbol="x", dash="longdashdot"),
}
# legend names of the landmark distributions: "uniform" alone was also the name of the scheme whose budgets the
# same figure draws (issue 35), so each entry says it is a landmark distribution, and the uniform one does in words
DISTRIBUTION_LABEL = {"skewed": "skewed landmarks", "symmetric": "symmetric landmarks",
                      "bimodal": "bimodal landmarks", "uniform": "landmarks spread at random"}
LEGEND_MARGIN_TOP = 80  # room for a two-line legend above the plot
LOG_RATIO = 30  # a MAE chart whose bars span more than this factor gets a log axis


def _window(n: int, window) -> tuple[int, int]:
    """The drawn timestamps [first, stop): the whole series when no window is set."""
    return (0, n) if window is None else (int(window[0]), int(window[1]))


def _line(fig: Draft, y, first: int, stop: int, **kw) -> None:
    """One loss line over the timestamps [first, stop): its MinMaxLTTB points when longer than DISPLAY_POINTS
    (ui.charts.downsample; x = the real t, so hover names it), every point otherwise."""
    y = np.asarray(y, dtype=float)
    t = first + positions(y[first:stop])
    fig.add_trace({"type": "scatter", "x": t, "y": y[t], "mode": "lines", **kw})


def _sorted(indices: Iterable[int]) -> np.ndarray:
    """Distinct event indices, sorted, as an int array."""
    return np.asarray(sorted(set(int(i) for i in indices)), dtype=int)


def _flat(fig: Draft, name: str, y: float, n: int, line: dict, hover: str, first: int = 0) -> None:
    """A horizontal reference line drawn as a legend entry (a two-point trace over the timestamps first..n−1)."""
    fig.add_trace({"type": "scatter", "x": [first, max(n - 1, first + 1)], "y": [y, y], "mode": "lines", "line": line,
                   "name": name, "hovertemplate": hover + f" = {y:.4g}<extra></extra>"})


def temporal_loss(
    budgets: np.ndarray, bpl: np.ndarray, fpl: np.ndarray, tpl: np.ndarray, landmarks: Iterable[int], *,
    scheme: str, epsilon: float, asymptotes=None, height: int = 420, meta: dict | None = None,
    window: tuple[int, int] | None = None,
) -> go.Figure:
    """BPL, FPL and TPL per timestamp for one scheme's budgets, εₜ (= all three without correlation) dashed;
    ``window``: the timestamps [first, stop) drawn (ui.charts.zoom), each line by at most DISPLAY_POINTS real points."""
    n = len(tpl)
    first, stop = _window(n, window)
    colour = SCHEME_COLOURS.get(scheme, "#555555")
    fig = Draft()
    _line(fig, budgets, first, stop, line={**REFERENCE, "shape": "hvh"}, name="εₜ (no correlation: BPL = FPL = TPL)",
          hovertemplate="t=%{x}<br>εₜ=%{y:.4g}<extra></extra>")
    _line(fig, bpl, first, stop, line=dict(color=colour, dash="dashdot", width=1.5), name="BPL (backward)",
          hovertemplate="t=%{x}<br>BPL=%{y:.4g}<extra></extra>")
    _line(fig, fpl, first, stop, line=dict(color=colour, dash="longdash", width=1.5), name="FPL (forward)",
          hovertemplate="t=%{x}<br>FPL=%{y:.4g}<extra></extra>")
    _line(fig, tpl, first, stop, line=dict(color=colour, width=2.5), name=f"TPL ({scheme})",
          hovertemplate="t=%{x}<br>TPL=%{y:.4g}<extra></extra>")
    _landmark_marks(fig, landmarks, tpl, "TPL", first, stop)
    if asymptotes is not None and np.isfinite(asymptotes.bpl):
        word = "limit" if asymptotes.constant else "bound"
        _flat(fig, f"BPL/FPL {word} (supremum)", asymptotes.bpl, stop, ASYMPTOTE, "supremum", first)
        _flat(fig, f"TPL {word}", asymptotes.tpl, stop, {**ASYMPTOTE, "color": colour}, "TPL " + word, first)
    return _loss_layout(fig, height=height, meta={"eps": epsilon, "scheme": scheme, **(meta or {})})


def _landmark_marks(fig: Draft, landmarks: Iterable[int], y, label: str, first: int = 0,
                    stop: int | None = None) -> None:
    """Landmarks in [first, stop) as ticks in the strip "L" under the chart (ui.charts.rug, as on the timeline; hover
    gives the curve ``label`` there); at most MARKERS_MAX of them (ui.charts.downsample.markers), real ones all."""
    lm = _sorted(landmarks)
    lm = markers(lm[(lm >= first) & (lm < (len(y) if stop is None else stop))], y)
    add_landmark_rug(fig, lm, customdata=np.asarray(y, dtype=float)[lm],
                     hover="landmark t=%{x}<br>" + label + "=%{customdata:.4g}")


def _loss_layout(fig: Draft, *, height: int, meta: dict) -> go.Figure:
    """The layout of a privacy-loss-per-timestamp chart: legend room on top, t and ε axes from zero; built without
    plotly.py's validation (``Draft.as_built``)."""
    base_layout(fig, height=height, meta=meta)
    fig.update_layout(margin=dict(l=70, r=20, t=LEGEND_MARGIN_TOP, b=50))
    fig.update_xaxes(title_text="timestamp t")
    fig.update_layout(yaxis={"title": {"text": "privacy loss (nats)"}, "rangemode": "tozero"})  # not the strip's axis
    return fig.as_built()


def landmark_loss(
    overall: np.ndarray, own: np.ndarray, bound: np.ndarray, reference: np.ndarray, landmarks: Iterable[int], *,
    scheme: str, epsilon: float, height: int = 420, meta: dict | None = None,
    window: tuple[int, int] | None = None,
) -> go.Figure:
    """Overall landmark temporal privacy loss per t with its own term and bound, against no correlation (dashed);
    ``window`` as in ``temporal_loss``."""
    n = len(overall)
    first, stop = _window(n, window)
    colour = SCHEME_COLOURS.get(scheme, "#555555")
    fig = Draft()
    _line(fig, bound, first, stop, line=dict(color=rgba(colour, 0.35), width=7), name="bound = min(overall, Σ ε)",
          hovertemplate="t=%{x}<br>bound=%{y:.4g}<extra></extra>")
    _line(fig, overall, first, stop, line=dict(color=colour, width=2), name=f"overall ({scheme})",
          hovertemplate="t=%{x}<br>overall=%{y:.4g}<extra></extra>")
    _line(fig, own, first, stop, line=OWN, name="own term αₜ", hovertemplate="t=%{x}<br>αₜ=%{y:.4g}<extra></extra>")
    _line(fig, reference, first, stop, line=REFERENCE, name="no correlation (Theorem 2)",
          hovertemplate="t=%{x}<br>Σ_{L∪{t}} ε_i=%{y:.4g}<extra></extra>")
    _flat(fig, "goal ε", float(epsilon), stop, GOAL, "ε", first)
    _landmark_marks(fig, landmarks, overall, "overall", first, stop)
    return _loss_layout(fig, height=height, meta={"eps": epsilon, "scheme": scheme, **(meta or {})})


def distribution_comparison(
    frame: pd.DataFrame, *, quantity: str, statistic: str, epsilon: float, current_pct: float | None = None,
    height: int = 400, meta: dict | None = None,
) -> go.Figure:
    """Figure 9: the chosen quantity/statistic per landmark % for each landmark distribution (legend:
    ``DISTRIBUTION_LABEL``), under the Uniform scheme's budgets, no correlation dashed."""
    sub = frame[(frame["quantity"] == quantity) & (frame["statistic"] == statistic)]
    colour = SCHEME_COLOURS["uniform"]
    fig = Draft()
    for dist, style in DISTRIBUTION_STYLE.items():
        part = sub[sub["distribution"] == dist].sort_values("landmark_pct")
        if part.empty:
            continue
        fig.add_trace({
            "type": "scatter", "x": part["landmark_pct"].to_numpy(), "y": part["value"].to_numpy(),
            "mode": "lines+markers", "name": DISTRIBUTION_LABEL[dist],
            "line": dict(color=colour, dash=style["dash"], width=2),
            "marker": dict(symbol=style["symbol"], size=9, color=colour),
            "hovertemplate": DISTRIBUTION_LABEL[dist] + "<br>%{x} % landmarks<br>%{y:.4g}<extra></extra>",
        })
    ref = sub.groupby("landmark_pct")["reference"].mean()
    fig.add_trace({"type": "scatter", "x": ref.index.to_numpy(), "y": ref.to_numpy(), "mode": "lines",
                   "line": REFERENCE, "name": "no correlation",
                   "hovertemplate": "%{x} %<br>%{y:.4g}<extra>no correlation</extra>"})
    if current_pct is not None:
        top = float(np.nanmax(sub["value"])) if len(sub) else 1.0
        fig.add_trace({"type": "scatter", "x": [current_pct, current_pct], "y": [0, top], "mode": "lines",
                       "line": dict(color=REGULAR, width=1.5), "name": f"your series ({current_pct:.0f} %)",
                       "hoverinfo": "skip"})
    base_layout(fig, height=height, meta={"eps": epsilon, "quantity": quantity, "statistic": statistic,
                                          **(meta or {})})
    fig.update_layout(margin=dict(l=70, r=20, t=LEGEND_MARGIN_TOP, b=50))
    fig.update_xaxes(title_text="landmarks (% of events)", range=[-3, 103])
    fig.update_yaxes(title_text=f"{statistic} over t of {quantity} (nats)", rangemode="tozero")
    return fig.as_built()


def distribution_table(frame: pd.DataFrame, *, quantity: str, statistic: str) -> pd.DataFrame:
    """``distribution_comparison``'s numbers, one row per landmark %: a column per distribution and the mean without
    correlation (its text alternative)."""
    picked = frame[(frame["quantity"] == quantity) & (frame["statistic"] == statistic)]
    wide = picked.pivot_table(index="landmark_pct", columns="distribution", values="value", sort=False)
    wide["no correlation"] = picked.groupby("landmark_pct")["reference"].mean()
    return wide.rename_axis("landmarks (%)").reset_index()


def selection_options(
    dummies: np.ndarray, scores: np.ndarray, probabilities: np.ndarray, chosen: int, *,
    utility: str, epsilon: float, height: int = 430, meta: dict | None = None,
) -> go.Figure:
    """Utility and selection probability of every option (x = number of dummies), the chosen one marked."""
    k = len(scores)
    dummies, scores, probabilities = (np.asarray(a) for a in (dummies, scores, probabilities))
    shown = positions(scores)  # many options (n − |L| at most): MinMaxLTTB points of the utility line
    fig = Draft(subplot_layout(2, 0.08))
    fig.add_trace({"type": "scatter", "x": dummies[shown], "y": scores[shown],
                   "mode": "lines+markers" if k <= 60 else "lines", "line": dict(color="#333333", width=1.8),
                   "marker": dict(size=5, color="#333333"), "name": "utility u(L, L′)",
                   "hovertemplate": "%{x} dummies<br>u=%{y:.4g}<extra></extra>"}, row=1, col=1)
    if k <= BAR_LIMIT:
        prob = {"type": "bar", "x": dummies, "y": probabilities, "marker": {"color": REGULAR, "line": {"width": 0}},
                "name": "probability", "hovertemplate": "%{x} dummies<br>p=%{y:.4g}<extra></extra>"}
    else:  # a filled step line; beyond DISPLAY_POINTS options the largest probability per bucket of options
        starts, _, top = bucket_max(probabilities) if k > DISPLAY_POINTS else (np.arange(k), None, probabilities)
        prob = {"type": "scatter", "x": dummies[starts], "y": top, "mode": "lines",
                "line": dict(color=REGULAR, width=1, shape="hvh"), "fill": "tozeroy",
                "fillcolor": rgba(REGULAR, 0.5), "name": "probability",
                "hovertemplate": "%{x} dummies<br>p=%{y:.4g}<extra></extra>"}
    fig.add_trace(prob, row=2, col=1)
    fig.add_trace({"type": "scatter", "x": [dummies[0], dummies[-1]], "y": [1.0 / k, 1.0 / k], "mode": "lines",
                   "line": REFERENCE, "name": "uniform choice", "hovertemplate": "1/%{text}<extra></extra>",
                   "text": [k, k]}, row=2, col=1)
    for row, y in ((1, scores[chosen]), (2, probabilities[chosen])):
        fig.add_trace({"type": "scatter", "x": [dummies[chosen]], "y": [y], "mode": "markers",
                       "marker": {**DUMMY_MARKER, "size": 13, "line": dict(width=2.5)}, "name": "chosen L′",
                       "showlegend": row == 1, "legendgroup": "chosen",
                       "hovertemplate": "chosen: %{x} dummies<extra></extra>"}, row=row, col=1)
    base_layout(fig, height=height, meta={"eps": epsilon, "utility": utility, **(meta or {})})
    fig.update_layout(margin=dict(l=70, r=20, t=LEGEND_MARGIN_TOP, b=50), bargap=0)
    fig.update_yaxes(title_text=f"utility ({utility})", row=1, col=1)
    fig.update_yaxes(title_text="selection probability", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(title_text="dummy landmarks in the option (|L′ ∖ L|)", row=2, col=1)
    return fig.done()


def budgets_before_after(
    scheme: str, before: np.ndarray, after: np.ndarray, landmarks: Iterable[int], dummies: Iterable[int], *,
    epsilon: float, publishing_epsilon: float, row_height: int = 170, meta: dict | None = None,
    window: tuple[int, int] | None = None,
) -> go.Figure:
    """One scheme's budget bars with L and total ε (top) and with L′ and ε − ε_sel (bottom), and under both the
    timeline's strip: real landmarks black ticks in row "L", dummies grey thinner ticks in row "dummy" (as markers
    on the bars, 794 open and filled marks merged into a band, issue 35); ``window``: the timestamps [first, stop)
    drawn (ui.charts.zoom) — beyond DISPLAY_POINTS the largest εₜ per bucket, at most MARKERS_MAX ticks a row."""
    lm, dm = _sorted(landmarks), _sorted(dummies)
    first, stop = _window(max(len(before), len(after)), window)
    lm, dm = lm[(lm >= first) & (lm < stop)], np.setdiff1d(dm[(dm >= first) & (dm < stop)], lm)
    colour = SCHEME_COLOURS.get(scheme, "#555555")
    titles = [f"before: {scheme} on L, ε = {epsilon:g}",
              f"after: {scheme} on L′ = L ∪ dummies, ε − ε_sel = {publishing_epsilon:.4g}", ""]
    strip = 46 if dm.size else 30  # px: a row of ticks for L, one more for the dummies
    fig = Draft(subplot_layout(3, 0.09, (row_height, row_height, strip), tuple(titles)))
    top = max(float(np.max(before, initial=0.0)), float(np.max(after, initial=0.0)))
    for row, b in ((1, np.asarray(before, dtype=float)), (2, np.asarray(after, dtype=float))):
        t = np.arange(first, stop)
        part = b[first:stop]
        hover = "t=%{x}<br>εₜ=%{y:.4g}<extra>" + scheme + "</extra>"
        if part.size <= BAR_LIMIT:
            bars = {"type": "bar", "x": t, "y": part, "marker": {"color": colour, "line": {"width": 0}},
                    "name": scheme, "showlegend": False, "hovertemplate": hover}
        else:
            shape = "hvh"
            if part.size > DISPLAY_POINTS:
                starts, _, part = bucket_max(part)
                t, shape = first + starts, "hv"
                hover = "from t=%{x}: largest εₜ=%{y:.4g}<extra>" + scheme + "</extra>"
            bars = {"type": "scatter", "x": t, "y": part, "mode": "lines",
                    "line": dict(color=colour, width=1, shape=shape), "fill": "tozeroy",
                    "fillcolor": rgba(colour, 0.55), "name": scheme, "showlegend": False, "hovertemplate": hover}
        fig.add_trace(bars, row=row, col=1)
        fig.update_yaxes(title_text="εₜ", range=[0, 1.15 * top if top > 0 else 1.0], row=row, col=1)  # one scale
    after_b = np.asarray(after, dtype=float)
    shown_lm, shown_dm = markers(lm, np.asarray(before, dtype=float)), markers(dm, after_b)
    fig.add_trace({"type": "scatter", "x": shown_lm, "y": np.ones(shown_lm.size), "customdata": after_b[shown_lm],
                   "mode": "markers", "marker": RUG_LANDMARK, "name": "landmark",
                   "hovertemplate": "landmark t=%{x}<br>εₜ after=%{customdata:.4g}<extra></extra>"}, row=3, col=1)
    if shown_dm.size:
        fig.add_trace({"type": "scatter", "x": shown_dm, "y": np.zeros(shown_dm.size),
                       "customdata": after_b[shown_dm], "mode": "markers", "marker": RUG_DUMMY,
                       "name": "dummy landmark",
                       "hovertemplate": "dummy t=%{x}<br>εₜ after=%{customdata:.4g}<extra></extra>"}, row=3, col=1)
    fig.update_yaxes(range=[-0.6, 1.6] if dm.size else [0.4, 1.6], fixedrange=True, showgrid=False, zeroline=False,
                     tickvals=[1, 0] if dm.size else [1], ticktext=["L", "dummy"] if dm.size else ["L"], ticks="",
                     row=3, col=1)
    fig.update_xaxes(showgrid=False, row=3, col=1)
    base_layout(fig, height=130 + 2 * row_height + strip,
                meta={"eps": epsilon, "scheme": scheme, **(meta or {})})
    fig.update_annotations(font=dict(size=13), xanchor="left", x=0.0)  # subplot titles as in ui.charts.budget_chart
    n = stop - first
    fig.update_layout(bargap=0.25 if n <= 60 else 0, margin=dict(l=70, r=20, t=LEGEND_MARGIN_TOP + 20, b=50),
                      legend=top_legend())
    fig.update_xaxes(title_text="timestamp t", row=3, col=1)
    return fig.done()


def mae_with_without(rows: Sequence[dict], *, unit: str, epsilon: float, meta: dict | None = None,
                     guess: float | None = None) -> go.Figure:
    """MAE per scheme without (solid) and with dummy landmarks (hatched), 95 % CI whiskers; log axis for wide ranges.

    rows: {scheme, mae, low, high, dummies, dummies_low, dummies_high}. ``guess``: the MAE of the data-free guess
    (``lmdk.metrics.data_free_guess_mae``), a dashed line as on Schemes & utility: a bar reaching it is no better
    than guessing the middle of the public range.
    """
    schemes = [r["scheme"] for r in rows]
    colours = [SCHEME_COLOURS.get(s, "#555555") for s in schemes]
    fig = Draft()
    for label, key, marker in (
        ("without dummies", "mae", dict(color=colours)),
        ("with dummies", "dummies", dict(color=[rgba(c, 0.35) for c in colours],
                                         pattern=dict(shape="/", fgcolor="#333"), line=dict(color="#333", width=1))),
    ):
        lo, hi = ("low", "high") if key == "mae" else ("dummies_low", "dummies_high")
        values = [r[key] for r in rows]
        fig.add_trace({
            "type": "bar", "y": schemes, "x": values, "orientation": "h", "name": label, "marker": marker,
            "error_x": dict(type="data", symmetric=False, color="#333",
                            array=[r[hi] - r[key] for r in rows], arrayminus=[r[key] - r[lo] for r in rows]),
            "hovertemplate": "%{y}: %{x:.4g} " + unit + "<extra>" + label + "</extra>",
        })
    if guess is not None and np.isfinite(guess) and schemes:
        fig.add_trace({"type": "scatter", "x": [guess, guess], "y": [schemes[0], schemes[-1]], "mode": "lines",
                       "name": "data-free guess",
                       "showlegend": False,  # the caption names it; a third entry was cut at any width
                       "line": dict(color="#333", width=2, dash="dash"),
                       "hovertemplate": "guessing the middle of the public range: %{x:.3g} " + unit
                       + "<extra></extra>"})
    base_layout(fig, height=100 + 70 * max(len(rows), 1), meta={"eps": epsilon, **(meta or {})})
    # the legend from the left with fixed entry widths (as ui.charts.scheme_charts.mae): a third entry, the
    # data-free guess, ran past the chart's right edge at the default placement
    fig.update_layout(barmode="group", margin=dict(l=90, r=30, t=50, b=50),
                      legend=top_legend(x=0.0, xanchor="left", entrywidth=150,
                                        entrywidthmode="pixels"))
    errors = np.array([[r["mae"], r["dummies"]] + ([guess] if guess is not None else []) for r in rows],
                      dtype=float)
    positive = errors[np.isfinite(errors) & (errors > 0)]
    log = positive.size > 0 and positive.max() / positive.min() > LOG_RATIO
    fig.update_xaxes(title_text=f"mean absolute error ({unit})" + (", log scale" if log else ""),
                     type="log" if log else "linear", rangemode="normal" if log else "tozero")
    fig.update_yaxes(autorange="reversed")
    return fig.done()
