"""Temporal privacy loss: BPL/FPL/TPL under Markov correlation, the landmark temporal privacy loss, Figure 9."""
import math

import streamlit as st

from lmdk import schemes, tpl
from lmdk.errors import LmdkError
from lmdk.present import views, views_loss
from ui import charts, explain, text, widgets
from ui import temporal_loss as tpl_ui
from ui.charts import alt_text, loss_charts, zoom
from ui.downloads import download_deferred
from ui.session import cache, cache_loss, config, relation, state

S_OPTIONS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 100.0)  # log-scale s slider
PRESETS = ("weak", "moderate", "strong")
MATRIX_KEY = "tpl_matrix_file"
RESULTS = "tpl_results"  # key of the st.fragment below
QUANTITY_KEY = "tpl_fig9_quantity"
STATISTIC_KEY = "tpl_fig9_statistic"


def _preset_changed() -> None:
    """A preset sets s to its value; 'custom' keeps s."""
    choice = st.session_state[state.widget_key(state.CORRELATION)] or st.session_state[state.CORRELATION]
    st.session_state[state.CORRELATION] = choice
    if choice in tpl.CORRELATION:
        st.session_state[state.CORRELATION_S] = tpl.CORRELATION[choice]


def _s_changed() -> None:
    """Moving s selects the preset with that value, or 'custom'."""
    s = st.session_state[state.widget_key(state.CORRELATION_S)]
    st.session_state[state.CORRELATION_S] = s
    st.session_state[state.CORRELATION] = next((p for p, v in tpl.CORRELATION.items() if v == s), "custom")


def _explain() -> None:
    explain.explain(
        "**Why correlation matters.** Differential privacy bounds what *one* release tells about the event at its "
        "timestamp. When consecutive events are correlated (a Markov chain with transition matrix $P$, known to the "
        "adversary), the releases around $t$ also tell about $t$: the backward privacy loss (BPL) adds up what the "
        "past releases leak, the forward loss (FPL) what the future ones leak, and the temporal privacy loss "
        "$\\mathrm{TPL}_t = \\mathrm{BPL}_t + \\mathrm{FPL}_t - \\varepsilon_t$ (Cao et al.). The increment "
        "$L(\\alpha)$ never exceeds $\\alpha$, so the loss levels off at a supremum (dotted) unless $P$ is "
        "deterministic somewhere — then it grows without bound.\n\n"
        "**Correlation strength.** $P$ is the 2-state identity smoothed by $s$: small $s$ = strong correlation "
        "(weak $s = 1$, moderate $0.1$, strong $0.01$). Or upload your own matrix: one row per state, rows summing "
        "to 1.\n\n"
        "**With landmarks.** The overall loss at $t$ adds, for every member $i$ of $L \\cup \\{t\\}$, its own "
        "term $\\alpha_i$: BPL restarted after the previous member plus FPL restarted before the next one, minus "
        "$\\varepsilon_i$. Without correlation this is Theorem 2's $\\sum_{i \\in L \\cup \\{t\\}} "
        "\\varepsilon_i$ (dashed). The definition counts the releases between two members in both of their terms, "
        "so under strong correlation it can exceed $\\sum_{t'} \\varepsilon_{t'}$, which always holds by "
        "sequential composition; the shaded *bound* is the smaller of the two.\n\n"
        "**Figure 9.** The same loss for synthetic landmark sets drawn from four distributions (skewed, symmetric, "
        "bimodal, spread at random), with the Uniform scheme's budgets $\\varepsilon/(|L|+1)$, averaged over a few "
        "draws.",
        [r"\mathrm{BPL}_t = L_B(\mathrm{BPL}_{t-1}) + \varepsilon_t,\quad "
         r"\mathrm{FPL}_t = L_F(\mathrm{FPL}_{t+1}) + \varepsilon_t,\quad "
         r"\mathrm{TPL}_t = \mathrm{BPL}_t + \mathrm{FPL}_t - \varepsilon_t",
         r"L(\alpha) = \max_{q,d \in P}\ \max_{S}\ \log\frac{q_S\,(e^{\alpha}-1)+1}{d_S\,(e^{\alpha}-1)+1},\qquad "
         r"P_{ij} = \frac{[i=j] + s}{\sum_k ([i=k] + s)}",
         r"\text{overall}(t) = \sum_{i \in L\cup\{t\}} \alpha_i,\qquad \alpha_i = \mathrm{BPL}_{[i^-+1,\,i]} + "
         r"\mathrm{FPL}_{[i,\,i^+-1]} - \varepsilon_i,\qquad \text{bound}(t) = \min\big(\text{overall}(t), "
         r"\textstyle\sum_{t'} \varepsilon_{t'}\big)"],
        "§2.3 (Cao et al., Definition 2), §3.3, §4.1.2 and §4.2.2 (Figures 8–9); thesis Definition "
        "\"landmark temporal privacy loss\"",
    )


def _correlation_controls(uploaded: bool):
    """Preset / s slider / matrix upload; returns (matrix, description) or (None, None) after an error."""
    ss = st.session_state
    if ss[state.CORRELATION] in tpl.CORRELATION:  # a preset in the URL wins over a stale s
        ss[state.CORRELATION_S] = tpl.CORRELATION[ss[state.CORRELATION]]
    presets, strength = st.container(), st.columns([1, 1])[0]  # stacked: side by side they overflow at 1024 px
    with presets:
        ss[state.widget_key(state.CORRELATION)] = ss[state.CORRELATION]
        st.segmented_control("Correlation", [*PRESETS, "custom"], required=True, disabled=uploaded,
                             key=state.widget_key(state.CORRELATION), on_change=_preset_changed,
                             help="Presets of the paper (§4.1.2): weak s = 1, moderate s = 0.1, strong s = 0.01.")
    with strength:
        ss[state.CORRELATION_S] = widgets.nearest_on_log_scale(S_OPTIONS, ss[state.CORRELATION_S])
        ss[state.widget_key(state.CORRELATION_S)] = ss[state.CORRELATION_S]
        st.select_slider("Correlation strength s (log scale; smaller = stronger)", S_OPTIONS,
                         format_func=lambda v: f"{v:g}", disabled=uploaded, key=state.widget_key(state.CORRELATION_S),
                         on_change=_s_changed,
                         help="Laplacian smoothing of the 2-state identity: P[i,j] = ([i=j] + s) / (1 + 2s).")
    with st.expander("…or upload your own transition matrix (CSV)", expanded=uploaded, icon=":material/upload:"):
        file = st.file_uploader(
            f"Square, row-stochastic, at most {views_loss.MATRIX_MAX_STATES} states; numbers only (one optional "
            "header row). Stays in this session.", type=["csv", "txt"], key=MATRIX_KEY)
        st.caption("Example for two states: `0.9,0.1` on the first line, `0.2,0.8` on the second. "
                   "Remove the file to go back to s.")
    if file is not None:
        try:
            P = views_loss.read_transition_matrix(file.getvalue())
        except LmdkError as exc:
            st.error(f"Cannot use the uploaded matrix: {text.escape_markdown(exc)}", icon=":material/error:")
            return None, None
        return P, f"the uploaded {P.shape[0]}-state matrix"
    s = float(ss[state.CORRELATION_S])
    return tpl.transition_matrix(s), f"s = {s:g} ({ss[state.CORRELATION]})"


def _report_html(parts: tuple) -> str:
    """The self-contained HTML report of this view (lmdk.present.report)."""
    from lmdk.present.report import describe_series, html_report

    said, cfg, verdicts, maxima, figures, series, described = parts
    configuration = {"scheme analysed": next(iter(verdicts)), "ε (total budget)": f"{cfg.epsilon:g}",
                     "correlation": described, "landmarks |L|": f"{len(cfg.landmarks):,} of {cfg.events:,} events",
                     "repetition analysed": "1 (demonstration seed " + str(cfg.seed) + ")"}
    description = describe_series(series, cfg.events)
    return html_report("Landmark privacy — temporal privacy loss", said, configuration, verdicts,
                       {"Largest losses": maxima}, [charts.figure_spec(f) for f in figures], description)


def _page() -> None:
    ss = st.session_state
    st.title("Temporal privacy loss")
    _explain()  # "What am I looking at?" near the top (issue 35)
    setup = widgets.scheme_page_setup()
    if setup is None:
        return
    cur, chosen = setup
    from ui import baselines as baseline_ui

    chosen = baseline_ui.applicable(cur, chosen)
    if not chosen:
        return
    if ss.get(state.TPL_SCHEME) not in chosen:
        ss[state.TPL_SCHEME] = "uniform" if "uniform" in chosen else chosen[0]
    scheme = st.segmented_control("Scheme whose budgets are analysed", chosen, required=True,
                                  **widgets.bind(state.TPL_SCHEME),
                                  help="Any of the schemes picked in the sidebar; its colour is the same on every "
                                       "page.")
    P, described = _correlation_controls(ss.get(MATRIX_KEY) is not None)
    if P is None:
        return
    widgets.rerun_fragment_on((state.EPSILON, state.REPETITIONS, state.SEED, state.W), RESULTS)
    _results(cur, scheme, P, described)


@st.fragment(key=RESULTS)
def _results(cur, scheme: str, P, described: str) -> None:
    """Everything ε, w, repetitions and the seed change: the losses, their charts, Figure 9 and the downloads. Those
    sidebar widgets rerun only this fragment (widgets.rerun_fragment_on), not the app, the sidebar or the controls
    above; ``cur``, ``scheme`` and the matrix come from the last full run (changing them reruns the app)."""
    from ui import baselines as baseline_ui

    ss = st.session_state
    eps = float(ss[state.EPSILON])
    reps, seed, w = int(ss[state.REPETITIONS]), int(ss[state.SEED]), int(ss[state.W])
    x, mechanism, _ = views.release_input(cur.series, cur.landmarks)
    if scheme in state.BASELINE_NAMES:
        baseline_ui.protects_note([scheme], w, cur.n)
        st.caption(f"{scheme}'s budgets depend on the data and its noise: the losses below are those of repetition 1.")
    if scheme in schemes.DATA_INDEPENDENT:  # budgets fixed by n, L, ε and w: one run of any seed gives every row's
        reps, seed = 1, 0                   # (the same verdict too), and every session shares it
    try:
        summary = cache.scheme_summary(cur.token, x, cur.landmarks, scheme, eps, mechanism, reps, seed, w, None,
                                       relation.options(cur, mechanism))
        losses, total = tpl_ui.losses_of(summary.budgets, cur.landmarks, P)
    except LmdkError as exc:
        st.error(f"Cannot compute the temporal privacy loss: {text.escape_markdown(exc)}", icon=":material/error:")
        return
    asym = losses.asymptotes

    from lmdk.present import headlines

    corr = ss[state.CORRELATION] if ss[state.CORRELATION] in ("weak", "moderate", "strong") else "the chosen"
    if ss.get(MATRIX_KEY) is not None:
        corr = "the uploaded"
    words = cache.event_words(cur)
    answer = float(losses.bound.max())  # the valid bound: the smaller of the landmark loss and Σ εₜ (composition)
    said = headlines.temporal_loss_headline(eps, scheme, corr, answer, float(losses.reference.max()), words)
    st.markdown("##### " + said)
    cols = st.columns(2) + st.columns(2)  # two a row: four cut their labels at 1024 px
    # the answer first; every number is a privacy loss in nats, the unit of ε
    cols[0].metric("Loss with landmarks (nats)", f"{answer:.3g}",
                   help="The headline's number: the largest landmark temporal privacy loss over t (thesis "
                        f"definition, {losses.overall.max():.3g}) or Σ of all budgets if smaller (sequential "
                        "composition), in nats like ε: the odds of any guess about the landmarks change by at most e "
                        "to this power.")
    cols[1].metric("Without correlation (nats)", f"{losses.reference.max():.3g}",
                   help=f"Largest Σ over L ∪ {{t}} of the budgets (Theorem 2); at most the goal ε = {eps:g} when the "
                        "scheme satisfies landmark privacy.")
    cols[2].metric("Max TPL of one event (nats)", f"{losses.tpl.max():.3g}",
                   help="Largest temporal privacy loss of a single event over t (Cao et al.).")
    cols[3].metric("Σ of all budgets (nats)", f"{total:.3g}", help="User-level guarantee by sequential composition.")

    window = zoom.control(cur)  # long series: the stretch both loss charts draw
    st.subheader("Backward, forward and temporal privacy loss")
    fig1 = loss_charts.temporal_loss(summary.budgets, losses.bpl, losses.fpl, losses.tpl, cur.landmarks,
                                     scheme=scheme, epsilon=eps, asymptotes=asym, window=window)
    st.plotly_chart(fig1, key="tpl_chart", config=charts.MODEBAR)
    if math.isfinite(asym.bpl):
        how = ("the limits far from the ends of the series" if asym.constant else
               f"upper bounds: the limits at a constant budget of ε_max = {asym.epsilon_max:.3g}")
        st.caption(f"{scheme} budgets, correlation {described}, ε = {eps:g}. Dotted lines: {how} — "
                   f"BPL/FPL ≤ {asym.bpl:.4g}, TPL ≤ {asym.tpl:.4g}. Ticks in the strip L under it: landmarks.")
    else:
        st.caption(f"{scheme} budgets, correlation {described}, ε = {eps:g}. Ticks in the strip L under it: "
                   "landmarks.")
        st.warning("The supremum is **infinite** for this matrix: some state is reached deterministically, so every "
                   "release adds to the loss and BPL grows without bound as the series gets longer.",
                   icon=":material/all_inclusive:")
    n_t = len(summary.budgets)
    alt_text.describe("tpl_chart", alt_text.per_timestamp_table(n_t, cur.landmarks, {
        "budget εₜ": summary.budgets, "BPL": losses.bpl, "FPL": losses.fpl, "TPL": losses.tpl}),
                      what=f"Temporal privacy loss of {scheme}'s budgets", over="t")

    st.subheader("Landmark temporal privacy loss")
    fig2 = loss_charts.landmark_loss(losses.overall, losses.own, losses.bound, losses.reference, cur.landmarks,
                                     scheme=scheme, epsilon=eps, window=window)
    st.plotly_chart(fig2, key="landmark_loss_chart", config=charts.MODEBAR)
    st.caption(f"Overall loss at each t for L ∪ {{t}} (|L| = {cur.landmarks.size}); dashed: the same without "
               f"correlation; shaded: the valid bound min(overall, Σ ε = {total:.3g}); grey dash-dot: the event's "
               "own term αₜ.")
    alt_text.describe("landmark_loss_chart", alt_text.per_timestamp_table(n_t, cur.landmarks, {
        "overall loss": losses.overall, "without correlation": losses.reference, "valid bound": losses.bound,
        "own term αₜ": losses.own}), what="Landmark temporal privacy loss at each t", over="t")

    st.subheader("Across landmark distributions (Figure 9)")
    n_fig = min(cur.n, cache_loss.COMPARISON_N_MAX)
    c1, c2 = st.columns(2)
    quantity = c1.segmented_control("Quantity", ("overall", "own", "bound"), default="overall", required=True,
                                    key=QUANTITY_KEY)
    statistic = c2.segmented_control("Over t", ("max", "mean"), default="max", required=True, key=STATISTIC_KEY)
    with st.spinner("Drawing landmark sets…"):
        frame = cache_loss.distribution_comparison(n_fig, eps, P)
    fig3 = loss_charts.distribution_comparison(frame, quantity=quantity, statistic=statistic, epsilon=eps,
                                               current_pct=100.0 * views.share(cur.landmarks, cur.n))
    st.plotly_chart(fig3, key="distribution_chart", config=charts.MODEBAR)
    capped = "" if n_fig == cur.n else f" (capped at {n_fig:,} events to keep the page fast)"
    st.caption(f"n = {n_fig:,}{capped}, ε = {eps:g}, the Uniform scheme's budgets ε/(|L|+1), correlation "
               f"{described}; each point is the mean of {cache_loss.COMPARISON_REPETITIONS} landmark draws (fixed "
               f"draws, the same in every session). Grey "
               "vertical line: the share of landmarks in your series.")
    alt_text.describe("distribution_chart",
                      loss_charts.distribution_table(frame, quantity=quantity, statistic=statistic),
                      what=f"{statistic.capitalize()} over t of the {quantity} loss per landmark distribution",
                      over="landmarks (%)")

    row = widgets.button_row()
    widgets.download_figure(fig1, "temporal_privacy_loss", key="dl_tpl", container=row, label="TPL chart (HTML)")
    widgets.download_figure(fig2, "landmark_temporal_privacy_loss", key="dl_ltpl", container=row,
                            label="Landmark TPL chart (HTML)")
    widgets.download_figure(fig3, "figure9_distributions", key="dl_fig9", container=row,
                            label="Distributions chart (HTML)")
    maxima = tpl_ui.maxima_table(losses, total)
    report = (said, config.run_config(cur), {scheme: (bool(summary.satisfies), float(summary.worst_sigma))}, maxima,
              [fig1, fig2, fig3], cur.series, described)
    download_deferred("Report (HTML)", _report_html, report, key="dl_tpl_report",
                      file_name="lmdk_temporal_loss_report.html", mime="text/html",
                      icon=":material/description:", help="One self-contained page, readable offline.")
    from lmdk.present.reproduce import tpl_script

    name = (ss.get(state.UPLOAD_FILE_NAME) or "YOUR_FILE") if ss[state.SOURCE] == "upload" else None
    st.download_button("Python script", data=tpl_script(config.run_config(cur), scheme, P, name),
                       file_name="reproduce_tpl.py", mime="text/x-python", key="dl_tpl_script", on_click="ignore",
                       icon=":material/code:", help="A short script with the lmdk Python API that prints this view's "
                                                    "largest losses (same demonstration seed).")
    st.caption(widgets.PNG_NOTE)
    state.sync_query_params()  # app.py does this after a full run; a fragment rerun must keep the URL current


_page()
