"""Data & landmarks: pick a series (sample, synthetic, upload) and mark its landmarks
(detector, timeline selection, map clicks)."""
import streamlit as st

from ui import (
    calendar_box,
    charts,
    explain,
    import_step,
    landmark_edit,
    landmark_keys,
    long_series,
    text,
    upload_statistic,
    widgets,
)
from ui.charts import alt_text, downsample, maps, zoom
from ui.session import cache, state

DETECTOR = "detector"
TIMELINE_CHART = "timeline_chart"
MAP_CHART = "map_chart"
BASEMAP = "basemap"
LANDMARK_FILE = "landmark_file"

st.title("Data & landmarks")
explain.explain(
    "Each point is one **event** of the series. **Landmarks** (black ticks in the strip L under the series) are "
    "the events that need the strongest protection; the rest are **regular events** (grey). Landmark privacy "
    "protects all landmarks *plus* any one regular event together with the total budget ε. The positions of the "
    "landmarks are treated as public here (they are shared with the schemes); the *Dummy landmarks* page hides "
    "them.\n\n"
    "Detectors: **threshold** (value below/above a level, e.g. low consumption = nobody home), **percentile** "
    "(the lowest/highest share), **share of events** (the parameter chosen so that the requested share are "
    "landmarks, as in the paper's 0–100 % experiments), **stay points** (Li et al. 2008: the fixes of a stay "
    "of at least the given time within the given radius) and **contacts** (scans that found a watch-listed device).",
    [r"L \subseteq T = \{0, \dots, n-1\}, \qquad \text{share} = |L| / n"],
    "§3.1 and §4.1.2",
)


# ------------------------------------------------------------------ callbacks (run before the script)
def _import_landmarks() -> None:
    """Replace the landmarks by those of an uploaded list (positions, timestamps or the app's JSON)."""
    from lmdk import landmarks as lmk

    file = st.session_state.get(LANDMARK_FILE)
    cur = state.current()
    if file is None or cur is None:
        return
    try:
        found = lmk.landmark_positions(file.getvalue().decode("utf-8", errors="replace"), cur.series.timestamps)
        if found.size and (found.min() < 0 or found.max() >= cur.n):
            raise ValueError(f"the file names positions outside 0..{cur.n - 1} (this series uses {cur.n:,} events)")
    except ValueError as exc:
        st.session_state["_detector_error"] = f"Landmark import: {exc}"
        return
    st.session_state["_detector_error"] = None
    landmark_edit.edit("replace", found, f"Imported {found.size:,} landmarks from {file.name}.")


def _on_timeline() -> None:
    key = f"{TIMELINE_CHART}_{st.session_state[state.TIMELINE_EPOCH]}"
    idx, area = landmark_edit.selected_indices(st.session_state.get(key))
    cur = state.current()
    first, stop = zoom.current(cur)
    # a downsampled timeline: a box/lasso covers every event inside it, drawn or not
    if area and cur is not None and stop - first > downsample.DISPLAY_POINTS:
        idx = landmark_edit.with_area(idx, st.session_state[key]["selection"], cur, first, stop)
    if idx.size:
        action = st.session_state[state.SELECT_ACTION] if area else "toggle"
        verb = {"add": "added", "remove": "removed", "toggle": "toggled"}[action]
        landmark_edit.edit_marked(action, idx, f"Timeline: {verb} {idx.size} event(s).")
    state.bump(state.TIMELINE_EPOCH)  # a fresh chart: the same point can be clicked again


def _on_map() -> None:
    key = f"{MAP_CHART}_{st.session_state[state.MAP_EPOCH]}"
    event = st.session_state.get(key)
    objects = (event or {}).get("selection", {}).get("objects", {}).get(maps.EVENTS_LAYER, [])
    idx = landmark_edit.map_picks(objects)
    if idx.size:
        landmark_edit.edit_marked("toggle", idx, f"Map: toggled t = {', '.join(map(str, idx.tolist()))}.",
                                  values_shown=True)  # the map shows the locations being released
    state.bump(state.MAP_EPOCH)


def _apply_detector(action: str, detector: str, params: tuple) -> None:
    cur = state.current()
    try:
        found = cache.detect(cur.token, detector, params, _series=cur.series)
    except ValueError as exc:
        st.session_state["_detector_error"] = str(exc)
        return
    st.session_state["_detector_error"] = None
    asked = dict(params).get("fraction")
    note = f"Detector {detector}: {found.size} event(s) found, {action}."
    st.session_state["_detector_warning"] = None
    if detector == "fraction" and asked is not None:
        got = found.size / cur.n
        note = f"Share of events: asked {100 * asked:.0f} %, got {100 * got:.1f} % ({found.size} events), {action}."
        if abs(got - asked) > 0.025:
            st.session_state["_detector_warning"] = (
                f"Asked for {100 * asked:.0f} % of events, but the closest this series allows is {100 * got:.1f} % "
                "(stay points come in whole stays, contacts in whole contact ids). Adjust the share or use another "
                "detector.")
    landmark_edit.edit(action, found, note, origin="data")  # a detector reads the values being released (issue 33)
    st.session_state[state.LANDMARKS_RULE] = _detector_rule(detector, dict(params)) if action == "replace" else None


def _detector_rule(detector: str, params: dict) -> str | None:
    """The landmark rule a values detector applies (for the Adversary lab's flip neighbours), None for others."""
    if detector == "threshold" and params.get("below") is not None:
        return f"below:{params['below']!r}"
    if detector == "threshold" and params.get("above") is not None:
        return f"above:{params['above']!r}"
    if detector == "percentile":
        return f"percentile:{100 * params['fraction']:g}:{params['side']}"
    if detector == "fraction":
        return f"share:{100 * params['fraction']:g}"
    return None


# ------------------------------------------------------------------ 1. the series
st.subheader("1 · Choose a series")
source = st.segmented_control("Source", ["sample", "synthetic", "district", "upload"], required=True,
                              format_func={"sample": "Bundled sample", "synthetic": "Synthesise",
                                           "district": "A district (many homes)", "upload": "Upload a file"}.get,
                              **widgets.bind(state.SOURCE))
if source == "sample":
    c1, c2 = st.columns([2, 1])
    c1.selectbox("Sample", cache.sample_names(), **widgets.bind(state.SAMPLE))
    c1.caption(cache.sample_description(st.session_state[state.SAMPLE]))
    c2.number_input(f"Events n (max {state.N_MAX:,})", min_value=state.N_MIN, max_value=state.N_MAX,
                    step=100, **widgets.bind(state.LENGTH))
elif source == "synthetic":
    c1, c2, c3 = st.columns(3)
    c1.radio("Kind", ["values", "trajectory"],  horizontal=True, **widgets.bind(state.SYN_KIND))
    c1.number_input(f"Length n (max {state.N_MAX:,})", min_value=state.N_MIN, max_value=state.N_MAX, step=100,
                    **widgets.bind(state.SYN_N))
    c2.slider("Landmark share", 0.0, 1.0, step=0.05, **widgets.bind(state.SYN_FRACTION))
    c2.selectbox("Landmark distribution", state.DISTRIBUTION_NAMES, **widgets.bind(state.SYN_DISTRIBUTION),
                 help="Skewed: towards the start; symmetric: in the middle; bimodal: at both ends (§4.1.2).")
    c3.slider("Temporal correlation ρ", 0.0, 0.99, step=0.01, **widgets.bind(state.SYN_CORRELATION),
              help="Correlation between consecutive events (values: AR(1); trajectories: heading).")
    c3.number_input("Seed", min_value=0, max_value=state.SEED_MAX, **widgets.bind(state.SYN_SEED))
elif source == "district":
    import_step.district_controls()
else:
    import_step.import_step()
    upload_statistic.controls()  # a multi-user file: one user, or the total, mean or count over users (or a group)
    if st.session_state.get(state.SERIES_UPLOAD) is not None:
        st.number_input(f"Events n (max {state.N_MAX:,})", min_value=state.N_MIN,
                        max_value=state.N_MAX, step=100, **widgets.bind(state.LENGTH))

cur = state.current()
if source == "upload" and st.session_state.get(state.SERIES_UPLOAD) is None:
    if st.session_state.get(state.UPLOAD_ERROR):
        st.stop()  # the error above says what to change in the import settings or the file
    st.info("Upload a file to continue: a timestamp column plus a value, latitude/longitude, or contact-id "
            "column. Nothing you upload is stored on disk or shown to other visitors.")
    st.stop()
if cur is None:
    st.stop()
for warning in cur.series.warnings:
    st.warning(text.escape_markdown(warning))
if source == "upload" and import_step.length_note(cur.n):
    st.info(import_step.length_note(cur.n), icon=":material/content_cut:")
long_series.controls(cur)  # a window or an hourly/daily aggregation (the choice above state.N_MAX events)
st.caption(f"**{text.escape_markdown(cur.series.name or 'series')}** · {cur.series.kind} · n = {cur.n:,} events · "
           f"{cur.series.timestamps[0]} → {cur.series.timestamps[-1]}")

# ------------------------------------------------------------------ 2. detectors
st.subheader("2 · Mark landmarks")
kind = cur.series.kind
detectors = {"values": ["threshold", "percentile", "fraction"], "trajectory": ["stay_points", "fraction"],
             "contacts": ["contacts", "fraction"]}[kind]
with st.container(border=True):
    d1, d2, d3 = st.columns([1, 2, 1.3])
    detector = d1.radio("Detector", detectors, key=f"{DETECTOR}_{kind}",
                        format_func={"threshold": "Threshold", "percentile": "Percentile",
                                     "fraction": "Share of events", "stay_points": "Stay points",
                                     "contacts": "Contacts"}.get)
    if detector == "threshold":
        y = cur.series.values
        side = d2.radio("Landmark when the value is", ["below", "above"], horizontal=True, key="thr_side")
        default = landmark_edit.threshold_default(y, side)
        thr = d2.number_input(f"threshold ({text.escape_markdown(cur.series.units or 'value')})", value=default,
                              key=f"thr_{side}")
        params = (("below", thr if side == "below" else None), ("above", thr if side == "above" else None))
    elif detector == "percentile":
        frac = d2.slider("share of events", 0, 100, 20, 5, key="pct_frac", format="%d %%") / 100
        side = d2.radio("side", ["below", "above"], horizontal=True, key="pct_side",
                        format_func={"below": "lowest values", "above": "highest values"}.get)
        params = (("fraction", frac), ("side", side))
    elif detector == "fraction":
        frac = d2.slider("share of events that become landmarks", 0, 100, 20, 5, key="frac_frac", format="%d %%",
                         help="Chooses the detector's parameter so that this share of events are landmarks.")
        params = (("fraction", frac / 100),)
    elif detector == "stay_points":
        dist = d2.number_input("stay radius (m)", 10.0, 5_000.0, 200.0, 10.0, key="sp_dist")
        dur = d2.number_input("minimum stay (s)", 60.0, 86_400.0, 1_200.0, 60.0, key="sp_dur")
        params = (("distance_m", dist), ("duration_s", dur))
    else:
        ids = landmark_edit.contact_ids(cur.series.contacts)
        watch = d2.multiselect("watch-list of contact ids", ids, default=ids[:3], key="watch")
        params = (("watchlist", tuple(int(i) for i in watch)),)
    d3.button("Replace landmarks", on_click=_apply_detector, args=("replace", detector, params), type="primary",
              key="det_replace", width="stretch")
    d3.button("Add to landmarks", on_click=_apply_detector, args=("add", detector, params), key="det_add",
              width="stretch")
    d3.button("Clear all landmarks", on_click=landmark_edit.edit, args=("replace", (), "Cleared."),
              key="det_clear", width="stretch")
    u1, u2, _ = st.columns([1, 1, 3])
    u1.button("Undo", on_click=cache.undo_landmarks, key="lm_undo", icon=":material/undo:", width="stretch",
              disabled=not st.session_state.get(state.LANDMARK_UNDO))
    u2.button("Redo", on_click=cache.undo_landmarks, kwargs={"redo": True}, key="lm_redo", icon=":material/redo:",
              width="stretch", disabled=not st.session_state.get(state.LANDMARK_REDO))
    landmark_keys.controls(landmark_edit.edit_marked, cur.n)  # the timeline's and map's clicks, from the keyboard
    calendar_box.controls(landmark_edit.edit, cur)  # declared by the wall clock, with a one-week preview
    st.file_uploader("Import landmarks: the app's landmark JSON, or a CSV of event positions or of timestamps",
                     type=None, key=LANDMARK_FILE, on_change=_import_landmarks)
    if detector in ("threshold", "percentile", "fraction"):
        st.caption("These detectors choose L from the private values themselves. Landmark privacy assumes L is "
                   "given by the policy (e.g. hours the user named): choosing it from the data is not covered by ε, "
                   "and the exported release says so.")
    if st.session_state.get("_detector_error"):
        st.error(text.escape_markdown(st.session_state["_detector_error"]))
    if st.session_state.get("_detector_warning"):
        st.warning(st.session_state["_detector_warning"], icon=":material/warning:")

# ------------------------------------------------------------------ 3. timeline
y, y_title = landmark_edit.timeline_values(cur)  # the values, or a flat line of times when they are hidden
top = st.columns([3, 2])
top[0].markdown("**Timeline** — click a point to toggle it; to select many, pick the box or lasso tool in the "
                "chart's toolbar and drag (or type positions under *2 · Mark landmarks*).")
top[1].radio("A box or lasso selection", ["add", "remove"], key=state.SELECT_ACTION, horizontal=True,
             format_func={"add": "adds landmarks", "remove": "removes landmarks"}.get)
st.toggle("Mark without seeing the values (the timeline shows times only)", key=state.TIMELINE_BLIND,
          help="Marks made while the chart shows the values are data-derived: a person who marks the low values is "
               "a rule that reads them, and the release to hand out then starts with NOT PROTECTED. With the values "
               "hidden, clicks, boxes and typed positions stay declared, as a calendar rule does.")
window = zoom.control(cur)  # long series: the events drawn (every one in a window of ≤ 2,000)
fig = charts.timeline(cur.series.timestamps, y, cur.landmarks, y_title=y_title,
                      meta={"landmarks": int(cur.landmarks.size)}, window=window)
st.plotly_chart(fig, key=f"{TIMELINE_CHART}_{st.session_state[state.TIMELINE_EPOCH]}", on_select=_on_timeline,
                selection_mode=("points", "box", "lasso"), **charts.PLOTLY_KW)
if st.session_state.get(state.LAST_EDIT):
    st.caption(text.escape_markdown(st.session_state[state.LAST_EDIT]))
alt_text.describe("timeline", alt_text.series_table(cur.series.timestamps, y, cur.landmarks, value_name=y_title),
                  what="The series and its landmarks", over="t")

# ------------------------------------------------------------------ 4. map
if kind == "trajectory":
    st.markdown("**Map** — click an event to toggle it. Black: landmarks, grey: regular events.")
    basemap = st.toggle("Show a base map (loads map tiles from the internet)", key=BASEMAP, value=False)
    latlon = cur.series.latlon()
    deck = maps.trajectory_deck(latlon[:, 0], latlon[:, 1], cur.landmarks, times=cur.series.timestamps,
                                basemap=basemap)
    st.pydeck_chart(deck, key=f"{MAP_CHART}_{st.session_state[state.MAP_EPOCH]}", on_select=_on_map,
                    selection_mode="single-object", height=480)
    alt_text.describe("map", alt_text.track_table(cur.series.timestamps, latlon[:, 0], latlon[:, 1],
                                                  cur.landmarks), what="The path and its landmarks", over="t")

# ------------------------------------------------------------------ downloads
c1, c2 = st.columns(2)
widgets.json_download("Landmark set (JSON)", widgets.landmark_json(cur, st.session_state.get(state.LANDMARKS_ORIGIN)),
                      "landmarks.json", key="dl_landmarks", container=c1)
widgets.download_figure(fig, "timeline", key="dl_timeline", container=c2, label="Timeline chart (HTML)")
st.caption(widgets.PNG_NOTE)
