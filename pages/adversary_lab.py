"""Adversary lab: what an attacker learns from the configured policy's releases — the empirical privacy loss beside
the claimed ε, the landmark-position attack with and without dummy landmarks (§3.4), the value attack against
e^ε/(1+e^ε), and a correlated series next to its temporal privacy loss (§3.3)."""
import streamlit as st

from lmdk import tpl
from lmdk.audit import VIEW_SEED  # the audit's own public seed, the same in every session (issue 34)
from lmdk.errors import LmdkError
from lmdk.present import audit as words
from lmdk.present import headlines
from ui import audit as ui_audit
from ui import charts, explain, run_gate, text, widgets
from ui.charts import alt_text, audit_charts
from ui.downloads import download_deferred
from ui.session import cache, config, relation, state

CORRELATION_HELP = ("A second experiment: the series becomes a two-state chain (the public range's two ends) with "
                    "the paper's correlation presets (§4.1.2: weak s = 1, moderate 0.1, strong 0.01); the attacker "
                    "knows the chain and guesses every event from all releases.")
SCHEME_KEY = "audit_corr_scheme"  # which scheme the correlation chart shows (session only)


def _explain() -> None:
    explain.explain(
        "**The guarantee, acting.** Differential privacy promises that two versions of a series that differ in "
        "one event — here its value moved across the whole public range — produce releases whose probabilities "
        "differ by at most a factor $e^{\\varepsilon}$. The lab releases both versions thousands of times with "
        "the very sampler an export uses and looks for the output set where they differ most: the likelihood-ratio "
        "statistic of the changed events, cut at many thresholds. Clopper–Pearson intervals of the two "
        "frequencies (corrected for the number of thresholds tried) give a lower bound $\\hat\\varepsilon$ that "
        "holds with 95 % confidence: a correct mechanism stays at or below its claim, a broken one (noise too "
        "small for the range) shows far above it. Three neighbours are tried: one regular event, one landmark, and "
        "every landmark plus one regular event at once — the neighbours of Theorem 2.\n\n"
        "**Landmark positions.** Landmark privacy protects landmark *values*; their *positions* leak when a scheme "
        "treats them differently (Example 3.1). An attacker who sees only the released values ranks every "
        "timestamp — repeated values, an unusual local noise level — and the ROC AUC says how often a real "
        "landmark outranks a regular event (0.5 = guessing). Dummy landmarks (§3.4) make the scheme treat more "
        "events like landmarks; the bars show how much that hides.\n\n"
        "**Values.** A Bayesian attacker who knows everything but one event guesses its value (the range's two "
        "ends, or a histogram of values) — it cannot be right more often than the bound.\n\n"
        "**Correlation.** With correlated events, releases around an event tell about it too; the temporal "
        "privacy loss $\\alpha_t$ (Cao et al.) bounds the attack.",
        [r"\Pr[\mathcal{M}(S) \in O] \le e^{\varepsilon}\,\Pr[\mathcal{M}(S') \in O],\qquad "
         r"\hat\varepsilon_{\text{lower}} = \max_O \ln\frac{\underline{p}_S(O)}{\overline{p}_{S'}(O)}",
         r"\Pr[\text{guess right}] \le \frac{\pi\,e^{\varepsilon}}{\pi\,e^{\varepsilon} + 1 - \pi}"
         r"\;=\; \frac{e^{\varepsilon}}{1+e^{\varepsilon}}\ \text{for a fair coin } (\pi = \tfrac12)",
         r"\mathrm{AUC} = \Pr[\text{score}(l) > \text{score}(r)] + \tfrac12 \Pr[\text{tie}],\quad l \in L,\ r \notin L",
         explain.THEOREM_2],
        "§2.1 (Definition 1), §3.1 (Definitions 3–4, Theorem 2), §3.3 and §3.4 (Example 3.1)",
    )


def _controls(cur) -> None:
    ss = st.session_state
    cap = ui_audit.trials_cap(cur.n)
    options = [t for t in state.AUDIT_TRIAL_OPTIONS if t <= cap] or [state.AUDIT_TRIAL_OPTIONS[0]]
    if ss[state.AUDIT_TRIALS] not in options:
        ss[state.AUDIT_TRIALS] = min(options, key=lambda t: abs(t - ss[state.AUDIT_TRIALS]))
    c1, c2 = st.columns([1, 1], gap="medium")  # two a row: three overflow the main column at 1024 px
    c1.select_slider("Trials (releases of each neighbour)", options, format_func=lambda t: f"{t:,}",
                     **widgets.bind(state.AUDIT_TRIALS),
                     help=f"More trials give tighter intervals and take longer (at most {cap:,} for "
                          f"{cur.n:,} events here; `lmdk audit --trials N` has no limit).")
    c2.segmented_control("Attacker's prior", ("range", "histogram"), required=True,
                         format_func=lambda p: "range ends" if p == "range" else "histogram",
                         **widgets.bind(state.AUDIT_PRIOR),
                         help="range ends: a fair coin between the public range's two ends (the bound "
                              "e^ε/(1+e^ε)); histogram: the series' own values in five bins, as a population's.")
    st.segmented_control("Correlated series", ("none", "weak", "moderate", "strong"), required=True,
                         **widgets.bind(state.AUDIT_CORRELATION), help=CORRELATION_HELP)


def _run(cur, chosen, protected, event: str) -> dict:
    """Every chosen scheme's audit, with one progress bar; remembered per configuration (ui.audit)."""
    ss = st.session_state
    trials, name = int(ss[state.AUDIT_TRIALS]), ss[state.AUDIT_CORRELATION]
    s = tpl.CORRELATION.get(name)
    dummy = {"share": float(ss[state.DUMMY_SHARE]), "utility": ss[state.DUMMY_UTILITY]}
    bar = st.progress(0.0, text=f"Auditing {len(chosen)} scheme{'s' if len(chosen) != 1 else ''} …")
    results = {}
    for i, scheme in enumerate(chosen):
        label = headlines.SCHEME_NAMES.get(scheme, scheme)

        def progress(fraction: float, what: str, i=i, label=label) -> None:
            bar.progress(min((i + fraction) / len(chosen), 1.0), text=f"{label}: {what} ({trials:,} trials) …")

        results[scheme] = ui_audit.run(cur, scheme, float(ss[state.EPSILON]), protected, int(ss[state.W]), trials,
                                       VIEW_SEED, ss[state.AUDIT_PRIOR], s, dummy, event, progress)
    bar.empty()
    return results


def _configuration(cur, chosen, protected) -> tuple[tuple, str]:
    """The audits' settings (ui.audit.run's after the scheme) and their key: the series, landmarks and schemes too."""
    ss = st.session_state
    s = tpl.CORRELATION.get(ss[state.AUDIT_CORRELATION])
    settings = (float(ss[state.EPSILON]), protected, int(ss[state.W]), int(ss[state.AUDIT_TRIALS]),
                VIEW_SEED, ss[state.AUDIT_PRIOR], s,
                {"share": float(ss[state.DUMMY_SHARE]), "utility": ss[state.DUMMY_UTILITY]})
    return settings, run_gate.digest(cur.token, cur.landmarks, tuple(chosen), repr(settings))


def _may_run(cur, chosen, protected, settings: tuple, key: str) -> bool:
    """Whether to show (or run) the audits now: remembered, the first view, cheap, or the button pressed
    (ui.run_gate)."""
    return run_gate.ready("adversary_lab", key, cached=ui_audit.remembered(cur, chosen, *settings),
                          seconds=ui_audit.estimated_seconds(cur.n, chosen, settings[3], settings[6]),
                          what="the audit")


def _loss_section(audits: list[dict], key: str) -> object:
    st.subheader("Could an attacker tell the two versions apart?")
    fig = charts.drawn("loss", key, _build=lambda: audit_charts.loss_intervals(audits))
    st.plotly_chart(fig, key="audit_loss_chart", **charts.PLOTLY_KW)
    st.caption("Each marker is the measured lower bound ε̂ of one neighbouring pair (95 % confidence); the bar "
               "above it reaches the largest loss that pair's strongest test is compatible with (cut at the top of "
               "the chart). Dashed: the claimed ε. A marker above the line is a leak; at or below it, the guarantee "
               "holding.")
    losses = words.loss_table(audits)
    alt_text.describe("audit_loss_chart", losses, table=False, what="Measured privacy loss ε̂", summary=(
        alt_text.summarize_by(losses, "scheme", "ε̂ lower", "Largest measured privacy loss ε̂ (95 % lower bound) "
                              f"per scheme, against the claimed ε = {audits[0]['epsilon_claimed']:g}")))
    st.dataframe(words.loss_table(audits), hide_index=True, key="audit_loss_table", column_config={
        c: st.column_config.NumberColumn(format="%.3f") for c in ("claimed ε", "Σ εₜ spent", "ε̂ lower", "ε̂ upper")})
    return fig


def _positions_section(audits: list[dict], cur, key: str) -> object:
    st.subheader("Could an attacker tell when the landmarks were?")
    fig = charts.drawn("positions", key, _build=lambda: audit_charts.position_auc(audits))
    st.plotly_chart(fig, key="audit_positions_chart", **charts.PLOTLY_KW)
    st.caption(f"The attacker sees only the released values and ranks all {cur.n:,} timestamps; AUC is how often a "
               f"real landmark ranks above a regular event (0.5 = guessing). Shaded, patterned bars: the same scheme "
               f"run on landmarks plus dummy landmarks (§3.4; share and utility from the *Dummy landmarks* page). "
               f"Precision at |L| = {cur.landmarks.size:,} is in the table (chance {cur.landmarks.size / cur.n:.2f}).")
    formats = {c: st.column_config.NumberColumn(format="%.3f") for c in ("AUC", "precision at |L|", "chance")}
    st.dataframe(words.positions_table(audits), hide_index=True, key="audit_positions_table",
                 column_config={**formats, "marked |L′|": st.column_config.NumberColumn(format="%.0f")})
    positions = words.positions_table(audits)
    plain = positions[positions["dummies"] == "none"]
    alt_text.describe("audit_positions_chart", positions, table=False, what="The landmark-position attack",
                      summary=alt_text.summarize_by(plain, "scheme", "AUC", "AUC of the landmark-position attack "
                                                    "without dummies, per scheme (0.5 = guessing)"))
    return fig


def _values_section(audits: list[dict], key: str) -> object:
    st.subheader("Could an attacker guess one event's value?")
    fig = charts.drawn("values", key, _build=lambda: audit_charts.value_waffles(audits))
    st.plotly_chart(fig, key="audit_values_chart", **charts.PLOTLY_KW)
    first = next((a["value_inference"] for a in audits if a.get("value_inference")), None)
    if first is not None:
        prior = ("a coin between the public range’s two ends" if first["prior"] == "range"
                 else "the histogram of the values")
        st.caption(f"100 guesses of one event's value by an attacker who knows everything else ({prior}"
                   f"): grey squares are right by luck, coloured squares right because of the release, open squares "
                   f"what ε = {audits[0]['epsilon_claimed']:g} would still allow ({100 * first['bound']:.0f} of 100). "
                   "The event is a landmark when there is one.")
    st.dataframe(words.values_table(audits), hide_index=True, key="audit_values_table", column_config={
        c: st.column_config.NumberColumn(format="%.3f")
        for c in ("success", "bound at ε", "bound at εₜ", "no release")})
    values = words.values_table(audits)
    alt_text.describe("audit_values_chart", values, table=False, what="The value attack", summary=(
        alt_text.summarize_by(values, "scheme", "success", "Best share of right guesses of one event's value, "
                              "per scheme")[:-1] + (f" (the bound at ε: {values['bound at ε'].max():.3f})."
                                                    if len(values) else ".")))
    return fig


def _correlation_section(results: dict, audits: list[dict], cur, key: str) -> object | None:
    with_corr = [s for s, r in results.items() if r.correlation is not None]
    if not with_corr:
        return None
    st.subheader("And if the events are correlated?")
    ss = st.session_state
    if ss.get(SCHEME_KEY) not in with_corr:
        ss[SCHEME_KEY] = "skip" if "skip" in with_corr else with_corr[0]
    scheme = st.segmented_control("Scheme", with_corr, required=True, key=SCHEME_KEY)
    result = results[scheme].correlation
    fig = charts.drawn(f"correlation {scheme}", key,
                         _build=lambda: audit_charts.correlation_curves(result, scheme, cur.landmarks))
    st.plotly_chart(fig, key="audit_correlation_chart", **charts.PLOTLY_KW)
    t = result.target
    st.caption(f"A two-state chain with s = {result.s:g} ({ss[state.AUDIT_CORRELATION]}), released "
               f"{result.trials:,} times: the thin line is how often the attacker guesses each event right; the solid "
               f"line the bound from the temporal privacy loss α_t; shaded, the bound without correlation. At the "
               f"starred landmark (t = {t}) it guesses right {100 * result.success[t]:.0f} % of the time, within "
               f"{100 * result.bound[t]:.0f} % (TPL α = {result.tpl[t]:.3g}) — without correlation "
               f"{100 * result.bound_plain[t]:.0f} % would be the limit.")
    st.dataframe(words.correlation_table(audits), hide_index=True, key="audit_correlation_table", column_config={
        c: st.column_config.NumberColumn(format="%.3f")
        for c in ("success", "TPL α", "bound (TPL)", "bound without correlation")})
    alt_text.describe("audit_correlation_chart", alt_text.per_timestamp_table(len(result.success), cur.landmarks, {
        "success": result.success, "bound (TPL)": result.bound, "bound without correlation": result.bound_plain,
        "TPL α": result.tpl}), what=f"The correlated attack's success per timestamp under {scheme}", over="t")
    return fig


def _handover(cur, results: dict, audits: list[dict], said: str, figures: list) -> None:
    """JSON, HTML report and 'Reproduce in Python' of this view."""
    from lmdk.present.report import audit_report, describe_series
    from lmdk.present.reproduce import audit_script

    ss = st.session_state
    trials, s = int(ss[state.AUDIT_TRIALS]), tpl.CORRELATION.get(ss[state.AUDIT_CORRELATION])
    dummy = {"share": float(ss[state.DUMMY_SHARE]), "utility": ss[state.DUMMY_UTILITY]}
    protected = relation.current(cur)
    configuration = {"ε (claimed)": f"{float(ss[state.EPSILON]):g}", "what ε protects": protected.label(),
                     "landmarks |L|": f"{cur.landmarks.size:,} of {cur.n:,} events", "trials": f"{trials:,}",
                     "attacker's prior": ss[state.AUDIT_PRIOR], "correlated series": ss[state.AUDIT_CORRELATION],
                     "dummy share / utility": f"{100 * dummy['share']:g} % / {dummy['utility']}",
                     "audit seed": VIEW_SEED}
    c1 = c2 = c3 = widgets.button_row()
    widgets.json_download("Results (JSON)", ui_audit.to_json(results, configuration), "lmdk_adversary_lab.json",
                          key="dl_audit_json", container=c1)
    download_deferred("Report (HTML)", audit_report,
                      (said, configuration, audits, [charts.figure_spec(f) for f in figures],
                       describe_series(cur.series, cur.n)),
                      key="dl_audit_report", file_name="lmdk_adversary_lab_report.html", mime="text/html",
                      container=c2, icon=":material/description:")
    name = (ss.get(state.UPLOAD_FILE_NAME) or "YOUR_FILE") if ss[state.SOURCE] == "upload" else None
    cfg = config.run_config(cur)
    from dataclasses import replace

    cfg = replace(cfg, schemes=tuple(results))
    c3.download_button("Python script",
                       data=audit_script(cfg, trials, ss[state.AUDIT_PRIOR], s, ui_audit.dummy_methods(cur), dummy,
                                         name),
                       file_name="reproduce_adversary_lab.py", mime="text/x-python", key="dl_audit_script",
                       on_click="ignore", icon=":material/code:")


def _page() -> None:
    st.title("Adversary lab")
    _explain()  # "What am I looking at?" near the top (issue 35)
    setup = widgets.scheme_page_setup()
    if setup is None:
        return
    cur, chosen = setup
    protected = relation.current(cur)
    if protected is None:
        st.warning("Enter the public range of one value in the sidebar (*What ε protects*): the audit moves one "
                   "event across it, so it needs the range a release protects.", icon=":material/warning:")
        return
    if cur.n > ui_audit.N_MAX:
        st.info(f"The adversary lab audits series of up to {ui_audit.N_MAX:,} events on this page (this one has "
                f"{cur.n:,}): choose a window on *Data & landmarks*, or run `lmdk audit` on the command line, which "
                "takes any length.", icon=":material/info:")
        return
    _controls(cur)
    words_plural = cache.event_words(cur)
    event = words_plural.removesuffix("s")
    settings, key = _configuration(cur, chosen, protected)
    if not _may_run(cur, chosen, protected, settings, key):
        return
    try:
        results = _run(cur, chosen, protected, event)
    except LmdkError as exc:
        st.error(text.escape_markdown(exc), icon=":material/error:")
        return
    audits = ui_audit.as_dicts(results)
    said = words.headline(audits, event)
    st.markdown("##### " + said)
    figures = [_loss_section(audits, key), _positions_section(audits, cur, key), _values_section(audits, key)]
    corr = _correlation_section(results, audits, cur, key)
    if corr is not None:
        figures.append(corr)
    _handover(cur, results, audits, said, figures)
    row = widgets.button_row()
    for fig, (name, label) in zip(figures, (("loss", "Loss"), ("positions", "Positions"), ("values", "Values"),
                                            ("correlation", "Correlation")),
                                  strict=False):  # no correlation figure without its attack
        widgets.download_figure(fig, f"adversary_lab_{name}", key=f"dl_audit_{name}", container=row,
                                label=f"{label} chart (HTML)")
    st.caption(widgets.PNG_NOTE)


_page()
