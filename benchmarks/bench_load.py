"""Classroom load on one server (issue 15 §4, issue 34): K sessions on one page (Schemes & utility unless
``--page`` names others), each changing ε every 10 s.

Every session is a headless protocol client (deploy/streamlit_client.py): it opens the page, then every
PERIOD seconds (random phase) moves the ε slider to an option it has not shown yet and waits for the server's
``script_finished``; the charts it receives must carry the new ε. Each session has its own demonstration seed
(``?seed=k``), so no session is served from another's cache entry — the worst case for the server. Browsers'
rendering is excluded. ``--one-link``: every session opens ``?seed=1`` instead, as a class following the lecturer's
link, where what one session computed serves the others. The server is measured alone:

* latency of an ε change (send → script finished), p50 / p95 / max;
* page opening latency (all K sessions open within the first PERIOD seconds);
* server CPU seconds per interaction (utime + stime of the server process from /proc, steady phase only);
* server RSS at the end.

    python benchmarks/bench_load.py --sessions 1 10 30 [--duration 60] [--period 10] [--one-link]
    python benchmarks/bench_load.py --sessions 100 --replicas 2 --one-link   # deploy/'s nginx in front of 2 replicas
    python benchmarks/bench_load.py --sessions 30 --warm   # the lecturer opened the page before the class arrived
    python benchmarks/bench_load.py --sessions 30 --query reps=50   # every link adds reps=50 (a trial default)
    python benchmarks/bench_load.py --sessions 30 100 --app /tmp/base/app.py app.py --rounds 2   # base, new, base, new
    python benchmarks/bench_load.py --sessions 30 --page schemes_utility temporal_loss dummy_landmarks audit \
        spatiotemporal_events
    python benchmarks/bench_load.py --class 100 [--lessons 4] [--idle 10] [--rounds 2]   # a live class (issue 56)

``--class K``: a lecturer and K students in a live class on the Lessons page (benchmarks/class_load.py): opening
the join link, predicting, Check, the reveal and the next lesson arriving by the pages' automatic fragment
refreshes (run_every, sent on the fragments' clock as a browser does). The table's row counts every action a
person takes (open, predict, Check, Start, Reveal, Next); the lines under it give the refreshes, how long the
reveal and the next lesson took to reach the students, and the server CPU per refresh that found nothing new (an
idle window in the first lesson). The server gets a fresh LMDK_DATA_DIR. Targets (issue 56): p95 of an action
≤ 0.5 s, no failure, one process; ≤ 5 ms of server CPU per idle refresh.

Every page in ``PAGES`` is moved by its own ε slider; a page whose charts record ε (``layout.meta``) must show
the new one, and no page may raise. The table's last column names the page.

Target (issue 15): 30 sessions, p95 of an ε change under 2 s on this 2-core machine.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks"), str(ROOT / "deploy")]

from browser_support import streamlit_process
from class_load import run_class
from streamlit_client import Session, chart_epsilons
from warm import PAGES, warm_page  # the pages (URL path -> the key of their ε slider) and deploy/'s warming

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int | list[int]) -> float:
    """User + system CPU seconds of a process (or of several: replicas) so far (Linux /proc)."""
    if isinstance(pid, list):
        return sum(cpu_seconds(p) for p in pid)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int | list[int]) -> float:
    """Resident set size of a process and its worker processes (or the sum over several) in MB."""
    if isinstance(pid, list):
        return sum(rss_mb(p) for p in pid)
    children = [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
                for c in (task / "children").read_text().split()]
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024 + sum(rss_mb(c) for c in children)
    raise RuntimeError("no VmRSS")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0–100) by linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def student(url: str, k: int, steady: asyncio.Event, duration: float, period: float,
                  rng: random.Random, opens: list, changes: list, failures: list,
                  page: str = "schemes_utility", one_link: bool = False, extra: str = "") -> None:
    """One session: open the page within the first period, then, once every session is open, change ε every
    period for ``duration`` seconds (the steady phase starts when the last session opened, however long that
    took on a loaded machine). ``one_link``: the class's shared link (seed 1) instead of a seed of its own;
    ``extra``: more of the link's query (``reps=50``)."""
    await asyncio.sleep(rng.uniform(0, period))
    slider = PAGES[page]
    async with Session(url, page, query=f"seed={1 if one_link else k + 1}" + (f"&{extra}" if extra else "")) as s:
        opens.append((await s.load(expect=slider)).seconds)
        await steady.wait()
        labels = s.options(slider)
        order = [lab for lab in labels if lab != "1"]
        rng.shuffle(order)
        next_at = time.monotonic() + rng.uniform(0, period)
        end = time.monotonic() + duration
        while order and next_at < end:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            label = order.pop()
            run = await s.set_slider(slider, label)
            shown = chart_epsilons(run)
            if run.exceptions or (shown and shown != {float(label)}) or (page == "schemes_utility" and not shown):
                failures.append((k, label, run.exceptions, chart_epsilons(run)))
            changes.append(run.seconds)
            next_at += period


async def classroom(url: str, pid: int | list[int], sessions: int, duration: float, period: float, seed: int,
                    page: str = "schemes_utility", one_link: bool = False, extra: str = "") -> dict:
    """Run K sessions against the server at ``url`` (process ``pid``, or the replicas' processes behind a proxy);
    returns the measurements (server CPU and RSS summed over the replicas)."""
    rng = random.Random(seed)
    opens, changes, failures = [], [], []
    steady = asyncio.Event()
    t0 = time.monotonic()
    tasks = [asyncio.create_task(student(url, k, steady, duration, period,
                                         random.Random(rng.random()), opens, changes, failures, page, one_link,
                                         extra))
             for k in range(sessions)]
    while len(opens) < sessions and not any(t.done() for t in tasks):
        await asyncio.sleep(0.05)
    opened_in = time.monotonic() - t0
    cpu0, c0 = cpu_seconds(pid), time.process_time()
    w0 = time.monotonic()
    steady.set()
    await asyncio.gather(*tasks)
    wall = time.monotonic() - w0
    server_cpu, client_cpu = cpu_seconds(pid) - cpu0, time.process_time() - c0
    n = len(changes)
    return {"sessions": sessions, "interactions": n, "failures": failures,
            "open_p50": percentile(opens, 50), "open_p95": percentile(opens, 95), "opened_in": opened_in,
            "p50": percentile(changes, 50), "p95": percentile(changes, 95), "max": max(changes, default=float("nan")),
            "cpu_per_interaction": server_cpu / max(n, 1), "server_load": server_cpu / wall,
            "client_load": client_cpu / wall, "rss_mb": rss_mb(pid), "page": page}


def row(r: dict) -> str:
    """One Markdown table row of a classroom result."""
    return (f"| {r['sessions']} | {r['interactions']} | {r['p50']:.2f} | {r['p95']:.2f} | {r['max']:.2f} | "
            f"{r['cpu_per_interaction']:.3f} | {r['server_load']:.2f} | {r['open_p50']:.1f} / {r['open_p95']:.1f} | "
            f"{r['rss_mb']:.0f} | {len(r['failures'])} | {r.get('page', 'schemes_utility')} |")


HEADER = ("| sessions | ε changes | p50 (s) | p95 (s) | max (s) | server CPU s / change | server cores busy | "
          "open p50 / p95 (s) | RSS (MB) | failures | page |\n|---|---|---|---|---|---|---|---|---|---|---|")


@contextmanager
def servers(count: int, app: Path = ROOT / "app.py") -> Iterator[tuple[str, int | list[int]]]:
    """(URL, process id) of one fresh server of ``app`` (run in its own checkout), or (proxy URL, replica process
    ids) of ``count`` behind nginx."""
    if count == 1:
        with streamlit_process(app, cwd=app.parent) as (url, proc):
            yield url, proc.pid
        return
    from deploy_support import replicas

    with replicas(count) as (url, _, pids):
        yield url, pids


async def live_class(url: str, pid: int | list[int], students: int, lessons: int, arrive: float, idle: float,
                     seed: int, think: tuple[float, float] = (2, 8)) -> dict:
    """A live class of ``students`` (benchmarks/class_load.py) against the server; its table row's measurements
    plus the class's own (refreshes, follow delays, idle refresh cost)."""
    cpu0, c0, w0 = cpu_seconds(pid), time.process_time(), time.monotonic()
    tally = await run_class(url, students, lessons, arrive, idle, seed, lambda: cpu_seconds(pid), think)
    wall = time.monotonic() - w0
    server_cpu, client_cpu = cpu_seconds(pid) - cpu0, time.process_time() - c0
    seconds = [t for _, t in tally.actions]
    opens = [t for what, t in tally.actions if what == "open"]
    return {"sessions": f"{students} + 1", "interactions": len(seconds), "failures": tally.failures,
            "open_p50": percentile(opens, 50), "open_p95": percentile(opens, 95),
            "p50": percentile(seconds, 50), "p95": percentile(seconds, 95), "max": max(seconds, default=float("nan")),
            "cpu_per_interaction": server_cpu / max(len(seconds), 1), "server_load": server_cpu / wall,
            "client_load": client_cpu / wall, "rss_mb": rss_mb(pid), "page": f"lessons: a class, {lessons} lessons",
            "tally": tally}


def class_lines(r: dict) -> str:
    """The class's measurements beyond the table row."""
    t = r["tally"]
    kinds = sorted({what for what, _ in t.actions})
    each = ", ".join(f"{k} {percentile([s for w, s in t.actions if w == k], 95):.2f}" for k in kinds)
    idle = t.idle
    per = 1000 * idle["cpu"] / idle["refreshes"] if idle.get("refreshes") else float("nan")
    return (f"  actions' p95 (s): {each}\n"
            f"  automatic refreshes: {len(t.refreshes)}, p50 {percentile(t.refreshes, 50):.3f} s, p95 "
            f"{percentile(t.refreshes, 95):.3f} s, max {max(t.refreshes, default=float('nan')):.2f} s; "
            f"{t.full_refreshes} redrew the page (a reveal or a move arriving)\n"
            f"  reveal seen by the students after p50 {percentile(t.follow['reveal'], 50):.1f} / p95 "
            f"{percentile(t.follow['reveal'], 95):.1f} s; next lesson followed after p50 "
            f"{percentile(t.follow['move'], 50):.1f} / p95 {percentile(t.follow['move'], 95):.1f} s\n"
            f"  idle window: {idle.get('refreshes', 0)} refreshes in {idle.get('seconds', 0):.1f} s finding nothing "
            f"new ({idle.get('redrawn', 0)} redrew), server CPU {idle.get('cpu', 0):.2f} s = {per:.2f} ms per "
            f"refresh; client (this process) {r['client_load']:.2f} cores busy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="students", type=int, nargs="+", default=None, metavar="K",
                        help="a live class of K students and a lecturer on the Lessons page instead of ε changes")
    parser.add_argument("--lessons", type=int, default=4, help="--class: lessons the class goes through")
    parser.add_argument("--idle", type=float, default=10.0,
                        help="--class: seconds of the first lesson in which nobody acts (the idle refreshes' cost)")
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--duration", type=float, default=60.0, help="steady phase, seconds")
    parser.add_argument("--period", type=float, default=10.0, help="seconds between a session's ε changes")
    parser.add_argument("--seed", type=int, default=0, help="phases and option orders of the sessions")
    parser.add_argument("--page", nargs="+", default=["schemes_utility"], choices=sorted(PAGES),
                        help="pages to measure, one after another (default: Schemes & utility)")
    parser.add_argument("--one-link", action="store_true",
                        help="every session opens the same link (?seed=1), as a class following the lecturer's: "
                             "what one session computed serves the others (default: a seed per session, the worst "
                             "case)")
    parser.add_argument("--warm", action="store_true",
                        help="open the page once (seed 0, as the lecturer before the class) before the sessions "
                             "arrive; default: the sessions meet a server that has served nobody yet")
    parser.add_argument("--query", default="",
                        help="more of every session's link, e.g. reps=50 (a view's default changed for a trial); "
                             "default: the page's defaults")
    parser.add_argument("--replicas", type=int, default=1,
                        help="app replicas behind nginx running deploy/lmdk.conf (default 1: one server, no proxy); "
                             "server CPU and RSS are summed over them")
    parser.add_argument("--app", nargs="+", type=Path, default=[ROOT / "app.py"],
                        help="app.py of one or more checkouts (e.g. a `git worktree` of main), measured one after "
                             "another, each from its own folder; default: this checkout's")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the whole measurement (every app in turn: base, new, base, new, …)")
    args = parser.parse_args()
    if args.replicas > 1 and args.app != [ROOT / "app.py"]:
        parser.error("--app measures one server per checkout; --replicas runs this checkout's")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    if args.students:
        class_main(args)
        print(f"load average after: {os.getloadavg()[0]:.2f}", flush=True)
        return
    if args.replicas > 1:
        print(f"{args.replicas} replicas behind nginx (deploy/lmdk.conf)", flush=True)
    print("sessions: " + ("one shared link (?seed=1)" if args.one_link else "a seed of their own each")
          + (f", with {args.query}" if args.query else ""), flush=True)
    print(HEADER)
    apps = [app.resolve() for app in args.app]
    for _ in range(args.rounds):
        for app in apps:
            for page in args.page:
                for k in args.sessions:
                    with servers(args.replicas, app) as (url, pids):  # fresh servers per K and page: no warm cache
                        if args.warm:  # deploy/warm.py's opening: the default link, seed 0, which no session uses
                            seconds = asyncio.run(warm_page(url, page))[0]
                            print(f"warmed by one opening of {page} in {seconds:.1f} s", flush=True)
                        result = asyncio.run(classroom(url, pids, k, args.duration, args.period, args.seed, page,
                                                        args.one_link, args.query))
                    if len(apps) > 1:  # which checkout: the page column names it
                        result["page"] = f"{page} ({app.parent})"
                    print(row(result), flush=True)
                    for failure in result["failures"][:5]:
                        print("  failure:", failure, file=sys.stderr)
    print(f"load average after: {os.getloadavg()[0]:.2f}", flush=True)


CLASS_HEADER = HEADER.replace("ε changes", "actions").replace("CPU s / change", "CPU s / action")


def class_main(args) -> None:
    """--class: a fresh server with an empty class store per class size and round."""
    print(f"a live class: {args.lessons} lessons, students arriving within {args.period:g} s, an idle window of "
          f"{args.idle:g} s", flush=True)
    print(CLASS_HEADER, flush=True)
    for _ in range(args.rounds):
        for app in [app.resolve() for app in args.app]:
            for k in args.students:
                with tempfile.TemporaryDirectory(prefix="lmdk-class-") as data, _env("LMDK_DATA_DIR", data), \
                        servers(args.replicas, app) as (url, pids):
                    result = asyncio.run(live_class(url, pids, k, args.lessons, args.period, args.idle, args.seed))
                print(row(result), flush=True)
                print(class_lines(result), flush=True)
                for failure in result["failures"][:5]:
                    print("  failure:", failure, file=sys.stderr)


@contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    """``name=value`` in this process's environment (inherited by the servers it starts) for the block."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


if __name__ == "__main__":
    main()
