"""Policies: each person's own landmarks, ε and scheme — the policy table `lmdk population --policies` reads."""
import streamlit as st

from lmdk.errors import LmdkError
from lmdk.policies import Bounds
from ui import auth, epsilon_meaning, explain, ledger, policies, text
from ui.charts import alt_text
from ui.charts.style import PLOTLY_KW
from ui.session import state

st.title("Policies")
explain.explain(
    "**Landmarks are the person's own.** The landmark paper's L is *user-defined* (§3.4): a household declares its "
    "evening hours, a patient their appointments. A policy table gives every user their own declared landmarks, "
    "ε and scheme; `lmdk population --policies policies.csv` releases each user under their row, users without a "
    "row under `--config` (or not at all: *no policy*).\n\n**Declared, so Theorem 2 holds as stated.** A calendar "
    "window, a calendar file (`ics:alice.ics`) or a list of times (`times:bob.txt`) depends on the clock only, "
    "never on the readings. Rules that read the data (`place:…`, `contacts:…`) are refused unless allowed, and "
    "the statement then says what is not protected.",
    [explain.THEOREM_2],
    "§3.1 and §3.4",
)
st.caption("Edit the table here and download it; the officer's bounds show which rows `lmdk population` would "
           "withhold (`--max-epsilon`, `--schemes`). The table stays in this session's memory.")
ss = st.session_state
SCHEMES = list(state.SCHEME_NAMES)
access = auth.current()  # an officer (or a classroom) edits the table and sees the ledger's budgets (issue 54)
if not access.spends:
    st.info(f"Read-only: {access.why}.", icon=":material/lock:")

with st.sidebar:
    st.subheader("Officer's bounds")
    max_eps = st.number_input("Largest ε per user (--max-epsilon)", min_value=0.001, value=None, step=0.5,
                              key="policy_max_eps", placeholder="no bound")
    epsilon_meaning.caption(max_eps)
    allowed = st.multiselect("Schemes allowed (--schemes)", SCHEMES, default=SCHEMES, key="policy_schemes")
bounds = Bounds(max_eps, tuple(allowed) if allowed and len(allowed) < len(SCHEMES) else None)

st.subheader("Add a user")
c1, c2, c3 = st.columns([2, 1, 1])
user = c1.text_input("User (as in the data's user column)", key="policy_user", placeholder="e.g. house-17")
eps = c2.number_input("ε", min_value=0.01, value=1.0, step=0.1, key="policy_eps")
epsilon_meaning.caption(eps)
scheme = c3.selectbox("Scheme", SCHEMES, index=SCHEMES.index("adaptive"), key="policy_scheme")
w1, w2 = st.columns([1, 2])
days = w1.selectbox("Landmark days", list(policies.DAYS), format_func=policies.DAYS.get, index=1, key="policy_days")
start, end = w2.select_slider("Landmark hours (wall clock)", options=policies.HOURS, value=("18:00", "22:00"),
                              key="policy_hours")
other = st.text_input("Or another landmark rule", key="policy_rule", placeholder="ics:alice.ics, times:bob.txt, …",
                      help="Any rule `lmdk population` reads: ics:PATH (a calendar export), times:PATH (one date/time "
                           "per line), place:LAT,LON,RADIUS_M, contacts:PATH, calendar:…; files are read next to the "
                           "table when it runs.")
rule = other.strip() or policies.window_rule(days, start, end)
if start == end and not other.strip():
    st.error("The window is empty: choose a start and an end hour that differ.")
    st.stop()
if rule.startswith("calendar:"):
    try:
        fig, week = policies.preview(rule)
    except ValueError as exc:
        st.error(f"Landmark rule: {text.escape_markdown(exc)}")
        st.stop()
    marked = policies.marked_hours(week)
    st.markdown(f"**One week of {text.code(rule)}**: {marked} of 168 hours are landmarks (black).")
    st.plotly_chart(fig, key="policy_preview", **PLOTLY_KW)
    alt_text.describe("policy_preview", week, what="Landmark hours of one week", over="hour",
                      summary=f"{marked} of 168 hours of the week are landmarks under {text.escape_markdown(rule)}.")
else:
    st.caption(f"{text.code(rule)}: its file is read by `lmdk population`, next to the table; no "
               "preview here.")
if st.button("Add to the table", type="primary", key="policy_add", icon=":material/person_add:",
             disabled=not access.spends) and access.spends:
    problem = policies.put({"user": user, "landmarks": rule, "epsilon": eps, "scheme": scheme})
    if problem:
        st.error(text.escape_markdown(problem))
    else:
        st.toast(f"Policy of {text.escape_markdown(user.strip())} saved")

st.subheader("The policy table")
upload = st.file_uploader("Start from a table (CSV, Parquet or JSON)", type=policies.UPLOAD_TYPES, key="policy_file",
                          disabled=not access.spends)
if upload is not None and access.spends and ss.get(state.POLICY_LOADED) != upload.file_id:
    problem = policies.load(upload.getvalue(), upload.name)
    ss[state.POLICY_LOADED] = upload.file_id
    if problem:
        st.error(text.escape_markdown(problem))
table = policies.table()
if not table.rows:
    st.info("No user yet: add one above, or start from a table.")
    st.stop()
dataset = None
if ledger.database_url() is not None and access.spends:
    dataset = st.text_input("Ledger dataset", key="policy_dataset", placeholder="e.g. meters-2026",
                            help="the --dataset name whose per-user budgets to show (empty: the ledger's only one)")
try:  # a viewer of a ledger deployment reads no one's budget: the database is not asked
    budget = policies.ledger_budget([r.user for r in table.rows], dataset) if access.spends \
        else policies.no_budget(len(table.rows))
except LmdkError as exc:
    st.error(text.escape_markdown(str(exc)))
    budget = policies.no_budget(len(table.rows))
frame = policies.shown(table, bounds, budget)
if not access.spends:
    frame = frame.drop(columns=["ε spent", "ε remaining"])
st.dataframe(frame, hide_index=True, width="stretch", key="policy_table",
             column_config={"epsilon": st.column_config.NumberColumn("ε", format="%g"),
                            "ε remaining": st.column_config.TextColumn(help="the ledger's cap minus the ε spent")})
refused = sum(s != "within the bounds" for s in frame["status"])
if refused:
    st.warning(f"{refused} of {len(frame)} rows pass the officer's bounds: `lmdk population` withholds those users "
               "and names the row and the bound.", icon=":material/block:")
st.caption("Spent and remaining ε: this session's ledger and its cap (the exports it records name no user of "
           "this table yet, so nothing is spent). With a ledger database each user's own exports count here.")
r1, r2 = st.columns([3, 1], vertical_alignment="bottom")
gone = r1.selectbox("Remove a user", [r.user for r in table.rows], key="policy_remove_user")
r2.button("Remove", key="policy_remove", on_click=policies.remove if access.spends else None, args=(gone,),
          icon=":material/delete:", disabled=not access.spends)
st.download_button("Policy table (CSV)", data=table.to_csv(), file_name="policies.csv", mime="text/csv",
                   key="dl_policies", on_click="ignore", icon=":material/download:",
                   help="Read by `lmdk population INPUT --policies policies.csv`.")
