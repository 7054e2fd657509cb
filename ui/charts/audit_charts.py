"""Plotly figures of the Adversary lab, in the conventions of ui.charts.style: one colour per scheme, the claimed ε
and the bounds as thin dark reference lines (dashed: no correlation), chance dotted, landmarks ticks in a strip "L".

Every function takes ``lmdk.audit.Audit.to_dict()`` output (plain data), plus the correlation curves where needed.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.charts.rug import add_landmark_rug
from ui.charts.style import SCHEME_COLOURS, base_layout, rgba

PAIR_STYLE = {"regular": ("one regular event", "circle"), "landmark": ("one landmark", "square"),
              "theorem2": ("all landmarks + one (Thm 2)", "diamond")}
DUMMY_PATTERN = {"none": "", "optimal": "x", "heuristic": "/", "partitioned": ".", "random": "\\"}
CLAIM = dict(color="#000000", dash="dash", width=1.5)
CHANCE = dict(color="#555555", dash="dot", width=1.5)
WAFFLE = {"chance": "#D9D9D9", "wrong": "#F4F4F4"}
# fixed entry widths (pixels) wide enough for the longest name: sized from the text, an entry came out a few px short
BOTTOM_LEGEND = dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0.0, entrywidth=265)


def _colour(scheme: str) -> str:
    """The scheme's colour, grey for anything else."""
    return SCHEME_COLOURS.get(scheme, "#555555")


def loss_intervals(audits: list[dict], *, height: int = 460) -> go.Figure:
    """Per scheme and neighbouring pair, the measured ε̂ interval [lower, upper] beside the claimed ε (dashed)."""
    eps = audits[0]["epsilon_claimed"] if audits else 1.0
    lowers = [p["epsilon_lower"] for a in audits for p in a["neighbours"].values()]
    top = max([2 * eps, *(1.3 * v for v in lowers)])  # upper bounds far above the claim say little: clipped
    fig = go.Figure()
    for pair, (label, symbol) in PAIR_STYLE.items():
        xs, lows, ups, colours, texts = [], [], [], [], []
        for a in audits:
            p = a["neighbours"].get(pair)
            if p is None:
                continue
            upper = min(p["epsilon_upper"] if p["epsilon_upper"] is not None else top, top)
            xs.append(a["scheme"])
            lows.append(p["epsilon_lower"])
            ups.append(max(upper - p["epsilon_lower"], 0.0))
            colours.append(_colour(a["scheme"]))
            shown = "∞" if p["epsilon_upper"] is None else f"{p['epsilon_upper']:.3g}"
            texts.append(f"{a['scheme']}: {p['description']}<br>ε̂ ≥ {p['epsilon_lower']:.3g} (lower bound), "
                         f"≤ {shown} for this test<br>Σ εₜ spent {p['budget_spent']:.3g}")
        if not xs:
            continue
        fig.add_trace(go.Scatter(
            x=xs, y=lows, mode="markers", name=label, offsetgroup=pair,
            marker=dict(symbol=symbol, size=11, color=colours, line=dict(width=1, color="#333333")),
            error_y=dict(type="data", symmetric=False, array=ups, arrayminus=[0] * len(xs), color="#555555",
                         thickness=1.5, width=6),
            hovertext=texts, hoverinfo="text"))
    schemes = [a["scheme"] for a in audits]
    if schemes:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=CLAIM, name=f"claimed ε = {eps:g}"))
        fig.add_shape(type="line", xref="paper", x0=0, x1=1, y0=eps, y1=eps, line=CLAIM, layer="below")
    fig.update_layout(scattermode="group", yaxis=dict(title="privacy loss ε̂ (nats)", range=[-0.04 * top, top * 1.02]),
                      xaxis=dict(title="scheme"))
    fig = base_layout(fig, height=height, meta={"eps": eps, "schemes": schemes})
    return fig.update_layout(legend=BOTTOM_LEGEND, margin=dict(t=30, b=150))


def position_auc(audits: list[dict], *, height: int = 440) -> go.Figure:
    """ROC AUC of the landmark-position attack per scheme, without and with each dummy method; chance dotted."""
    fig = go.Figure()
    methods = []
    for a in audits:
        for m in a["landmark_inference"]["by_dummies"]:
            if m not in methods:
                methods.append(m)
    for m in methods:
        xs, ys, colours, texts = [], [], [], []
        for a in audits:
            r = a["landmark_inference"]["by_dummies"].get(m, {})
            if r.get("auc") is None:
                continue
            xs.append(a["scheme"])
            ys.append(r["auc"])
            colours.append(_colour(a["scheme"]) if m == "none" else rgba(_colour(a["scheme"]), 0.45))
            texts.append(f"{a['scheme']}, dummies {m}: AUC {r['auc']:.3f} [{r['auc_ci'][0]:.3f}, {r['auc_ci'][1]:.3f}]"
                         f"<br>precision at |L| {r['precision_at_k']:.3f} (chance {r['chance']:.3f})"
                         f"<br>strongest attacker: {r['attacker']}, |L′| ≈ {r['marked']:.0f}")
        if not xs:
            continue
        name = "no dummies" if m == "none" else f"{m} dummies"
        pattern = dict(shape=DUMMY_PATTERN.get(m, "+"))
        fig.add_trace(go.Bar(x=xs, y=ys, name=name, legendgroup=m, showlegend=False, offsetgroup=m,
                             marker=dict(color=colours, pattern=pattern, line=dict(color="#333333", width=1)),
                             hovertext=texts, hoverinfo="text"))
        fig.add_trace(go.Bar(x=[None], y=[None], name=name, legendgroup=m, offsetgroup=m,  # a neutral legend swatch
                             marker=dict(color="#777777" if m == "none" else "#DDDDDD", pattern=pattern,
                                         line=dict(color="#333333", width=1))))
    schemes = [a["scheme"] for a in audits]
    if schemes:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=CHANCE, name="chance (AUC 0.5)"))
        fig.add_shape(type="line", xref="paper", x0=0, x1=1, y0=0.5, y1=0.5, line=CHANCE)
    fig.update_layout(barmode="group", yaxis=dict(title="ROC AUC of the position attack", range=[0, 1.02]),
                      xaxis=dict(title="scheme"))
    fig = base_layout(fig, height=height, meta={"methods": methods, "schemes": schemes})
    return fig.update_layout(legend=BOTTOM_LEGEND, margin=dict(t=30, b=150))


def _waffle_cells(success: float, bound: float, chance: float) -> list[str]:
    """100 cells: right by the prior alone, right thanks to the release, allowed by ε but not reached, wrong."""
    base = int(round(100 * chance))
    won = max(0, int(round(100 * success)) - base)
    allowed = max(0, int(round(100 * bound)) - base - won)
    return ["chance"] * base + ["won"] * won + ["allowed"] * allowed + ["wrong"] * (100 - base - won - allowed)


def _squares(cells: np.ndarray) -> tuple[list, list]:
    """One closed path per cell (index 0 top left, reading order), separated by gaps: a filled scatter trace."""
    xs, ys = [], []
    for i in cells:
        x0, y0 = i % 10, 9 - i // 10
        xs += [x0, x0 + 0.86, x0 + 0.86, x0, x0, None]
        ys += [y0, y0, y0 + 0.86, y0 + 0.86, y0, None]
    return xs, ys


def value_waffles(audits: list[dict], *, height: int | None = None) -> go.Figure:
    """The value attack as 100 guesses per scheme, in reading order: grey = right by luck (the prior alone),
    colour = right because of the release, open = what ε would still allow, light = wrong. At most four waffles a
    row (rows as even as they go), so the titles never run into each other on a 1024-px projector."""
    shown = [a for a in audits if a.get("value_inference")]
    rows = max(1, -(-len(shown) // 4))
    cols = max(1, -(-len(shown) // rows))
    titles = [f"<b>{a['scheme']}</b><br>{round(100 * a['value_inference']['success'])} of 100 right"
              f"<br>ε allows {round(100 * a['value_inference']['bound'])}" for a in shown]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles or [""], horizontal_spacing=0.06,
                        vertical_spacing=0.16 if rows > 1 else 0.0)
    names = {"chance": "right by luck", "won": "right thanks to the release", "allowed": "ε would still allow",
             "wrong": "wrong"}
    legend_done = set()
    for k, a in enumerate(shown):
        r, c = k // cols + 1, k % cols + 1
        v = a["value_inference"]
        cells = np.array(_waffle_cells(v["success"], v["bound"], v["chance"]))
        col = _colour(a["scheme"])
        style = {"chance": (WAFFLE["chance"], WAFFLE["chance"]), "won": (col, col), "allowed": ("white", col),
                 "wrong": (WAFFLE["wrong"], "#DDDDDD")}
        for kind in ("chance", "won", "allowed", "wrong"):
            idx = np.flatnonzero(cells == kind)
            if not idx.size:
                continue
            xs, ys = _squares(idx)
            fill, line = style[kind]
            fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", fill="toself", fillcolor=fill,
                                     line=dict(color=line, width=1.5 if kind == "allowed" else 0.5),
                                     name=names[kind], legendgroup=kind, showlegend=kind not in legend_done,
                                     hoverinfo="text", hoveron="fills",
                                     text=f"{a['scheme']}: {idx.size} of 100 — {names[kind]}"), row=r, col=c)
            legend_done.add(kind)
        axis = "" if k == 0 else str(k + 1)
        fig.update_xaxes(visible=False, range=[-0.2, 10.1], row=r, col=c)
        fig.update_yaxes(visible=False, range=[-0.2, 10.1], scaleanchor=f"x{axis}", row=r, col=c)
    height = height or 120 + 250 * rows
    fig = base_layout(fig, height=height, meta={"schemes": [a["scheme"] for a in shown]})
    fig.update_layout(margin=dict(t=80, b=90, l=20, r=20),
                      legend=dict(orientation="h", yanchor="top", y=-0.02, xanchor="center", x=0.5,
                                  entrywidth=215, entrywidthmode="pixels"))
    fig.update_annotations(font=dict(size=13))
    return fig


def correlation_curves(result, scheme: str, landmarks, timestamps=None, *, height: int = 470) -> go.Figure:
    """The correlated attack per event: its success (thin), the TPL bound (solid) and the bound without correlation
    (dashed), all as probabilities of guessing the event's value right; landmarks as ticks in the strip "L" under it."""
    n = len(result.success)
    x = np.arange(n) if timestamps is None else timestamps
    col = _colour(scheme)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=result.bound, mode="lines", line=dict(color=col, width=2.2),
                             name="bound from TPL: e^α/(1+e^α)", hovertemplate="%{x}<br>bound %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=x, y=np.full(n, 0.5), mode="lines", line=dict(width=0), showlegend=False,
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=x, y=result.bound_plain, mode="lines", line=dict(width=0, shape="hvh"),
                             fill="tonexty", fillcolor="rgba(0,0,0,0.12)",
                             name="bound without correlation (shaded)",
                             hovertemplate="%{x}<br>without correlation %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=x, y=result.success, mode="lines", line=dict(color=rgba(col, 0.55), width=1),
                             name="attack's success (measured)",
                             hovertemplate="%{x}<br>measured %{y:.3f}<extra></extra>"))
    L = np.asarray(landmarks, dtype=int)
    add_landmark_rug(fig, np.asarray(x)[L], hover="landmark %{x}")  # the strip "L" under the chart, as on the timeline
    t = result.target
    fig.add_trace(go.Scatter(x=[np.asarray(x)[t]], y=[result.success[t]], mode="markers", name="reported event",
                             marker=dict(symbol="star", size=14, color=col, line=dict(width=1, color="#000000")),
                             error_y=dict(type="data", symmetric=False, array=[result.ci[1] - result.success[t]],
                                          arrayminus=[result.success[t] - result.ci[0]], color="#000000"),
                             hovertemplate=f"event {t}<br>success %{{y:.3f}} (bound {result.bound[t]:.3f})"
                                           "<extra></extra>"))
    fig.add_hline(y=0.5, line=CHANCE)
    fig.update_layout(yaxis=dict(title="probability of guessing the event right", range=[0.45, 1.01]),
                      xaxis=dict(title="time" if timestamps is not None else "t"))
    fig = base_layout(fig, height=height, meta={"scheme": scheme, "s": result.s, "target": int(t)})
    return fig.update_layout(legend=BOTTOM_LEGEND, margin=dict(t=30, b=160))
