"""Experiments — the papers' figures reproduced by ``lmdk.experiments.runner``: cached default run, smaller
recompute."""
from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from lmdk.experiments import runner as ex
from ui import charts, heavy, text, widgets
from ui import experiments as ex_ui
from ui.charts import alt_text
from ui.session import state

REPRODUCTION = Path(__file__).resolve().parents[1] / "docs" / "REPRODUCTION.md"


@st.cache_data(max_entries=32, show_spinner=False)
def _cached(name: str):
    """The bundled small default run (CSV + metadata) of one figure."""
    return ex.load_cached(name)


RECOMPUTED_KEY = "_exp_recomputed"  # this session's recent recomputations, newest last
RECOMPUTED_MAX = 8


def _recompute(name: str, repetitions: int, seed: int, progress):
    """Run one figure at a small size (single process; the server is shared), remembered per session.

    Not st.cache_data: the progress bar is updated from inside the run, which a cached function may not do.
    """
    done = st.session_state.setdefault(RECOMPUTED_KEY, {})
    key = (name, repetitions, seed)
    if key not in done:
        with heavy.slot(f"{name}, {repetitions} repetition{'s' if repetitions != 1 else ''}"):  # one per core at once
            done[key] = ex.run_figure(name, repetitions=repetitions, seed=seed, jobs=1, progress=progress)
        while len(done) > RECOMPUTED_MAX:
            done.pop(next(iter(done)))
    return done[key]


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
names = list(figures)
ss = st.session_state
if ss.get(state.EX_FIGURE) not in figures:
    ss[state.EX_FIGURE] = names[0]

st.title("Experiments — reproducing the papers")
st.caption(
    "Every figure of §4 of the landmark-privacy paper and §5 of the PriSTE paper, produced by the same "
    "runner as `lmdk experiments FIGURE` (see docs/REPRODUCTION.md). The chart shows a small "
    "cached default run; recompute it with other repetitions or seed below."
)
name = st.selectbox("Figure", names, format_func=lambda n: f"{n} — {figures[n].title}",
                    **widgets.bind(state.EX_FIGURE))
spec = figures[name]
st.markdown(f"**The paper's claim.** {spec.claim}")
# near the top (issue 35), closed: open, its tables would push the chart below the first screen
with st.expander("What am I looking at — verdict and reasons", expanded=False):
    section = _verdicts(REPRODUCTION.read_text()).get(name) if REPRODUCTION.exists() else None
    with st.container(key="ex_verdict"):
        ex_ui.markdown_with_tables(section or "The comparison with the paper is in docs/REPRODUCTION.md.")

cached = _cached(name)
meta = cached[1] if cached else {}
cached_reps = max(int(meta.get("repetitions", spec.page_repetitions)), 1)
with st.form("exp_recompute"):
    c1, c2, c3 = st.columns([2, 2, 1])
    c1.slider("Repetitions", 1, cached_reps,
              help="at most the cached run's repetitions; the full runs are on the command line",
              **widgets.bind_in_form(state.EX_REPETITIONS, lambda r: min(max(int(r), 1), cached_reps)))
    c2.number_input("Seed", 0, state.SEED_MAX, step=1, **widgets.bind_in_form(state.EX_SEED))
    submitted = c3.form_submit_button("Recompute")
if submitted:  # the form's values become the configuration (and the URL) only now
    widgets.commit_form(state.EX_REPETITIONS, state.EX_SEED)
    ss[state.EX_RUN] = name

df, source = None, ""
if ss[state.EX_RUN] == name:  # a recomputation is the view (after Recompute, or from a link)
    reps, seed = min(int(ss[state.EX_REPETITIONS]), cached_reps), int(ss[state.EX_SEED])
    estimate = float(meta.get("seconds", 0.0)) / cached_reps * reps
    if estimate > state.EXPERIMENT_BUDGET_S:
        ss[state.EX_RUN] = None
        st.warning(
            f"Estimated {estimate:.0f} s — longer than this page allows ({state.EXPERIMENT_BUDGET_S:.0f} s). "
            f"Use fewer repetitions or the command line: `lmdk experiments {name} --repetitions {reps}`."
        )
    else:
        bar = st.empty()
        with st.spinner(f"Running {name} with {reps} repetition{'s' if reps != 1 else ''}…"):
            try:
                df = _recompute(name, reps, seed,
                                lambda done, total: bar.progress(done / total, f"{done} of {total} tasks"))
                source = f"recomputed here: {reps} repetition{'s' if reps != 1 else ''}, seed {seed}"
            except ValueError as exc:  # lmdk.errors are ValueErrors with a message naming the fix
                st.error(text.escape_markdown(exc))
        bar.empty()
if df is None and cached:
    df = cached[0]
    scale = f", cells of {meta['cell_km']:g} km (α per km)" if "cell_km" in meta else ""  # PriSTE figures
    source = (f"cached default run: {meta.get('repetitions', '?')} repetitions, seed {meta.get('seed', '?')}, "
              f"{meta.get('seconds', '?')} s{scale}")
if df is not None:  # an error's interval never goes below 0 (runs cached before issue 35 can hold a negative bound)
    df = ex_ui.nonnegative_intervals(df)
if df is None:
    st.info(f"No cached run of {name}; press Recompute or run "
            f"`lmdk experiments {name} --out assets/experiments_default`.")
else:
    fig = ex_ui.chart(name, df, source)
    st.plotly_chart(fig, width="stretch", config=charts.MODEBAR)
    st.caption(source)
    if source.startswith("cached") and int(ss[state.EX_REPETITIONS]) != cached_reps:
        st.caption(f"The chart shows the cached run ({cached_reps} repetitions); press *Recompute* to draw it with "
                   f"{int(ss[state.EX_REPETITIONS])}.")
    st.caption("Like the papers' figures, these runs calibrate the noise to a change of one unit (Δ = 1) with no "
               "public range; the other pages calibrate it to the public range and clamp the releases to it, so one "
               "scheme's error differs between them (most for user level, whose huge noise the range clamps).")
    d1, d2 = st.columns(2)
    d1.download_button("Download CSV", ex_ui.csv_bytes(df), f"{name}.csv", "text/csv")
    d2.download_button("Download chart (HTML)", charts.to_html(fig).encode(), f"{name}.html", "text/html")
    alt_text.describe(f"experiment_{name}", ex_ui.readable(df), what=f"The numbers of {name} (tidy)",
                      csv=False)
