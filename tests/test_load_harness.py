"""The classroom load harness (benchmarks/bench_load.py) really drives the app: its protocol client opens the
Schemes page, moves ε, and receives charts drawn at the new ε; the harness's measurements are filled in."""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "deploy")]

import pytest
from bench_load import classroom, live_class, percentile
from browser_support import in_own_thread, streamlit_process
from streamlit_client import Session, chart_epsilons
from warm import warm_page


@pytest.fixture(scope="module")
def server():
    """One app server for the module: (base URL, process); each test opens its own sessions."""
    with streamlit_process() as started:
        yield started


def run(coroutine):
    """asyncio.run in a thread of its own (browser_support.in_own_thread)."""
    return in_own_thread(asyncio.run, coroutine)


async def _one_change(url: str) -> tuple:
    async with Session(url, "schemes_utility", query="schemes=uniform,skip&reps=5") as s:
        first = await s.load(expect="w_eps")
        changed = await s.set_slider("w_eps", "0.1")
        return first, changed, s.query


def test_protocol_client_changes_epsilon_and_gets_charts_at_the_new_value(server):
    first, changed, query = run(_one_change(server[0]))
    assert chart_epsilons(first) == {1.0} and len(first.charts) >= 3 and not first.exceptions
    assert chart_epsilons(changed) == {0.1} and not changed.exceptions
    assert "eps=0.1" in query  # the server rewrote the URL as for a browser


def test_classroom_measures_every_session_and_the_server(server):
    url, proc = server  # --one-link and --replicas: tests/test_browser_deploy.py, through the proxy
    result = run(classroom(url, proc.pid, sessions=2, duration=4, period=2, seed=1))
    assert result["failures"] == []
    assert result["interactions"] >= 2 and result["p95"] >= result["p50"] > 0
    assert result["cpu_per_interaction"] > 0 and result["rss_mb"] > 50


def test_warming_opens_the_page_once_with_no_students_seed(server):
    """--warm: one opening of the page by the app's default link (seed 0, which no student's session uses)."""
    seconds, query = run(warm_page(server[0], "schemes_utility"))
    assert seconds > 0 and "seed=" not in query  # the default seed: left out of the URL the app wrote


def test_percentile_interpolates():
    assert percentile([1, 2, 3, 4], 50) == 2.5 and percentile([5], 95) == 5


@pytest.mark.slow
def test_a_live_class_runs_on_the_fragments_clock(tmp_path, monkeypatch):
    """--class: two students and the lecturer through two lessons; the reveal and the next lesson reach the students
    only by their pages' automatic fragment refreshes (the client sends them as a browser's timer does), and the idle
    window's refreshes find nothing new."""
    monkeypatch.setenv("LMDK_DATA_DIR", str(tmp_path))  # a fresh class store, not the user's
    with streamlit_process() as (url, proc):
        result = run(live_class(url, proc.pid, students=2, lessons=2, arrive=1, idle=3, seed=2, think=(0.2, 0.5)))
    tally = result["tally"]
    assert result["failures"] == [] and (tmp_path / "classes.db").exists()
    kinds = [what for what, _ in tally.actions]
    assert kinds.count("open") == 2 and kinds.count("check") == 4 and kinds.count("reveal") == 2
    assert kinds.count("next") == 1 and kinds.count("start") == 1
    assert len(tally.follow["reveal"]) == 4 and len(tally.follow["move"]) == 2  # seen by refreshes, not actions
    assert tally.full_refreshes >= 6  # each student: two reveals and one move arrived by a refresh
    assert tally.idle["refreshes"] >= 3 and tally.idle["redrawn"] == 0
    assert result["p95"] > 0 and result["rss_mb"] > 50
