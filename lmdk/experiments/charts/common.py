"""What every experiment chart shares: the Okabe–Ito palette (one colour per scheme), panels of lines with CI bands
or grouped bars with CI error bars (``faceted``), log axes labelled per decade, and the registry of chart builders
(``chart``, ``figure_chart``)."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

OKABE_ITO = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000"]
SCHEME_COLORS = {  # the same colours as ui.charts.style.SCHEME_COLOURS (dashboard convention)
    "event": "#E69F00", "user": "#56B4E9", "w-event": "#009E73",
    "uniform": "#0072B2", "skip": "#D55E00", "adaptive": "#CC79A7",
    "bd": "#332288", "ba": "#882255", "fast": "#999933", "pegasus": "#117733",  # the baselines (Tol's muted)
}


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


def ordered(series: pd.Series) -> list:
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

    facets = ordered(df[facet]) if facet else [None]
    rows = ordered(df[facet_row]) if facet_row else [None]
    colors = ordered(df[color]) if color else [None]
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
        dashes = {v: d for v, d in zip(ordered(df[dash]), ["solid", "dash", "dot", "dashdot"] * 4, strict=False)}
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
            if band:
                low = grp[lo].clip(lower=0) if nonnegative else grp[lo]
                if not (log_y and (low <= 0).any()):
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
    """A translucent closed band between ``low`` and ``high`` over ``x`` (a confidence interval): no hover, no
    legend."""
    x = list(x)
    return go.Scatter(x=x + x[::-1], y=list(high) + list(low)[::-1], mode="lines", fill="toself",
                      fillcolor=rgba(colour, 0.16), line=dict(width=0), hoverinfo="skip", showlegend=False, **kw)


def _category_labels(values: pd.Series, column: str) -> pd.Series:
    """Bar positions as category labels; percentages get a ' %' suffix."""
    if column.endswith("_pct"):
        return pct_labels(values)
    return values.astype(str)


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


def pct_labels(values: pd.Series) -> pd.Series:
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
