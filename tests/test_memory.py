"""Server memory after uploading sessions end (issue 18): a generous regression bound on the benchmark's measure."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_rss_comes_back_near_the_baseline_after_uploading_sessions_end():
    from browser_support import require_browser

    require_browser()
    from bench_memory import measure

    result = measure(sessions=3, mb=3.0, settle_s=8.0)
    per_session = (result["after_visitor_mb"] - result["baseline_mb"]) / result["sessions"]
    # 3 MB files of ~94k events each, after one warm-up upload. Measured over 3 sessions (the count used here: each
    # is a ~94k-event upload viewed on the Schemes page, the test's cost): −4 MB per session now; +18 MB per session
    # with the computations of uploads cached process-wide (before ui.session.cache_scope), +11 MB per upload before
    # issue 18's fix.
    assert per_session < 10, result
