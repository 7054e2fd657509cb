"""Charts of the experiment runner (plotly, imported lazily); never imported by the lmdk core.

One builder per figure turns the runner's tidy summary DataFrame into a plotly Figure: the
same Figure is written as standalone HTML, as PNG (kaleido + the system Chromium) and shown
on the Experiments page. Colours follow the Okabe–Ito palette, one colour per scheme.
"""
from __future__ import annotations

import math
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000"]
SCHEME_COLORS = {  # the same colours as ui/charts.py SCHEME_COLOURS (dashboard convention)
    "event": "#E69F00", "user": "#56B4E9", "w-event": "#009E73",
    "uniform": "#0072B2", "skip": "#D55E00", "adaptive": "#CC79A7",
    "bd": "#332288", "ba": "#882255", "fast": "#999933", "pegasus": "#117733",  # the baselines (Tol's muted)
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
    palette: dict | None = None,
    nonnegative: bool = True,
    legend_title: str | None = None,
):
    """Lines (with a CI band) or grouped bars (with CI error bars) per colour; panels per facet (× facet_row).

    Bars use a categorical x (every bar sits on a measured value); log axes are labelled per decade only;
    CI bands of a ``nonnegative`` measure are clipped at 0 (on log axes a band reaching 0 is left out).
    """
    from plotly.subplots import make_subplots

    facets = _ordered(df[facet]) if facet else [None]
    rows = _ordered(df[facet_row]) if facet_row else [None]
    colors = _ordered(df[color]) if color else [None]
    cmap = dict(palette) if palette else _color_map(colors)
    titles = [" · ".join(str(v) for v in (r, f) if v is not None) for r in rows for f in facets]
    per_panel_y = callable(y_title) and not shared_y
    fig = make_subplots(
        rows=len(rows), cols=len(facets), subplot_titles=titles, shared_yaxes=shared_y,
        horizontal_spacing=(0.1 if per_panel_y else 0.06) if len(facets) > 1 else 0.0,
        vertical_spacing=min(0.12, 0.3 / len(rows)) if len(rows) > 1 else 0.0,
    )
    if kind == "bar":
        df = df.assign(**{x: _category_labels(df[x], x)})
    lo, hi = f"{y}_ci_low", f"{y}_ci_high"
    has_ci = lo in df and hi in df
    dashes = {}
    if dash:
        dashes = {v: d for v, d in zip(_ordered(df[dash]), ["solid", "dash", "dot", "dashdot"] * 4, strict=False)}
    shown: set[str] = set()
    for row, rval in enumerate(rows, start=1):
        for col, fval in enumerate(facets, start=1):
            sub = df if facet is None else df[df[facet] == fval]
            sub = sub if facet_row is None else sub[sub[facet_row] == rval]
            _panel(fig, sub, row, col, x=x, y=y, color=color, colors=colors, cmap=cmap, dash=dash,
                   dashes=dashes, kind=kind, band=band and has_ci, lo=lo, hi=hi, has_ci=has_ci, shown=shown,
                   log_y=log_y, nonnegative=nonnegative)
            if row == len(rows):
                fig.update_xaxes(title_text=x_title or x, row=row, col=col)
            if kind == "bar":
                fig.update_xaxes(type="category", row=row, col=col)
            ytext = y_title(fval) if callable(y_title) else (y_title or y)
            fig.update_yaxes(title_text=ytext if col == 1 or per_panel_y else None, title_standoff=6,
                             rangemode="tozero" if nonnegative and not log_y else None, row=row, col=col)
            if log_y:
                values = sub[y] if not has_ci else pd.concat([sub[y], sub[hi]])
                decade_log_axis(fig, df[y] if shared_y else values, row=row, col=col, floor=kind == "bar")
    fig.update_layout(
        title=title, template="plotly_white", barmode="group", bargap=0.2, bargroupgap=0.05,
        legend=dict(title_text=legend_title if legend_title is not None else (color or ""), tracegroupgap=2),
        margin=dict(l=70, r=20, t=80, b=60), font=dict(size=13), height=max(440, 290 * len(rows) + 110),
    )
    fig.update_annotations(font_size=13 if len(facets) < 4 else 12)  # subplot titles
    return fig


def _panel(fig, sub, row, col, *, x, y, color, colors, cmap, dash, dashes, kind, band, lo, hi, has_ci, shown,
           log_y, nonnegative):
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
            first = name not in shown
            shown.add(name)
            if kind == "bar":
                fig.add_trace(go.Bar(x=grp[x], y=grp[y], name=name, marker_color=c, offsetgroup=name,
                                     error_y=ci_error_bars(grp, y) if has_ci else None,
                                     legendgroup=name, showlegend=first), row=row, col=col)
                continue
            low = (grp[lo].clip(lower=0) if nonnegative else grp[lo]) if band else None
            if band and not (log_y and (low <= 0).any()):
                fig.add_trace(ci_band(go, grp[x], low, grp[hi], c, legendgroup=name), row=row, col=col)
            fig.add_trace(go.Scatter(
                x=grp[x], y=grp[y], name=name, mode="lines+markers",
                line=dict(color=c, dash=dashes.get(dval, "solid"), width=2), marker=dict(size=5),
                legendgroup=name, showlegend=first), row=row, col=col)


def rgba(hex_colour: str, alpha: float) -> str:
    """'#RRGGBB' → 'rgba(r,g,b,alpha)' (a translucent fill that keeps the line colour)."""
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def ci_band(go, x, low, high, colour: str, **kw):
    """A translucent closed band between ``low`` and ``high`` over ``x`` (a confidence interval), no hover/legend."""
    x = list(x)
    return go.Scatter(x=x + x[::-1], y=list(high) + list(low)[::-1], mode="lines", fill="toself",
                      fillcolor=rgba(colour, 0.16), line=dict(width=0), hoverinfo="skip", showlegend=False, **kw)


def _category_labels(values: pd.Series, column: str) -> pd.Series:
    """Bar positions as category labels; percentages get a ' %' suffix."""
    if column.endswith("_pct"):
        return _pct_labels(values)
    return values.astype(str)


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
DATASET_LABELS = {"hue": "HUE residence 1", "taxi": "taxi (synthetic)", "contacts": "contacts (synthetic)"}


@chart("fig7")
def _fig7(df: pd.DataFrame):
    """Grouped bars per landmark scheme, ◆ on the same bar for its dummy variant, event/user as lines; one panel per
    data set."""
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


def _pct_labels(values: pd.Series) -> pd.Series:
    """Landmark percentages as category labels ('20 %'), so bars sit on exactly the measured points."""
    return values.astype(int).astype(str) + " %"


def ci_error_bars(grp: pd.DataFrame, y: str):
    """Asymmetric 95 % CI error bars of measure ``y``, or None when the summary has no CI columns."""
    lo, hi = f"{y}_ci_low", f"{y}_ci_high"
    if lo not in grp or hi not in grp:
        return None
    low = grp[lo].clip(lower=0)  # every measure drawn as bars is non-negative
    return dict(type="data", array=(grp[hi] - grp[y]).clip(lower=0), arrayminus=(grp[y] - low).clip(lower=0),
                thickness=1, width=3, color="#444444")


def decade_log_axis(fig, values: pd.Series, *, row: int, col: int, floor: bool = True) -> None:
    """A log y axis with one labelled tick per decade (1, 10, 100, 1 000 …) and no minor labels.

    With ``floor`` the axis starts at a whole decade (bars need a base); otherwise just below the data.
    """
    v = pd.to_numeric(values, errors="coerce")
    v = v[(v > 0) & v.notna()]
    if v.empty:
        fig.update_yaxes(type="log", row=row, col=col)
        return
    bottom, top = math.log10(v.min()) - 0.1, math.log10(v.max()) + 0.15
    if floor:
        bottom = math.floor(bottom + 0.1) - 0.02
    if top - bottom < 1:  # always show at least one labelled decade
        bottom = math.floor(bottom)
        top = max(top, bottom + 1.02)
    ticks = [10.0 ** k for k in range(math.ceil(bottom), math.floor(top) + 1)]
    if len(ticks) < 3:  # under ~2 decades one label per decade is too sparse: 1-2-5 steps instead
        ticks = [m * 10.0 ** k for k in range(math.floor(bottom), math.ceil(top) + 1) for m in (1, 2, 5)
                 if bottom <= math.log10(m * 10.0 ** k) <= top]
    fig.update_yaxes(type="log", tickvals=ticks, ticktext=[_decade_label(t) for t in ticks],
                     range=[bottom, top], minor=dict(showgrid=False, ticks=""), row=row, col=col)


def _decade_label(value: float) -> str:
    """'0.01', '1', '1 000', '10⁶', '2×10⁻⁴': plain numbers with a thin thousands space, powers of ten beyond."""
    if value >= 1e6 or value < 1e-3:
        k = math.floor(math.log10(value) + 1e-9)
        mantissa = round(value / 10.0 ** k)
        power = "10" + str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
        return power if mantissa == 1 else f"{mantissa}×{power}"
    return f"{value:,.10g}".replace(",", " ")


SHARE_BLUES = ["#9ECAE1", "#4292C6", "#08519C", "#08306B"]  # shades of Uniform's blue, light = small share


@chart("fig11")
def _fig11(df: pd.DataFrame):
    """MAE of Uniform per dummy-selection share (light → dark blue = growing share), one panel per data set."""
    d = df.assign(share=(df["dummy_share"] * 100).round(0).astype(int).astype(str) + " %",
                  dataset=df["dataset"].map(lambda ds: f"{DATASET_LABELS.get(ds, ds)} ({_unit(df, ds)})"))
    shares = _ordered(d["share"])
    return faceted(d, x="landmark_pct", y="mae", color="share", facet="dataset", kind="bar",
                   palette={s: SHARE_BLUES[min(i, len(SHARE_BLUES) - 1)] for i, s in enumerate(shares)},
                   title="Fig. 11 — MAE of Uniform by share of ε spent on dummy-landmark selection (ε = 1)",
                   x_title="share of landmarks", legend_title="share of ε for dummies",
                   y_title=lambda ds: f"MAE ({ds.rsplit('(', 1)[-1].rstrip(')')})")


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

    d = df.assign(pct=_pct_labels(df["landmark_pct"]))
    datasets = _ordered(d["dataset"])
    fig = make_subplots(rows=1, cols=len(datasets), horizontal_spacing=0.08,
                        subplot_titles=[f"{DATASET_LABELS.get(ds, ds)} ({_unit(df, ds)})" for ds in datasets])
    order = _ordered(d["scheme"])
    for col, ds in enumerate(datasets, start=1):
        sub = d[d["dataset"] == ds]
        for s in _ordered(sub["scheme"]):
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
    return ", " + " / ".join(scale_label(c) for c in _ordered(df["cell_km"]))


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
                  y_title="α used (per km, log)",
                  legend_title="event privacy")
    fig.for_each_trace(lambda tr: tr.update(x=[t + 1 for t in tr.x]))  # the paper counts timestamps from 1
    for r, plm in enumerate(_ordered(d["plm"]), start=1):
        a0 = float(d.loc[d["plm"] == plm, "alpha0"].iloc[0])
        for c, panel in enumerate(_ordered(d["panel"]), start=1):
            key = "fig" + panel.split()[1].rstrip(":")
            for a, b in PRISTE_WINDOWS.get(key, []):
                fig.add_vrect(x0=a - 0.5, x1=b + 0.5, fillcolor="#BBBBBB", opacity=0.35, line_width=0, layer="below",
                              row=r, col=c)
            fig.add_trace(go.Scatter(x=[d["t"].min() + 1, d["t"].max() + 1], y=[a0, a0], mode="lines",
                                     name="α₀ (no calibration)", line=dict(color="#000000", dash="dash", width=1),
                                     legendgroup="a0", showlegend=r == 1 and c == 1, hoverinfo="skip"), row=r, col=c)
        sub = d[d["plm"] == plm]
        for c in range(1, len(_ordered(d["panel"])) + 1):
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
    panels = _ordered(d["panel"])
    reps = _repetitions(d)
    bands = reps >= MIN_REPETITIONS_FOR_BANDS
    fig = make_subplots(rows=2, cols=len(panels), horizontal_spacing=0.08, vertical_spacing=0.1,
                        subplot_titles=[_short_panel(p) for p in panels] + [""] * len(panels))
    for c, panel in enumerate(panels, start=1):
        sub = d[d["panel"] == panel]
        legend = "legend" if c == 1 else f"legend{c}"
        for k, series in enumerate(_ordered(sub["series"])):
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

    varies = _ordered(df["vary"])
    fig = make_subplots(rows=1, cols=len(varies), horizontal_spacing=0.1,
                        subplot_titles=[f"event {v} (the other side fixed at 5)" for v in varies])
    for c, vary in enumerate(varies, start=1):
        sub = df[df["vary"] == vary]
        for method in _ordered(sub["method"]):
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
