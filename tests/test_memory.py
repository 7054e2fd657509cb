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

    # settle 1 s (was 8) after the server's own disconnect and the 2 s TTL: from the disconnect on, the RSS read every
    # 0.5 s stayed flat to 0.1 MB for 10 s, after the warm-up session and after the last one (what ended sessions
    # leave freed is returned by the next visitor's first run, ui.session.memory, not by waiting): ~14 s less
    result = measure(sessions=2, mb=3.0, settle_s=1.0)
    per_session = (result["after_visitor_mb"] - result["baseline_mb"]) / result["sessions"]
    # 3 MB files of ~94k events each, after one warm-up upload. Measured over 2 sessions (each a ~94k-event upload
    # viewed on the Schemes page, ~25 s of the suite's time under load): −6 MB per session now (−4 MB over 3); +18
    # MB per session with the computations of uploads cached process-wide (before ui.session.cache_scope), +11 MB
    # per upload before issue 18's fix.
    assert per_session < 10, result
