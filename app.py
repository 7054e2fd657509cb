"""lmdk — the Streamlit entry point: page registry, shared state, URL sync, landmark status.

Run with ``streamlit run app.py``. Pages live in ``pages/``; add yours to ``PAGES`` below.
"""
import streamlit as st

from ui import a11y, auth, config_memo, heavy, text, widgets
from ui.session import cache, state

st.set_page_config(page_title="lmdk — landmark privacy lab", page_icon=":material/timeline:", layout="wide")
config_memo.install()  # the theme Streamlit sends with every run, read once per config change (issue 56)

# The one page registry: (file, title, icon). Other pages append themselves here, in reading order.
PAGES = [
    ("pages/home.py", "Overview", ":material/home:"),
    ("pages/lessons.py", "Lessons", ":material/school:"),
    ("pages/data_landmarks.py", "Data & landmarks", ":material/database:"),
    ("pages/schemes_utility.py", "Schemes & utility", ":material/tune:"),
    ("pages/temporal_loss.py", "Temporal privacy loss", ":material/trending_up:"),
    ("pages/dummy_landmarks.py", "Dummy landmarks", ":material/masks:"),
    ("pages/adversary_lab.py", "Adversary lab", ":material/policy:"),
    ("pages/spatiotemporal_events.py", "Spatiotemporal events", ":material/share_location:"),
    ("pages/population.py", "Population", ":material/groups:"),
    ("pages/policies.py", "Policies", ":material/assignment_ind:"),
    ("pages/experiments.py", "Experiments", ":material/science:"),
]

state.init()
heavy.inspect_link()  # what a link asks for beyond the interactive bounds waits for a button (issue 54)
a11y.style()  # readable captions (WCAG AA contrast), see ui/a11y.py
auth.sidebar()  # the login of a deployment that configures one, and who is logged in (issue 54, ui/auth.py)
state.register_pages(PAGES)
# Old addresses of renamed pages keep working: a hidden page at the old path that switches to the new one with the
# link's settings (the Adversary lab was /audit until issue 35). Each old path also has a file in pages/ (e.g.
# pages/audit.py) for a fresh server's first request, which Streamlit routes by the legacy pages/ layout.
MOVED = {"audit": "pages/adversary_lab.py"}


def _moved(target: str):
    """A hidden page's body: switch to ``target``, keeping the link's query (its settings)."""
    def body() -> None:
        st.switch_page(target, query_params=st.query_params.to_dict())
    return body


page = st.navigation([st.Page(path, title=title, icon=icon, default=i == 0)
                      for i, (path, title, icon) in enumerate(PAGES)]
                     + [st.Page(_moved(target), title=f"{old} (moved)", url_path=old, visibility="hidden")
                        for old, target in MOVED.items()])
if not heavy.link_allowed(page.title):  # the request and its buttons are drawn instead of the page
    st.stop()
try:
    current = cache.current()
except ValueError as exc:  # lmdk errors are ValueErrors with a message meant for the user
    st.error(f"Could not load the series: {text.escape_markdown(exc)}")
    current = None
st.session_state[state.CURRENT] = current
if page.title not in ("Population", "Policies"):  # those pages work on many users, not on the current series
    widgets.landmark_status(current)
widgets.forget_fragment_reruns()  # the page sets them again when it draws its fragment
page.run()
state.sync_query_params()
widgets.share_link()
