"""deploy/warm.py (the replica image runs it beside the server, deploy/start.sh): one opening of each interactive
page's default view leaves the server with the imports, the compiled kernels and the default view's run, so the
first visitor's opening is served from them (issue 34)."""
from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "deploy"), str(ROOT / "benchmarks")]

import warm  # noqa: E402
from bench_load import cpu_seconds  # noqa: E402
from browser_support import in_own_thread, streamlit_process  # noqa: E402
from warm import wait_until_healthy, warm_page  # noqa: E402


def test_a_warmed_server_serves_the_first_visitor_from_the_warming(monkeypatch, capsys):
    with streamlit_process() as (url, proc):
        before = cpu_seconds(proc.pid)
        done = subprocess.run([sys.executable, "deploy/warm.py", url, "--pages", "schemes_utility"], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert "lmdk warm: schemes_utility opened in" in done.stdout
        warming = cpu_seconds(proc.pid) - before
        _, query = in_own_thread(asyncio.run, warm_page(url, "schemes_utility"))  # a first visitor, default link
        visit = cpu_seconds(proc.pid) - before - warming
        # then a page that never arrives (it does not show the widget asked for) fails the warming, named
        monkeypatch.setitem(warm.PAGES, "schemes_utility", "no_such_slider")
        status = in_own_thread(warm.main, [url, "--pages", "schemes_utility", "temporal_loss"])
    assert "seed" not in query or "seed=0" in query  # the default link: the run the warming computed
    # the warming paid the imports, the kernels and the six schemes' run; the visitor pays the page's elements
    assert visit < 0.3 * warming, (visit, warming)
    assert status == 1
    out, err = capsys.readouterr()
    assert "could not open schemes_utility" in err and "no_such_slider" in err
    assert "lmdk warm: temporal_loss opened in" in out  # one page's failure leaves the others warmed


def test_a_server_that_never_answers_is_named_after_the_timeout(capsys):
    with pytest.raises(TimeoutError, match="did not answer /_stcore/health within 1 s"):
        wait_until_healthy("http://127.0.0.1:9", 1)
    assert warm.main(["http://127.0.0.1:9", "--timeout", "1"]) == 1
    assert "nothing was warmed" in capsys.readouterr().err
