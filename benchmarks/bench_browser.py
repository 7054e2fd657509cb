"""Browser benchmark: time from an ε change to the last chart updated on Schemes & utility.

n = 1,000 (HUE), all six schemes, 100 repetitions, Laplace. Each trial moves the ε slider one step
(to a value not seen before, so the core really recomputes) and measures, inside Chromium with
performance.now(), until every Plotly chart on the page carries the new ε in ``layout.meta`` (a dict, or a
one-element list holding it — see ui.charts.meta_of; set when Plotly has drawn it) and Streamlit is idle.
Median of 5 trials, against the same measurement on benchmarks/trivial_page.py (one slider, one chart).
Target: at most 3× the baseline.

    python benchmarks/bench_browser.py
    python benchmarks/bench_browser.py --population   # Population page, 500 users × 1,000 events (target < 2 s)
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from browser_support import chromium, streamlit_server, wait_idle

TRIALS = 5
OPTIONS = (0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0)
ALL_UPDATED = """(eps) => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const meta = p => { const m = p.layout && p.layout.meta; return (Array.isArray(m) ? m[0] : m) || {}; };
  const plots = [...document.querySelectorAll('.js-plotly-plot')].filter(p => meta(p).eps !== undefined);
  if (!plots.length || !plots.every(p => Math.abs(meta(p).eps - eps) < 1e-12)) return false;
  window.__t1 = window.__t1 || performance.now();
  return true;
}"""


def measure(url: str, path: str) -> list[float]:
    """Milliseconds from the key press to the last chart drawn with the new ε, per trial."""
    times = []
    with chromium() as context:
        page = context.new_page()
        page.goto(url + path)
        wait_idle(page, timeout=180_000)
        slider = page.locator(".st-key-w_eps input[type='range']")
        index = OPTIONS.index(1.0)
        for _ in range(TRIALS):
            index -= 1
            slider.focus()
            page.evaluate("() => { window.__t1 = 0; window.__t0 = performance.now(); }")
            page.keyboard.press("ArrowLeft")
            page.wait_for_function(ALL_UPDATED, arg=OPTIONS[index], timeout=120_000, polling="raf")
            times.append(page.evaluate("() => window.__t1 - window.__t0"))
            wait_idle(page, timeout=60_000)
        page.close()
    return times


def population() -> int:
    """ε change on the Population page: a 500 × 1,000 fleet, six schemes, every chart redrawn (target < 2 s)."""
    import os

    load = os.getloadavg()[0]
    with streamlit_server(ROOT / "app.py") as url:
        times = measure(url, "/population?pop_users=500&pop_n=1000")
    median = statistics.median(times)
    print(f"population page (500 users × 1,000 events, 6 schemes): median {median:7.1f} ms, max {max(times):.0f} ms  "
          f"trials {', '.join(f'{t:.0f}' for t in times)}; target < 2000 ms: {'OK' if max(times) < 2000 else 'SLOW'} "
          f"(1-min load average {load:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} CPUs)")
    return 0


def main() -> int:
    import os

    if "--population" in sys.argv[1:]:
        return population()
    load = os.getloadavg()[0]  # browser timings on a shared machine are noisy: report the load with them
    with streamlit_server(ROOT / "benchmarks" / "trivial_page.py") as url:
        base = measure(url, "/")
    with streamlit_server(ROOT / "app.py") as url:
        app = measure(url, "/schemes_utility?reps=100")
    b, a = statistics.median(base), statistics.median(app)
    print(f"trivial one-chart page : median {b:7.1f} ms  trials {', '.join(f'{t:.0f}' for t in base)}")
    print(f"schemes page (n=1000, 6 schemes, 100 reps): median {a:7.1f} ms  "
          f"trials {', '.join(f'{t:.0f}' for t in app)}")
    print(f"ratio {a / b:.2f}× (target ≤ 3×); {'OK' if a <= 3 * b else 'TOO SLOW'}  "
          f"(1-min load average {load:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
