"""The landmark paper's figures (Figs. 7–11) and the comparison with the baselines, one builder per figure."""
from __future__ import annotations

import pandas as pd

from lmdk.experiments.charts.common import (
    OKABE_ITO,
    SCHEME_COLORS,
    chart,
    ci_error_bars,
    decade_log_axis,
    faceted,
    ordered,
    pct_labels,
)

FIG7_LINES = {"event": "dot", "user": "dash"}  # the two reference levels, drawn as lines across the bars
DATASET_LABELS = {"hue": "HUE residence 1", "taxi": "taxi (synthetic)", "contacts": "contacts (synthetic)"}


@chart("fig7")
def _fig7(df: pd.DataFrame):
    """Grouped bars per landmark scheme, ◆ on the same bar for its dummy variant, event/user as lines; one panel per
    data set."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    d = df.assign(pct=pct_labels(df["landmark_pct"]), dummies=df["dummies"].astype(bool))
    datasets = ordered(d["dataset"])
    fig = make_subplots(rows=1, cols=len(datasets), horizontal_spacing=0.1,
                        subplot_titles=[f"{DATASET_LABELS.get(ds, ds)} ({_unit(df, ds)})" for ds in datasets])
    bars = [s for s in ordered(d["scheme"]) if s not in FIG7_LINES]
    for col, ds in enumerate(datasets, start=1):
        sub = d[d["dataset"] == ds]
        for s in ordered(sub["scheme"]):
            c = SCHEME_COLORS.get(s, OKABE_ITO[7])
            plain, dummy = sub[(sub["scheme"] == s) & ~sub["dummies"]], sub[(sub["scheme"] == s) & sub["dummies"]]
            if s in FIG7_LINES:
                fig.add_trace(go.Scatter(
                    x=plain["pct"], y=plain["mae"], name=f"{s}-level", mode="lines+markers", legendgroup=s,
                    line=dict(color=c, dash=FIG7_LINES[s], width=2), marker=dict(size=5),
                    showlegend=col == 1, legendrank=10 + list(FIG7_LINES).index(s)), row=1, col=col)
                continue
            fig.add_trace(go.Bar(
                x=plain["pct"], y=plain["mae"], name=s, marker_color=c, offsetgroup=s, legendgroup=s,
                error_y=ci_error_bars(plain, "mae"), showlegend=col == 1, legendrank=20 + bars.index(s)),
                row=1, col=col)
            if len(dummy):
                fig.add_trace(go.Scatter(
                    x=dummy["pct"], y=dummy["mae"], name=f"{s} + dummies", mode="markers", offsetgroup=s,
                    marker=dict(symbol="diamond", size=10, color=c, line=dict(width=1.5, color="#000000")),
                    legendgroup=f"{s}+d", showlegend=col == 1, legendrank=40 + bars.index(s)), row=1, col=col)
        if _unit(df, ds) in ("kWh", "m"):  # MAE spans 1 … 10 000 within kWh and metres: decades only
            decade_log_axis(fig, pd.concat([sub["mae"], sub.get("mae_ci_high", sub["mae"])]), row=1, col=col)
        else:
            fig.update_yaxes(range=[0, 105], row=1, col=col)
        unit = _unit(df, ds)
        fig.update_yaxes(title_text=f"MAE ({unit})", title_standoff=4, row=1, col=col)
        fig.update_xaxes(title_text="share of landmarks", type="category", row=1, col=col)
    # the legend under the panels and a two-line title: at a 1024 px projector the panels keep their width
    fig.update_layout(
        title="Fig. 7 — MAE per scheme (ε = 1; kWh and m on log scales)<br><sup>bars without, ◆ with dummy "
              "landmarks; event/user-level as lines</sup>",
        template="plotly_white", barmode="group", scattermode="group", bargap=0.25, bargroupgap=0.05,
        legend=dict(orientation="h", x=0, y=-0.3, yanchor="top", tracegroupgap=2),
        margin=dict(l=60, r=20, t=90, b=60), font=dict(size=13), height=560,
    )
    return fig


SHARE_BLUES = ["#9ECAE1", "#4292C6", "#08519C", "#08306B"]  # shades of Uniform's blue, light = small share


@chart("fig11")
def _fig11(df: pd.DataFrame):
    """MAE of Uniform per dummy-selection share (light → dark blue = growing share), one panel per data set."""
    d = df.assign(share=(df["dummy_share"] * 100).round(0).astype(int).astype(str) + " %",
                  dataset=df["dataset"].map(lambda ds: f"{DATASET_LABELS.get(ds, ds)} ({_unit(df, ds)})"))
    shares = ordered(d["share"])
    return faceted(d, x="landmark_pct", y="mae", color="share", facet="dataset", kind="bar",
                   palette={s: SHARE_BLUES[min(i, len(SHARE_BLUES) - 1)] for i, s in enumerate(shares)},
                   title="Fig. 11 — MAE of Uniform by share of ε spent on dummy-landmark selection (ε = 1)",
                   x_title="share of landmarks", legend_title="share of ε for dummies",
                   y_title=lambda ds: f"MAE ({str(ds).rsplit('(', 1)[-1].rstrip(')')})")


@chart("fig8")
def _fig8(df: pd.DataFrame):
    """Average temporal distance vs landmark % per distribution."""
    return faceted(df, x="landmark_pct", y="value", color="distribution",
                   title="Fig. 8 — average temporal distance of regular events from landmarks (n = 100)",
                   x_title="landmarks (%)", y_title="average distance (events)")


FIG9_STATISTIC = "max"  # the chart shows the maximum over t; the CSV has max and mean


@chart("fig9")
def _fig9(df: pd.DataFrame):
    """Landmark temporal privacy loss: rows overall/own/bound, columns moderate/strong, no-correlation dashed."""
    import plotly.graph_objects as go

    d = df[df["statistic"] == FIG9_STATISTIC]
    corr = d[d["correlation"] != "none"]
    fig = faceted(corr, x="landmark_pct", y="value", color="distribution", facet="correlation",
                  facet_row="quantity", title=f"Fig. 9 — landmark temporal privacy loss ({FIG9_STATISTIC} over t), "
                  "Uniform budgets, ε = 1, n = 100", x_title="landmarks (%)", y_title="privacy loss (nats)")
    none = d[d["correlation"] == "none"]
    for r, q in enumerate(ordered(corr["quantity"]), start=1):
        for c, _ in enumerate(ordered(corr["correlation"]), start=1):
            ref = none[none["quantity"] == q]
            if len(ref):
                ref = ref[ref["distribution"] == ref["distribution"].iloc[0]].sort_values("landmark_pct")
            fig.add_trace(go.Scatter(x=ref["landmark_pct"], y=ref["value"], mode="lines", name="no correlation",
                                     line=dict(color="#000000", dash="dash"), legendgroup="none",
                                     showlegend=r == 1 and c == 1), row=r, col=c)
    return fig


@chart("fig10")
def _fig10(df: pd.DataFrame):
    """Normalised distance of the dummy sets, Euclidean vs Wasserstein panels."""
    d = df.assign(metric=df["metric"].str.capitalize())
    return faceted(d, x="landmark_pct", y="distance", color="distribution", facet="metric", shared_y=True,
                   title="Fig. 10 — normalised distance of the partitioned dummy-landmark sets from L (n = 100)",
                   x_title="landmarks (%)", y_title="normalised distance")


def _unit(df: pd.DataFrame, dataset) -> str:
    """The unit column of a data set's rows."""
    units = df.loc[df["dataset"] == dataset, "unit"]
    return str(units.iloc[0]) if len(units) else ""


BASELINE_SCHEMES = ("bd", "ba", "fast", "pegasus")  # drawn dashed beside the landmark paper's six


@chart("baselines")
def _baselines(df: pd.DataFrame):
    """MAE per scheme vs landmark share (one line each, 95 % CI bars; the baselines dashed); a filled marker where
    every repetition satisfies Theorem 2, an open one where it does not; one panel per data set."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    d = df.assign(pct=pct_labels(df["landmark_pct"]))
    datasets = ordered(d["dataset"])
    fig = make_subplots(rows=1, cols=len(datasets), horizontal_spacing=0.08,
                        subplot_titles=[f"{DATASET_LABELS.get(ds, ds)} ({_unit(df, ds)})" for ds in datasets])
    order = ordered(d["scheme"])
    for col, ds in enumerate(datasets, start=1):
        sub = d[d["dataset"] == ds]
        for s in ordered(sub["scheme"]):
            g = sub[sub["scheme"] == s]
            c = SCHEME_COLORS.get(s, OKABE_ITO[7])
            protects = g["theorem2"].to_numpy() >= 1.0 if "theorem2" in g else [True] * len(g)
            fig.add_trace(go.Scatter(
                x=g["pct"], y=g["mae"], name=s, mode="lines+markers", legendgroup=s, showlegend=col == 1,
                line=dict(color=c, width=2, dash="dash" if s in BASELINE_SCHEMES else "solid"),
                marker=dict(size=8, color=[c if p else "#FFFFFF" for p in protects], line=dict(color=c, width=1.5),
                            symbol="diamond" if s in BASELINE_SCHEMES else "circle"),
                error_y=ci_error_bars(g, "mae"), legendrank=order.index(s)), row=1, col=col)
        unit = _unit(df, ds)
        if unit in ("kWh", "m"):
            decade_log_axis(fig, pd.concat([sub["mae"], sub.get("mae_ci_high", sub["mae"])]), row=1, col=col,
                            floor=False)
        fig.update_yaxes(title_text=f"MAE ({unit})", title_standoff=4, row=1, col=col)
        fig.update_xaxes(title_text="share of landmarks", type="category", row=1, col=col)
    fig.update_layout(
        title="Landmark schemes and the state of the art — MAE (ε = 1; kWh and m on log scales)<br><sup>dashed ◆: "
              "BD, BA (w-event), FAST (user level), PeGaSus (event level), values only; open markers: Theorem 2 "
              "violated (the landmarks together are not protected at ε)</sup>",
        template="plotly_white", legend=dict(orientation="h", x=0, y=-0.3, yanchor="top", tracegroupgap=2),
        margin=dict(l=60, r=20, t=90, b=60), font=dict(size=13), height=560,
    )
    return fig
