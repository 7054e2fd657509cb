"""Server memory across sessions that upload and then close (issue 18): does RSS come back down?

Starts the app on 127.0.0.1 with a short disconnectedSessionTTL, lets one warm-up upload session come and go
(first-use imports), opens SESSIONS browser sessions one after the other, each uploading its own synthetic meter
file (about MB_PER_FILE MB) and viewing the Schemes page (so charts and downloads are built), closes each, waits
for the sessions to expire, and reads the server's RSS from /proc.

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
sys.path.insert(0, str(ROOT / "tests"))


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
    not retention; what each further session leaves behind is."""
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
        _wait_sessions_ended(url, ttl_s + settle_s)
        baseline = rss_mb(pid)
        peak = baseline
        for i in range(sessions):
            _upload_session(context, url, Path(tmp), mb, seed=i)
            peak = max(peak, rss_mb(pid))
        _wait_sessions_ended(url, ttl_s + settle_s)
        after = rss_mb(pid)
        visitor = context.new_page()  # one new visitor after all sessions expired
        visitor.goto(f"{url}/")
        wait_idle(visitor, timeout=120_000)
        visitor.close()
        after_visitor = rss_mb(pid)
    return {"sessions": sessions, "mb_per_file": mb, "baseline_mb": baseline, "peak_mb": peak, "after_mb": after,
            "after_visitor_mb": after_visitor}


def _wait_sessions_ended(url: str, wait_s: float, timeout_s: float = 120.0) -> None:
    """Wait until the server has processed every closed tab's disconnect (its ``active_sessions`` gauge reads 0:
    each session's caches cleared, the session stored for its TTL), then ``wait_s`` more seconds (the TTL and the
    settle time). Counted from the server's own disconnect rather than from the tab's close, which a loaded server
    handles some time later."""
    import urllib.request

    deadline = time.monotonic() + timeout_s
    while True:
        with urllib.request.urlopen(f"{url}/_stcore/metrics?families=active_sessions", timeout=10) as r:
            gauge = [line for line in r.read().decode().splitlines() if line.startswith("active_sessions ")]
        if gauge and float(gauge[0].split()[1]) == 0:
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


if __name__ == "__main__":
    main()
