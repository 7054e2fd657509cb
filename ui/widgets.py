"""Shared controls: the always-visible landmark status, scheme settings, downloads, RunConfig I/O.

A configuration widget never owns its value: ``**bind(state.X)`` gives it the widget key
``state.widget_key(state.X)``, seeds it from ``st.session_state[state.X]`` and copies changes back in
an ``on_change`` callback — callbacks run before the script, so ``app.py`` already sees the new
value when it resolves the series, and the value survives page switches. Never pass ``value=``.
"""
from __future__ import annotations

import functools
import weakref
from collections.abc import Callable

import numpy as np
import streamlit as st

from ui import charts, ensure_entrypoint, epsilon_meaning, text
from ui.downloads import download_deferred, hold
from ui.session import cache, config, state

RERUN_FRAGMENT = "_rerun_fragment"  # {configuration key: (page script hash, st.fragment key)}, see rerun_fragment_on


def _page_hash() -> str | None:
    """The script hash of the page this run draws (None outside a script run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx else None


def _copy_back(widget: str, key: str) -> None:
    """Copy a widget's value into its configuration key; rerun only the fragment that depends on it."""
    st.session_state[key] = st.session_state[widget]
    target = st.session_state.get(RERUN_FRAGMENT, {}).get(key)
    if target is not None and target[0] == _page_hash():
        also = [epsilon_meaning.LIVE] if key == state.EPSILON and epsilon_meaning.live_here() else []
        st.rerun([target[1], *also])  # only the fragments of this page that depend on the setting


def _repetitions_chosen(widget: str, key: str) -> None:
    """Remember that the user chose the repetitions, then copy the value back."""
    st.session_state[state.REPS_CHOSEN] = True  # no long-series default from now on
    _copy_back(widget, key)


def rerun_fragment_on(keys, fragment: str) -> None:
    """On the current page, a change of these configuration keys' widgets reruns only the ``st.fragment`` keyed
    ``fragment`` (not the app, the sidebar or the rest of the page). Call it on every full run of the page."""
    st.session_state[RERUN_FRAGMENT] = {key: (_page_hash(), fragment) for key in keys}


def forget_fragment_reruns() -> None:
    """Before a full run draws a page: no setting reruns a fragment until the page calls ``rerun_fragment_on`` again.
    A page that stops before drawing its fragment (no scheme chosen, a missing public range) must not leave the last
    run's targets behind: Streamlit refuses to rerun a fragment that was not drawn, with an error page."""
    st.session_state[RERUN_FRAGMENT] = {}


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
    """Restore the uploaded RunConfig and rerun the whole app with it."""
    config.load_run_config()
    st.rerun()  # the whole app: a RunConfig changes the series, landmarks and every setting (even from a fragment)


def landmark_status(cur) -> None:
    """Landmark count and share, shown in the sidebar of every page."""
    box = st.sidebar.container(border=True, key="landmark_status")
    if cur is None:
        box.markdown("**No series loaded** — upload a file on *Data & landmarks*.")
        return
    k, n = len(cur.landmarks), cur.n
    box.metric("Landmarks", f"{k:,}", f"{100 * k / n:.1f} % of {n:,} events", delta_color="off",  # fits long n
               delta_arrow="off")
    box.caption(f"Series: {text.escape_markdown(cur.series.name or cur.token)} · {cur.series.kind}")
    from ui.session import relation

    if (total := relation.aggregate_relation()) is not None:  # a statistic over many people: say what one moves
        box.caption(f"A {total.statistic} over {total.users:,} {text.escape_markdown(total.who)}s: "
                    f"{text.escaped_relation(total).label()}.")
    if k == 0:  # a rule or detector that marked nothing (or a cleared set): say so where the count is
        box.warning("No landmarks: the rule marked none. Pick another rule or window, or mark events on "
                    "*Data & landmarks*.", icon=":material/flag:")


def scheme_page_setup():
    """Current series and chosen schemes after drawing the sidebar scheme controls; None (message shown) if either
    is missing."""
    cur = state.current()
    if cur is None:
        st.info("No series yet — choose or upload one on the *Data & landmarks* page.")
        return None
    with st.sidebar:
        st.subheader("Scheme settings")
        scheme_controls(cur.series.kind, cur.n)
        relation_controls(cur, st.sidebar)
    chosen = list(st.session_state[state.SCHEMES])
    if not chosen:
        st.warning("Pick at least one scheme in the sidebar.")
        return None
    return cur, chosen


def scheme_controls(kind: str, n: int, *, container=None) -> None:
    """Schemes, mechanism, ε (log scale), w, repetitions and seed — written to ``ui.session.state`` keys."""
    box = container or st.sidebar
    from lmdk.data.mechanism_input import MECHANISM_FOR_KIND

    box.multiselect("Schemes", state.ALL_SCHEME_NAMES, **bind(state.SCHEMES),
                    help="Any subset of the six budget schemes of the landmark paper; each keeps its colour on every "
                         "page. Add bd/ba (w-event, Kellaris et al.), fast (user level, FAST) or pegasus (event level, "
                         "PeGaSus) to compare with the state of the art: values only, and they do not use the "
                         "landmarks.")
    fitting = MECHANISM_FOR_KIND[kind]
    if st.session_state.get(state.MECHANISM) != fitting:
        st.session_state[state.MECHANISM] = fitting
    box.selectbox("Mechanism", [fitting], **bind(state.MECHANISM),
                  help="The mechanism that fits the data: Laplace for values, planar Laplace for "
                       "locations (ε per metre), randomized response for contact bits.")
    box.select_slider("Privacy budget ε (log scale)", options=state.EPSILON_OPTIONS, format_func=lambda e: f"{e:g}",
                      **bind(state.EPSILON))
    with box:
        epsilon_meaning.live_caption(state.EPSILON)  # a fragment: an ε change that reruns only the results reruns it
    w_max = max(1, min(state.W_MAX, n))
    if st.session_state[state.W] > w_max:
        st.session_state[state.W] = w_max
    box.number_input("w (window of w-event privacy)", min_value=1, max_value=w_max, step=1, **bind(state.W),
                     help="Used by w-event and the baselines bd and ba: any w consecutive events together get ε.")
    ss = st.session_state
    cap = state.repetitions_cap(n)
    if not ss.get(state.REPS_CHOSEN):  # the long-series default until the user picks a number
        ss[state.REPETITIONS] = state.default_repetitions(n)
    ss[state.REPETITIONS] = min(int(ss[state.REPETITIONS]), cap)
    reps = bind(state.REPETITIONS)
    reps["on_change"] = _repetitions_chosen
    box.number_input(f"Repetitions (max {cap})", min_value=1, max_value=cap, step=10, **reps,
                     help="Each repetition releases all n events with fresh noise; the MAE and its confidence "
                          f"interval average them. At most {state.REPETITION_CELLS_MAX:,} released values per scheme.")
    if state.default_repetitions(n) < state.PARAMS[state.REPETITIONS].default:
        box.caption(f"Long series: {state.default_repetitions(n)} repetitions by default (not "
                    f"{state.PARAMS[state.REPETITIONS].default}), so an ε change "
                    f"stays quick — each releases all {n:,} events. More give tighter intervals and slower updates.")
    box.number_input("Seed", min_value=0, max_value=state.SEED_MAX, step=1, **bind(state.SEED))


def relation_controls(cur, box) -> None:
    """Sidebar: what ε protects — the public range (values, or changes of up to d), the radius (locations)."""
    from ui.session import relation

    kind = cur.series.kind
    base = relation.default(cur)
    box.markdown("**What ε protects**")
    if kind == "contacts":
        box.caption("One contact bit flipped (randomized response).")
        return
    if kind == "trajectory":
        box.number_input("Protected radius (m)", min_value=0.001, step=50.0, **bind(state.REL_RADIUS),
                         placeholder=f"{base.d:g} (public default)" if base is not None else "e.g. 200",
                         help="Any location may move anywhere within this radius: planar Laplace with ε/radius "
                              "per metre. A move of c metres is protected at c/radius·ε.")
    elif (total := relation.aggregate_relation()) is not None:
        box.caption(f"This series is a **{total.statistic} over {total.users:,} {text.escape_markdown(total.who)}s**: "
                    f"{text.escaped_relation(total).label()}.")
    else:
        ss = st.session_state
        unit = text.escape_markdown(cur.series.units or "value units")  # widget labels render markdown
        box.radio("Protect", ("range", "up_to"), horizontal=True, **bind(state.REL_KIND),
                  format_func=lambda k: "any value in the range" if k == "range" else "changes up to d",
                  help="Any value: one event may take any value in the public range (Δ = high − low). "
                       "Changes up to d: only changes of one value by at most d are protected at ε (Δ = d).")
        c1, c2 = box.columns(2)
        c1.number_input(f"low ({unit})", step=1.0, **bind(state.REL_LOW),
                        placeholder=f"{base.low:g} (default)" if base is not None else "e.g. 0")
        c2.number_input(f"high ({unit})", step=1.0, **bind(state.REL_HIGH),
                        placeholder=f"{base.high:g} (default)" if base is not None else "e.g. the meter's rating")
        if ss.get(state.REL_KIND) == "up_to":
            box.number_input(f"d ({unit})", min_value=1e-12, step=0.5, format="%g", **bind(state.REL_D),
                             placeholder="a tenth of the range")
        if base is not None and ss[state.SOURCE] == "sample":
            from lmdk.data import SAMPLES

            box.caption(f"Public default: {SAMPLES[ss[state.SAMPLE]].relation_source}.")
    protected = relation.current(cur)
    if protected is None:
        box.warning("Enter the public range of one value (from the device or domain — e.g. 0 and the meter's "
                    "rating — never from the data). Until then the views protect changes of up to 1 unit (Δ = 1).",
                    icon=":material/warning:")
    else:
        box.caption(f"Protected: {text.escaped_relation(protected).protects('event')} — Δ = "
                    f"{protected.sensitivity:g}.")


def button_row(key: str | None = None):
    """A row of buttons that wraps instead of cutting their labels (a horizontal flex container; columns of equal
    width cut "Chart as H…" at 1024 px)."""
    return st.container(horizontal=True, gap="small", key=key)


def download_figure(fig, name: str, *, key: str, label: str, container=None) -> None:
    """A standalone-HTML download of a figure, built only on click; PNG comes from the chart's camera icon.

    ``label`` names the chart ("Budget chart (HTML)"): several buttons of one page never share a label.

    The session state holds the figure; the deferred callable holds only a weak reference to it, so a figure
    dies with its session even while Streamlit still keeps the callable registered.
    """
    box = container or st
    hold(key, fig)
    box.download_button(label, data=functools.partial(_figure_html, weakref.ref(fig)), file_name=f"{name}.html",
                        mime="text/html", key=key, on_click="ignore", icon=":material/download:",
                        help="Standalone HTML with the interactive chart. For a PNG, use the camera icon "
                             "in the chart's toolbar (top right of the chart).")


def _figure_html(ref) -> str:
    """The chart's standalone HTML, or a note when its session has ended."""
    fig = ref()
    if fig is None:
        return "<p>This chart's session has ended: open the page again to download it.</p>"
    return charts.to_html(fig)


PNG_NOTE = "PNG: hover a chart and click the camera icon in its toolbar. HTML: the download buttons."
PNG_NOTE_REPORT = ("PNG: hover a chart and click the camera icon in its toolbar. HTML: the report holds every chart; "
                   "each one alone is under Export below.")


def json_download(label: str, content: str, file_name: str, *, key: str, container=None) -> None:
    """A JSON download of text built now (small; a deferred callable would run outside the session)."""
    (container or st).download_button(label, data=content, file_name=file_name, mime="application/json",
                                      key=key, on_click="ignore", icon=":material/download:")


def landmark_json(cur, origin: str | None = None) -> str:
    """The landmark set as JSON: series name/hash, n, how the positions were marked (``landmark_origin``: the
    session's "viewed" or "data", else "declared"; ``file:`` rules follow it, issue 53) and the sorted indices."""
    import json

    from lmdk.exports.runconfig import DATA_DERIVED_ORIGINS

    return json.dumps({"series": cur.series.name, "source_hash": cur.series.source_hash, "n": cur.n,
                       "landmark_origin": origin if origin in DATA_DERIVED_ORIGINS else "declared",
                       "landmarks": [int(i) for i in cur.landmarks]}, indent=1)


def _landmark_json_of(payload: tuple) -> str:
    """:func:`landmark_json` of a deferred download's (cur, origin)."""
    return landmark_json(*payload)


def as_int_tuple(values) -> tuple[int, ...]:
    """Sorted unique ints."""
    return tuple(np.unique(np.asarray(list(values), dtype=np.int64)).tolist())


def nearest_on_log_scale(options: tuple[float, ...], value: float) -> float:
    """The option of a log-scale slider closest to ``value`` (a value from a link need not be one of them)."""
    return min(options, key=lambda v: abs(np.log(v) - np.log(value)))


def _default_export_scheme(chosen: list[str]) -> int:
    """Index of the scheme an export offers first: one that satisfies landmark privacy (adaptive first)."""
    for scheme in ("adaptive", "skip", "uniform", "user"):
        if scheme in chosen:
            return chosen.index(scheme)
    return 0


def release_downloads(cur, mechanism: str, origin, summaries: dict, chosen: list[str], saved=None) -> None:
    """The release to hand out (fresh entropy, snapping sampler, no landmark flags unless asked), the
    demonstration release of the seed (formatted on click: CSV formatting was the largest avoidable server cost
    of an ε change in benchmarks/bench_load.py's profile), landmark JSON and RunConfig JSON download/upload.
    ``saved``: the view's RunConfig when the page built it already (``ui.session.config.run_config``)."""
    ss = st.session_state
    c1, c2 = st.columns(2, vertical_alignment="bottom")
    scheme = c1.selectbox("Release of the scheme", chosen, index=_default_export_scheme(chosen), key="export_scheme")
    from ui.session import relation

    protected = relation.current(cur)
    needs_bound = mechanism == "planar_laplace"  # values take their public range from the relation
    bound = None
    if needs_bound:  # values take their public range from 'What ε protects' in the sidebar
        bound = c2.number_input("Public box ±B (m from the series' centre)", min_value=0.0, value=None, step=1000.0,
                                key=state.EXPORT_BOUND, placeholder="e.g. the city's radius",
                                help="Locations: the snapping sampler clamps to this box around the series' centre. "
                                     "Take it from the policy (e.g. the city), never from the data.")
    private = st.checkbox("Include the landmark flags (private)", key="export_private",
                          help="Adds budget, published and landmark columns: they reveal which events are landmarks.")
    summ = summaries[scheme]
    if private:
        st.warning("The flags reveal the landmark set L — the events this policy protects most. Keep such a file "
                   "inside your organisation.", icon=":material/warning:")
    if not summ.satisfies:
        st.warning(f"*{scheme}* does not satisfy (ε, L)-landmark privacy for these landmarks: its release does not "
                   "protect them together.", icon=":material/gpp_bad:")
    swamped_warning(protected, summ)
    from_data = landmarks_from_data()
    allow = False
    if from_data:
        how = ("were marked while the chart showed the values being released: a person who marks, say, the low "
               "values is a rule that reads them, and ε no longer protects the values that chose the set"
               if st.session_state.get(state.LANDMARKS_ORIGIN) == "viewed" else
               "were found by a detector that reads the values being released: one value moved across its threshold "
               "changes the landmark set, and ε no longer protects it")
        st.warning(f"These landmarks {how}. Declare them instead (a calendar: rule, a file of times, or marks on "
                   "the timeline with the values hidden, *Data & landmarks*), or release them anyway — the statement "
                   "then says first what is not protected.", icon=":material/gpp_bad:")
        allow = st.checkbox("Release these data-derived landmarks anyway", key="export_allow_data",
                            help="The export's statement then starts with NOT PROTECTED: the value of any event "
                                 "whose landmark status could change (lmdk release --allow-data-landmarks).")
    guarantee_box(cur, protected, scheme, summ, mechanism)
    from ui import auth, ledger

    ledger.panel(float(ss[state.EPSILON]), cur)
    d1, d2 = st.columns(2)
    d3, d4 = st.columns(2)
    access = auth.current()
    if not access.spends:  # a viewer exports nothing that spends a budget (issue 54)
        d1.button("Release to hand out (CSV)", disabled=True, key="dl_release_csv_off", icon=":material/download:",
                  help=f"Only an officer hands out releases: {access.why}.")
    elif (needs_bound and not bound) or protected is None or (from_data and not allow):
        d1.button("Release to hand out (CSV)", disabled=True, key="dl_release_csv_off", icon=":material/download:",
                  help="Declare the landmarks, or tick 'Release these data-derived landmarks anyway'." if protected
                  is not None and not (needs_bound and not bound) else "Set the public box first." if protected
                  is not None else "Set the public range of one value first (sidebar: What ε protects).")
    else:
        fields = ledger.entry_fields(cur, scheme, mechanism, float(ss[state.EPSILON]), min(int(ss[state.W]), cur.n))
        download_deferred("Release to hand out (CSV)", ledger.reserving(_hand_out_csv, fields),
                          (cur.series, cur.landmarks, scheme, float(ss[state.EPSILON]), min(int(ss[state.W]), cur.n),
                           bound if needs_bound else None, private, protected, _event(cur), from_data),
                          container=d1,
                          file_name=f"release_{scheme}.csv", mime="text/csv", key="dl_release_csv",
                          **ledger.export_options(cur, fields),
                          icon=":material/download:",
                          help="One new release: fresh noise that is never recorded, drawn with the floating-point-"
                                "safe sampler stated above. Each download is a new release and spends ε again.")
    download_deferred("Demonstration release (seed)", _demonstration_csv,
                      (cur.series, _first_release(summ), cur.landmarks, mechanism, origin, int(ss[state.SEED])),
                      container=d2,
                      file_name=f"demonstration_{scheme}_seed{int(ss[state.SEED])}.csv", mime="text/csv",
                      key="dl_demo_csv", icon=":material/download:",
                      help="Repetition 1 as drawn on this page from the demonstration seed: reproducible, so anyone "
                            "with the seed can remove its noise — for teaching, never to hand out.")
    # built on click from what this run captured: JSON-encoding the RunConfig and writing the script cost ~0.01 s
    # of server CPU per ε change (issue 34)
    download_deferred("Landmark set (JSON)", _landmark_json_of, (cur, ss.get(state.LANDMARKS_ORIGIN)), container=d3,
                      file_name="landmarks.json",
                      mime="application/json", key="dl_landmarks_s", icon=":material/download:")
    saved = saved if saved is not None else config.run_config(cur)
    download_deferred("RunConfig (JSON)", _run_config_json, saved, container=d4, file_name="runconfig.json",
                      mime="application/json", key="dl_runconfig", icon=":material/download:")
    name = (ss.get(state.UPLOAD_FILE_NAME) or "YOUR_FILE") if ss[state.SOURCE] == "upload" else None
    download_deferred("Python script", _schemes_script, (saved, name), file_name="reproduce_schemes.py",
                      mime="text/x-python", key="dl_script", icon=":material/code:",
                      help="A short script with the lmdk Python API that prints this view's MAE and Theorem 2 "
                           "verdicts (same demonstration seed).")
    st.file_uploader("Load a RunConfig (JSON) — restores schemes, ε, w, repetitions, seed and landmarks",
                     type=["json"], key=state.CONFIG_UPLOAD, on_change=_load_run_config)
    if st.session_state.get(state.CONFIG_ERROR):
        st.error(text.escape_markdown(st.session_state[state.CONFIG_ERROR]))
    if st.session_state.get(state.CONFIG_NOTE):
        st.warning("RunConfig loaded, but: " + text.escape_markdown(st.session_state[state.CONFIG_NOTE]))


def share_link() -> None:
    """Sidebar: a button copying the link to this view (settings only — defaults, data and values derived from
    data are left out of the URL by ``state.sync_query_params``), with a toast."""
    from ui.copy_link import copy_link_button

    with st.sidebar:
        copy_link_button()


def _run_config_json(saved) -> str:
    """The RunConfig download's text."""
    return saved.to_json()


def _schemes_script(args) -> str:
    """The reproduce-script download's text (``args``: the RunConfig and the upload's file name or None)."""
    from lmdk.present.reproduce import schemes_script

    saved, name = args
    return schemes_script(saved, data_path=name)


def _hand_out_csv(args) -> str:
    """A new release to hand out, drawn when its button is clicked: every click is a fresh release."""
    from lmdk.exports import export

    series, landmarks, scheme, epsilon, w, bound, private, protected, event, from_data = args
    return export.export_scheme_release(series, landmarks, scheme, epsilon, w=w, bound=bound, protects=protected,
                                        private_columns=private, event=event, data_derived=from_data,
                                        allow_data_landmarks=from_data).csv()


def swamped_warning(protected, summ) -> None:
    """An aggregate's view whose noise swamps the answer (most bins at a range end, or the noise scale wider than the
    statistic's range) says so with the fix, as ``lmdk aggregate`` does (:mod:`lmdk.exports.swamped`)."""
    if protected is None or protected.kind != "aggregate" or summ.first is None:
        return
    from lmdk.exports.swamped import swamped

    said = swamped(summ.first, protected.value_range, summ.budgets, float(protected.sensitivity)).warning
    if said:
        st.warning(text.escape_markdown(said[0].upper() + said[1:] + "."), icon=":material/warning:")


def landmarks_from_data() -> bool:
    """Whether the current landmark set was found by a detector that reads the values (issue 33) or marked while the
    chart showed them (issue 53)."""
    return st.session_state.get(state.LANDMARKS_ORIGIN) in state.DATA_DERIVED_ORIGINS


def landmark_source(cur):
    """The current landmark set as a :class:`lmdk.selection.export.LandmarkSource`: declared (the default calendar
    rule, a file, marks on the values-free timeline) or data-derived and unprotected (a detector, or marks made while
    the chart showed the values) — what the statement names."""
    from lmdk.declared.calendar import DEFAULT_RULE
    from lmdk.selection.export import declared, unprotected

    if landmarks_from_data():
        viewed = st.session_state.get(state.LANDMARKS_ORIGIN) == "viewed"
        return unprotected(cur.landmarks, "marked while the chart showed these values" if viewed
                           else "a detector on these values")
    rule = DEFAULT_RULE if st.session_state.get(state.LANDMARKS_DEFAULT) else None
    return declared(cur.landmarks, rule)


def _event(cur) -> str:
    """What one event of the current series is called in statements ("hour", "location", …)."""
    return cache.event_words(cur).removesuffix("s")


def statement_lines(cur, chosen: list[str], summaries: dict, mechanism: str) -> list[str] | None:
    """The guarantee of the scheme a release to hand out starts with (for reports); None without a relation."""
    from lmdk.exports.export import sampler_for
    from lmdk.exports.statement import guarantee
    from ui.session import relation

    protected = relation.current(cur)
    if protected is None:
        return None
    scheme = chosen[_default_export_scheme(chosen)]
    said = guarantee(protected, scheme, float(st.session_state[state.EPSILON]), landmarks=int(cur.landmarks.size),
                     sampler=sampler_for(mechanism), event=_event(cur), w=min(int(st.session_state[state.W]), cur.n),
                     satisfies=summaries[scheme].satisfies, landmark_set=landmark_source(cur))
    return [f"A release of {scheme}:", *said.lines()]


def guarantee_box(cur, protected, scheme: str, summ, mechanism: str) -> None:
    """The statement a privacy officer signs, next to the download buttons: protected, not protected, sampler."""
    from lmdk.exports.export import sampler_for
    from lmdk.exports.statement import guarantee

    if protected is None:
        st.warning("No public range yet: a release to hand out needs the range of one value (sidebar, *What ε "
                   "protects*). The views meanwhile protect changes of up to 1 unit (Δ = 1).",
                   icon=":material/warning:")
        return
    said = guarantee(protected, scheme, float(st.session_state[state.EPSILON]), landmarks=int(cur.landmarks.size),
                     sampler=sampler_for(mechanism), event=_event(cur), w=min(int(st.session_state[state.W]), cur.n),
                     satisfies=summ.satisfies, landmark_set=landmark_source(cur))
    with st.container(border=True):
        st.markdown("**What a release of *" + text.escape_markdown(scheme) + "* guarantees**")
        st.markdown("\n".join(f"- {text.escape_markdown(line)}" for line in said.lines()))


def _demonstration_csv(args) -> str:
    """The demonstration release as CSV text (built when its button is clicked): its first line says that the noise
    is reproducible from the seed and that the file must not be handed out."""
    from lmdk.exports import export
    from lmdk.exports.files import demonstration_note, table_text

    series, release, landmarks, mechanism, origin, seed = args
    return table_text(export.released_frame(series, release, landmarks, mechanism, origin), demonstration_note(seed))


def _first_release(summ):
    """Repetition 1 of a summarised release as the (values, budgets, published) a Release has."""
    from types import SimpleNamespace

    return SimpleNamespace(values=summ.first[None], budgets=summ.budgets[None], published=summ.first_published[None])
