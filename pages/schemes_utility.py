"""Schemes & utility: budgets per timestamp, original vs released, MAE with 95 % CI, Theorem 2 badges."""
import streamlit as st

from lmdk.present import headlines, views
from ui import baselines as baseline_ui  # BD/BA/FAST/PeGaSus beside the landmark schemes
from ui import charts, explain, heavy, text, widgets
from ui import plan as plan_ui
from ui.charts import alt_text, maps, zoom
from ui.downloads import download_deferred
from ui.session import cache, config, relation, state

RESULTS = "schemes_results"  # key of the st.fragment below

st.title("Schemes & utility")
explain.explain(
    "**Budgets.** Each scheme decides how much of ε to spend on the release at every timestamp: *event* spends "
    "ε each time (protects single events only), *user* ε/n (protects everything, very noisy), *w-event* ε/w "
    "(any w consecutive events), *uniform* ε/(|L|+1), *skip* ε on regular events and nothing on landmarks "
    "(republishing the previous release), *adaptive* reserves ε/(|L|+1) per release and saves budget by "
    "approximating when the series changes little. Opt-in baselines (the state of the art, values only, blind to "
    "the landmarks): *bd*/*ba* test privately whether the series changed and publish within ε per window of w "
    "events (Kellaris et al.), *fast* samples adaptively and filters within ε over the whole series (Fan & Xiong), "
    "*pegasus* perturbs, groups and smooths with ε per event (Chen et al.).\n\n"
    "**Badge.** A scheme satisfies (ε, L)-landmark privacy when the landmarks' budgets plus the budget at any "
    "single t never exceed ε (Theorem 2). With landmarks, event-level spends ε on each landmark *and* on t, "
    "so it fails.\n\n**Utility.** The MAE compares the released with the original series (locations: metres; "
    "contact bits: % wrong reports); the whiskers are 95 % confidence intervals over the repetitions.",
    [explain.THEOREM_2,
     r"\text{Laplace: } o_t = x_t + \mathrm{Lap}\!\left(\tfrac{\Delta f}{\varepsilon_t}\right), \qquad "
     r"\mathrm{MAE} = \frac{1}{n}\sum_t |o_t - x_t|"],
    "§2.1, §3.1–3.2 and §4.2",
)
ss = st.session_state


def clamp_defaults(cur) -> None:
    """The lower bound starts at 0 (a public fact for meters); the upper bound is left for the user to enter.

    Never read off the data: a bound derived from the private values would be published through the URL,
    the RunConfig and the released values themselves.
    """
    if ss[state.CLAMP] and ss[state.CLAMP_LOW] is None and cur.series.kind == "values":
        ss[state.CLAMP_LOW] = 0.0


def post_processing(cur) -> None:
    """Sidebar, below the scheme settings: the clamping toggle and its public range (Laplace only; a full rerun)."""
    if cur.series.kind != "values":
        return
    unit = text.escape_markdown(cur.series.units or "value units")  # widget labels render markdown
    with st.sidebar:
        st.subheader("Post-processing")
        st.toggle("Clamp releases to a public range", **widgets.bind(state.CLAMP),
                  help="Clipping released values to a range known in advance is post-processing: it costs "
                       "no privacy (Theorem 1) and can only reduce the error.")
        if ss[state.CLAMP]:
            st.number_input(f"lower bound ({unit})", **widgets.bind(state.CLAMP_LOW))
            st.number_input(f"upper bound ({unit})", placeholder="e.g. the meter's rating",
                            **widgets.bind(state.CLAMP_HIGH))
            st.caption("The range must be public knowledge (e.g. the meter's physical limits), never read "
                       "off the private data.")
            if ss[state.CLAMP_HIGH] is None:
                st.info("Enter a public upper bound to clamp the releases.")
            elif ss[state.CLAMP_LOW] is not None and ss[state.CLAMP_LOW] >= ss[state.CLAMP_HIGH]:
                st.error("The lower bound must be below the upper bound.")


def clamp_range(mechanism: str) -> tuple[float, float] | None:
    """The public clamping range when the toggle is on and the bounds are valid (Laplace only)."""
    if mechanism != "laplace" or not ss[state.CLAMP] or ss[state.CLAMP_LOW] is None or ss[state.CLAMP_HIGH] is None:
        return None
    low, high = float(ss[state.CLAMP_LOW]), float(ss[state.CLAMP_HIGH])
    return (low, high) if low < high else None


def headline(cur, summaries: dict, eps: float, unit: str, guess) -> str:
    """The page's verdict in plain words (lmdk.present.headlines), at most two sentences, and what ε protects
    under it; returns the headline."""
    words = cache.event_words(cur)
    protected = relation.current(cur)
    protects = (protected.protects(words.removesuffix("s")) if protected is not None
                else "changes of up to 1 unit in one value (Δ = 1: no public range set yet)")
    text_ = headlines.schemes_headline(eps, cur.n, int(cur.landmarks.size), words, text.escape_markdown(unit),
                                       {s: summ.mae for s, summ in summaries.items()},
                                       {s: summ.satisfies for s, summ in summaries.items()},
                                       text.escape_markdown(protects),
                                       {s: summ.mae_ci for s, summ in summaries.items()}, guess=guess)
    st.markdown(f"##### {text_}")
    if guess is not None:
        st.caption(f"Protected: {text.escape_markdown(protects)}, at ε = {eps:g}.")
    return text_


class Report:
    """What the report of this view needs (held in the session; its download callable keeps a weak reference)."""

    def __init__(self, headline_text, config, verdicts, mae_rows, figures, series, statement=None):
        self.headline, self.config, self.verdicts = headline_text, config, verdicts
        self.mae_rows, self.figures, self.series = mae_rows, figures, series
        self.statement = statement  # lines of lmdk.exports.statement.Guarantee of the default export scheme

    @property
    def mae_table(self):
        """The MAE per scheme as a table, built when the report is (a DataFrame per ε change cost ~1 ms, issue 56)."""
        return alt_text.rows_table(self.mae_rows)


def build_report(r: Report) -> str:
    """The self-contained HTML report (lmdk.present.report) of the Schemes & utility view."""
    from lmdk.present.report import describe_series, html_report

    cfg = r.config
    protected = cfg.protected()
    configuration = {"schemes": ", ".join(cfg.schemes), "ε (total budget)": f"{cfg.epsilon:g}",
                     "what ε protects": protected.label() if cfg.relation is not None else
                     "changes of up to 1 unit (Δ = 1; no public range set)",
                     "landmarks |L|": f"{len(cfg.landmarks):,} of {cfg.events:,} events", "mechanism": cfg.mechanism,
                     "w (w-event window)": cfg.w, "repetitions": cfg.repetitions, "demonstration seed": cfg.seed}
    description = describe_series(r.series, cfg.events)
    return html_report("Landmark privacy — schemes and utility", r.headline, configuration, r.verdicts,
                       {"Mean absolute error per scheme (95 % CI)": plan_ui.with_plus_minus(r.mae_table),
                        **({"Plan: ε per scheme for the target error": r.plan} if getattr(r, "plan", None) is not None
                           else {})},
                       [charts.figure_spec(f) for f in r.figures], description, statement=r.statement)


def badges(cur, chosen: list[str], summaries: dict, eps: float) -> None:
    """One row: per scheme its colour, name, the Theorem 2 verdict and the worst Σ (one element, cheap to redraw)."""
    cells = []
    for s in chosen:
        summ = summaries[s]
        verdict = (":green-badge[:material/check_circle: satisfies]" if summ.satisfies
                   else ":red-badge[:material/cancel: violates]")
        cells.append(f"<span style='color:{charts.SCHEME_COLOURS[s]}'>■</span> **{s}** {verdict} "
                     f"<span style='color:#6b6b6b;font-size:0.85em'>worst Σ = {summ.worst_sigma:.3g}</span>")
    st.markdown(f"**(ε, L)-landmark privacy (Theorem 2)** with ε = {eps:g} and |L| = {cur.landmarks.size} "
                f"— worst Σ over L ∪ {{t}} of the budgets, across all repetitions:\n\n"
                + " &emsp; ".join(cells), unsafe_allow_html=True)


def exports(cur, chosen: list[str], mechanism: str, origin, summaries: dict, saved, figures: dict) -> None:
    """The release to hand out, the demonstration release, the landmark set, RunConfig, script and the session's
    privacy ledger (``widgets.release_downloads``), and each chart as HTML, in an expander built only while it is
    open: closed, an ε change does not rebuild its two dozen widgets (a quarter of a change's server time when a
    class follows one link, issue 34; the three chart downloads moved in for issue 56: the report holds every chart);
    opening it reruns this fragment, and it stays open for the session."""
    box = st.expander("Export: the release to hand out (CSV), RunConfig, script, this session's privacy ledger, "
                      "each chart (HTML)", icon=":material/ios_share:", key=state.EXPORTS_OPEN, on_change="rerun")
    with box:
        if box.open:
            widgets.release_downloads(cur, mechanism, origin, summaries, chosen, saved)
            row = widgets.button_row()
            for (name, label), fig in figures.items():
                widgets.download_figure(fig, name, key=f"dl_{name}", container=row, label=label)


@st.fragment(key=RESULTS)
def results() -> None:
    """Everything ε, w, repetitions and seed change: badges, charts, MAE and downloads. Their sidebar widgets rerun
    only this fragment (widgets.rerun_fragment_on): not the app, the sidebar, the navigation or the explanations.
    ``cur`` and ``chosen`` come from the last full run (a new series, landmarks or schemes rerun the app)."""
    x, mechanism, origin = views.release_input(cur.series, cur.landmarks)
    unit = views.MAE_UNIT[mechanism] or (cur.series.units or "value units")
    eps = float(ss[state.EPSILON])
    reps, seed, w = int(ss[state.REPETITIONS]), int(ss[state.SEED]), int(ss[state.W])
    clamp = clamp_range(mechanism)
    protect = relation.options(cur, mechanism)
    key = cache.data_key(cur.token, x, cur.landmarks)
    with heavy.slot(f"{len(chosen)} schemes × {reps} repetitions of {cur.n:,} events",
                    needed=heavy.heavy_view(cur.n, reps)):  # beyond the interactive bounds: one slot per core at once
        summaries = cache.scheme_summaries(key, tuple(chosen), eps, mechanism, reps, seed, w, clamp, protect, _x=x,
                                           _landmarks=cur.landmarks)
    run = cache.run_key(key, tuple(chosen), eps, mechanism, reps, seed, w, clamp, protect)  # fixes every number below
    guess = relation.data_free_guess(cur, x, mechanism)
    said = headline(cur, summaries, eps, unit, guess)
    badges(cur, chosen, summaries, eps)
    baseline_ui.protects_note(chosen, w, cur.n)

    first, stop = zoom.control(cur)  # long series: the stretch both per-timestamp charts draw
    st.subheader("Budget per timestamp")
    absolute = False
    if cur.n <= charts.BAR_LIMIT:
        absolute = st.toggle("One fixed εₜ axis for every scheme and every ε (logarithmic)",
                             help="Off: one linear εₜ axis shared by every scheme (the largest εₜ of any).",
                             **widgets.bind(state.BUDGET_ABSOLUTE))
    budget_fig = charts.drawn("budgets", cache.run_key(run, absolute, first, stop), restyle=False,
                              _build=lambda: charts.budgets({s: summaries[s].budgets for s in chosen}, cur.landmarks,
                                                            epsilon=eps, absolute=absolute, window=(first, stop)))
    st.plotly_chart(budget_fig, key="budget_chart", **charts.PLOTLY_KW)
    st.caption("εₜ of one run (repetition 1) per scheme; the darker parts are the budgets spent on landmarks, whose "
               "positions are the black ticks in the strip L on top. All schemes share one εₜ scale: a low row spends "
               "little budget at each timestamp (hover for values). Adaptive's budgets depend on the data and differ "
               "between repetitions.")
    alt_text.describe_run("budget_chart", run,
                          lambda: alt_text.budget_columns({s: summaries[s].budgets for s in chosen}, cur.landmarks),
                          what="Budget εₜ per timestamp (repetition 1)", over="t")

    st.subheader("Original vs released")
    release_fig = None
    if mechanism == "planar_laplace":
        from lmdk import mechanisms

        map_scheme = st.selectbox("Scheme on the map", chosen, key="map_scheme_pick")
        lat, lon = mechanisms.metres_to_latlon(summaries[map_scheme].first, origin)
        latlon = cur.series.latlon()
        deck = maps.trajectory_deck(latlon[:, 0], latlon[:, 1], cur.landmarks, released={map_scheme: (lat, lon)},
                                    times=cur.series.timestamps)
        st.pydeck_chart(deck, key="released_map", height=480)
        st.caption(f"Black/grey: the original path and events (black: landmarks); coloured line: one release "
                   f"(repetition 1) of {map_scheme} — what an analyst would receive. The MAE below averages "
                   f"{reps} repetitions.")
        alt_text.describe("released_map", alt_text.track_table(cur.series.timestamps, latlon[:, 0], latlon[:, 1],
                                                               cur.landmarks, {map_scheme: (lat, lon)},
                                                               labels=alt_text.series_time_labels(cur)),
                          what=f"The path and one release of {map_scheme}", over="t")
    else:
        y_title = "share reported as 1" if mechanism == "randomized_response" else f"value ({unit})"
        zoomed = slice(first, stop)
        release_fig = charts.drawn("releases", cache.run_key(run, first, stop), restyle=False,
                                   _build=lambda: charts.releases(
                                       cur.series.timestamps[zoomed], x[zoomed],
                                       {s: (summaries[s].median[zoomed], summaries[s].low[zoomed],
                                            summaries[s].high[zoomed]) for s in chosen},
                                       cur.landmarks, y_title=y_title, epsilon=eps))
        st.plotly_chart(release_fig, key="release_chart", **charts.PLOTLY_KW)
        st.caption(f"Black: original; coloured line: median of {reps} repetitions; band: the central 90 % of them. "
                   "Each panel keeps the original's own scale; where the noise reaches further, the panel says how "
                   "far (zoom out with a double click), and a median that strays from the original by more than a "
                   "quarter of the scale at one time in ten is left out (the panel says how far it strays): it would "
                   "only paint the panel.")
        alt_text.describe_run("release_chart", run, lambda: alt_text.release_columns(
            cur.series.timestamps, x, {s: (summaries[s].median, summaries[s].low, summaries[s].high) for s in chosen},
            value_name=y_title, labels=alt_text.series_time_labels(cur)),
            what=f"Original and released series, {y_title}", over="t",
            said=[f"original {y_title}", *(f"{s} median" for s in chosen)])

    st.subheader("Utility: mean absolute error")
    rows = []
    for s in chosen:
        summ = summaries[s]
        row = {"scheme": s, "mae": summ.mae, "low": summ.mae_ci[0], "high": summ.mae_ci[1]}
        if summ.mae_clamped is not None:
            row.update(clamped=summ.mae_clamped, clamped_low=summ.mae_clamped_ci[0],
                       clamped_high=summ.mae_clamped_ci[1])
        rows.append(row)
    mae_fig = charts.mae(rows, unit=unit, epsilon=eps, guess=guess.mae if guess is not None else None)
    st.plotly_chart(mae_fig, key="mae_chart", **charts.PLOTLY_KW)
    st.caption(f"Bars: mean over {reps} repetitions; whiskers: 95 % confidence interval."
               + (" " + headlines.guess_line_caption(guess, text.escape_markdown(unit)) if guess is not None else ""))
    alt_text.describe_run("mae_chart", run, lambda: alt_text.rows_columns(rows, alt_text.MAE_COLUMNS),
                          what=f"Mean absolute error ({unit}) per scheme")
    if clamp is not None:
        saved = ", ".join(f"{r['scheme']} {r['mae'] - r['clamped']:.3g}" for r in rows)
        st.success(f"Clamping to [{clamp[0]:g}, {clamp[1]:g}] saves MAE ({unit}): {saved}.")

    st.subheader("Downloads")
    figures = {("budgets", "Budget chart (HTML)"): budget_fig, ("releases", "Release chart (HTML)"): release_fig,
               ("mae", "MAE chart (HTML)"): mae_fig}
    figures = {k: f for k, f in figures.items() if f is not None}
    verdicts = {s: (summaries[s].satisfies, summaries[s].worst_sigma) for s in chosen}
    saved = config.run_config(cur)
    report = Report(said, saved, verdicts, rows,
                    [f for f in (budget_fig, release_fig, mae_fig) if f is not None], cur.series,
                    widgets.statement_lines(cur, chosen, summaries, mechanism))
    report.plan = plan_ui.report_table(cur, chosen)
    download_deferred("Report (HTML)", build_report, report, key="dl_report", file_name="lmdk_report.html",
                      mime="text/html", icon=":material/description:",
                      help="One self-contained page: headline, settings, verdicts, table and interactive "
                           "charts; opens offline, prints to PDF from the browser. No data inside.")
    st.caption(widgets.PNG_NOTE_REPORT)
    exports(cur, chosen, mechanism, origin, summaries, saved, figures)
    state.sync_query_params()  # app.py does this after a full run; a fragment rerun must keep the URL current too


setup = widgets.scheme_page_setup()
if setup is None:
    st.stop()
cur, chosen = setup
chosen = baseline_ui.applicable(cur, chosen)
if not chosen:
    st.warning("Pick a scheme that applies to this series in the sidebar.")
    st.stop()
clamp_defaults(cur)
plan_ui.sidebar(cur)
post_processing(cur)
plan_ui.section(cur, chosen)
widgets.rerun_fragment_on((state.EPSILON, state.REPETITIONS) + (() if plan_ui.target() else (state.W, state.SEED)),
                          RESULTS)  # with a target, w and the seed change the plan above the fragment too
results()
