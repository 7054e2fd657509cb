"""Spatiotemporal events (PriSTE): paint an event on the grid, watch the plain α-PLM leak it and PriSTE calibrate α."""
import streamlit as st

from lmdk import priste
from lmdk.errors import LmdkError
from lmdk.present import headlines
from lmdk.priste import views as priste_views
from lmdk.priste.grid import GridTooLarge
from ui import charts, epsilon_meaning, explain, run_gate, text, widgets
from ui import priste as priste_ui
from ui.charts import alt_text, maps, priste_charts
from ui.charts.priste_charts import PLAIN, PRISTE
from ui.downloads import download_deferred
from ui.session import config, state

# the configuration lives in ui.session.state (ST_* keys, mirrored to the URL); these are session-only
K_MAP, K_GRID_SIG, K_PREV_PICK = "priste_map", "_priste_grid_sig", "_priste_prev_pick"
SOURCE_LABELS = {"taxi": "synthetic taxi sample", "series": "current series", "walk": "synthetic grid walk (§5.1)"}


def on_map_pick() -> None:
    """Toggle the clicked cells in or out of the event's region."""
    ss = st.session_state
    objects = (ss[K_MAP].selection or {}).get("objects", {}).get("cells", [])
    picked = {int(o["cell"]) for o in objects}
    new = picked - set(ss.get(K_PREV_PICK, ()))
    ss[K_PREV_PICK] = tuple(picked)
    ss[state.ST_REGION] = sorted(set(ss[state.ST_REGION] or []) ^ new)


def handover(view: dict, said: str, res, grid, figures) -> None:
    """Report (HTML) and 'Reproduce in Python' of this view."""
    from lmdk.present.report import describe_series, spatiotemporal_report
    from lmdk.present.reproduce import load_lines, spatiotemporal_script

    configuration = {"trace": SOURCE_LABELS[view["source"]], "timestamps T": view["T"],
                     "grid": f"{grid.rows}×{grid.cols} cells of {grid.cell_size_m:g} m",
                     "mobility M": ("estimated from the trace" if view["estimate"]
                                    else f"Gaussian, σ = {view['sigma']:g}"),
                     "event": (f"{view['kind']}, t = {view['window'][0]}–{view['window'][1]}, "
                               f"{len(view['region'])} cells"),
                     "ε (event privacy)": f"{view['epsilon']:g}", "α₀ (per km)": view["alpha"],
                     "δ-location set": "off" if view["delta"] is None else f"δ = {view['delta']:g}",
                     "repetitions": view["repetitions"], "demonstration seed": view["seed"]}
    if view["source"] == "series":
        cur = state.current()
        description = describe_series(cur.series, cur.n)
        name = (ss.get(state.UPLOAD_FILE_NAME) or "YOUR_FILE") if ss[state.SOURCE] == "upload" else None
        from lmdk.data.mechanism_input import MECHANISM_FOR_KIND

        ss[state.MECHANISM] = MECHANISM_FOR_KIND[cur.series.kind]  # as the scheme controls set it for this series
        saved = config.run_config(cur)
        view = {**view, "load": 'from lmdk.exports.runconfig import RunConfig\n\nconfig = RunConfig.from_json(r"""'
                + saved.to_json() + '""")\n' + load_lines(saved, name)}
    else:
        description = {"data": f"{SOURCE_LABELS[view['source']]} (synthetic, seed {view['trace_seed']})"}
    c1 = c2 = widgets.button_row()
    download_deferred("Report (HTML)", spatiotemporal_report,
                      (said, configuration, res, float(view["epsilon"]),
                       [charts.figure_spec(f) for f in figures], description), key="dl_priste_report",
                      file_name="lmdk_spatiotemporal_report.html", mime="text/html", container=c1,
                      icon=":material/description:")
    c2.download_button("Python script", data=spatiotemporal_script(view),
                       file_name="reproduce_spatiotemporal.py", mime="text/x-python", key="dl_priste_script",
                       on_click="ignore", icon=":material/code:")


st.title("Spatiotemporal events")
explain.explain(
    "**Event.** A PRESENCE event is true when the user is in the region at *one or more* of the window's "
    "timestamps, a PATTERN when at *every* one. **Leakage.** An observer who knows the mobility model M and "
    "sees the released cells compares how likely they are with and without the event; ε-spatiotemporal event "
    "privacy bounds that ratio by e^ε for every prior belief π about the starting cell. Quantification uses two "
    "“possible worlds” (event true / false so far), linear in the event length. **Worst case.** The ratio "
    "depends on π only through three linear functionals, so its supremum over all π lies on an edge of a 3-D "
    "convex hull and is found exactly (the paper uses a time-limited quadratic-program solver). **PriSTE.** At "
    "each t a location is drawn from the α-planar Laplace mechanism; while the worst case exceeds ε, α is halved "
    "and the location redrawn. Source: Cao, Xiao, Xiong, Bai, Yoshikawa, *Protecting spatiotemporal event "
    "privacy in continuous location-based services*, TKDE 2020, §2–4 (Definition 2.4, Theorem 4.1, "
    "Algorithms 1–3).",
    [r"\Pr(o_0,\dots,o_t \mid \mathrm{EVENT}) \le e^{\varepsilon}\,\Pr(o_0,\dots,o_t \mid \neg\mathrm{EVENT})"
     r"\quad\text{and vice versa, for every prior }\pi",
     r"\text{PLM: } \Pr(o \mid l) \propto e^{-\alpha\, d(l, o)}"],
)
st.caption("Continuously released planar-Laplace locations can reveal *events* such as “was in this area between "
           "t₁ and t₂” even when every single location is protected. PriSTE (Cao et al., TKDE 2020) checks the "
           "event's leakage against every possible prior and halves α until it is at most ε.")
ss = st.session_state

# ------------------------------------------------------------------ trace, grid and mobility
with st.sidebar:
    st.subheader("Trace and grid")
    source = st.radio("Trace", state.PRISTE_SOURCES, format_func=SOURCE_LABELS.get,
                      **widgets.bind(state.ST_SOURCE))
    T = st.slider("timestamps", 10, state.PRISTE_T_MAX, **widgets.bind(state.ST_T))
    cell_m = st.select_slider("cell size (m)", state.PRISTE_CELL_SIZES, **widgets.bind(state.ST_CELL))
    side = st.slider("grid side (cells)", 4, state.PRISTE_SIDE_MAX, **widgets.bind(state.ST_SIDE)) \
        if source == "walk" else None
    trace_seed = st.number_input("trace seed", 0, state.SEED_MAX, **widgets.bind(state.ST_TRACE_SEED)) \
        if source != "series" else None
    st.subheader("Mobility model M")
    estimate = st.toggle("estimate M from the trace", **widgets.bind(state.ST_ESTIMATE),
                         help="Transition counts of the snapped trace plus 0.01 per cell (Laplace smoothing).")
    sigma = st.slider("σ of the Gaussian mobility (cells)", 0.3, 5.0, step=0.1, disabled=estimate,
                      **widgets.bind(state.ST_SIGMA))
    st.subheader("Privacy")
    eps = st.select_slider("ε — event privacy", state.EPSILON_OPTIONS, **widgets.bind(state.ST_EPSILON))
    epsilon_meaning.caption(eps)
    alpha = st.select_slider("α — planar Laplace budget (per km)", state.PRISTE_ALPHAS,
                             **widgets.bind(state.ST_ALPHA))
    st.caption(priste_views.scale_note(float(cell_m), float(alpha)))
    use_delta = st.toggle("restrict outputs to the δ-location set (Algorithm 3)", **widgets.bind(state.ST_USE_DELTA))
    delta = st.slider("δ", 0.0, 0.5, step=0.01, **widgets.bind(state.ST_DELTA)) if use_delta else None
    reps = st.slider("repetitions", 1, state.PRISTE_REPETITIONS_MAX, **widgets.bind(state.ST_REPETITIONS))
    seed = st.number_input("seed", 0, state.SEED_MAX, **widgets.bind(state.ST_SEED))

try:
    if source == "walk":
        grid, M, cells = priste_views.synthetic_walk(side, side, float(cell_m), sigma, T, int(trace_seed))
    else:
        if source == "series":
            cur = state.current()
            if cur is None or cur.series.kind != "trajectory":
                st.info("The current series is not a trajectory — load or upload one on *Data & landmarks*, or "
                        "pick the synthetic taxi sample.")
                st.stop()
            picked = priste_views.spread_fixes(cur.n, T)  # the whole trace, not its first T fixes
            latlon = cur.series.latlon()[picked]
            times = cur.series.timestamps[picked]
            step = (times[-1] - times[0]) / max(len(picked) - 1, 1)
            st.caption(f"{len(picked)} of the series' {cur.n:,} fixes, evenly spread over its whole span "
                       f"({times[0]:%Y-%m-%d %H:%M} → {times[-1]:%H:%M}, about one every "
                       f"{step.total_seconds() / 60:.1f} min); the length T sets how many.")
        else:
            latlon = priste_ui.taxi_latlon(T, int(trace_seed))
        grid, cells = priste_views.snap_trace(latlon[:, 0], latlon[:, 1], float(cell_m))
        M = None
    if estimate:
        M = priste.estimate_transition(cells, 0.01, m=grid.m)
    elif M is None:
        M = priste.gaussian_transition(grid, sigma)
except GridTooLarge as exc:  # the sidebar's words, not the API's parameter
    larger = " a larger *cell size (m)* or" if cell_m < state.PRISTE_CELL_SIZES[-1] else ""
    st.error(f"Covering this trace with {exc.cell_size_m:g} m cells needs {exc.rows}×{exc.cols} cells, more than "
             f"the page's {exc.max_cells}: choose{larger} fewer *timestamps* in the sidebar.")
    st.stop()
except LmdkError as exc:
    st.error(f"Cannot put this trace on a grid: {text.escape_markdown(exc)}")
    st.stop()
T = cells.size

# ------------------------------------------------------------------ the event
sig = (grid.rows, grid.cols, grid.cell_size_m, T, source, trace_seed)
first_grid = K_GRID_SIG not in ss
if ss.get(K_GRID_SIG) != sig:
    ss[K_GRID_SIG], ss[K_PREV_PICK] = sig, ()
    # a new grid starts from the cells the true path visits in a default window; on the session's first
    # grid, an event from a link (URL) is kept as far as it fits this grid
    start = min(T // 5, T - 1)
    window, region = ss[state.ST_WINDOW], ss[state.ST_REGION]
    ss[state.ST_WINDOW] = (min(window[0], T - 1), min(window[1], T - 1)) if first_grid and window else \
        (start, min(start + 4, T - 1))
    ss[state.ST_REGION] = [c for c in region if c < grid.m] if first_grid and region is not None else \
        sorted({int(c) for c in cells[start:start + 5]})[:10]
st.subheader("1 · Define the event")
c1, c2 = st.columns([1, 2])
kind = c1.radio("kind", ("presence", "pattern"), horizontal=True, **widgets.bind(state.ST_KIND),
                help="PRESENCE: in the region at one or more of the window's timestamps. "
                     "PATTERN: in the region at every one of them.")
window = c2.slider("time window", 0, T - 1, **widgets.bind(state.ST_WINDOW))
region = st.multiselect("region (cell ids) — or click cells on the map", list(range(grid.m)),
                        **widgets.bind(state.ST_REGION))
if not region:
    st.warning("The region is empty: click cells on the map or pick cell ids.")
    st.stop()

# ------------------------------------------------------------------ run
est_s = reps * 2 * T * (0.005 + 0.04 * (grid.m / 400) ** 3)
inputs = (cells, kind, tuple(sorted(region)), tuple(window), float(eps), float(alpha), M, grid, int(reps), delta,
          int(seed))
run_key = run_gate.digest(*inputs)
if not run_gate.ready("spatiotemporal", run_key, cached=run_gate.known("spatiotemporal", run_key), seconds=est_s,
                      what="the plain α-PLM and PriSTE"):
    state.sync_query_params()  # the link holds the new settings already
    st.stop()
with st.spinner(f"Running the plain α-PLM and PriSTE {reps}× each on {grid.m} cells (≈ {est_s:.0f} s)…"):
    res = priste_ui.run_comparison(*inputs)
run_gate.remember("spatiotemporal", run_key)
t = priste_charts.steps(T)

guess_m = priste_views.centre_guess_m(grid, cells)
map_is_fixed = source == "walk"  # the taxi and uploaded traces get a grid fitted around them (snap_trace)
said = headlines.spatiotemporal_headline(
    float(eps), priste_charts.largest(res.plain_leakage), res.plain_distance_m, res.priste_distance_m,
    float(alpha), res.priste_mean_alpha, guess_m=guess_m, guess_data_free=map_is_fixed)
st.markdown("##### " + said)

# ------------------------------------------------------------------ map
st.subheader("2 · The trace on the grid")
show_plain = st.toggle("also show the plain α-PLM release", **widgets.bind(state.ST_SHOW_PLAIN))
paths = {"PriSTE release": (res.priste_cells, maps.hex_rgb(PRISTE), 2)}
if show_plain:
    paths["plain α-PLM release"] = (res.plain_cells, maps.hex_rgb(PLAIN), 2)
st.pydeck_chart(priste_charts.grid_deck(grid, region, cells, paths), key=K_MAP, on_select=on_map_pick,
                selection_mode="multi-object", height=520)
st.caption(f"{grid.rows}×{grid.cols} cells of {grid.cell_size_m:g} m. Orange: the event's region; black: the true "
           "path (cell centres); blue: PriSTE's released path (repetition 1)"
           + ("; vermilion: the plain α-PLM's" if show_plain else "") + ". No base map is loaded.")
true_in = priste_charts.cells_in_region(cells, region)
released_in = priste_charts.cells_in_region(res.priste_cells, region)
alt_text.describe(K_MAP, priste_charts.trace_table(cells, region, paths), what="The trace on the grid", over="t",
                  summary=(f"The trace on the grid: {T} timestamps on {grid.rows}×{grid.cols} cells of "
                           f"{grid.cell_size_m:g} m; the event's region has {len(region)} cells, the true path is in "
                           f"it at {true_in} of {T} timestamps and PriSTE's released path at {released_in}."))

# ------------------------------------------------------------------ leakage and α
st.subheader("3 · Event leakage over time")
leak_fig = charts.drawn("leakage", run_key, restyle=False, _build=lambda: priste_charts.band_figure(
    t, {"plain α-PLM": (res.plain_leakage, PLAIN), "PriSTE": (res.priste_leakage, PRISTE)},
    y_title="worst-case leakage (nats)", reference=float(eps), reference_label=f"ε = {eps:g}", window=window,
    log_y=priste_charts.positive(res.plain_leakage), eps=float(eps)))
st.plotly_chart(leak_fig, key="priste_leak_chart", config=charts.MODEBAR)
st.caption("The largest |log Pr(o₀..o_t | event) / Pr(o₀..o_t | no event)| over *all* initial distributions "
           f"(computed exactly), median and 10–90 % band over {reps} repetitions.")
alt_text.describe("priste_leak_chart",
                  priste_charts.band_table(t, {"plain α-PLM": res.plain_leakage, "PriSTE": res.priste_leakage}),
                  what=f"Worst-case event leakage (nats) against ε = {eps:g}", over="t",
                  said=["plain α-PLM median", "PriSTE median"])

st.subheader("4 · PriSTE's calibrated α per timestamp")
alpha_fig = charts.drawn("alpha", run_key, restyle=False, _build=lambda: priste_charts.band_figure(
    t, {"PriSTE": (res.priste_alpha, PRISTE)}, y_title="α used (per km)", reference=float(alpha),
    reference_label=f"α₀ = {alpha:g}", window=window, log_y=priste_charts.positive(res.priste_alpha),
    eps=float(eps)))
st.plotly_chart(alpha_fig, key="priste_alpha_chart", config=charts.MODEBAR)
alt_text.describe("priste_alpha_chart", priste_charts.band_table(t, {"PriSTE α (per km)": res.priste_alpha}),
                  what=f"PriSTE's calibrated α per timestamp against α₀ = {alpha:g}", over="t",
                  said=["PriSTE α (per km) median"])

st.subheader("5 · Utility")
m1, m2, m3 = st.columns(3)
m1.metric("Distance, plain α-PLM", headlines.distance(res.plain_distance_m), help="Mean distance of a release.")
gap = res.priste_distance_m - res.plain_distance_m
m2.metric("Distance, PriSTE", headlines.distance(res.priste_distance_m), help="Mean distance of a release.",
          delta=("+" if gap >= 0 else "−") + headlines.distance(abs(gap)), delta_color="inverse")
m3.metric("Mean α, PriSTE", f"{res.priste_mean_alpha:.3g} / km", delta=f"{res.priste_mean_alpha - alpha:+.3g}")
st.caption("Euclidean distance between released and true cell centres, averaged over timestamps and repetitions. "
           f"Guessing the map's centre at every timestamp, without looking at the trace, is "
           f"{headlines.distance(guess_m)} off"
           + ("." if map_is_fixed else " — but this map is fitted around the trace, so its centre is read from the "
              "data: no guess on it is data-free."))

row = widgets.button_row()
widgets.download_figure(leak_fig, "priste_leakage", key="dl_priste_leak", container=row, label="Leakage chart (HTML)")
widgets.download_figure(alpha_fig, "priste_alpha", key="dl_priste_alpha", container=row, label="α chart (HTML)")
view = {"source": source, "T": T, "cell_m": cell_m, "side": side, "trace_seed": trace_seed, "estimate": estimate,
        "sigma": sigma, "kind": kind, "window": window, "region": sorted(region), "epsilon": eps, "alpha": alpha,
        "delta": delta, "repetitions": reps, "seed": seed}
handover(view, said, res, grid, [leak_fig, alpha_fig])
