"""Browser benchmark of long series (issue 28): per page and series length, the time from an ε change to the last
chart redrawn, in Chromium, against the same page at n = 1,000 measured in the same run.

A synthetic values series (``source=synthetic&syn_n=N``: AR(1), 20 % uniform landmarks, public range 0–20) of
n = 1,000 / 8,760 (a year hourly) / 35,040 (a year at 15 minutes) / 105,120 (a year at 5 minutes), every page
whose charts depend on the series and on ε: Schemes & utility, Temporal privacy loss, Dummy landmarks (all six
schemes, default repetitions — 100 up to n = 1,000, fewer for long series: ui.session.state.default_repetitions — and
the exact discrete Laplace of the exports). Each trial moves the ε slider one step to a value not seen before (so the
core recomputes) and measures, inside Chromium with performance.now(), until every chart carries the new ε in
``layout.meta`` and Streamlit is idle (the harness of benchmarks/bench_browser.py); the lengths of a page are
open in tabs side by side and their trials interleaved, so the machine's load (2 shared cores) falls on all alike.
Data & landmarks has no ε: there a trial clears the landmarks or undoes that (a landmark edit redraws the
timeline), until the timeline's ``meta.landmarks`` shows the new count. The Overview, Spatiotemporal events,
Population and Experiments pages do not depend on the series' length. Median of TRIALS trials; target: at
n = 35,040 every page within 2× of n = 1,000.

    python benchmarks/bench_long_series.py                 # every page, n = 1,000 / 8,760 / 35,040 / 105,120
    python benchmarks/bench_long_series.py --n 1000 35040  # some lengths
    python benchmarks/bench_long_series.py --pages temporal_loss
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT), str(ROOT / "benchmarks")]

from bench_browser import ALL_UPDATED, OPTIONS
from browser_support import chromium, streamlit_server, wait_idle

TRIALS = 5
LENGTHS = (1_000, 8_760, 35_040, 105_120)
PAGES = ("data_landmarks", "schemes_utility", "temporal_loss", "dummy_landmarks")
TITLES = {"data_landmarks": "Data & landmarks (landmark edit)", "schemes_utility": "Schemes & utility",
          "temporal_loss": "Temporal privacy loss", "dummy_landmarks": "Dummy landmarks"}
TIMELINE_LANDMARKS = """(count) => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const el = document.querySelector('[class*="st-key-timeline_chart"] .js-plotly-plot');
  const m = el && el.layout && el.layout.meta;
  const meta = (Array.isArray(m) ? m[0] : m) || {};
  if (meta.landmarks !== count) return false;
  window.__t1 = window.__t1 || performance.now();
  return true;
}"""


def _timed(page, action, wait_js: str, arg) -> float:
    page.evaluate("() => { window.__t1 = 0; window.__t0 = performance.now(); }")
    action()
    page.wait_for_function(wait_js, arg=arg, timeout=600_000, polling="raf")
    elapsed = page.evaluate("() => window.__t1 - window.__t0")
    wait_idle(page, timeout=600_000)
    return elapsed


class EpsilonSteps:
    """One ε key press per call on an open page, each to a value that page has not seen (the core recomputes)."""

    def __init__(self, page):
        self.page, self.index = page, OPTIONS.index(1.0)

    def __call__(self) -> float:
        self.index -= 1
        slider = self.page.locator(".st-key-w_eps input[type='range']")

        def press():
            slider.focus()
            self.page.keyboard.press("ArrowLeft")

        return _timed(self.page, press, ALL_UPDATED, OPTIONS[self.index])


class LandmarkEdits:
    """Data & landmarks: 'Clear all landmarks', then 'Undo', … — each redraws the timeline with the new set."""

    def __init__(self, page):
        meta = page.evaluate("() => { const el = document.querySelector('[class*=\"st-key-timeline_chart\"] "
                             ".js-plotly-plot'); const m = el.layout.meta; return (Array.isArray(m) ? m[0] : m); }")
        self.page, self.original, self.trial = page, int(meta["landmarks"]), 0

    def __call__(self) -> float:
        button, count = ("det_clear", 0) if self.trial % 2 == 0 else ("lm_undo", self.original)
        self.trial += 1
        return _timed(self.page, self.page.locator(f".st-key-{button} button").click, TIMELINE_LANDMARKS, count)


def run(lengths, pages, trials: int) -> dict:
    """Per page: one tab per n, then the trials interleaved across the tabs (n = 1,000, 8,760, …, 1,000, …), so a
    change of the machine's load during the run affects every length alike."""
    results = {}
    with streamlit_server(ROOT / "app.py", timeout=120) as url, chromium() as context:
        for name in pages:
            tabs = {}
            for n in lengths:
                page = context.new_page()
                start = time.perf_counter()
                page.goto(f"{url}/{name}?source=synthetic&syn_n={n}")
                wait_idle(page, timeout=600_000)
                tabs[n] = (page, (LandmarkEdits if name == "data_landmarks" else EpsilonSteps)(page),
                           time.perf_counter() - start, [])
            for _ in range(trials):
                for n in lengths:
                    page, step, _, times = tabs[n]
                    page.bring_to_front()
                    times.append(step())
            for n in lengths:
                page, _, load, times = tabs[n]
                results[(name, n)] = (statistics.median(times), times, load)
                print(f"{TITLES[name]:<34} n={n:>7,}: median {statistics.median(times):7.0f} ms  trials "
                      f"{', '.join(f'{t:.0f}' for t in times)}  (first load {load:.1f} s)", flush=True)
                page.close()
    return results


def table(results: dict, lengths, pages) -> str:
    head = "| page | " + " | ".join(f"n = {n:,}" for n in lengths) + " |"
    lines = [head, "|" + "---|" * (len(lengths) + 1)]
    for name in pages:
        base = results.get((name, lengths[0]), (None,))[0]
        cells = []
        for n in lengths:
            if (name, n) not in results:
                cells.append("–")
                continue
            ms = results[(name, n)][0]
            cells.append(f"{ms / 1000:.2f} s" + (f" ({ms / base:.1f}×)" if base and n != lengths[0] else ""))
        lines.append(f"| {TITLES[name]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=list(LENGTHS))
    parser.add_argument("--pages", nargs="+", default=list(PAGES), choices=PAGES)
    parser.add_argument("--trials", type=int, default=TRIALS)
    args = parser.parse_args()
    lengths = sorted(args.n)
    load = os.getloadavg()[0]
    results = run(lengths, args.pages, args.trials)
    print()
    print(table(results, lengths, args.pages))
    ok = all(results[(p, n)][0] <= 2 * results[(p, lengths[0])][0]
             for p in args.pages for n in lengths if n <= 35_040 and (p, lengths[0]) in results)
    print(f"\nmedian of {args.trials} trials; ratio to n = {lengths[0]:,} in the same run; target ≤ 2× up to "
          f"n = 35,040: {'OK' if ok else 'NOT MET'} (1-min load average {load:.2f} before, {os.getloadavg()[0]:.2f} "
          f"after, on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
