"""The planner in the app: "or start from the error I can accept" — a target error, ε per scheme, apply one.

Sidebar (``sidebar``): the target in the series' unit, where it is measured, and optionally "within ±x with
probability p" (URL keys ``state.TARGET``, ``TARGET_AT``, ``TARGET_P``; saved in the RunConfig). Main area
(``section``): the plain sentence (``lmdk.present.headlines.plan_headline``), a chart of ε per scheme on a log axis
in the scheme colours, the table with the validated MAE ± its 95 % interval, a button that applies one scheme's ε to
the page (and, from the trade-off, the protected change d), and the trade-off of ε against what ε protects.
The core is ``lmdk.plan``; ``cached_plan`` is its bounded cache.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from ui import text
from ui.session import cache, state
from ui.session.cache_scope import bounded_cache
from ui.session.plan_target import restore, target, target_dict  # noqa: F401 (ui.plan's public names)

AT_LABELS = {"all": "all events", "landmarks": "the landmarks", "regular": "the regular events"}
APPLY_SCHEME = "_plan_scheme"  # session-only: the scheme whose ε the apply button uses
APPLY_DELTA = "_plan_delta"  # session-only: the protected change Δ (a trade-off row) the apply button uses
APPLIED = "_plan_applied"  # session-only: what the last click applied, said once


def unit_of(cur) -> str:
    """The target's unit: the series' unit for values, metres, % wrong reports for contacts."""
    from lmdk.present import views

    mechanism = views.MECHANISM_FOR_KIND[cur.series.kind]
    return views.MAE_UNIT[mechanism] or (cur.series.units or "value units")


def sidebar(cur) -> None:
    """Sidebar, below the ε slider and what ε protects: the target error, its unit and where it is measured."""
    from ui import widgets

    unit = unit_of(cur)
    contacts = cur.series.kind == "contacts"
    with st.sidebar.expander("…or start from the error I can accept", expanded=st.session_state.get(state.TARGET)
                             is not None, icon=":material/target:"):
        st.number_input(f"Acceptable error ({text.escape_markdown(unit)})", min_value=1e-12, step=0.1, format="%g",
                        placeholder="e.g. 0.5" if not contacts else "e.g. 10", **widgets.bind(state.TARGET),
                        help="The planner finds, for every scheme, the smallest ε whose release keeps this error "
                             "(mean absolute error, as in the MAE chart) — and says which cannot get there.")
        st.selectbox("measured at", tuple(AT_LABELS), format_func=lambda at: AT_LABELS[at],
                     **widgets.bind(state.TARGET_AT))
        if not contacts:
            st.number_input("…for each event with probability (optional)", min_value=0.5, max_value=0.999,
                            step=0.05, format="%g", placeholder="mean error", **widgets.bind(state.TARGET_P),
                            help="Empty: the mean absolute error stays within the target. A probability p: an "
                                 "event's error stays within ±target with probability at least p.")
        if st.session_state.get(state.TARGET) is not None:
            st.caption("The plan is drawn at the top of the page.")


@bounded_cache(16)
def cached_plan(token: str, x: np.ndarray, landmarks: np.ndarray, goal: tuple, mechanism: str, protected: tuple,
                w: int, seed: int, schemes: tuple):
    """lmdk.plan.plan for the current series (``token`` names it in the cache key), relation and target."""
    from lmdk import plan as planner
    from lmdk.relation import PAPERS_UNIT_CHANGE, Relation

    relation = Relation.from_dict(dict(protected)) if protected else PAPERS_UNIT_CHANGE
    return planner.plan(x, landmarks, planner.Target(**dict(goal)), mechanism=mechanism, protects=relation,
                        schemes=schemes, w=w, rng=seed)


def current_plan(cur, chosen):
    """The plan of the current view (cached), or None without a target or a scheme to plan."""
    from lmdk import plan as planner
    from lmdk.present import views
    from ui.session import relation

    goal = target()
    schemes = tuple(s for s in chosen if s in planner.PLAN_SCHEMES)
    if goal is None or not schemes:
        return None
    x, mechanism, _ = views.release_input(cur.series, cur.landmarks)
    protected = relation.current(cur)
    key = tuple(sorted(protected.to_dict().items())) if protected is not None else ()
    ss = st.session_state
    return cached_plan(cur.token, x, cur.landmarks, tuple(sorted(goal.to_dict().items())), mechanism, key,
                       min(int(ss[state.W]), cur.n), int(ss[state.SEED]), schemes)


def slider_epsilon(epsilon: float) -> float | None:
    """The smallest ε of the slider that still meets the target (the error falls as ε grows), or None past it."""
    fitting = [e for e in state.EPSILON_OPTIONS if e >= epsilon * (1 - 1e-9)]
    return fitting[0] if fitting else None


def trade_rows(delta: float) -> list[float]:
    """The protected changes the trade-off shows: the current Δ, then 1-2-5 steps below it (at most four)."""
    out = [delta]
    top = math.floor(math.log10(delta)) + 1
    for exponent in range(top, top - 4, -1):
        for mantissa in (5, 2, 1):
            value = mantissa * 10.0 ** exponent
            if value < delta * 0.99 and len(out) < 5:
                out.append(float(f"{value:g}"))
    return out


def _apply(epsilon: float, delta: float | None, current_delta: float) -> None:
    """Callback of the apply button: the slider's ε (the smallest option that meets the target) and, from the
    trade-off, 'changes up to d'."""
    ss = st.session_state
    ss[state.EPSILON] = epsilon
    said = f"ε = {epsilon:g}"
    if delta is not None and abs(delta - current_delta) > 1e-12 * current_delta:
        ss[state.REL_KIND], ss[state.REL_D] = "up_to", delta
        said += f" and 'changes up to {delta:g}' (Δ = {delta:g})"
    ss[APPLIED] = said


def chart(result, unit: str):
    """ε per scheme on a log axis in the scheme colours (hatched: does not protect the landmarks together); a scheme
    that cannot get there is named, not drawn; the page's slider range is shaded."""
    from ui.charts.figure import figure
    from ui.charts.style import SCHEME_COLOURS, common_layout, number

    answers = list(result.schemes.values())
    names = list(result.schemes)
    eps = [p.epsilon if p.feasible else None for p in answers]
    labels = []
    for p in answers:
        if not p.feasible:
            labels.append("\u2003cannot get there at any ε")
        elif p.any_epsilon:
            labels.append("\u2003any ε")
        else:
            labels.append("\u2003ε = " + number(p.epsilon) + ("" if p.satisfies else " (does not protect L)"))
    low, high = min(state.EPSILON_OPTIONS), max(state.EPSILON_OPTIONS)
    values = [e for e in eps if e is not None]
    left = math.floor(math.log10(min(values + [low]))) - 0.2
    right = math.log10(max(values + [high])) + 0.3
    data = [{
        "type": "bar", "orientation": "h", "y": names,
        "x": [e if e is not None else float("nan") for e in eps],
        "marker": {"color": [SCHEME_COLOURS.get(s, "#555") for s in names],
                   "pattern": {"shape": ["" if p.satisfies else "/" for p in answers], "fgcolor": "#333"}},
        "text": labels, "textposition": "outside", "cliponaxis": False, "name": "ε needed",
        "hovertemplate": "%{y}: ε = %{x:.4g}<extra>needed</extra>",
    }]
    layout = common_layout(height=110 + 48 * len(names), meta={"target": result.target.error}, legend=False)
    layout.update(margin={"l": 90, "r": 220, "t": 40, "b": 50},
                  xaxis={"title": {"text": f"ε needed for the target ({result.target.error:g} {unit}), log scale"},
                         "type": "log", "range": [left, right]},
                  yaxis={"autorange": "reversed"},
                  shapes=[{"type": "rect", "xref": "x", "yref": "paper", "x0": low, "x1": high, "y0": 0, "y1": 1,
                           "fillcolor": "rgba(0,0,0,0.06)", "line": {"width": 0}, "layer": "below"}],
                  annotations=[{"text": "the page's ε slider", "xref": "x", "yref": "paper",
                                "x": math.log10(math.sqrt(low * high)), "y": 1.0, "yanchor": "bottom",
                                "showarrow": False, "font": {"size": 11, "color": "#6b6b6b"}}])
    return figure(data, layout)


def table(result, unit: str) -> pd.DataFrame:
    """One row per scheme: ε needed, validated MAE ± half its 95 % interval, Theorem 2, how it was found."""
    from lmdk.present.headlines import plus_minus, readable

    rows = []
    for name, p in result.schemes.items():
        if not p.feasible:
            needed = "cannot get there"
        elif p.any_epsilon:
            needed = "any ε"
        else:
            needed = f"{readable(p.epsilon)}"
        row = {"scheme": name, "ε needed": needed,
               f"MAE at that ε ({unit})": f"{readable(p.achieved_mae)}{plus_minus(*p.ci95)}"}
        if p.achieved_probability is not None:
            row[f"share within ±{result.target.error:g}"] = (f"{100 * p.achieved_probability:.1f} %"
                                                               f"{plus_minus(*(100 * v for v in p.probability_ci95))}")
        row["landmark privacy (Thm 2)"] = "satisfies" if p.satisfies else "violates"
        row["how"] = p.note
        rows.append(row)
    return pd.DataFrame(rows)


def with_plus_minus(frame: pd.DataFrame) -> pd.DataFrame:
    """A MAE table (scheme, mae, low, high[, clamped…]) with a readable "MAE ± half the 95 % interval" column."""
    from lmdk.present.headlines import plus_minus

    out = frame.copy()
    if {"mae", "low", "high"} <= set(out.columns):
        out.insert(1, "MAE ± 95 % CI", [f"{m:.4g}{plus_minus(lo, hi)}" for m, lo, hi in
                                          zip(out["mae"], out["low"], out["high"], strict=True)])
    return out


def report_table(cur, chosen) -> pd.DataFrame | None:
    """The plan's table for the HTML report, or None without a target (or when planning failed)."""
    if target() is None:
        return None
    try:
        result = current_plan(cur, chosen)
    except ValueError:
        return None
    return table(result, unit_of(cur)) if result is not None else None


def section(cur, chosen) -> None:
    """Main area, above the results: the plan for the target (nothing without one)."""
    ss = st.session_state
    if ss.get(state.TARGET) is None:
        return
    # imported once a target is set: the planner brings scipy's optimize, a second of a server's first opening
    from lmdk import plan as planner
    from lmdk.present.headlines import plan_headline
    from ui import charts
    from ui.session import relation

    goal = target()
    unit = unit_of(cur)
    if goal is None:
        st.error("The target needs an error > 0 and a probability between 0.5 and 1 (or none).")
        return
    st.subheader(f"Plan: ε for an error of {goal.error:g} {text.escape_markdown(unit)}")
    measured = {"landmarks": int(cur.landmarks.size), "regular": cur.n - int(cur.landmarks.size)}.get(goal.at)
    if measured == 0:  # the core's refusal names its API values ('regular', 'all'): say it with the sidebar's words
        st.error(f"The plan measures the error at *{AT_LABELS[goal.at]}*, and this series has none "
                 f"(|L| = {cur.landmarks.size:,} of {cur.n:,} events): choose *{AT_LABELS['all']}* under *measured "
                 "at* in the sidebar, or change the landmarks.")
        return
    try:
        with st.spinner("Planning ε per scheme…"):
            result = current_plan(cur, chosen)
    except ValueError as exc:  # lmdk errors name the field and the fix
        st.error(text.escape_markdown(exc))
        return
    if result is None:
        st.info("Pick at least one of the six schemes to plan for.")
        return
    words = cache.event_words(cur)
    st.markdown("##### " + plan_headline(result, text.escape_markdown(unit), words))
    fig = chart(result, unit)
    st.plotly_chart(fig, key="plan_chart", **charts.PLOTLY_KW)
    st.dataframe(table(result, unit), hide_index=True, key="plan_table")
    protected = relation.current(cur)
    st.caption(
        f"Smallest ε that meets the target, per scheme; MAE at that ε measured with the exports' sampler over "
        f"{_counts(result)} repetitions ± half its 95 % interval (stated accuracy ±{100 * result.tolerance:g} %). "
        f"Event level, user level, w-event and uniform in closed form; Skip and Adaptive by a search with common "
        f"random numbers. What ε protects: "
        + text.escape_markdown(protected.label() if protected is not None else "changes of up to 1 unit (Δ = 1)")
        + ". Hatched: meets the error but not landmark privacy.")
    trade = None
    if result.mechanism != "randomized_response":
        deltas = trade_rows(result.sensitivity)
        trade = planner.tradeoff(result, deltas)
        st.markdown("**What it costs to protect less** — ε for the same target when only changes of up to Δ are "
                    "protected (same public range: ε grows in proportion to Δ):")
        frame = pd.DataFrame([{"protect": ("any value in the range" if protected is not None
                                           and protected.kind == "range" and d == result.sensitivity
                                           else f"changes up to {d:g} {unit}"), "Δ": d,
                               **{s: ("—" if e is None else f"{e:.3g}") for s, e in row.items()}}
                              for d, row in trade.items()])
        st.dataframe(frame, hide_index=True, key="plan_tradeoff")
    _apply_row(result, trade, unit, cur)


def _counts(result) -> str:
    """The repetitions behind the plan's validations: one number, or the range over schemes."""
    counts = sorted({p.repetitions for p in result.schemes.values()})
    return f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"


def _apply_row(result, trade, unit: str, cur) -> None:
    """A scheme (and a protected change) to apply, and the button that sets the page's ε (and d)."""
    ss = st.session_state
    feasible = [s for s, p in result.schemes.items() if p.feasible]
    if not feasible:
        return
    if ss.get(APPLY_SCHEME) not in feasible:  # first a landmark-private scheme the slider reaches
        private = [s for s in ("adaptive", "skip", "uniform", "user") if s in feasible]
        reachable = [s for s in private if slider_epsilon(result.schemes[s].epsilon) is not None]
        ss[APPLY_SCHEME] = (reachable or private or feasible)[0]
    c1, c2, c3 = st.columns([2, 2, 3], vertical_alignment="bottom")
    scheme = c1.selectbox("Scheme", feasible, key=APPLY_SCHEME)
    delta = result.sensitivity
    if trade is not None and cur.series.kind == "values" and len(trade) > 1:
        options = list(trade)
        if ss.get(APPLY_DELTA) not in options:
            ss[APPLY_DELTA] = options[0]
        delta = c2.selectbox("Protect", options, key=APPLY_DELTA,
                             format_func=lambda d: f"Δ = {d:g} {unit}" + (" (current)" if d == options[0] else ""))
    needed = result.schemes[scheme].epsilon if delta == result.sensitivity else trade[delta][scheme]
    on_slider = slider_epsilon(needed) if needed is not None else None
    if needed is None:
        c3.button("Cannot get there", disabled=True, key="plan_apply_none", icon=":material/block:")
    elif on_slider is None:
        c3.button(f"Use ε = {needed:.3g}", disabled=True, key="plan_apply_off", icon=":material/block:",
                  help=f"Beyond the page's slider (at most {max(state.EPSILON_OPTIONS):g}): protect less (a smaller Δ "
                       "in the trade-off), accept a larger error, or release it with the command line "
                       f"(lmdk release --epsilon {needed:.3g}).")
    else:
        c3.button(f"Use ε = {on_slider:g}" + (f" (needs {needed:.3g})" if abs(on_slider - needed) > 1e-9 * needed
                                               else ""), key="plan_apply", icon=":material/check:",
                  on_click=_apply, args=(on_slider, delta, result.sensitivity), type="primary",
                  help="Sets the page's ε to the smallest slider value that still meets the target.")
    if ss.get(APPLIED):
        st.success(f"Applied {text.escape_markdown(ss.pop(APPLIED))}: the results below use it.")
