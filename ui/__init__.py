"""Streamlit-side helpers of the lmdk dashboard (the core in ``lmdk/`` never imports these).

How to add a page
-----------------
1. Write ``pages/<name>.py`` as a short script: read the shared state, call the core through a
   cached wrapper, draw. No privacy maths in a page — put missing computations in ``lmdk/``.
2. Append ``("pages/<name>.py", "Title", ":material/icon:")`` to ``PAGES`` in ``app.py``.
3. Start with ``cur = state.current()`` (series, token, landmarks; ``None`` when nothing is loaded)
   and end with ``explain.explain(text, [latex, …], "§x.y")`` — the "What am I looking at?" box.

Conventions
-----------
- ``ui.state``: every session-state key is a constant there. Configuration keys (``state.PARAMS``)
  are mirrored to the URL by ``app.py``; give a new configuration key a ``Param`` entry there.
  Widgets bound to a configuration key pass ``**widgets.bind(state.X)`` and no ``value=``
  (``state.init`` already set the value; the widget key is ``state.widget_key(state.X)``). Landmark edits go through callbacks
  (``on_click``/``on_select``) and ``cache.set_landmarks`` so the sidebar status is never stale.
- ``ui.cache``: ``st.cache_data`` wrappers with ``max_entries``; pass arrays and a data ``token``,
  never the uploaded file; ``cache.scheme_summary`` runs one scheme and summarises it.
- ``ui.charts``: ``SCHEME_COLOURS`` (Okabe–Ito, one per scheme), ``LANDMARK_MARKER`` (filled black
  diamond), ``DUMMY_MARKER`` (open diamond); axes with units; repetitions as median + band; put
  ``meta={"eps": ε}`` in figures that depend on ε (tests and the browser benchmark read it).
  Pass ``**charts.PLOTLY_KW`` to ``st.plotly_chart``: PNG export via the camera icon and our own light
  styling (``theme=None``; Streamlit's client-side theme costs hundreds of ms on big multi-panel charts).
- ``ui.maps``: ``trajectory_deck`` (explicit view state, LineLayer path, pickable ScatterplotLayer
  with id ``maps.EVENTS_LAYER``; no base map unless asked).
- ``ui.widgets``: the landmark status in the sidebar (drawn by ``app.py``), ``scheme_controls``,
  ``download_figure`` (HTML built on click), ``json_download``.
- ``ui.explain``: the collapsible explanation with ``st.latex`` and the paper section.
"""


def _leave_legacy_pages_mode() -> None:
    """Make sure app.py (st.navigation) runs even when a visitor's first request opens a page URL.

    Streamlit treats a folder named ``pages/`` as the legacy multipage layout until the first
    ``st.navigation`` call in the process; a fresh server's first request for, say, /schemes_utility
    would run that page *without* app.py (no shared state, no registry). This module is imported by
    every page, so on that first run we switch the legacy mode off and rerun, which goes through
    app.py. Uses a Streamlit internal; harmless if it moves (then only that first request misrenders).
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:
        return
    if PagesManager.uses_pages_directory and get_script_run_ctx() is not None:
        PagesManager.uses_pages_directory = False
        import streamlit as st

        st.rerun()


_leave_legacy_pages_mode()
