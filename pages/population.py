"""Population: one landmark-privacy policy applied to every user of a fleet — who loses most, who is not protected."""
import streamlit as st

from lmdk.population.fleet import MAX_CELLS, MAX_EVENTS, MAX_USERS
from ui import charts, epsilon_meaning, explain, population, text, widgets
from ui.charts import alt_text, population_charts
from ui.session import state

st.title("Population")
explain.explain(
    "**One policy, many users.** The landmark rule runs on each user's own series, so users differ in how many "
    "landmarks they get. A scheme such as *uniform* or *adaptive* divides ε over |L| + 1, so a user with many "
    "landmarks gets little budget per release: when the error reaches that of user-level privacy (ε/n per "
    "event), the policy has degenerated for that user. *Event* level spends ε on every event and violates "
    "Theorem 2 for every user with landmarks.\n\n**Same randomness everywhere.** Each user's noise comes from a "
    "seed derived from (seed, scheme, user), so the command line, Dask and this page give identical releases.",
    [explain.THEOREM_2],
    "§2.1 and §3.1–3.2",
)
st.caption("A privacy officer applies one policy to every household, taxi or badge. Here: how that policy treats "
           f"each user of a population of up to {MAX_CELLS:,} events in all (larger populations: "
           "`lmdk population` on the command line, in-process or on Dask).")
ss = st.session_state

with st.sidebar:
    st.subheader("Population")
    st.radio("Users", ["fleet", "upload"], format_func={"fleet": "Synthetic users", "upload": "Upload"}.get,
             horizontal=True, **widgets.bind(state.POP_SOURCE))
    if ss[state.POP_SOURCE] == "fleet":
        st.number_input("users", min_value=1, max_value=MAX_USERS, step=50, **widgets.bind(state.POP_USERS),
                        help=f"users × hours per user: at most {MAX_CELLS:,} readings on this page")
        st.number_input("hours per user", min_value=10, max_value=MAX_EVENTS, step=100,
                        **widgets.bind(state.POP_EVENTS),
                        help=f"users × hours per user: at most {MAX_CELLS:,} readings on this page")
        st.slider("landmark share of the users", 0.0, 1.0, step=0.05, **widgets.bind(state.POP_SHARE),
                  help="Each user gets a share drawn uniformly from this range and one of the four landmark "
                       "distributions of the paper (§4.1.2) over the day: that share of the day's hours, where its "
                       "distribution puts them, are its quiet hours, which it declares in advance as a calendar "
                       "rule. The rule `declared` releases each user under its own declared hours.")
        st.number_input("seed of the synthetic users", min_value=0, step=1, **widgets.bind(state.POP_FLEET_SEED))
    else:
        st.file_uploader("A multi-user file (memory only, this session only)", type=population.UPLOAD_TYPES,
                         key="pop_file", on_change=population.on_upload, args=("pop_file",),
                         help="A long table with a user column (user, timestamp, value | lat, lon | contact), as "
                              "CSV or Parquet, or a multi-entity export such as T-drive or SocioPatterns.")

    st.subheader("Policy")
    st.multiselect("Schemes", state.SCHEME_NAMES, **widgets.bind(state.SCHEMES))
    st.select_slider("Privacy budget ε (log scale)", options=state.EPSILON_OPTIONS, format_func=lambda e: f"{e:g}",
                     **widgets.bind(state.EPSILON))
    epsilon_meaning.caption(st.session_state[state.EPSILON])
    st.number_input("w (window of w-event privacy)", min_value=1, max_value=state.W_MAX, **widgets.bind(state.W))
    st.number_input("Demonstration seed", min_value=0, step=1, **widgets.bind(state.SEED))
    if pop_kind := getattr(population.population(), "kind", None):
        st.markdown("**What ε protects**")
        if pop_kind == "values":
            fleet = ss[state.POP_SOURCE] == "fleet"
            c1, c2 = st.columns(2)
            c1.number_input("low", step=1.0, **widgets.bind(state.REL_LOW),
                            placeholder=f"{population.FLEET_RANGE[0]:g} (default)" if fleet else "e.g. 0")
            c2.number_input("high", step=1.0, **widgets.bind(state.REL_HIGH),
                            placeholder=f"{population.FLEET_RANGE[1]:g} (default)" if fleet else "the meters' rating")
        elif pop_kind == "trajectory":
            st.number_input("Protected radius (m)", min_value=0.001, step=50.0, **widgets.bind(state.REL_RADIUS),
                            placeholder=f"{population.RADIUS_M:g} (default)")

if ss.get("_pop_error"):
    st.error(text.escape_markdown(ss["_pop_error"]))
pop = population.population()
if pop is None:
    too_large = population.fleet_too_large() if ss[state.POP_SOURCE] == "fleet" else None
    if too_large:
        st.error(too_large, icon=":material/error:")
    else:
        st.info("Upload a multi-user file in the sidebar, or switch to synthetic users.")
    st.stop()

rule = ss[state.POP_RULE] or pop.default_rule
entered = st.text_input("Landmark rule, applied to each user's own series", value=rule, key="pop_rule_text",
                        help="The same rules as `lmdk release --landmarks`: calendar:daily@01:00-06:00 (declared "
                             "windows), percentile:20, below:0.1, share:20, stay:30min, … applied to each user's "
                             "own series (rules that read the values are data-derived: NOT PROTECTED). Synthetic "
                             "users: `declared` (the default) releases each user under the quiet hours it "
                             "declared.")
if not entered.strip():
    st.info("Enter a landmark rule above, e.g. `percentile:20` (the lowest 20 % of each user's readings) or "
            "`calendar:sun@09:00-12:00` (declared windows).")
    st.stop()
if entered != rule:
    from lmdk.landmarks import web_rule

    try:
        if pop.own_rules(entered) is None:
            web_rule(entered)  # never a server path (ics:, times:, file:, contacts:) from a visitor's box
    except ValueError as exc:
        st.error(f"Landmark rule: {text.escape_markdown(exc)}")
        st.stop()
    ss[state.POP_RULE] = entered if entered != pop.default_rule else None
    rule = entered
chosen = tuple(s for s in state.SCHEME_NAMES if s in ss[state.SCHEMES])
if not chosen:
    st.warning("Pick at least one scheme in the sidebar.")
    st.stop()
eps, w, seed = float(ss[state.EPSILON]), int(ss[state.W]), int(ss[state.SEED])
shortest = int(ss[state.POP_EVENTS]) if ss[state.POP_SOURCE] == "fleet" else None
if shortest is not None and w > shortest and "w-event" in chosen:
    st.error(f"*w* = {w:,} is longer than each user's series ({shortest:,} hours): choose *w* ≤ {shortest:,} in the "
             "sidebar, or leave *w-event* out of the schemes.", icon=":material/error:")
    st.stop()
try:
    with st.spinner("Releasing every user's series…"):
        protected = population.relation(pop, ss[state.POP_SOURCE] == "fleet")
        if protected is None:
            st.warning("Enter the public range of one reading (sidebar, *What ε protects*; from the meters' "
                       "rating, never from the data). Until then every user's release protects changes of up to "
                       "1 unit (Δ = 1).")
        table = population.summaries(pop, rule, chosen, eps, w, seed, protected)
except ValueError as exc:
    st.error(text.escape_markdown(exc))
    st.stop()

unit = {"values": "kWh" if ss[state.POP_SOURCE] == "fleet" else "value units", "trajectory": "m",
        "contacts": "% wrong"}[pop.kind]
from lmdk.present.population import flagged, headline  # noqa: E402 (only once a population is loaded, after st.stop)

guess = population.data_free_guess(pop, protected, unit)
derived = population.data_derived(pop, rule)
st.markdown(f"##### {headline(table, chosen, eps, unit, guess, data_derived=derived)}")
protected_words = (text.escaped_relation(protected).label() if protected is not None
                   else "changes of up to 1 unit (Δ = 1)")
st.caption(f"{pop.description} · landmarks: {population.rule_words(pop, rule)} · ε = {eps:g} · "
           f"protected: {protected_words} · one release per "
           f"user, demonstration seed {seed}.")

population.statement_box(pop, rule, chosen, eps, w, protected)  # a rule that reads the values: NOT PROTECTED first

if pop.kind == "values" and protected is not None and protected.kind == "range":
    population.district_section(pop, table, chosen, eps, w, seed, protected, unit)

st.subheader("Per-user error, per scheme")
st.plotly_chart(population_charts.mae_distribution(table, chosen, unit=unit, epsilon=eps,
                                                  guess=guess.mae if guess is not None else None),
                key="pop_mae", **charts.PLOTLY_KW)
st.caption("Each box: the users' mean absolute errors under one scheme (box: middle half of the users; "
           "whiskers and dots: the rest). Hover a dot for the user."
           + (f" Dashed line: the typical user's error of guessing {guess.value:g} {unit}, the middle of the public "
              f"range, without looking at the data." if guess is not None else ""))
spread = table[table["scheme"].isin(chosen)].groupby("scheme", sort=False)["mae"]
alt_text.describe("pop_mae", table[table["scheme"].isin(chosen)][["scheme", "user", "mae"]].rename(
    columns={"mae": f"MAE ({unit})"}), what=f"Per-user mean absolute error ({unit})", summary=(
    f"Per-user mean absolute error ({unit}), median and middle half of the users per scheme: " + "; ".join(
        f"{s} {charts.number(g.median())} ({charts.number(g.quantile(0.25))}–{charts.number(g.quantile(0.75))})"
        for s, g in spread) + "."))

st.subheader("Landmarks against error, one point per user")
scheme = st.selectbox("Scheme", chosen, index=chosen.index(ss[state.POP_SCHEME]) if ss[state.POP_SCHEME] in chosen
                      else len(chosen) - 1, key="pop_scheme_pick")
ss[state.POP_SCHEME] = scheme
rows = table[table["scheme"] == scheme]
picked = st.plotly_chart(population_charts.share_vs_mae(rows, scheme, unit=unit, epsilon=eps), key="pop_scatter",
                         on_select="rerun", selection_mode="points", **charts.PLOTLY_KW)
alt_text.describe("pop_scatter", rows[["user", "landmark_share", "mae", "theorem2_holds", "degenerate"]].rename(
    columns={"landmark_share": "landmark share", "mae": f"MAE ({unit})", "theorem2_holds": "Theorem 2 holds",
             "degenerate": "no better than user level"}), what=f"Landmark share against error under {scheme}",
    said=["landmark share", f"MAE ({unit})", "Theorem 2 holds", "no better than user level"])
users = [p.get("customdata") for p in (picked.selection.points if picked else []) if p.get("customdata")]
typed = st.selectbox("…or choose a user from the list", rows["user"].astype(str).tolist(), index=None,
                     placeholder="a user id (type to search)", key="pop_user_pick",
                     help="The same as clicking the user's point, from the keyboard.")
users = users or ([typed] if typed else [])
if users:
    user = str(users[0])
    if st.button(f"Open user {text.escape_markdown(user)} on the single-series pages", icon=":material/open_in_new:",
                 type="primary"):
        population.open_user(pop, user, rule)
        st.switch_page("pages/schemes_utility.py")
else:
    st.caption("Click a user's point to open that user's series, with the policy's landmarks, on the "
               "single-series pages.")

st.subheader("Users the policy does not serve")
bad = flagged(table)
if bad.empty:
    st.success("Every scheme satisfies Theorem 2 for every user and beats user-level utility.")
else:
    st.dataframe(bad[["scheme", "user", "reason", "landmark_share", "worst_sigma", "mae"]]
                 .head(500), hide_index=True, width="stretch",
                 column_config={"landmark_share": st.column_config.NumberColumn("landmarks", format="percent"),
                                "worst_sigma": st.column_config.NumberColumn("worst Σ", format="%.3g"),
                                "mae": st.column_config.NumberColumn(f"MAE ({unit})", format="%.3g")})
    st.caption("The summary holds each user's landmark count and error against the original: it is for the "
               "officer's eyes, never for release. Shown: up to 500 rows.")
