"""Experiments — the papers' figures reproduced by ``lmdk.experiments``: cached default run, smaller recompute."""
from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from lmdk import experiments as ex
from lmdk import experiments_charts as ech
from ui import charts

FIGURE_KEY = "exp_figure"
REPS_KEY = "exp_reps"
SEED_KEY = "exp_seed"
RESULT_KEY = "_exp_result"  # (figure, repetitions, seed) of the recomputed run shown instead of the cache
REPRODUCTION = Path(__file__).resolve().parents[1] / "docs" / "REPRODUCTION.md"
RECOMPUTE_BUDGET_S = 60.0  # the page refuses recomputations estimated to take longer


@st.cache_data(max_entries=32, show_spinner=False)
def _cached(name: str):
    """The bundled small default run (CSV + metadata) of one figure."""
    return ex.load_cached(name)


@st.cache_data(max_entries=8, show_spinner=False)
def _recompute(name: str, repetitions: int, seed: int):
    """Run one figure at a small size (single process; the server is shared)."""
    return ex.run_figure(name, repetitions=repetitions, seed=seed, jobs=1)


@st.cache_data(max_entries=1, show_spinner=False)
def _verdicts(text: str) -> dict[str, str]:
    """The docs/REPRODUCTION.md section of every figure, keyed by the figure name in its heading."""
    sections: dict[str, str] = {}
    for block in re.split(r"(?m)^## ", text)[1:]:
        head, _, body = block.partition("\n")
        m = re.search(r"`([a-z0-9-]+)`", head)
        if m:
            sections[m.group(1)] = "## " + head + "\n" + body
    return sections


figures = ex.figures()
st.title("Experiments — reproducing the papers")
st.caption(
    "Every figure of §4 of the landmark-privacy paper and §5 of the PriSTE paper, produced by the same "
    "runner as `python -m lmdk.experiments FIGURE` (see docs/REPRODUCTION.md). The chart shows a small "
    "cached default run; recompute it with other repetitions or seed below."
)
names = list(figures)
name = st.selectbox(
    "Figure", names, key=FIGURE_KEY, format_func=lambda n: f"{n} — {figures[n].title}",
)
spec = figures[name]
st.markdown(f"**The paper's claim.** {spec.claim}")

cached = _cached(name)
meta = cached[1] if cached else {}
with st.form("exp_recompute"):
    c1, c2, c3 = st.columns([2, 2, 1])
    cached_reps = int(meta.get("repetitions", spec.page_repetitions))
    reps = c1.slider("Repetitions", 1, max(cached_reps, 1), min(3, cached_reps), key=REPS_KEY,
                     help="at most the cached run's repetitions; the full runs are on the command line")
    seed = c2.number_input("Seed", 0, 2**31 - 1, 0, step=1, key=SEED_KEY)
    submitted = c3.form_submit_button("Recompute")

if submitted:
    per_rep = float(meta.get("seconds", 0.0)) / max(cached_reps, 1)
    estimate = per_rep * reps
    if estimate > RECOMPUTE_BUDGET_S:
        st.warning(
            f"Estimated {estimate:.0f} s — longer than this page allows ({RECOMPUTE_BUDGET_S:.0f} s). "
            f"Use fewer repetitions or the command line: `python -m lmdk.experiments {name} --repetitions {reps}`."
        )
    else:
        st.session_state[RESULT_KEY] = (name, int(reps), int(seed))

result = st.session_state.get(RESULT_KEY)
df, source = None, ""
if result and result[0] == name:
    with st.spinner(f"Running {name} with {result[1]} repetitions…"):
        try:
            df = _recompute(*result)
            source = f"recomputed here: {result[1]} repetitions, seed {result[2]}"
        except ValueError as exc:  # lmdk.errors are ValueErrors with a message naming the fix
            st.error(str(exc))
if df is None and cached:
    df = cached[0]
    source = (f"cached default run: {meta.get('repetitions', '?')} repetitions, seed {meta.get('seed', '?')}, "
              f"{meta.get('seconds', '?')} s")
if df is None:
    st.info(f"No cached run of {name}; press Recompute or run "
            f"`python -m lmdk.experiments {name} --out assets/experiments_default`.")
else:
    fig = ech.figure_chart(name, df)
    fig.update_layout(meta={"figure": name, "source": source})
    st.plotly_chart(fig, width="stretch", config=charts.MODEBAR)
    st.caption(source)
    d1, d2 = st.columns(2)
    d1.download_button("Download CSV", df.to_csv(index=False).encode(), f"{name}.csv", "text/csv")
    d2.download_button("Download chart (HTML)", charts.to_html(fig).encode(), f"{name}.html", "text/html")
    with st.expander("The numbers (tidy CSV)"):
        st.dataframe(df, hide_index=True, width="stretch")

with st.expander("What am I looking at — verdict and reasons", expanded=True):
    section = _verdicts(REPRODUCTION.read_text()).get(name) if REPRODUCTION.exists() else None
    st.markdown(section or "The comparison with the paper is in docs/REPRODUCTION.md.")
