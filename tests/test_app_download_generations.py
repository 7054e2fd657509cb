"""A download's inputs outlive one rerun: the button the browser still shows while a rerun is on its way must build
its file (it said the session had ended, and a release handed out was never reserved), and no more than one run
back is kept."""
from __future__ import annotations

import gc
import weakref

import app_support
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from ui.session import state


def test_the_run_befores_download_still_builds_and_two_runs_back_is_let_go():
    at = app_support.open_page("pages/schemes_utility.py", 120, source="sample", sample="hue", n="200",
                               seed="7343", schemes="uniform,skip")
    slider = next(s.key for s in at.select_slider if str(s.key).endswith("w_eps"))
    first = weakref.ref(at.session_state[state.DOWNLOAD_FIGURES]["dl_report"])
    at.select_slider(key=slider).set_value(0.3).run()
    assert not at.exception, at.exception
    gc.collect()
    held = first()
    assert held is not None and held is not at.session_state[state.DOWNLOAD_FIGURES]["dl_report"]
    assert "<html" in held.content().lower()  # the file that button asks for, built from what that run showed
    del held
    at.run()  # another run: the first is two runs back
    assert not at.exception, at.exception
    gc.collect()
    assert first() is None  # two runs back: gone with its inputs
