"""Charts of the experiment runner (plotly, imported lazily); never imported by the lmdk core.

One builder per figure turns the runner's tidy summary DataFrame into a plotly Figure: the
same Figure is written as standalone HTML, as PNG (kaleido + the system Chromium) and shown
on the Experiments page. Colours follow the Okabe–Ito palette, one colour per scheme.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000"]
SCHEME_COLORS = {
    "event": "#E69F00", "user": "#56B4E9", "w-event": "#F0E442",
    "uniform": "#009E73", "skip": "#CC79A7", "adaptive": "#0072B2",
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
    kind: str = "line",
    band: bool = True,
    title: str = "",
    x_title: str | None = None,
    y_title: str | Callable[[object], str] | None = None,
    dash: str | None = None,
    log_y: bool = False,
    shared_y: bool = False,
    marker_rows: pd.Series | None = None,
):
    """Lines (with a CI band) or grouped bars (with CI error bars) per colour, one panel per facet."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    facets = _ordered(df[facet]) if facet else [None]
    colors = _ordered(df[color]) if color else [None]
    cmap = _color_map(colors)
    fig = make_subplots(
        rows=1, cols=len(facets), subplot_titles=[str(f) if f is not None else "" for f in facets],
        shared_yaxes=shared_y, horizontal_spacing=0.08 if len(facets) > 1 else 0.0,
    )
    lo, hi = f"{y}_ci_low", f"{y}_ci_high"
    has_ci = lo in df and hi in df
    dashes = {}
    if dash:
        dashes = {v: d for v, d in zip(_ordered(df[dash]), ["solid", "dash", "dot", "dashdot"] * 4)}
    for col, fval in enumerate(facets, start=1):
        sub = df if facet is None else df[df[facet] == fval]
        for cval in colors:
            part = sub if color is None else sub[sub[color] == cval]
            groups = [(None, part)] if not dash else [(d, part[part[dash] == d]) for d in dashes]
            for dval, grp in groups:
                if grp.empty:
                    continue
                grp = grp.sort_values(x) if kind == "line" else grp
                name = " · ".join(str(v) for v in (cval, dval) if v is not None) or y
                shown = col == 1 or len(facets) == 1
                c = cmap.get(cval, OKABE_ITO[3])
                if kind == "bar":
                    err = None
                    if has_ci:
                        err = dict(type="data", array=grp[hi] - grp[y], arrayminus=grp[y] - grp[lo], thickness=1)
                    fig.add_trace(go.Bar(x=grp[x], y=grp[y], name=name, marker_color=c, error_y=err,
                                         legendgroup=name, showlegend=shown), row=1, col=col)
                else:
                    if band and has_ci:
                        fig.add_trace(go.Scatter(
                            x=list(grp[x]) + list(grp[x])[::-1], y=list(grp[hi]) + list(grp[lo])[::-1],
                            fill="toself", fillcolor=c, opacity=0.18, line=dict(width=0), hoverinfo="skip",
                            legendgroup=name, showlegend=False), row=1, col=col)
                    fig.add_trace(go.Scatter(
                        x=grp[x], y=grp[y], name=name, mode="lines+markers",
                        line=dict(color=c, dash=dashes.get(dval, "solid")), marker=dict(size=5),
                        legendgroup=name, showlegend=shown), row=1, col=col)
        fig.update_xaxes(title_text=x_title or x, row=1, col=col)
        ytext = y_title(fval) if callable(y_title) else (y_title or y)
        fig.update_yaxes(title_text=ytext, type="log" if log_y else None, row=1, col=col)
    fig.update_layout(
        title=title, template="plotly_white", barmode="group", legend_title_text=color or "",
        margin=dict(l=60, r=20, t=70, b=50), font=dict(size=13),
    )
    return fig


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


@chart("fig7")
def _fig7(df: pd.DataFrame):
    """Bars per scheme without dummies, diamond markers with dummies, one panel per data set."""
    import plotly.graph_objects as go

    plain = df[~df["dummies"].astype(bool)]
    fig = faceted(plain, x="landmark_pct", y="mae", color="scheme", facet="dataset", kind="bar",
                  title="Fig. 7 — MAE per scheme (bars) and with dummy landmarks (◆), ε = 1",
                  x_title="landmarks (%)", y_title=lambda d: f"MAE ({_unit(df, d)})")
    facets = _ordered(plain["dataset"])
    dummy = df[df["dummies"].astype(bool)]
    schemes = _ordered(plain["scheme"])
    for col, d in enumerate(facets, start=1):
        for s in _ordered(dummy["scheme"]):
            grp = dummy[(dummy["dataset"] == d) & (dummy["scheme"] == s)]
            if grp.empty:
                continue
            fig.add_trace(go.Scatter(
                x=grp["landmark_pct"], y=grp["mae"], mode="markers", name=f"{s} + dummies",
                marker=dict(symbol="diamond", size=9, color=SCHEME_COLORS.get(s, "#000"),
                            line=dict(width=1, color="#000")),
                offsetgroup=str(schemes.index(s)) if s in schemes else None,
                legendgroup=f"{s}+d", showlegend=col == 1), row=1, col=col)
    fig.update_layout(scattermode="group")
    return fig


@chart("fig11")
def _fig11(df: pd.DataFrame):
    """MAE of Uniform per dummy-selection share, one panel per data set."""
    d = df.assign(share=(df["dummy_share"] * 100).round(0).astype(int).astype(str) + " %")
    return faceted(d, x="landmark_pct", y="mae", color="share", facet="dataset", kind="bar",
                   title="Fig. 11 — MAE of Uniform by share of ε spent on dummy selection",
                   x_title="landmarks (%)", y_title=lambda ds: f"MAE ({_unit(df, ds)})")


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


def write_png(fig, path: Path, size: tuple[int, int] = PNG_SIZE) -> Path:
    """Static PNG through kaleido 1.x, which drives the system Chromium headless."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.write_image(str(path), width=size[0], height=size[1], scale=1)
    return path
