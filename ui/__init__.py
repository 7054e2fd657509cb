"""Streamlit-side helpers of the lmdk dashboard (the core in ``lmdk/`` never imports these).

Where things live
-----------------
- ``ui.charts``: every chart and map (figures, their style, decimation, text alternatives, the zoom window);
- ``ui.session``: the session's state — its keys and the URL sync, the caches, the neighbouring relation
  (``relation``: what ε protects), the saved configuration;
- ``ui`` itself: the widgets and sections the pages draw — ``widgets`` (shared controls, figure downloads),
  ``downloads`` (files built on click), ``import_step``, ``long_series``, ``landmark_keys`` and ``landmark_edit``
  (Data & landmarks), ``plan`` (the planner), ``baselines``, ``population``, ``audit``, ``policies``, ``dummies``,
  ``temporal_loss``, ``priste`` and ``experiments`` (their pages' state, runs and tables), ``ledger`` (the privacy
  ledger), ``copy_link``, ``explain``, ``text`` (escaping user text) and ``a11y``.

No import cycle, between packages or modules (``lint-imports``): ``ui.session`` imports neither ``ui.charts`` nor
the widgets; ``ui.charts`` imports ``ui.session`` and ``ui.downloads`` but never ``ui.widgets``, which imports them.
A helper two of them share moves down to the lowest one that needs it.

How to add a page
-----------------
1. Write ``pages/<name>.py`` as a short script: read the shared state, call the core through a
   cached wrapper, draw. A page imports only streamlit, the standard library, ``ui`` and the public names of
   ``lmdk`` (tests/test_pages_imports.py): its tables, figures and maps are built in ``ui`` (numpy, pandas,
   plotly and pydeck stay there). No privacy maths in a page — put missing computations in ``lmdk/``: the top-level
   modules (mechanisms, schemes, privacy, metrics, landmarks, synthetic, views) or the subpackage of their
   concept (``lmdk.data``, ``lmdk.tpl``, ``lmdk.dummies``, ``lmdk.priste``, ``lmdk.experiments``).
2. Append ``("pages/<name>.py", "Title", ":material/icon:")`` to ``PAGES`` in ``app.py``.
3. Start with ``cur = state.current()`` (series, token, landmarks; ``None`` when nothing is loaded;
   it also reroutes a run that Streamlit started without app.py, see ``ensure_entrypoint``) and end
   with ``explain.explain(text, [latex, …], "§x.y")`` — the "What am I looking at?" box.

Conventions
-----------
- ``ui.session.state``: every session-state key is a constant there. Configuration keys (``state.PARAMS``)
  are mirrored to the URL by ``app.py``; give a new configuration key a ``Param`` entry there.
  Widgets bound to a configuration key pass ``**widgets.bind(state.X)`` and no ``value=``
  (``state.init`` already set the value; the widget key is ``state.widget_key(state.X)``). Inside an ``st.form``
  use ``**widgets.bind_in_form(state.X)`` and call ``widgets.commit_form(state.X, …)`` when it is submitted, so
  the URL holds the submitted values (the Experiments page). Query keys are short; a page's own keys share a
  prefix (``st_`` Spatiotemporal events, ``ex_`` Experiments). Landmark edits go through callbacks
  (``on_click``/``on_select``) and ``cache.set_landmarks`` so the sidebar status is never stale.
- ``ui.session.cache``: ``ui.session.cache_scope.bounded_cache`` wrappers (``st.cache_data`` with
  ``max_entries``, or a memo in the session while it works on an upload, so nothing derived from an upload
  outlives its session); pass arrays and a data ``token``, never the uploaded file; ``cache.scheme_summary`` runs
  one scheme and summarises it.
- ``ui.charts``: ``SCHEME_COLOURS`` (Okabe–Ito, one per scheme), ``LANDMARK_MARKER`` (filled black
  diamond), ``DUMMY_MARKER`` (open grey triangle), ``RUG_LANDMARK``/``RUG_DUMMY`` (the timeline's strip); axes
  with units; repetitions as median + band; put ``meta={"eps": ε}`` in figures that depend on ε (tests and the
  browser benchmark read it).
  Pass ``**charts.PLOTLY_KW`` to ``st.plotly_chart``: PNG export via the camera icon and our own light
  styling (``theme=None``; Streamlit's client-side theme costs hundreds of ms on big multi-panel charts).
  Under every chart, ``ui.charts.alt_text.describe`` writes its text alternative. A Monte-Carlo run's figures are
  built once and shared through ``charts.drawn`` (their texts through ``alt_text.describe_run``).
- ``ui.charts.maps``: ``trajectory_deck`` (explicit view state, LineLayer path, pickable ScatterplotLayer
  with id ``maps.EVENTS_LAYER``; no base map unless asked).
- ``ui.widgets``: the landmark status in the sidebar (drawn by ``app.py``), ``scheme_controls``,
  ``download_figure`` (HTML built on click; its callable holds only a weak reference to the figure),
  ``json_download`` (text built during the run); ``ui.downloads.download_deferred`` (a file built on click from
  inputs the session holds). Never pass ``download_button`` a callable that reads
  ``st.session_state`` or closes over page globals: it runs outside the script run and outlives the session.
- ``ui.text.escape_markdown``: wrap every user-provided text (file/column names, cells, error messages that
  quote them) before ``st.error/warning/info/caption/markdown``.
- ``ui.import_step``: the upload → import mapping → series step of the Data & landmarks page.
- ``ui.explain``: the collapsible explanation with ``st.latex`` and the paper section.
- A name another module uses is public (no leading underscore) and has a one-line docstring.
"""


# Import pandas completely before any ui module builds a plotly figure: plotly looks pandas up in
# sys.modules without the import lock, so on a cold server whose first requests arrive together one
# session could otherwise see another session's half-imported pandas (AttributeError: pd.Series).
import pandas  # noqa: F401 (imported for its side effect: complete before any figure, see above)

SESSION_STARTED = "_qp_loaded"  # set by ui.session.state.init() (app.py) on a session's first run; = state.QP_LOADED
ENTRY_RERUN = "_entry_rerun"  # set once per session when a page ran without app.py and we reran


def ensure_entrypoint() -> None:
    """Rerun through app.py when a page script runs without it (Streamlit's legacy ``pages/`` mode).

    Streamlit treats a folder named ``pages/`` next to the entry point as the legacy multipage layout
    until the first ``st.navigation`` call in the process (documented: "as soon as any session executes
    st.navigation, your app will ignore the pages/ directory"); there is no config option to switch it
    off. So on a fresh server the first request for, say, /schemes_utility would run that page *without*
    app.py (no shared state, no URL configuration, no sidebar). Detection does not rely on Streamlit
    internals: a page that runs in a session app.py never initialised must have been started that way.
    Then we clear the legacy flag (a Streamlit internal, guarded) and rerun once per session; the rerun
    keeps the URL's page and query, so app.py routes to the same page. Called on import of ``ui`` and by
    ``state.current`` (every page starts with it) and ``widgets.bind``, because on a fresh server several
    first requests can arrive while ``ui`` is already imported; tests/test_browser_deeplink.py opens deep
    links on a fresh server.
    """
    try:
        import streamlit as st
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:
        return
    if get_script_run_ctx(suppress_warning=True) is None:
        return
    ss = st.session_state
    if ss.get(SESSION_STARTED) or ss.get(ENTRY_RERUN):
        return
    ss[ENTRY_RERUN] = True
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        pass
    else:
        if getattr(PagesManager, "uses_pages_directory", None):
            PagesManager.uses_pages_directory = False
    st.rerun()


ensure_entrypoint()
