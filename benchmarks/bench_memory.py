"""Server memory across sessions that upload and then close (issue 18): does RSS come back down?

Starts the app on 127.0.0.1 with a short disconnectedSessionTTL, lets one warm-up upload session come and go
(first-use imports), opens SESSIONS browser sessions one after the other, each uploading its own synthetic meter
file (about MB_PER_FILE MB) and viewing the Schemes page (so charts and downloads are built), closes each, waits
for the sessions to expire, and reads the server's RSS from /proc and its process-wide caches from its own
metrics (``/_stcore/metrics``).

What RSS keeps after the sessions are gone is the allocator's, not live data: with the server under tracemalloc,
the memory Python and numpy hold was 133.28 MB before three 3 MB upload sessions and 133.27 MB after them, while RSS
rose 48 MB (freed small objects leave pages that hold a few survivors; glibc cannot return those). That growth
levels off (3 MB files: 3.7–7.8 MB per session over 2 sessions, 3.6 per session over 8; 0.9 per session over 100
at 5 MB, docs/DEPLOY.md), which a session kept alive would not.

    python benchmarks/bench_memory.py [--sessions 20] [--mb 5]

Prints baseline, peak and after-expiry RSS in MB. tests/test_memory.py runs a small version with a generous bound.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def rss_mb(pid: int) -> float:
    """Resident set size of a process in MB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def meter_file(path: Path, mb: float, seed: int) -> tuple[Path, int]:
    """A distinct hourly meter CSV of about ``mb`` MB and its row count (every file differs, so nothing is shared
    between them)."""
    rng = np.random.default_rng(seed)
    rows = int(mb * 1e6 / 32)
    start = np.datetime64("2001-01-01T00:00") + np.timedelta64(int(seed), "h")
    times = (start + np.arange(rows).astype("timedelta64[h]")).astype(str)
    values = np.round(rng.gamma(2.0, 0.4, rows), 4)
    path.write_text("timestamp,value\n" + "\n".join(f"{t},{v}" for t, v in zip(times, values, strict=True)) + "\n")
    return path, rows


def measure(sessions: int, mb: float, ttl_s: int = 2, settle_s: float = 15.0, warmup: int = 1) -> dict:
    """Baseline, peak and after-expiry RSS (MB) of a server that served ``sessions`` uploads, each in its own
    session. The baseline is read after ``warmup`` upload sessions have come and gone: the first upload imports
    the modules of the upload path and raises the allocator's high-water mark once (+~90 MB at 3 MB), which is
    not retention; what each further session leaves behind is. Baseline and after-visitor readings are both taken
    by ``_steady_rss``, in the same state."""
    from browser_support import chromium, streamlit_process, wait_idle

    # the TTL as the server's own flag, not an environment variable left set for later servers of this process
    server = streamlit_process(options=("--server.disconnectedSessionTTL", str(ttl_s)))
    with tempfile.TemporaryDirectory() as tmp, server as (url, _), chromium() as context:
        pid = _server_pid(url)
        warm = context.new_page()
        warm.goto(f"{url}/schemes_utility")
        wait_idle(warm, timeout=120_000)
        warm.close()
        for i in range(warmup):
            _upload_session(context, url, Path(tmp), mb, seed=10_000 + i)
        baseline = _steady_rss(context, url, pid, ttl_s + settle_s)
        caches_before = cache_bytes(url)
        peak = baseline
        for i in range(sessions):
            _upload_session(context, url, Path(tmp), mb, seed=i)
            peak = max(peak, rss_mb(pid))
        _wait_sessions_ended(url, ttl_s + settle_s)
        after = rss_mb(pid)
        after_visitor = _steady_rss(context, url, pid, ttl_s + settle_s)
        caches_after = cache_bytes(url)
    return {"sessions": sessions, "mb_per_file": mb, "baseline_mb": baseline, "peak_mb": peak, "after_mb": after,
            "after_visitor_mb": after_visitor, "caches_before": caches_before, "caches_after": caches_after}


def cache_bytes(url: str) -> dict[str, float]:
    """What the server's own metrics say each of its process-wide stores holds (``cache_memory_bytes``: every
    st.cache_data / st.cache_resource cache by name, the media files), keyed by the metric's labels. The sessions'
    own state is left out: it is whichever sessions the server still holds at the reading, and a visitor's
    disconnect races it."""
    return {labels: size for labels, size in metric(url, "cache_memory_bytes", timeout_s=120).items()
            if 'cache_type="st_session_state"' not in labels}


def metric(url: str, family: str, timeout_s: float = 10) -> dict[str, float]:
    """The server's samples of one metric family (``/_stcore/metrics``), keyed by name and labels as printed."""
    import urllib.request

    with urllib.request.urlopen(f"{url}/_stcore/metrics?families={family}", timeout=timeout_s) as r:
        lines = r.read().decode().splitlines()
    samples = (line.rsplit(" ", 1) for line in lines if line.startswith((f"{family} ", f"{family}{{")))
    return {name: float(value) for name, value in samples}


def _steady_rss(context, url: str, pid: int, wait_s: float) -> float:
    """The server's RSS once the sessions that ended are gone and their memory swept, read while a new visitor's
    page is open.

    Streamlit keeps a disconnected session for its TTL and drops an expired one only at the next write to its
    session store, i.e. when another session disconnects: until then the last upload session's state stays
    referenced, however long one waits (measured: ~95 MB at 3 MB files), and a reading taken then depends on
    which session the server happened to reap. So a first visitor comes and goes (its disconnect drops the expired
    sessions), and a second one, arriving at least ``SWEEP_EVERY_S`` after the first so that its arrival's sweep
    collects garbage too (``ui.session.memory``), opens the page the reading is taken under."""
    from browser_support import wait_idle

    from ui.session.memory import SWEEP_EVERY_S

    _wait_sessions_ended(url, wait_s)
    reaper = context.new_page()
    arrived = time.monotonic()
    reaper.goto(f"{url}/")
    wait_idle(reaper, timeout=120_000)
    reaper.close()
    _wait_sessions_ended(url, 0.5)
    time.sleep(max(0.0, arrived + SWEEP_EVERY_S + 0.5 - time.monotonic()))
    reader = context.new_page()
    reader.goto(f"{url}/")
    wait_idle(reader, timeout=120_000)
    reading = rss_mb(pid)
    reader.close()
    return reading


def _wait_sessions_ended(url: str, wait_s: float, timeout_s: float = 120.0) -> None:
    """Wait until the server has processed every closed tab's disconnect (its ``active_sessions`` gauge reads 0:
    each session's caches cleared, the session stored for its TTL), then ``wait_s`` more seconds (the TTL and the
    settle time). Counted from the server's own disconnect rather than from the tab's close, which a loaded server
    handles some time later."""
    deadline = time.monotonic() + timeout_s
    while True:
        gauge = metric(url, "active_sessions").get("active_sessions")
        if gauge == 0:
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"sessions still active after {timeout_s:g} s: {gauge}")
        time.sleep(0.1)
    time.sleep(wait_s)


def _upload_session(context, url: str, tmp: Path, mb: float, seed: int) -> None:
    """One session: upload a distinct meter file, view Schemes & utility (charts and downloads built), close."""
    from browser_support import wait_idle

    file, rows = meter_file(tmp / f"meter_{seed}.csv", mb, seed=seed)
    page = context.new_page()
    page.goto(f"{url}/data_landmarks?source=upload")
    wait_idle(page, timeout=120_000)
    page.locator(".st-key-upload_file input[type='file']").set_input_files(str(file))
    # files up to 110,000 rows are taken whole (issue 28), so the caption reads the file's own length
    page.wait_for_function(f"() => document.body.innerText.includes('n = {rows:,} events')", timeout=120_000)
    wait_idle(page, timeout=120_000)  # the upload's run has ended: on a loaded machine its charts draw for seconds
    page.locator("[data-testid='stSidebarNav'] a", has_text="Schemes & utility").click()  # same session
    page.wait_for_function("() => document.body.innerText.includes('Budget per timestamp')", timeout=120_000)
    wait_idle(page, timeout=120_000)
    page.close()


def _server_pid(url: str) -> int:
    """The pid of the streamlit process listening on ``url``'s port (from /proc/net/tcp and fd links)."""
    import os

    port = int(url.rsplit(":", 1)[1])
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":  # LISTEN
            inode = fields[9]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]":
                    return int(pid)
        except OSError:
            continue
    raise RuntimeError(f"no process listens on port {port}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--mb", type=float, default=5.0)
    args = parser.parse_args()
    result = measure(args.sessions, args.mb)
    print(f"{result['sessions']} sessions, one upload each × {result['mb_per_file']:g} MB: baseline "
          f"{result['baseline_mb']:.0f} MB, peak {result['peak_mb']:.0f} MB, after expiry {result['after_mb']:.0f} MB "
          f"(+{result['after_mb'] - result['baseline_mb']:.0f} MB), after one new visitor "
          f"{result['after_visitor_mb']:.0f} MB (+{result['after_visitor_mb'] - result['baseline_mb']:.0f} MB)")
    grown = {k: v - result["caches_before"].get(k, 0.0) for k, v in result["caches_after"].items()
             if v != result["caches_before"].get(k)}
    print("process-wide caches: " + (", ".join(f"{k} {d:+,.0f} B" for k, d in grown.items()) or "unchanged"))


if __name__ == "__main__":
    main()
