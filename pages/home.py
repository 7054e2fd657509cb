"""Overview: landmark privacy in plain words, one live example, and a link to every page."""
import streamlit as st

from lmdk import privacy, schemes
from lmdk.landmarks import as_indices
from lmdk.present import headlines, report, reproduce
from ui import charts, ensure_entrypoint, epsilon_meaning, explain, widgets
from ui.charts import alt_text
from ui.downloads import download_deferred
from ui.session import state

ensure_entrypoint()  # this page needs no series, so it does not start with state.current()
st.title("Landmark privacy lab")
explain.explain(
    "The chart shows the budget $\\varepsilon_t$ each scheme spends per timestamp for the eight-event example; "
    "landmarks are the ticks in the strip L on top and the hatched bars. A scheme satisfies (ε, L)-landmark "
    "privacy when, for every t, the budgets on the landmarks plus the one at t sum to at most ε. The paper's "
    "neighbouring relation "
    "(Definition 3) lets two series differ on the landmarks and on at most one regular event.",
    [explain.THEOREM_2, r"\text{uniform: } \varepsilon_t = \frac{\varepsilon}{|L|+1}, \qquad "
                        r"\text{user: } \varepsilon_t = \frac{\varepsilon}{n}, \qquad "
                        r"\text{event: } \varepsilon_t = \varepsilon"],
    "§3.1 (Definitions 3–4, Theorem 2) and §3.2",
)
st.markdown(
    """
A smart meter, a phone's GPS or a Bluetooth badge records **one event after another**. Some events
are **landmarks** — the night the house was empty, a visit to a clinic, meeting a particular person.
They need more protection than the rest, but protecting *every* event as strongly as a landmark
(user-level privacy) drowns the whole series in noise.

**Landmark privacy** asks for exactly what matters: whatever single event *t* you pick, the
landmarks **together with t** must stay protected by the total budget ε. A mechanism that spends
$\\varepsilon_i$ on the release at time *i* guarantees this when

$$\\sum_{i \\in L \\cup \\{t\\}} \\varepsilon_i \\le \\varepsilon \\quad\\text{for every } t\\quad\\text{(Theorem 2).}$$

So the budget is spent on the landmarks once, and each regular event gets whatever is left —
far more than the ε/n of user-level privacy when landmarks are few.
"""
)

st.subheader("Try it: eight events, you choose the landmarks")
# controls above the chart at full width: at 1024 px nothing is hidden under the chart or cut
marked = st.pills("Landmark timestamps", list(range(8)), selection_mode="multi", default=[1, 3, 5],
                  key="home_landmarks", help="Click a timestamp to make it a landmark (or a regular event again).")
eps = st.select_slider("Total budget ε", options=state.EPSILON_OPTIONS, value=1.0, key="home_eps",
                       format_func=lambda e: f"{e:g}")
epsilon_meaning.caption(eps)
landmarks = as_indices(marked or [])
example = {s: schemes.allocate(s, 8, landmarks, eps, w=3) for s in ("event", "user", "uniform", "skip")}
verdicts = {s: privacy.satisfies_landmark_privacy(b, landmarks, eps) for s, b in example.items()}
said = headlines.overview_headline(eps, 8, int(landmarks.size), verdicts)
st.markdown("##### " + said)  # the answer first, above the chart that shows why (issue 35)
fig = charts.budgets(example, landmarks, epsilon=eps, row_height=95, absolute=True)
st.plotly_chart(fig, key="home_budgets", **charts.PLOTLY_KW)
alt_text.describe("home_budgets", alt_text.budget_table(example, landmarks), what="Budget εₜ per timestamp",
                  over="t")
cols = st.columns(len(example))
for col, (scheme, budget) in zip(cols, example.items(), strict=True):
    worst = float(privacy.landmark_loss(budget, landmarks).max())
    ok = worst <= eps + 1e-9
    col.markdown(f"**{scheme}**")
    col.badge("satisfies" if ok else "violates", color="green" if ok else "red",
              icon=":material/check_circle:" if ok else ":material/cancel:")
    col.caption(f"worst Σ = {worst:.3g}")
d1 = d2 = widgets.button_row()
download_deferred("Report (HTML)", report.overview_report,
                  (said, eps, landmarks, example, charts.figure_spec(fig)), key="dl_home_report",
                  file_name="lmdk_overview.html", mime="text/html", container=d1,
                  icon=":material/description:")
d2.download_button("Python script", data=reproduce.overview_script(landmarks, eps),
                   file_name="reproduce_overview.py", mime="text/x-python", key="dl_home_script", on_click="ignore",
                   icon=":material/code:")
st.caption(
    "Event-level spends ε at every timestamp, so as soon as there is one landmark, the landmark plus "
    "any other event add up to 2ε > ε: it fails. User-level spends ε/8 everywhere and always passes, "
    "but each release is 8× noisier. Uniform spends ε/(|L|+1); Skip spends ε on regular events and "
    "nothing on landmarks (it republishes the previous release there)."
)

st.subheader("The pages")
for path, title, icon in state.REGISTERED_PAGES[1:]:
    st.page_link(path, label=title, icon=icon)
st.caption(f"Limits (so one visitor cannot stall a shared server): series of at most {state.N_MAX:,} events, "
           f"at most {state.REPETITIONS_MAX} repetitions, w ≤ {state.W_MAX:,}, uploads up to 50 MB. Uploads stay "
           "in your browser session only; the link in the address bar reproduces your settings (not uploaded data).")
