"""Server memory after uploading sessions end (issue 18): nothing of an upload stays in a process-wide store, and RSS
stays within a generous bound on the benchmark's steady-state measure."""
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
    # nothing of an upload stays in a process-wide store: every st.cache_data / st.cache_resource cache and the media
    # files read as they did before the uploads (caching an upload's computations process-wide, as before
    # ui.session.cache_scope, grew these); a session kept alive is the RSS bound's to catch
    assert result["caches_after"] == result["caches_before"], result
    per_session = (result["after_visitor_mb"] - result["baseline_mb"]) / result["sessions"]
    # 3 MB files of ~94k events each, after one warm-up upload, RSS read in the same steady state before and after
    # (bench_memory._steady_rss). What stays is the allocator's fragmentation, not live data (under tracemalloc the
    # live memory was flat to 0.02 MB over three sessions): measured 3.7-15.7 MB per session over 2 sessions here,
    # 11.6 on CI under the earlier reading (taken while an expired session was still held). One session's state kept
    # alive is ~95 MB at this size, an upload's computations cached process-wide were +18 MB per session: the bound
    # catches the first for certain, the cache check above the second.
    assert per_session < 30, result

