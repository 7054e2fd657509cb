"""Heavy work needs a click and a slot (issue 54): a link beyond the interactive bounds starts nothing until its
button is pressed, and at most one heavy run per core computes at once (``ui.session.slots``)."""
from __future__ import annotations

import json
import threading
import time
from functools import partial

import app_support
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture)

from lmdk.experiments import runner as ex
from ui import heavy
from ui.session import cache, slots, state

EXPERIMENTS = partial(app_support.open_page, "pages/experiments.py", 60)
SCHEMES = partial(app_support.open_page, "pages/schemes_utility.py", 60)
# the findings' links, as a visitor sends them
PRISTE_LINK = {state.EX_FIGURE: "priste-utility", state.EX_RUN: "priste-utility", state.EX_REPETITIONS: "3"}
LARGEST_SCHEMES_LINK = {state.SOURCE: "synthetic", state.SYN_N: "110000", state.REPETITIONS: "200",
                        state.SCHEMES: ",".join(state.ALL_SCHEME_NAMES)}


@pytest.fixture
def figure_runs(monkeypatch) -> list[tuple]:
    """Every call of the experiments runner from now on (the real run still happens)."""
    calls: list[tuple] = []
    real = ex.run_figure

    def counting(name, **kwargs):
        calls.append((name, kwargs.get("repetitions")))
        return real(name, **kwargs)

    monkeypatch.setattr(ex, "run_figure", counting)
    return calls


@pytest.fixture
def scheme_runs(monkeypatch) -> list[tuple]:
    """Every (n, repetitions, schemes) the Schemes page computes from now on (the real computation still runs)."""
    calls: list[tuple] = []
    real = cache.scheme_summaries

    def counting(key, schemes, epsilon, mechanism, repetitions, *args, **kwargs):
        calls.append((len(kwargs["_x"]), repetitions, schemes))
        return real(key, schemes, epsilon, mechanism, repetitions, *args, **kwargs)

    monkeypatch.setattr(cache, "scheme_summaries", counting)
    return calls


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_the_priste_link_computes_nothing_until_its_button(figure_runs):
    started = time.process_time()
    at = EXPERIMENTS(**PRISTE_LINK)
    assert figure_runs == [] and time.process_time() - started < 20  # it used ≥ 75 s of CPU on open
    said = " ".join(m.value for m in at.markdown).replace("\\", "")  # as read: without Markdown's escapes
    assert "a recomputation of priste-utility with 3 repetitions" in said
    assert not at.get("plotly_chart")  # nothing drawn that depends on the run
    assert at.query_params[state.EX_RUN] == "priste-utility"  # the settings stay as linked


def test_pressing_the_button_runs_the_linked_recomputation(figure_runs):
    link = {state.EX_FIGURE: "fig8", state.EX_RUN: "fig8", state.EX_REPETITIONS: "1", state.EX_SEED: "7"}
    at = EXPERIMENTS(**link)
    assert figure_runs == []
    button(at, "Start it").click().run()
    assert not at.exception, at.exception
    assert figure_runs == [("fig8", 1)]
    (chart,) = at.get("plotly_chart")
    assert json.loads(chart.proto.spec)["layout"]["meta"]["source"] == "recomputed here: 1 repetition, seed 7"


def test_lighter_settings_show_the_cached_run_without_computing(figure_runs):
    at = EXPERIMENTS(**PRISTE_LINK)
    button(at, "Open with lighter settings").click().run()
    assert not at.exception, at.exception
    assert figure_runs == [] and at.get("plotly_chart")  # the cached run
    assert state.EX_RUN not in at.query_params


def test_the_largest_schemes_link_computes_nothing_until_its_button(scheme_runs):
    started = time.process_time()
    at = SCHEMES(**LARGEST_SCHEMES_LINK)
    assert scheme_runs == [] and time.process_time() - started < 10  # 29 s and +0.7 GB per open before
    said = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "110,000 events" in said and "200 repetitions" in said
    assert not at.get("plotly_chart")
    # the request holds on every page that releases the series, and nowhere else
    at.switch_page("pages/temporal_loss.py").run()
    assert any(b.label == "Start it" for b in at.button)
    for page in ("pages/home.py", "pages/data_landmarks.py"):  # no Monte-Carlo there: the series is only drawn
        at.switch_page(page).run()
        assert not any(b.label == "Start it" for b in at.button), page


def test_pressing_the_button_runs_the_linked_view(scheme_runs):
    at = SCHEMES(**{state.SOURCE: "synthetic", state.SYN_N: "25000", state.REPETITIONS: "2",
                    state.SCHEMES: "uniform"})
    assert scheme_runs == []
    button(at, "Start it").click().run()
    assert not at.exception, at.exception
    assert scheme_runs and scheme_runs[0][:2] == (25_000, 2) and at.get("plotly_chart")


def test_a_link_within_the_bounds_opens_at_once(scheme_runs):
    at = SCHEMES(**{state.SOURCE: "synthetic", state.SYN_N: "2000", state.REPETITIONS: "5",
                    state.SCHEMES: "uniform,skip"})
    assert not any(b.label == "Start it" for b in at.button)
    assert scheme_runs and at.get("plotly_chart")


def test_linked_requests_name_each_bound():
    asks = heavy.linked_requests({state.SYN_N, state.REPETITIONS, state.EX_RUN},
                                 {state.SOURCE: "synthetic", state.SYN_N: 20_001, state.REPETITIONS: 101,
                                  state.EX_RUN: "fig7", state.EX_REPETITIONS: 1})
    assert asks == {"series": ["a series of 20,001 events (more than 20,000)",
                               "101 repetitions of every release (more than 100)"],
                    "experiments": ["a recomputation of fig7 with 1 repetition"]}
    # at the bounds, or a value the link did not set, asks for nothing
    assert heavy.linked_requests({state.SYN_N, state.REPETITIONS},
                                 {state.SOURCE: "synthetic", state.SYN_N: 20_000, state.REPETITIONS: 100}) == {}
    assert heavy.linked_requests(set(), {state.SOURCE: "synthetic", state.SYN_N: 110_000}) == {}
    # syn_n only counts for a synthetic series
    assert heavy.linked_requests({state.SYN_N},
                                 {state.SOURCE: "sample", state.SYN_N: 110_000, state.LENGTH: 1000}) == {}


@pytest.fixture
def every_slot_taken():
    """Every heavy-run slot of the process held by this test until it ends."""
    held = 0
    while slots.acquire():
        held += 1
    assert held == slots.SLOTS
    yield
    for _ in range(held):
        slots.release()


def test_slots_bound_heavy_runs_to_one_per_core():
    going, most, lock = 0, 0, threading.Lock()

    def run() -> None:
        nonlocal going, most
        with slots.holding(timeout=30) as got:
            assert got
            with lock:
                going += 1
                most = max(most, going)
            time.sleep(0.05)
            with lock:
                going -= 1

    threads = [threading.Thread(target=run) for _ in range(3 * slots.SLOTS + 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most == slots.SLOTS and slots.taken() == 0
    with pytest.raises(ValueError):  # bounded: a release without an acquire is an error, not a new slot
        slots.release()


def test_a_full_server_refuses_at_once_and_frees_in_order(every_slot_taken):
    assert slots.taken() == slots.SLOTS
    started = time.monotonic()
    assert not slots.acquire() and not slots.acquire(timeout=0.2)
    assert time.monotonic() - started < 1  # never blocks for ever
    with slots.holding() as got:
        assert not got


def test_a_run_waits_with_a_message_while_every_slot_is_taken(every_slot_taken, figure_runs, monkeypatch):
    monkeypatch.setattr(heavy, "WAIT_MAX_S", 1.0)
    at = EXPERIMENTS(**{state.EX_FIGURE: "fig8", state.EX_RUN: "fig8", state.EX_REPETITIONS: "1"})
    button(at, "Start it").click().run()
    assert not at.exception, at.exception
    assert figure_runs == []  # no slot, no run
    assert any("stayed taken" in w.value for w in at.warning) and any(b.label == "Try again" for b in at.button)
