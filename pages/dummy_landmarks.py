"""Dummy landmarks: hide which timestamps are landmarks by adding dummies chosen privately (§3.4)."""
import streamlit as st

from lmdk import dummies, schemes
from lmdk.errors import LmdkError
from lmdk.present import headlines, views
from ui import charts, explain, text, widgets
from ui import dummies as dummy_ui
from ui.charts import alt_text, loss_charts, zoom
from ui.downloads import download_deferred
from ui.session import cache, cache_loss, config, relation, state

SHARE_OPTIONS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 0.9)  # share of ε spent on the selection
METHOD_HELP = {
    "optimal": f"exhaustive search over nested chains (thesis); only for at most {dummies.OPTIMAL_MAX_REGULAR} "
               "regular events",
    "heuristic": "adds, one by one, the timestamp that keeps the landmarks' spacing closest to the original",
    "partitioned": "Algorithm 1: grows the landmark histogram one bin at a time, dummies sampled within bins",
    "random": "baseline: dummies join in random order, ignoring where the landmarks are",
}
HEURISTIC_MAX_REGULAR = 10_000  # Heuristic is O(n·(n − |L|)): 4.7 s at 8,760 events, 220 s at 105,120
RESULTS = "dummy_results"  # key of the st.fragment below
SCHEME_KEY = "dummy_scheme"  # which scheme the before/after budget chart shows (session only)


def _explain() -> None:
    explain.explain(
        "**The problem.** A scheme's budgets can give the landmarks away: Skip spends nothing on a landmark and "
        "republishes the previous release there, Adaptive's budgets change around landmarks, and even Uniform's "
        "$\\varepsilon/(|L|+1)$ tells how many there are. Anyone who sees $\\varepsilon_t$ (or how noisy each "
        "release is) can then infer *when* the landmarks are (Example 3.1). **The fix.** Add dummy landmarks: the "
        "scheme runs on a larger set $L' \\supset L$, so the real landmarks hide among the dummies.\n\n"
        "**Options.** A method builds nested candidate sets $L \\subset L'_1 \\subset L'_2 \\subset \\dots "
        "\\subseteq T$, each one event larger (the x-axis of the options chart). **Selection.** The exponential "
        "mechanism picks one candidate, spending the share $\\varepsilon_{\\mathrm{sel}}$ of $\\varepsilon$; "
        "the scheme gets the rest, so by sequential composition the total stays $\\varepsilon$. The *position* "
        "utility prefers dummies near the real landmarks ($\\Delta u = 1$), the *count* utility prefers few dummies "
        "($\\Delta u = 1/n$). With a small share the choice is close to uniform: better hidden landmarks, but "
        "typically many dummies.\n\n"
        "**The cost.** Every dummy is treated as a landmark, so the releases get less budget and the MAE grows; "
        "the bars compare each landmark scheme (Uniform, Skip, Adaptive: the ones that use $L$) with and without "
        "dummies.",
        [r"\Pr[L'_j] = \frac{\exp\!\big(\varepsilon_{\mathrm{sel}}\,u(L, L'_j) / (2\Delta u)\big)}"
         r"{\sum_k \exp\!\big(\varepsilon_{\mathrm{sel}}\,u(L, L'_k) / (2\Delta u)\big)},\qquad "
         r"\varepsilon_{\mathrm{sel}} = \text{share}\cdot\varepsilon,\quad \varepsilon_{\mathrm{pub}} = "
         r"\varepsilon - \varepsilon_{\mathrm{sel}}",
         r"u_{\text{position}} = 1 - \frac{1}{|L'\setminus L|}\sum_{d \in L'\setminus L} "
         r"\frac{\mathrm{dist}(d, L)}{n-1},\qquad u_{\text{count}} = 1 - \frac{|L'\setminus L|}{n}",
         explain.THEOREM_2.replace("L \\cup", "L' \\cup")],
        "§3.4 (Example 3.1, Algorithm 1, §3.4.2), §4.3 (Figures 10–11); thesis \"Selection of events\"",
    )


def _controls() -> None:
    ss = st.session_state
    c1, c2 = st.columns([7, 3], gap="medium")  # the four methods need 7/10 of the column at 1024 px
    with c1:
        st.segmented_control("Method", dummies.METHODS, required=True, **widgets.bind(state.DUMMY_METHOD),
                             help="; ".join(f"**{m}**: {h}" for m, h in METHOD_HELP.items()))
    with c2:
        st.segmented_control("Utility", dummies.UTILITIES, required=True, **widgets.bind(state.DUMMY_UTILITY),
                             help="position: dummies close to real landmarks score higher (Δu = 1); "
                                  "count: fewer dummies score higher (Δu = 1/n).")
    with st.columns([1, 1])[0]:
        ss[state.DUMMY_SHARE] = widgets.nearest_on_log_scale(SHARE_OPTIONS, ss[state.DUMMY_SHARE])
        st.select_slider("Share of ε spent on the selection", SHARE_OPTIONS, format_func=lambda v: f"{100 * v:g} %",
                         **widgets.bind(state.DUMMY_SHARE),
                         help="The paper uses 1 % (§4.3.2); the rest of ε is spent on publishing.")


def _verdicts(x, chosen_set, schemes, eps, eps_pub, mechanism, seed, w, options) -> dict:
    """Theorem 2 on L′ of one run of every scheme (plus the selection's ε): the report's verdicts."""
    from lmdk.privacy import landmark_loss

    verdicts = {}
    for s in schemes:
        budgets = cache_loss.one_run_budgets(x, chosen_set, s, eps_pub, mechanism, seed, w, options)
        worst = float(landmark_loss(budgets, chosen_set).max()) + (eps - eps_pub)
        verdicts[s] = (worst <= eps * (1 + 1e-9), worst)
    return verdicts


def _report(args) -> str:
    """The report, built on click: its verdicts need one run of every scheme on L′, which the page never shows
    (computing them on every ε change cost six more releases)."""
    from lmdk.present.report import dummies_report

    said, configuration, verdict_inputs, mae_table, disclosure_table, figures, series = args
    specs = [charts.figure_spec(f) for f in figures]  # on click too: four specs per ε change were a tenth of it
    return dummies_report((said, configuration, _verdicts(*verdict_inputs), mae_table, disclosure_table, specs,
                           series))


def handover(cur, chosen, sel, disclosure, eps, eps_pub, said: str, mae_table, figures) -> None:
    """Report (HTML) and 'Reproduce in Python' of this view, whose headline ``said`` and MAE table the page shows."""
    from lmdk.present.report import describe_series

    ss = st.session_state
    method, utility, share = ss[state.DUMMY_METHOD], ss[state.DUMMY_UTILITY], float(ss[state.DUMMY_SHARE])
    x, mechanism, _ = views.release_input(cur.series, cur.landmarks)
    seed, w = int(ss[state.SEED]), int(ss[state.W])
    verdicts = (x, sel.chosen, tuple(chosen), eps, eps_pub, mechanism, seed, w, relation.options(cur, mechanism))
    configuration = {"method": method, "utility": utility, "share of ε for the selection": f"{100 * share:g} %",
                     "ε (total)": f"{eps:g}", "ε for publishing": f"{eps_pub:.4g}",
                     "landmarks |L|": f"{cur.landmarks.size:,} of {cur.n:,} events",
                     "chosen |L′|": f"{sel.chosen.size:,}", "repetitions": int(ss[state.REPETITIONS]),
                     "demonstration seed": seed}
    disclosure_table = dummy_ui.disclosure_table(disclosure)
    c1 = c2 = widgets.button_row()
    download_deferred("Report (HTML)", _report,
                      (said, configuration, verdicts, mae_table, disclosure_table,
                       tuple(figures), describe_series(cur.series, cur.n)),
                      key="dl_dummy_report", file_name="lmdk_dummies_report.html", mime="text/html",
                      container=c1, icon=":material/description:")
    name = (ss.get(state.UPLOAD_FILE_NAME) or "YOUR_FILE") if ss[state.SOURCE] == "upload" else None
    # written on click from the configuration captured here (issue 34: the script's JSON and text were a fifth of
    # this view's ε change when served from the cache)
    download_deferred("Python script", _script, (config.run_config(cur), method, utility, share, name),
                      key="dl_dummy_script", file_name="reproduce_dummies.py", mime="text/x-python",
                      container=c2, icon=":material/code:")


def _script(args) -> str:
    """The 'Python script' download's text: lmdk.present.reproduce.dummies_script of the captured configuration."""
    from lmdk.present.reproduce import dummies_script

    saved, method, utility, share, name = args
    return dummies_script(saved, method, utility, share, state.SCHEME_NAMES, name)


def _page() -> None:
    st.title("Dummy landmarks")
    _explain()  # "What am I looking at?" near the top (issue 35)
    setup = widgets.scheme_page_setup()
    if setup is None:
        return
    cur, chosen = setup
    # event, user and w-event level and BD/BA/FAST/PeGaSus never look at L: dummies would only take ε_sel from
    # them. As in the paper's Figure 7 (§4.3.3), the page compares the landmark schemes, half the releases per ε
    # change of the six (issue 34)
    blind = [s for s in chosen if s not in schemes.LANDMARK_SCHEMES]
    if blind:
        st.caption("Dummies hide the landmark set from the schemes that use it (Uniform, Skip and Adaptive, §4.3.3). "
                   + ", ".join(headlines.SCHEME_NAMES.get(s, s) for s in blind) + " do not use the landmark set, so "
                   "dummy landmarks would only take budget from them; they are left out here.")
        chosen = [s for s in chosen if s in schemes.LANDMARK_SCHEMES]
        if not chosen:
            st.warning("Pick a landmark scheme (Uniform, Skip or Adaptive) in the sidebar: dummies hide landmarks "
                       "from those.")
            return
    _controls()
    widgets.rerun_fragment_on((state.EPSILON, state.REPETITIONS, state.SEED, state.W, state.DUMMY_METHOD,
                               state.DUMMY_UTILITY, state.DUMMY_SHARE), RESULTS)
    _results(cur, chosen)


@st.fragment(key=RESULTS)
def _results(cur, chosen: list[str]) -> None:
    """Everything ε, the selection's settings, w, repetitions and the seed change: the selection, its charts, the
    budgets and MAE with and without dummies, the downloads. Those widgets rerun only this fragment
    (widgets.rerun_fragment_on), not the app, the sidebar or the explanation; ``cur`` and ``chosen`` come from the
    last full run (a new series, landmarks or schemes rerun the app)."""
    ss = st.session_state
    eps = float(ss[state.EPSILON])
    method, utility, share = ss[state.DUMMY_METHOD], ss[state.DUMMY_UTILITY], float(ss[state.DUMMY_SHARE])
    reps, seed, w = int(ss[state.REPETITIONS]), int(ss[state.SEED]), int(ss[state.W])
    eps_sel = share * eps
    eps_pub = eps - eps_sel
    x, mechanism, _ = views.release_input(cur.series, cur.landmarks)
    if cur.landmarks.size == cur.n:
        st.info("Every event is a landmark: there is nothing to hide and no room for dummies.")
        return
    if method == "heuristic" and cur.n - cur.landmarks.size > HEURISTIC_MAX_REGULAR:
        st.warning(f"**Heuristic** takes one pass over all events per dummy — time grows with the square of n "
                   f"(about 45 s at 35,040 events): it is offered up to {HEURISTIC_MAX_REGULAR:,} regular events. "
                   "Choose **partitioned** (Algorithm 1) or **random** for this series.", icon=":material/timer:")
        return
    if method == "optimal" and cur.n - cur.landmarks.size > dummies.OPTIMAL_MAX_REGULAR:
        st.warning(f"**Optimal** tries every nested chain of the regular events — 2^(n − |L|) of them: it is offered "
                   f"up to {dummies.OPTIMAL_MAX_REGULAR} regular events, and this series has "
                   f"{cur.n - cur.landmarks.size:,}. Choose **partitioned** (Algorithm 1) or **heuristic** for this "
                   "series.", icon=":material/timer:")
        return
    try:
        sel = cache_loss.selection(cur.token, cur.n, cur.landmarks, eps_sel, method, utility, seed)
    except LmdkError as exc:
        st.error(text.escape_markdown(exc), icon=":material/error:")
        return
    dm = sel.dummies
    disclosure = dummies.membership_disclosure(sel)
    words = cache.event_words(cur)
    said = headlines.dummies_headline(int(sel.chosen.size), int(cur.landmarks.size), disclosure.chosen, words)
    st.markdown("##### " + said)

    sets, budgets = st.columns(3), st.columns(3)  # six in a row cut their labels at 1024 px
    # the answer first (issue 35): how sure an observer can be that a marked event is a real landmark
    sets[0].metric(f"a marked {words.removesuffix('s')} is real", f"{round(100 * disclosure.chosen):.0f} %",
                   help="The share of real landmarks among the marked events, for an observer who knows the method "
                        "(the headline's certainty).")
    sets[1].metric("real landmarks |L|", f"{cur.landmarks.size:,}")
    sets[2].metric("dummies |L′ ∖ L|", f"{dm.size:,}")
    budgets[0].metric("|L′| share of events", f"{100 * sel.chosen.size / cur.n:.1f} %")
    budgets[1].metric("ε for selection", f"{eps_sel:.3g}", help="share × ε, spent by the exponential mechanism")
    budgets[2].metric("ε for publishing", f"{eps_pub:.4g}", help="ε − ε_sel, given to the scheme (run on L′)")

    st.subheader("The chosen landmark set L′")
    y, y_title = views.timeline_values(cur.series)
    window = zoom.control(cur)  # long series: the stretch the timeline and the budget chart draw
    chosen_set = cache.run_key(cache.data_key(cur.token, cur.landmarks, sel.chosen), y_title)  # fixes L′ and its table
    # the figures are built once per configuration and shared (ui.charts.drawn): a class following one link
    # builds each once (issue 34)
    timeline = charts.drawn("dummy_timeline", cache.run_key(chosen_set, eps, window),
                            _build=lambda: charts.timeline(cur.series.timestamps, y, cur.landmarks, dummies=dm,
                                                           y_title=y_title, selectable=False,
                                                           meta={"eps": eps, "dummies": int(dm.size)}, window=window,
                                                           draw_once=True))
    st.plotly_chart(timeline, key="dummy_timeline", **charts.PLOTLY_KW)
    st.caption(f"Strip under the series: black ticks (row L) are the {cur.landmarks.size} real landmarks, grey ticks "
               f"(row dummy) the {dm.size} dummies "
               f"({method}, {utility} utility, seed {seed}). An observer of the release sees only L′.")
    alt_text.describe_run("dummy_timeline", chosen_set,
                          lambda: alt_text.series_table(cur.series.timestamps, y, cur.landmarks, value_name=y_title,
                                                        dummies=dm, labels=alt_text.series_time_labels(cur)),
                          what="The series, its landmarks and the dummies", over="t")

    st.info(f"**What the dummies protect.** An observer who knows this method sees {sel.chosen.size:,} marked events; "
            f"{cur.landmarks.size:,} of them are real, so each marked event is a real landmark with probability "
            f"{100 * disclosure.chosen:.0f} % ({100 * disclosure.expected:.0f} % on average over the options the "
            "mechanism may pick). **What they do not protect:** every option contains all real landmarks, so an "
            "event left unmarked is known to be a regular event — the selection's ε is not a differential-privacy "
            "guarantee for whether an event is a landmark.", icon=":material/shield:")

    st.subheader("Options and their selection probability")
    dummy_counts = dummy_ui.dummy_counts(sel)
    selected = cache.run_key(cache.data_key(cur.token, cur.landmarks), cur.n, eps_sel, method, utility, seed)
    opt_fig = charts.drawn("options_chart", cache.run_key(selected, eps),
                           _build=lambda: loss_charts.selection_options(dummy_counts, sel.scores, sel.probabilities,
                                                                        sel.index, utility=utility, epsilon=eps))
    options_table = dummy_ui.options_table(sel)
    left, right = st.columns([4, 3], gap="medium")
    with left:
        st.plotly_chart(opt_fig, key="options_chart", **charts.PLOTLY_KW)
    with right:
        st.dataframe(options_table, hide_index=True, height=400, key="options_table", column_config={
            "dummies": st.column_config.NumberColumn(width=70),
            "|L′|": st.column_config.NumberColumn(width=60),
            "utility": st.column_config.NumberColumn(format="%.4f", width=80),
            "probability": st.column_config.NumberColumn(format="%.3e", width=100),
            "chosen": st.column_config.CheckboxColumn(width=65),
        })
    st.caption(f"{len(sel.scores):,} nested options; ε_sel = {eps_sel:.3g}, Δu = {sel.sensitivity:.3g}. "
               "The dashed line is a uniform choice: the smaller ε_sel, the closer the probabilities get to it.")
    alt_text.describe("options_chart", options_table, what="Utility and selection probability per option",
                      over="dummies", table=False)

    st.subheader("Budgets before and after")
    if ss.get(SCHEME_KEY) not in chosen:
        ss[SCHEME_KEY] = "uniform" if "uniform" in chosen else chosen[0]
    scheme = st.segmented_control("Scheme", chosen, required=True, key=SCHEME_KEY)
    try:
        options = relation.options(cur, mechanism)
        key = cache.data_key(cur.token, x, cur.landmarks)  # one short key: each cached call hashes no array
        plain = cache.scheme_summaries(key, tuple(chosen), eps, mechanism, reps, seed, w, None, options, _x=x,
                                       _landmarks=cur.landmarks)
        with_dummies = cache_loss.dummy_maes(key, tuple(chosen), eps, mechanism, reps, seed, w, method, share,
                                             utility, options, _token=cur.token, _x=x, _landmarks=cur.landmarks)
        before = plain[scheme].budgets
        after = cache_loss.budgets_for(cur.token, x, sel.chosen, scheme, eps_pub, mechanism, seed, w, options)
        rows = []
        for s in chosen:
            mae, (low, high) = with_dummies[s]
            rows.append({"scheme": s, "mae": plain[s].mae, "low": plain[s].mae_ci[0], "high": plain[s].mae_ci[1],
                         "dummies": mae, "dummies_low": low, "dummies_high": high})
    except LmdkError as exc:
        st.error(text.escape_markdown(exc), icon=":material/error:")
        return
    budget_run = cache.run_key(chosen_set, key, scheme, eps, eps_pub, mechanism, seed, w, reps, options)
    budget_fig = charts.drawn("dummy_budget_chart", cache.run_key(budget_run, window),
                              _build=lambda: loss_charts.budgets_before_after(scheme, before, after, cur.landmarks, dm,
                                                                              epsilon=eps, publishing_epsilon=eps_pub,
                                                                              window=window))
    st.plotly_chart(budget_fig, key="dummy_budget_chart", **charts.PLOTLY_KW)
    st.caption("Bars: εₜ of one run, both panels on one scale. Strip under them: black ticks (row L) are the real "
               "landmarks, grey ticks (row dummy) the dummies, which now get a landmark's budget.")
    alt_text.describe_run("dummy_budget_chart", budget_run,
                          lambda: alt_text.budget_columns({f"{scheme} before (on L)": before,
                                                           f"{scheme} after (on L′)": after}, cur.landmarks,
                                                          dummies=dm),
                          what="Budget εₜ per timestamp before and after the dummies", over="t")

    st.subheader("The cost of the protection: mean absolute error")
    unit = views.MAE_UNIT[mechanism] or (cur.series.units or "value units")
    guess = relation.data_free_guess(cur, x, mechanism)
    mae_fig = charts.drawn("dummy_mae_chart", cache.run_key(key, tuple(chosen), eps, mechanism, reps, seed, w, method,
                                                           share, utility, options, unit),
                          _build=lambda: loss_charts.mae_with_without(rows, unit=unit, epsilon=eps,
                                                                      guess=guess.mae if guess else None))
    st.plotly_chart(mae_fig, key="dummy_mae_chart", **charts.PLOTLY_KW)
    mae_table = dummy_ui.mae_table(rows, unit)
    st.dataframe(mae_table, hide_index=True, key="dummy_mae_table", column_config={
        f"MAE without ({unit})": st.column_config.NumberColumn(format="%.4g"),
        f"MAE with dummies ({unit})": st.column_config.NumberColumn(format="%.4g"),
    })
    st.caption(f"Mean over {reps} repetitions with 95 % confidence intervals; with dummies, every repetition makes "
               "its own private selection of L′ (so the MAE includes that randomness), and every scheme is run on "
               "the same selections."
               + (" " + headlines.guess_line_caption(guess, text.escape_markdown(unit)) if guess else ""))
    alt_text.describe("dummy_mae_chart", alt_text.rows_table(rows, dummy_ui.MAE_NAMES),
                      what=f"Mean absolute error ({unit}) per scheme", table=False)

    handover(cur, chosen, sel, disclosure, eps, eps_pub, said, mae_table, [timeline, opt_fig, budget_fig, mae_fig])
    row = widgets.button_row()
    widgets.download_figure(timeline, "dummy_timeline", key="dl_dummy_timeline", container=row,
                            label="Timeline chart (HTML)")
    widgets.download_figure(opt_fig, "dummy_options", key="dl_dummy_options", container=row,
                            label="Options chart (HTML)")
    widgets.download_figure(budget_fig, "dummy_budgets", key="dl_dummy_budgets", container=row,
                            label="Budget chart (HTML)")
    widgets.download_figure(mae_fig, "dummy_mae", key="dl_dummy_mae", container=row, label="MAE chart (HTML)")
    st.caption(widgets.PNG_NOTE)
    state.sync_query_params()  # app.py does this after a full run; a fragment rerun must keep the URL current


_page()
