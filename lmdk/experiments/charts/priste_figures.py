"""PriSTE's figures and tables (Figs. 8–15, Table 2) from the PriSTE experiments' summaries, one builder each."""
from __future__ import annotations

import pandas as pd

from lmdk.experiments.charts.common import OKABE_ITO, chart, ci_band, ci_error_bars, decade_log_axis, faceted, ordered


def _short_panel(panel: str) -> str:
    """'fig11 δ-location set, T=[4:8]' → 'Fig. 11: δ-set, T=[4:8]' (fits a quarter-width subplot title)."""
    head, _, rest = str(panel).partition(" ")
    rest = rest.replace("δ-location set", "δ-set").replace("both events", "both")
    return f"Fig. {head[3:]}: {rest}" if head.startswith("fig") else str(panel)


def _scale(df: pd.DataFrame) -> str:
    """', 100 m cells (…)' naming the PriSTE run's cell size for a title ('' if the CSV has no cell_km column)."""
    from lmdk.experiments.assumptions import scale_label

    if "cell_km" not in df or not len(df):
        return ""
    return ", " + " / ".join(scale_label(c) for c in ordered(df["cell_km"]))


PRISTE_WINDOWS = {"fig8": [(4, 8)], "fig9": [(16, 20)], "fig10": [(4, 8), (16, 20)], "fig11": [(4, 8)]}  # 1-based


@chart("priste-budget")
def _priste_budget(df: pd.DataFrame):
    """Mean α per timestamp (log), colour = ε; rows = the PLM's α₀ (dashed line), columns = Figs. 8–11; event
    windows shaded."""
    import plotly.graph_objects as go

    reps = int(df["repetitions"].max()) if "repetitions" in df and len(df) else 0
    d = df.assign(eps="ε = " + df["epsilon"].map(lambda e: f"{e:g}"), plm=df["alpha0"].map(lambda a: f"{a:g}-PLM"),
                  panel=df["panel"].map(_short_panel))
    fig = faceted(d, x="t", y="alpha", color="eps", facet="panel", facet_row="plm", log_y=True, band=False,
                  title=f"PriSTE Figs. 8–11 — mean α used per timestamp ({reps} repetitions{_scale(df)}); "
                        "grey = event window, dashed = the PLM's α₀", x_title="timestamp (1-based)",
                  y_title="α used (per km, log)", legend_title="event privacy")
    fig.for_each_trace(lambda tr: tr.update(x=[t + 1 for t in tr.x]))  # the paper counts timestamps from 1
    for r, plm in enumerate(ordered(d["plm"]), start=1):
        a0 = float(d.loc[d["plm"] == plm, "alpha0"].iloc[0])
        for c, panel in enumerate(ordered(d["panel"]), start=1):
            key = "fig" + panel.split()[1].rstrip(":")
            for a, b in PRISTE_WINDOWS.get(key, []):
                fig.add_vrect(x0=a - 0.5, x1=b + 0.5, fillcolor="#BBBBBB", opacity=0.35, line_width=0, layer="below",
                              row=r, col=c)
            fig.add_trace(go.Scatter(x=[d["t"].min() + 1, d["t"].max() + 1], y=[a0, a0], mode="lines",
                                     name="α₀ (no calibration)", line=dict(color="#000000", dash="dash", width=1),
                                     legendgroup="a0", showlegend=r == 1 and c == 1, hoverinfo="skip"), row=r, col=c)
        sub = d[d["plm"] == plm]
        for c in range(1, len(ordered(d["panel"])) + 1):
            decade_log_axis(fig, pd.concat([sub["alpha"], pd.Series([a0])]), row=r, col=c, floor=False)
    return fig


UTILITY_MEASURES = (("mean_alpha", "average α (per km, log)", 1.0), ("mean_distance_m", "average distance (km)", 1e-3))
MIN_REPETITIONS_FOR_BANDS = 5  # a t-interval from 2–4 repetitions is wider than the data: leave it to the CSV


def _repetitions(df: pd.DataFrame) -> int:
    """The fewest repetitions behind any row of a summary (0 if it has none), for titles and band decisions."""
    return int(df["repetitions"].min()) if "repetitions" in df and len(df) else 0


def _utility_series(r) -> str:
    """The varied parameter of a Figs. 12–14 row as a legend label."""
    if str(r["panel"]).startswith("fig13"):
        return f"δ = {r['delta']:g}"
    if str(r["panel"]).startswith("fig14"):
        return f"σ = {r['sigma']:g}"
    return f"{r['alpha0']:g}-PLM"


@chart("priste-utility")
def _priste_utility(df: pd.DataFrame):
    """Average α (top) and distance (bottom) vs ε; one column per figure, each with its own legend below it."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    d = df.assign(series=df.apply(_utility_series, axis=1))
    panels = ordered(d["panel"])
    reps = _repetitions(d)
    bands = reps >= MIN_REPETITIONS_FOR_BANDS
    fig = make_subplots(rows=2, cols=len(panels), horizontal_spacing=0.08, vertical_spacing=0.1,
                        subplot_titles=[_short_panel(p) for p in panels] + [""] * len(panels))
    for c, panel in enumerate(panels, start=1):
        sub = d[d["panel"] == panel]
        legend = "legend" if c == 1 else f"legend{c}"
        for k, series in enumerate(ordered(sub["series"])):
            grp = sub[sub["series"] == series].sort_values("epsilon")
            colour = OKABE_ITO[k % len(OKABE_ITO)]
            for r, (col, label, scale) in enumerate(UTILITY_MEASURES, start=1):
                log_row = r == 1  # α: decade_log_axis below; a band reaching 0 has no place on a log axis
                if bands and not (log_row and (grp[f"{col}_ci_low"] <= 0).any()):
                    fig.add_trace(ci_band(go, grp["epsilon"], grp[f"{col}_ci_low"].clip(lower=0) * scale,
                                          grp[f"{col}_ci_high"] * scale, colour, legend=legend,
                                          legendgroup=f"{c}:{series}"), row=r, col=c)
                fig.add_trace(go.Scatter(
                    x=grp["epsilon"], y=grp[col] * scale, name=series, mode="lines+markers",
                    line=dict(color=colour, width=2), marker=dict(size=6), legend=legend,
                    legendgroup=f"{c}:{series}", showlegend=r == 1), row=r, col=c)
                fig.update_yaxes(title_text=label if c == 1 else None, title_standoff=6, row=r, col=c,
                                 rangemode="tozero" if r > 1 else None)
            fig.update_xaxes(title_text="ε (spatiotemporal event privacy)", row=2, col=c)
        decade_log_axis(fig, sub["mean_alpha"], row=1, col=c, floor=False)  # α spans 10–100× over ε
        dom = fig.layout[f"xaxis{c if c > 1 else ''}"].domain
        fig.update_layout({legend: dict(orientation="v", x=dom[0], xanchor="left", y=-0.12, yanchor="top",
                                        font=dict(size=12), bgcolor="rgba(255,255,255,0)")})
    note = "" if bands else (f"<br><span style='font-size:12px'>CI bands omitted below {MIN_REPETITIONS_FOR_BANDS} "
                             "repetitions (see the CSV)</span>")
    fig.update_layout(
        title=f"PriSTE Figs. 12–14 — utility averaged over timestamps, PRESENCE(S = cells 1–10, T = 4–8), "
              f"synthetic 20×20{_scale(df)}, {reps} repetitions{note}",
        template="plotly_white", margin=dict(l=70, r=20, t=95, b=170), font=dict(size=13), height=770,
    )
    fig.update_layout(title_font_size=14)
    fig.update_annotations(font_size=13)
    return fig


RUNTIME_METHODS = {  # method → (legend label, colour, dash)
    "priste_joint": ("PriSTE, joint probability check", OKABE_ITO[2], "solid"),
    "priste_worst_case": ("PriSTE, exact worst case over priors", OKABE_ITO[3], "solid"),
    "brute_force_joint": ("brute force (open ○ = extrapolated)", OKABE_ITO[7], "dot"),
}


@chart("priste-runtime")
def _priste_runtime(df: pd.DataFrame):
    """Seconds per event vs event length and width (log); brute-force points open where extrapolated."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    varies = ordered(df["vary"])
    fig = make_subplots(rows=1, cols=len(varies), horizontal_spacing=0.1,
                        subplot_titles=[f"event {v} (the other side fixed at 5)" for v in varies])
    for c, vary in enumerate(varies, start=1):
        sub = df[df["vary"] == vary]
        for method in ordered(sub["method"]):
            grp = sub[sub["method"] == method].sort_values("size")
            label, colour, dash = RUNTIME_METHODS.get(method, (method, OKABE_ITO[5], "solid"))
            extrapolated = grp["extrapolated"].to_numpy() > 0 if "extrapolated" in grp else [False] * len(grp)
            fig.add_trace(go.Scatter(
                x=grp["size"], y=grp["seconds"], name=label, mode="lines+markers", legendgroup=method,
                line=dict(color=colour, dash=dash, width=2), showlegend=c == 1,
                marker=dict(size=8, color=[("#FFFFFF" if e else colour) for e in extrapolated],
                            line=dict(color=colour, width=2))), row=1, col=c)
        decade_log_axis(fig, sub["seconds"], row=1, col=c, floor=False)
        unit = "timestamps" if vary == "length" else "cells"
        fig.update_xaxes(title_text=f"event {vary} ({unit})", dtick=2, row=1, col=c)
        fig.update_yaxes(title_text="seconds per event (log)" if c == 1 else None, title_standoff=6, row=1, col=c)
    reps = _repetitions(df)
    fig.update_layout(
        title=f"PriSTE Fig. 15 — runtime per random PATTERN event ({reps} events per size{_scale(df)}) vs brute force",
        template="plotly_white", margin=dict(l=70, r=20, t=80, b=60), font=dict(size=13), height=480,
        legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"),
    )
    return fig


TABLE2_CHECKS = {"any_prior": ("exact check, any prior (paper's definition)", "#0072B2"),
                 "fixed_prior": ("check at the uniform prior only (§3)", "#D55E00")}
TABLE2_PANELS = (("cpu_s", "CPU per release (s)"), ("mean_alpha", "average α (per km)"),
                 ("mean_distance_km", "average distance (km)"),
                 ("max_worst_leakage", "max any-prior leakage (dashed: ε)"))


@chart("priste-table2")
def _priste_table2(df: pd.DataFrame):
    """Grouped bars per α₀-PLM, one colour per check; panels CPU time, α, distance, audited leakage (ε dashed)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from lmdk.experiments.assumptions import TABLE2_EPSILON

    panels = [(c, label) for c, label in TABLE2_PANELS if c in df]
    fig = make_subplots(rows=1, cols=len(panels), horizontal_spacing=0.08, subplot_titles=[lb for _, lb in panels])
    for c, (col, _) in enumerate(panels, start=1):
        for check, (label, colour) in TABLE2_CHECKS.items():
            sub = df[df["check"] == check].sort_values("alpha0")
            if sub.empty:
                continue
            fig.add_trace(go.Bar(x=[f"{a:g}-PLM" for a in sub["alpha0"]], y=sub[col], name=label, legendgroup=check,
                                 marker_color=colour, error_y=ci_error_bars(sub, col), showlegend=c == 1),
                          row=1, col=c)
        if col in ("mean_alpha", "max_worst_leakage"):
            values = df[col] if col == "mean_alpha" else pd.concat([df[col], pd.Series([TABLE2_EPSILON])])
            decade_log_axis(fig, values, row=1, col=c)
        if col == "max_worst_leakage":
            fig.add_hline(y=TABLE2_EPSILON, line=dict(color="#000000", dash="dash", width=1), row=1, col=c)
    reps = _repetitions(df)
    fallback = float(df["uniform_releases"].max()) if "uniform_releases" in df and len(df) else 0.0
    fallback_text = ("no run needed the uniform fallback" if fallback == 0
                     else f"up to {fallback:g} uniform-fallback releases per run")
    fig.update_layout(
        title=f"PriSTE Table 2 counterpart — PRESENCE(S=[1:10], T=[4:8]), ε = {TABLE2_EPSILON:g}, {reps} runs"
              f"{_scale(df)}, {fallback_text}",
        barmode="group", template="plotly_white", margin=dict(l=70, r=20, t=90, b=60), font=dict(size=13),
        height=480, legend=dict(orientation="h", x=0, y=-0.15, yanchor="top"),
    )
    return fig
