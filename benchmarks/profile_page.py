"""Script CPU per widget change of one page, in one process (AppTest), with an optional profile (issue 34).

The page opens once; then for each value the ε select_slider (or another one) moves to it and the script thread's
CPU time (``time.thread_time``: other processes' load does not count) of that run is reported — a fragment rerun
where the page uses one, as on the server. Between changes the app runs once in full (unmeasured) so the sidebar's
widgets are back. One ScriptCache serves every run, as on the server (AppTest compiles the scripts again per run).

    python benchmarks/profile_page.py schemes_utility --values 0.5 0.2 2 0.3
    python benchmarks/profile_page.py adversary_lab --profile 40
    python benchmarks/profile_page.py dummy_landmarks --timed ui.session.cache:scheme_summary ui.charts:timeline

``--timed module:function`` (or ``module:Class.method``) adds up the thread CPU of those calls per change; ``--profile
N`` prints the N most expensive calls of the last change (cProfile's overhead inflates Python-heavy code ~2×);
``--callers PATTERN`` adds who called the functions matching PATTERN (pstats' print_callers).
"""
from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, app_test, local_script_runner

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

SLIDERS = {"spatiotemporal_events": "w_st_eps"}  # page -> key of its ε slider (default w_eps)
state: dict[str, Any] = {"on": False, "cpu": 0.0, "profile": None, "top": 0}
spent: dict[str, float] = {}


def _patch() -> None:
    """One ScriptCache for every run; the script thread timed (and profiled) while ``state['on']``; no legacy
    pages/ folder mode (as tests/app_support.navigation_mode)."""
    cache = ScriptCache()
    local_script_runner.ScriptCache = app_test.ScriptCache = lambda: cache  # type: ignore[assignment,misc]
    original_init = PagesManager.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init  # type: ignore[method-assign]
    run_thread = local_script_runner.LocalScriptRunner._run_script_thread

    def timed_thread(self):
        if not state["on"]:
            return run_thread(self)
        profile = cProfile.Profile(time.thread_time)
        state["profile"], start = profile, time.thread_time()
        if state["top"]:
            profile.enable()
        try:
            return run_thread(self)
        finally:
            profile.disable()
            state["cpu"] = time.thread_time() - start

    local_script_runner.LocalScriptRunner._run_script_thread = timed_thread  # type: ignore[method-assign]


def _time(spec: str) -> None:
    """Add up the thread CPU of calls to ``module:function`` or ``module:Class.method`` during measured runs."""
    module, attr = spec.rsplit(":", 1)
    owner = importlib.import_module(module)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    func = getattr(owner, name)

    @functools.wraps(func)
    def timed(*args, **kwargs):
        start = time.thread_time()
        try:
            return func(*args, **kwargs)
        finally:
            if state["on"]:
                spent[spec] = spent.get(spec, 0.0) + time.thread_time() - start

    setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", help="file name in pages/ without .py, e.g. schemes_utility")
    parser.add_argument("--values", nargs="+", default=["0.5", "0.2", "2", "0.3", "0.7"], help="ε options to visit")
    parser.add_argument("--slider", help="key suffix of the select_slider to move (default: the page's ε)")
    parser.add_argument("--query", nargs="*", default=[], help="URL query as key=value")
    parser.add_argument("--timed", nargs="*", default=[], help="module:function to add up per change")
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest calls of the last change")
    parser.add_argument("--sort", default="cumulative", help="with --profile: pstats order, e.g. tottime")
    parser.add_argument("--callers", nargs="*", default=[], help="with --profile: who called functions matching these")
    args = parser.parse_args()
    _patch()
    for spec in args.timed:
        _time(spec)
    state["top"] = args.profile
    key = args.slider or SLIDERS.get(args.page, "w_eps")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    for pair in args.query:
        name, value = pair.split("=", 1)
        at.query_params[name] = value
    at.run()
    at.switch_page(f"pages/{args.page}.py").run()
    assert not at.exception, at.exception
    cpus: list[float] = []
    for i, value in enumerate(args.values):
        if i:
            at.run()  # a fragment rerun leaves only the fragment in the element tree: bring the sidebar back
        slider: Any = next(s for s in at.select_slider if str(s.key).endswith(key))
        state["on"] = True
        slider.set_value(type(slider.value)(value)).run()
        state["on"] = False
        assert not at.exception, at.exception
        cpus.append(state["cpu"])
        print(f"{key} → {value}: script CPU {state['cpu']:.3f} s", flush=True)
    print(f"median script CPU per change: {statistics.median(cpus):.3f} s over {len(cpus)} changes")
    for spec, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {spec}: {seconds / len(cpus):.4f} s per change")
    if args.profile:
        stats = pstats.Stats(state["profile"]).sort_stats(args.sort)
        stats.print_stats(args.profile)
        for pattern in args.callers:
            stats.print_callers(pattern)


if __name__ == "__main__":
    main()
