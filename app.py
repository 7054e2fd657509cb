"""lmdk — the Streamlit entry point: page registry, shared state, URL sync, landmark status.

Run with ``streamlit run app.py``. Pages live in ``pages/``; add yours to ``PAGES`` below.
"""
import streamlit as st

from ui import a11y, text, widgets
from ui.session import cache, state

st.set_page_config(page_title="lmdk — landmark privacy lab", page_icon=":material/timeline:", layout="wide")

# The one page registry: (file, title, icon). Other pages append themselves here, in reading order.
PAGES = [
    ("pages/home.py", "Overview", ":material/home:"),
    ("pages/data_landmarks.py", "Data & landmarks", ":material/database:"),
    ("pages/schemes_utility.py", "Schemes & utility", ":material/tune:"),
    ("pages/temporal_loss.py", "Temporal privacy loss", ":material/trending_up:"),
    ("pages/dummy_landmarks.py", "Dummy landmarks", ":material/masks:"),
    ("pages/audit.py", "Adversary lab", ":material/policy:"),
    ("pages/spatiotemporal_events.py", "Spatiotemporal events", ":material/share_location:"),
    ("pages/population.py", "Population", ":material/groups:"),
    ("pages/experiments.py", "Experiments", ":material/science:"),
]

state.init()
a11y.style()  # readable captions (WCAG AA contrast), see ui/a11y.py
state.register_pages(PAGES)
page = st.navigation([st.Page(path, title=title, icon=icon, default=i == 0)
                      for i, (path, title, icon) in enumerate(PAGES)])
try:
    current = cache.current()
except ValueError as exc:  # lmdk errors are ValueErrors with a message meant for the user
    st.error(f"Could not load the series: {text.escape_markdown(exc)}")
    current = None
st.session_state[state.CURRENT] = current
if page.title != "Population":  # that page works on a fleet, not on the current series
    widgets.landmark_status(current)
page.run()
state.sync_query_params()
widgets.share_link()
