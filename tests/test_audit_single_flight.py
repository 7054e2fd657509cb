"""A class following one link starts one audit, not one per student (issue 34): ui.audit.run is single-flight."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

import lmdk.audit
from ui import audit as ui_audit


class Interrupted(BaseException):
    """Stands for Streamlit stopping a script (its StopException / RerunException are not plain errors)."""


@pytest.fixture
def cur(monkeypatch):
    monkeypatch.setattr(ui_audit, "flip_rule", lambda cur: None)
    monkeypatch.setattr(ui_audit, "WAIT_POLL_S", 0.01)
    ui_audit.clear()
    yield SimpleNamespace(token="sample:hue", landmarks=np.array([3, 7]), n=50, series=None)
    ui_audit.clear()


def _args(cur, seed=1):
    return (cur, "uniform", 1.0, None, 10, 100, seed, "range", None, {"share": 0.2, "utility": "smooth"}, "value")


def test_sessions_asking_together_share_one_run_and_see_its_progress(cur, monkeypatch):
    calls, started, finish = [], threading.Event(), threading.Event()

    def slow_audit(*args, progress=None, **kwargs):
        calls.append(kwargs["seed"])
        progress(0.5, "releasing")
        started.set()
        assert finish.wait(5)
        return object()

    monkeypatch.setattr(lmdk.audit, "audit", slow_audit)
    results, seen = [None] * 5, [[] for _ in range(5)]

    def session(k):
        results[k] = ui_audit.run(*_args(cur), progress=lambda f, what, k=k: seen[k].append((f, what)))

    threads = [threading.Thread(target=session, args=(0,))]
    threads[0].start()
    assert started.wait(5)
    threads += [threading.Thread(target=session, args=(k,)) for k in range(1, 5)]
    for t in threads[1:]:
        t.start()
    time.sleep(0.1)
    finish.set()
    for t in threads:
        t.join(5)
    assert calls == [1]  # one run for five sessions
    assert all(r is results[0] for r in results)
    assert all((0.5, "releasing (run by another session with the same settings)") in seen[k] for k in range(1, 5))
    ui_audit.run(*_args(cur, seed=2))  # another configuration runs on its own
    assert calls == [1, 2]


def test_a_waiting_session_takes_over_when_the_run_it_waits_for_is_interrupted(cur, monkeypatch):
    calls, started, stop = [], threading.Event(), threading.Event()

    def audit(*args, progress=None, **kwargs):
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            started.set()
            assert stop.wait(5)
            raise Interrupted  # the first session moved a slider: Streamlit stops its script
        return "result"

    monkeypatch.setattr(lmdk.audit, "audit", audit)
    out = {}

    def first():
        with pytest.raises(Interrupted):
            ui_audit.run(*_args(cur))

    def second():
        out["second"] = ui_audit.run(*_args(cur))

    a, b = threading.Thread(target=first, name="a"), threading.Thread(target=second, name="b")
    a.start()
    assert started.wait(5)
    b.start()
    time.sleep(0.05)
    stop.set()
    a.join(5)
    b.join(5)
    assert calls == ["a", "b"] and out["second"] == "result"
    assert ui_audit.run(*_args(cur)) == "result" and len(calls) == 2  # remembered
