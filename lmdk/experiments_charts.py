"""Charts of the experiment runner (plotly, imported lazily); never imported by the lmdk core.

One builder per figure turns the runner's tidy summary DataFrame into a plotly Figure: the
same Figure is written as standalone HTML, as PNG (kaleido + the system Chromium) and shown
on the Experiments page. Colours follow the Okabe–Ito palette, one colour per scheme.
"""
from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000"]
SCHEME_COLORS = {  # the same colours as ui/charts.py SCHEME_COLOURS (dashboard convention)
    "event": "#E69F00", "user": "#56B4E9", "w-event": "#009E73",
    "uniform": "#0072B2", "skip": "#D55E00", "adaptive": "#CC79A7",
}
PNG_SIZE = (1200, 560)


def _color_map(values: Sequence) -> dict:
    """Stable colours: schemes keep their own, other categories cycle through Okabe–Ito."""
    out, k = {}, 0
    for v in values:
        if v in SCHEME_COLORS:
            out[v] = SCHEME_COLORS[v]
        else:
            out[v] = OKABE_ITO[k % len(OKABE_ITO)]
            k += 1
    return out


def _ordered(series: pd.Series) -> list:
    """Unique values in order of first appearance (the runner's configuration order)."""
    return list(dict.fromkeys(series.tolist()))


def faceted(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    color: str | None = None,
    facet: str | None = None,
    facet_row: str | None = None,
    kind: str = "line",
    band: bool = True,
    title: str = "",
    x_title: str | None = None,
    y_title: str | Callable[[object], str] | None = None,
    dash: str | None = None,
    log_y: bool = False,
    shared_y: bool = False,
):
    """Lines (with a CI band) or grouped bars (with CI error bars) per colour; panels per facet (× facet_row)."""
    from plotly.subplots import make_subplots

    facets = _ordered(df[facet]) if facet else [None]
    rows = _ordered(df[facet_row]) if facet_row else [None]
    colors = _ordered(df[color]) if color else [None]
    cmap = _color_map(colors)
    titles = [" · ".join(str(v) for v in (r, f) if v is not None) for r in rows for f in facets]
    fig = make_subplots(
        rows=len(rows), cols=len(facets), subplot_titles=titles, shared_yaxes=shared_y,
        horizontal_spacing=0.08 if len(facets) > 1 else 0.0, vertical_spacing=0.12 if len(rows) > 1 else 0.0,
    )
    lo, hi = f"{y}_ci_low", f"{y}_ci_high"
    has_ci = lo in df and hi in df
    dashes = {}
    if dash:
        dashes = {v: d for v, d in zip(_ordered(df[dash]), ["solid", "dash", "dot", "dashdot"] * 4)}
    for row, rval in enumerate(rows, start=1):
        for col, fval in enumerate(facets, start=1):
            sub = df if facet is None else df[df[facet] == fval]
            sub = sub if facet_row is None else sub[sub[facet_row] == rval]
            first = row == 1 and col == 1
            _panel(fig, sub, row, col, x=x, y=y, color=color, colors=colors, cmap=cmap, dash=dash,
                   dashes=dashes, kind=kind, band=band and has_ci, lo=lo, hi=hi, has_ci=has_ci, first=first)
            if row == len(rows):
                fig.update_xaxes(title_text=x_title or x, row=row, col=col)
            ytext = y_title(fval) if callable(y_title) else (y_title or y)
            fig.update_yaxes(title_text=ytext if col == 1 or callable(y_title) else None,
                             type="log" if log_y else None, row=row, col=col)
    fig.update_layout(
        title=title, template="plotly_white", barmode="group", legend_title_text=color or "",
        margin=dict(l=60, r=20, t=70, b=50), font=dict(size=13), height=max(420, 300 * len(rows) + 80),
    )
    return fig


def _panel(fig, sub, row, col, *, x, y, color, colors, cmap, dash, dashes, kind, band, lo, hi, has_ci, first):
    """Draw one panel's traces: a bar or a line (+ CI band) per colour (and dash) value."""
    import plotly.graph_objects as go

    for cval in colors:
        part = sub if color is None else sub[sub[color] == cval]
        groups = [(None, part)] if not dash else [(d, part[part[dash] == d]) for d in dashes]
        for dval, grp in groups:
            if grp.empty:
                continue
            grp = grp.sort_values(x) if kind == "line" else grp
            name = " · ".join(str(v) for v in (cval, dval) if v is not None) or y
            c = cmap.get(cval, OKABE_ITO[3])
            if kind == "bar":
                err = None
                if has_ci:
                    err = dict(type="data", array=grp[hi] - grp[y], arrayminus=grp[y] - grp[lo], thickness=1)
                fig.add_trace(go.Bar(x=grp[x], y=grp[y], name=name, marker_color=c, error_y=err,
                                     legendgroup=name, showlegend=first), row=row, col=col)
                continue
            if band:
                fig.add_trace(go.Scatter(
                    x=list(grp[x]) + list(grp[x])[::-1], y=list(grp[hi]) + list(grp[lo])[::-1],
                    fill="toself", fillcolor=c, opacity=0.18, line=dict(width=0), hoverinfo="skip",
                    legendgroup=name, showlegend=False), row=row, col=col)
            fig.add_trace(go.Scatter(
                x=grp[x], y=grp[y], name=name, mode="lines+markers",
                line=dict(color=c, dash=dashes.get(dval, "solid")), marker=dict(size=5),
                legendgroup=name, showlegend=first), row=row, col=col)


# --------------------------------------------------------------------------- per figure

CHARTS: dict[str, Callable[[pd.DataFrame], object]] = {}


def chart(name: str):
    """Decorator registering the chart builder of figure ``name``."""

    def deco(fn):
        CHARTS[name] = fn
        return fn

    return deco


def figure_chart(name: str, df: pd.DataFrame):
    """The plotly Figure of experiment ``name`` built from its tidy summary."""
    if name not in CHARTS:
        raise KeyError(f"no chart builder for figure {name!r}")
    return CHARTS[name](df)


FIG7_LINES = {"event": "dot", "user": "dash"}  # the two reference levels, drawn as lines across the bars
DATASET_LABELS = {"hue": "HUE residence 1", "taxi": "taxi sample (synthetic)", "contacts": "contact sample (synthetic)"}


@chart("fig7")
def _fig7(df: pd.DataFrame):
    """Grouped bars per landmark scheme, ◆ on the same bar for its dummy variant, event/user as lines; one panel per data set."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    d = df.assign(pct=_pct_labels(df["landmark_pct"]), dummies=df["dummies"].astype(bool))
    datasets = _ordered(d["dataset"])
    fig = make_subplots(rows=1, cols=len(datasets), horizontal_spacing=0.1,
                        subplot_titles=[f"{DATASET_LABELS.get(ds, ds)} ({_unit(df, ds)})" for ds in datasets])
    bars = [s for s in _ordered(d["scheme"]) if s not in FIG7_LINES]
    for col, ds in enumerate(datasets, start=1):
        sub = d[d["dataset"] == ds]
        for s in _ordered(sub["scheme"]):
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
                error_y=_error_bars(plain, "mae"), showlegend=col == 1, legendrank=20 + bars.index(s)),
                row=1, col=col)
            if len(dummy):
                fig.add_trace(go.Scatter(
                    x=dummy["pct"], y=dummy["mae"], name=f"{s} + dummies", mode="markers", offsetgroup=s,
                    marker=dict(symbol="diamond", size=10, color=c, line=dict(width=1.5, color="#000000")),
                    legendgroup=f"{s}+d", showlegend=col == 1, legendrank=40 + bars.index(s)), row=1, col=col)
        if _unit(df, ds) in ("kWh", "m"):  # MAE spans 1 … 10 000 within kWh and metres: decades only
            _log_axis(fig, pd.concat([sub["mae"], sub.get("mae_ci_high", sub["mae"])]), row=1, col=col)
        else:
            fig.update_yaxes(range=[0, 105], row=1, col=col)
        unit = _unit(df, ds)
        fig.update_yaxes(title_text=f"MAE ({unit}{', log scale' if unit in ('kWh', 'm') else ''})",
                         title_standoff=6, row=1, col=col)
        fig.update_xaxes(title_text="share of landmarks", type="category", row=1, col=col)
    fig.update_layout(
        title="Fig. 7 — MAE per scheme: bars without, ◆ with dummy landmarks; event/user-level as lines (ε = 1)",
        template="plotly_white", barmode="group", scattermode="group", bargap=0.25, bargroupgap=0.05,
        legend=dict(title_text="scheme", tracegroupgap=2), margin=dict(l=70, r=20, t=80, b=60),
        font=dict(size=13), height=480,
    )
    return fig


def _pct_labels(values: pd.Series) -> pd.Series:
    """Landmark percentages as category labels ('20 %'), so bars sit on exactly the measured points."""
    return values.astype(int).astype(str) + " %"


def _error_bars(grp: pd.DataFrame, y: str):
    """Asymmetric 95 % CI error bars of measure ``y``, or None when the summary has no CI columns."""
    lo, hi = f"{y}_ci_low", f"{y}_ci_high"
    if lo not in grp or hi not in grp:
        return None
    return dict(type="data", array=(grp[hi] - grp[y]).clip(lower=0), arrayminus=(grp[y] - grp[lo]).clip(lower=0),
                thickness=1, width=3, color="#444444")


def _log_axis(fig, values: pd.Series, *, row: int, col: int) -> None:
    """A log y axis with one labelled tick per decade (1, 10, 100, 1 000 …) and no minor labels."""
    v = pd.to_numeric(values, errors="coerce")
    v = v[(v > 0) & v.notna()]
    if v.empty:
        fig.update_yaxes(type="log", row=row, col=col)
        return
    lo, top = math.floor(math.log10(v.min())), math.log10(v.max()) + 0.1  # bars need a decade floor
    ticks = [10.0 ** k for k in range(lo, math.floor(top) + 1)]
    fig.update_yaxes(type="log", tickvals=ticks, ticktext=[_decade_label(t) for t in ticks],
                     range=[lo - 0.02, max(top, lo + 1)], minor=dict(showgrid=False, ticks=""), row=row, col=col)


def _decade_label(value: float) -> str:
    """'0.01', '1', '1 000', '1e+06': plain numbers with a thin thousands space, powers beyond a million."""
    if value >= 1e6 or value < 1e-3:
        return f"{value:.0e}"
    return f"{value:,.10g}".replace(",", " ")


@chart("fig11")
def _fig11(df: pd.DataFrame):
    """MAE of Uniform per dummy-selection share, one panel per data set."""
    d = df.assign(share=(df["dummy_share"] * 100).round(0).astype(int).astype(str) + " %")
    return faceted(d, x="landmark_pct", y="mae", color="share", facet="dataset", kind="bar",
                   title="Fig. 11 — MAE of Uniform by share of ε spent on dummy selection",
                   x_title="landmarks (%)", y_title=lambda ds: f"MAE ({_unit(df, ds)})")


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
                  "Uniform budgets, ε = 1, n = 100", x_title="landmarks (%)", y_title="privacy loss (ε)")
    none = d[d["correlation"] == "none"]
    for r, q in enumerate(_ordered(corr["quantity"]), start=1):
        for c, _ in enumerate(_ordered(corr["correlation"]), start=1):
            ref = none[none["quantity"] == q]
            ref = ref[ref["distribution"] == ref["distribution"].iloc[0]].sort_values("landmark_pct") if len(ref) else ref
            fig.add_trace(go.Scatter(x=ref["landmark_pct"], y=ref["value"], mode="lines", name="no correlation",
                                     line=dict(color="#000000", dash="dash"), legendgroup="none",
                                     showlegend=r == 1 and c == 1), row=r, col=c)
    return fig


@chart("fig10")
def _fig10(df: pd.DataFrame):
    """Normalised distance of the dummy sets, Euclidean vs Wasserstein panels."""
    return faceted(df, x="landmark_pct", y="distance", color="distribution", facet="metric", shared_y=True,
                   title="Fig. 10 — normalised distance of the partitioned dummy-landmark sets from L (n = 100)",
                   x_title="landmarks (%)", y_title="normalised distance")


def _unit(df: pd.DataFrame, dataset) -> str:
    """The unit column of a data set's rows."""
    units = df.loc[df["dataset"] == dataset, "unit"]
    return str(units.iloc[0]) if len(units) else ""


# --------------------------------------------------------------------------- files


def write_html(fig, path: Path) -> Path:
    """Standalone interactive HTML; plotly.js is written once next to it (works offline)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.write_html(str(path), include_plotlyjs="directory", full_html=True)
    return path


def png_unavailable() -> str | None:
    """Why PNG export cannot work here (kaleido or Chromium missing), or None if it can."""
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return "the 'kaleido' package is not installed (pip install -r requirements.txt)"
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome", "chrome")):
        return "no Chrome/Chromium browser found (apt-get install -y chromium)"
    return None


def write_png(fig, path: Path, width: int = PNG_SIZE[0]) -> Path:
    """Static PNG through kaleido 1.x, which drives the system Chromium headless."""
    return write_pngs([(fig, Path(path))], width)[0]


def write_pngs(items, width: int = PNG_SIZE[0]) -> list[Path]:
    """Several PNGs with one headless-Chromium start (kaleido batch); items are (figure, path) pairs."""
    import plotly.io as pio

    if not items:
        return []
    figs, paths = [f for f, _ in items], [Path(p) for _, p in items]
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
    heights = [int(f.layout.height or PNG_SIZE[1]) for f in figs]
    pio.write_images(figs, [str(p) for p in paths], width=width, height=heights, scale=1)
    return paths


@chart("priste-budget")
def _priste_budget(df: pd.DataFrame):
    """Mean α per timestamp with a CI band, colour = ε, dash = initial α, one panel per figure."""
    d = df.assign(eps="ε = " + df["epsilon"].astype(str), a0=df["alpha0"].astype(str) + "-PLM")
    return faceted(d, x="t", y="alpha", color="eps", dash="a0", facet="panel",
                   title="PriSTE Figs. 8–11 — α used per timestamp (PRESENCE, S = cells 1–10, 20×20 grid)",
                   x_title="timestamp (0-based)", y_title="α used (1/m)")


@chart("priste-utility")
def _priste_utility(df: pd.DataFrame):
    """Mean α and mean distance vs ε (rows), one panel per figure, colour = the varied α₀, δ or σ."""
    def series(r) -> str:
        if r["panel"].startswith("fig13"):
            return f"δ = {r['delta']:g}"
        if r["panel"].startswith("fig14"):
            return f"σ = {r['sigma']:g}"
        return f"{r['alpha0']:g}-PLM"

    base = df.assign(series=df.apply(series, axis=1))
    parts = []
    for col, label in (("mean_alpha", "average α (1/m)"), ("mean_distance_m", "average distance (m)")):
        part = base[["panel", "epsilon", "series"]].assign(
            quantity=label, value=base[col], value_ci_low=base[f"{col}_ci_low"], value_ci_high=base[f"{col}_ci_high"])
        parts.append(part)
    d = pd.concat(parts, ignore_index=True)
    return faceted(d, x="epsilon", y="value", color="series", facet="panel", facet_row="quantity",
                   title="PriSTE Figs. 12–14 — utility averaged over timestamps (PRESENCE, S = cells 1–10, "
                         "T = 4–8, synthetic 20×20)", x_title="ε", y_title="mean over timestamps")


@chart("priste-runtime")
def _priste_runtime(df: pd.DataFrame):
    """Seconds per event vs event size (log scale), colour = method, one panel for length and one for width."""
    extrap = df["method"].str.startswith("brute") & (df["extrapolated"] > 0)
    d = df.assign(series=df["method"] + extrap.map({True: " (extrapolated)", False: ""}),
                  panel="event " + df["vary"] + " (other side = 5)")
    return faceted(d, x="size", y="seconds", color="series", facet="panel", log_y=True,
                   title="PriSTE Fig. 15 — runtime per random PATTERN event vs the brute-force baseline",
                   x_title="event size (timestamps or cells)", y_title="seconds per event (log)")
