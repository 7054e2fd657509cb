"""Shared controls: the always-visible landmark status, scheme settings, downloads, RunConfig I/O.

A configuration widget never owns its value: ``**bind(state.X)`` gives it the widget key
``state.widget_key(state.X)``, seeds it from ``st.session_state[state.X]`` and copies changes back in
an ``on_change`` callback — callbacks run before the script, so ``app.py`` already sees the new
value when it resolves the series, and the value survives page switches. Never pass ``value=``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import streamlit as st

from ui import charts, ensure_entrypoint, state, text



RERUN_FRAGMENT = "_rerun_fragment"  # {configuration key: (page script hash, st.fragment key)}, see rerun_fragment_on


def _page_hash() -> str | None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx else None


def _copy_back(widget: str, key: str) -> None:
    st.session_state[key] = st.session_state[widget]
    target = st.session_state.get(RERUN_FRAGMENT, {}).get(key)
    if target is not None and target[0] == _page_hash():
        st.rerun(target[1])  # only the fragment of this page that depends on the setting


def rerun_fragment_on(keys, fragment: str) -> None:
    """On the current page, a change of these configuration keys' widgets reruns only the ``st.fragment`` keyed
    ``fragment`` (not the app, the sidebar or the rest of the page). Call it on every full run of the page."""
    st.session_state[RERUN_FRAGMENT] = {key: (_page_hash(), fragment) for key in keys}


def bind(key: str) -> dict:
    """Keyword arguments that bind a widget to the configuration key ``key`` (see module docstring)."""
    ensure_entrypoint()  # a page that reaches its widgets without app.py reruns through it
    widget = state.widget_key(key)
    st.session_state[widget] = st.session_state[key]
    return {"key": widget, "on_change": _copy_back, "args": (widget, key)}


def bind_in_form(key: str, clamp: Callable | None = None) -> dict:
    """Keyword arguments for a widget inside an ``st.form`` bound to configuration key ``key``.

    Form widgets take no ``on_change``: the widget is seeded from the key when it has no value yet
    (first run, after a page switch) and ``commit_form`` copies it back when the form is submitted, so
    the key (and the URL) holds the submitted value. ``clamp`` maps a stored value into the widget's range.
    """
    ensure_entrypoint()
    widget = state.widget_key(key)
    value = st.session_state[widget] if widget in st.session_state else st.session_state[key]
    st.session_state[widget] = clamp(value) if clamp else value
    return {"key": widget}


def commit_form(*keys: str) -> None:
    """Copy the submitted values of form widgets made with ``bind_in_form`` into their configuration keys."""
    for key in keys:
        st.session_state[key] = st.session_state[state.widget_key(key)]


def _load_run_config() -> None:
    state.load_run_config()
    st.rerun()  # the whole app: a RunConfig changes the series, landmarks and every setting (even from a fragment)


def landmark_status(cur) -> None:
    """Landmark count and share, shown in the sidebar of every page."""
    box = st.sidebar.container(border=True, key="landmark_status")
    if cur is None:
        box.markdown("**No series loaded** — upload a file on *Data & landmarks*.")
        return
    k, n = len(cur.landmarks), cur.n
    box.metric("Landmarks", f"{k} of {n:,}", f"{100 * k / n:.1f} % of events", delta_color="off",
               delta_arrow="off")
    box.caption(f"Series: {text.escape_markdown(cur.series.name or cur.token)} · {cur.series.kind}")


def scheme_page_setup():
    """Current series and chosen schemes after drawing the sidebar scheme controls; None (message shown) if either is missing."""
    cur = state.current()
    if cur is None:
        st.info("No series yet — choose or upload one on the *Data & landmarks* page.")
        return None
    with st.sidebar:
        st.subheader("Scheme settings")
        scheme_controls(cur.series.kind, cur.n)
    chosen = list(st.session_state[state.SCHEMES])
    if not chosen:
        st.warning("Pick at least one scheme in the sidebar.")
        return None
    return cur, chosen


def scheme_controls(kind: str, n: int, *, container=None) -> None:
    """Schemes, mechanism, ε (log scale), w, repetitions and seed — written to ``ui.state`` keys."""
    box = container or st.sidebar
    from lmdk.views import MECHANISM_FOR_KIND

    box.multiselect("Schemes", state.SCHEME_NAMES, **bind(state.SCHEMES),
                    help="Any subset of the six budget schemes; each keeps its colour on every page.")
    fitting = MECHANISM_FOR_KIND[kind]
    if st.session_state.get(state.MECHANISM) != fitting:
        st.session_state[state.MECHANISM] = fitting
    box.selectbox("Mechanism", [fitting], **bind(state.MECHANISM),
                  help="The mechanism that fits the data: Laplace for values, planar Laplace for "
                       "locations (ε per metre), randomized response for contact bits.")
    box.select_slider("Privacy budget ε (log scale)", options=state.EPSILON_OPTIONS, format_func=lambda e: f"{e:g}",
                      **bind(state.EPSILON))
    w_max = max(1, min(state.W_MAX, n))
    if st.session_state[state.W] > w_max:
        st.session_state[state.W] = w_max
    box.number_input("w (window of w-event privacy)", min_value=1, max_value=w_max, step=1, **bind(state.W))
    box.number_input(f"Repetitions (max {state.REPETITIONS_MAX})", min_value=1, max_value=state.REPETITIONS_MAX,
                     step=10, **bind(state.REPETITIONS))
    box.number_input("Seed", min_value=0, max_value=state.SEED_MAX, step=1, **bind(state.SEED))


def download_figure(fig, name: str, *, key: str, container=None, label: str = "Chart as HTML") -> None:
    """A standalone-HTML download of a figure (built only on click); PNG comes from the chart's camera icon."""
    box = container or st
    box.download_button(label, data=lambda: charts.to_html(fig), file_name=f"{name}.html",
                        mime="text/html", key=key, on_click="ignore", icon=":material/download:",
                        help="Standalone HTML with the interactive chart. For a PNG, use the camera icon "
                             "in the chart's toolbar (top right of the chart).")


PNG_NOTE = "PNG: hover a chart and click the camera icon in its toolbar. HTML: the download buttons."


def json_download(label: str, make: Callable[[], str], file_name: str, *, key: str, container=None) -> None:
    """A JSON download built only when clicked."""
    (container or st).download_button(label, data=make, file_name=file_name, mime="application/json",
                                      key=key, on_click="ignore", icon=":material/download:")


def landmark_json(cur) -> str:
    """The landmark set as JSON: series name/hash, n and the sorted indices."""
    import json

    return json.dumps({"series": cur.series.name, "source_hash": cur.series.source_hash, "n": cur.n,
                       "landmarks": [int(i) for i in cur.landmarks]}, indent=1)


def as_int_tuple(values) -> tuple[int, ...]:
    """Sorted unique ints."""
    return tuple(np.unique(np.asarray(list(values), dtype=np.int64)).tolist())


def release_downloads(cur, mechanism: str, origin, summaries: dict, chosen: list[str]) -> None:
    """Released-series CSV (repetition 1 of one scheme, via lmdk.data.export_release), landmark JSON and
    RunConfig JSON download/upload."""
    from lmdk import data, mechanisms

    c1, c2, c3, c4 = st.columns([1.2, 1, 1, 1], vertical_alignment="bottom")
    scheme = c1.selectbox("Released series of", chosen, key="export_scheme")
    summ = summaries[scheme]

    def released_csv() -> str:
        names = None
        released = summ.first
        if mechanism == "planar_laplace":
            lat, lon = mechanisms.metres_to_latlon(released, origin)
            released, names = np.column_stack([lat, lon]), ("lat", "lon")
        return data.export_release(cur.series.timestamps, released, summ.budgets, summ.first_published,
                                   cur.landmarks, names=names)

    c2.download_button("Released series (CSV)", data=released_csv, file_name=f"released_{scheme}.csv",
                       mime="text/csv", key="dl_release_csv", on_click="ignore", icon=":material/download:",
                       help="Repetition 1 of the chosen scheme: timestamp, released value(s), budget, "
                            "published flag, landmark flag. The original values are not included.")
    json_download("Landmark set (JSON)", lambda: landmark_json(cur), "landmarks.json", key="dl_landmarks_s",
                  container=c3)
    json_download("RunConfig (JSON)", lambda: state.run_config(cur).to_json(), "runconfig.json",
                  key="dl_runconfig", container=c4)
    st.file_uploader("Load a RunConfig (JSON) — restores schemes, ε, w, repetitions, seed and landmarks",
                     type=["json"], key=state.CONFIG_UPLOAD, on_change=_load_run_config)
    if st.session_state.get(state.CONFIG_ERROR):
        st.error(st.session_state[state.CONFIG_ERROR])
