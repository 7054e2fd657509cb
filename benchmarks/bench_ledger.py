"""Reservations per second at a nation's scale (issue 52): one reservation of USERS users into a dataset that
already holds HISTORY earlier charges, on SQLite and on PostgreSQL.

The reservation runs in batches (``lmdk.ledger.sql.BATCH`` users per transaction, the users in key order), each
reading only its users' running totals (one row per user, ``lmdk_totals``), checking every user's cap over the batch
at once (numpy arrays) and appending the batch's charges and new totals (PostgreSQL: COPY). The history is written as
reservations write it (charges and running totals). Targets
on this machine (2 cores): ≥ 50,000 reservations/s on SQLite, ≥ 25,000/s on PostgreSQL, for 100,000 users into
3 million earlier charges. ``--runs N`` reserves N times (each run adds its users' charges to the history) and prints
the minimum and the median: the machine is shared, so one run says little. The import of the core (pandas, loaded by
any run that has data to release) happens before the clock starts.

    python benchmarks/bench_ledger.py                              # both backends (a throwaway PostgreSQL server)
    python benchmarks/bench_ledger.py --runs 5                     # min and median of 5 reservations
    python benchmarks/bench_ledger.py --backends sqlite --users 10000 --history 300000
    python benchmarks/bench_ledger.py --postgresql postgresql://lmdk@db:5432/bench   # an existing, empty database
    python benchmarks/bench_ledger.py --period month               # a monthly cap: half the history in the month

``--period day|month`` stores the cap per UTC day or month and puts half the history's exports one a day before the
current period and half in it (so a month's spend is half of each user's history, read from the running totals).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import lmdk.data.ids  # noqa: E402, F401 — loaded before any timing, as in a run that has read its data
from lmdk import ledger  # noqa: E402
from lmdk.ledger.sql import BATCH  # noqa: E402

TARGETS = {"sqlite": 50_000, "postgresql": 25_000}
DATASET = "nation"
EPSILON = 0.01
STAMP = "2026-01-01T00:00:00+00:00"


def entry() -> ledger.LedgerEntry:
    """The export each reservation records."""
    return ledger.LedgerEntry(fingerprint="sha256:bench", epsilon=EPSILON, scheme="uniform", mechanism="laplace",
                              tool="bench_ledger")


def stamps(exports: int, period: str) -> list[str]:
    """The times of the history's exports: all at STAMP, or (a period cap) the first half one a day before the
    current period, the second half spread over the period so far (the period then holds half the history)."""
    if period == "none":
        return [STAMP] * exports
    now = datetime.now(UTC)
    start = datetime.fromisoformat(ledger.period_start(period, now) or STAMP)
    before = exports // 2
    inside = exports - before
    times = [start - timedelta(days=before - n) for n in range(before)]
    times += [start + (now - start) * (n / inside) for n in range(inside)]
    return [moment.isoformat(timespec="seconds") for moment in times]


def fill(url: str, users: int, history: int, period: str = "none") -> float:
    """``history`` earlier charges of ``users`` users in DATASET (history // users exports), written directly as
    the ledger's rows; seconds taken."""
    start = time.perf_counter()
    store = ledger.open_ledger(url)
    store.init()
    exports = max(1, history // users)
    times = stamps(exports, period)
    ledger.reserve_users(url, DATASET, {"u0": EPSILON}, cap=1e6, period=period, entry=entry(),
                         now=datetime.fromisoformat(times[0]))  # the cap, stored
    body = json.dumps({k: v for k, v in asdict(entry()).items() if k != "charges"})
    with store._transaction() as tx:  # noqa: SLF001 — bulk set-up of the benchmark's history, not a reservation
        for n in range(exports):
            export_id = uuid.uuid4().hex
            tx.cur.execute(tx.q("INSERT INTO lmdk_exports (id, time, dataset, entry) VALUES (?, ?, ?, ?)"),
                           (export_id, times[n], DATASET, body))
            tx.insert_charges(export_id, DATASET, times[n], {f"u{u}": EPSILON for u in range(users)})
            print(f"  history: {(n + 1) * users:,} charges", end="\r", flush=True)
    if url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE lmdk_charges")
    print()
    return time.perf_counter() - start


def measure(url: str, users: int) -> tuple[float, int]:
    """(seconds, users granted) of one reservation of every user."""
    charges = {f"u{u}": EPSILON for u in range(users)}
    start = time.perf_counter()
    reservation = ledger.reserve_users(url, DATASET, charges, entry=entry())
    return time.perf_counter() - start, len(reservation.granted)


def main(argv=None) -> int:
    """Fill each backend's ledger, reserve once, print reservations per second against the target."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--history", type=int, default=3_000_000, help="earlier charges in the dataset")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--period", choices=("none", "day", "month"), default="none",
                        help="the cap's period (day, month: half the history in the current period)")
    parser.add_argument("--runs", type=int, default=1, help="reservations per backend (min and median printed)")
    parser.add_argument("--postgresql", metavar="URL", help="an existing empty database (default: a throwaway "
                                                            "server, tests/postgres_support.py)")
    args = parser.parse_args(argv)
    print(f"{args.users:,} users into a dataset holding {args.history:,} earlier charges; {BATCH:,} users per "
          f"transaction; cap per {args.period}")
    rows = []
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="lmdk-bench-ledger-") as work:
        for backend in args.backends.split(","):
            if backend == "sqlite":
                url = f"sqlite:///{Path(work) / 'ledger.db'}"
            else:
                url = args.postgresql
                if url is None:
                    from postgres_support import fresh_database, postgres_server

                    url = fresh_database(stack.enter_context(postgres_server()), "bench")
            filled = fill(url, args.users, args.history, args.period)
            rates = []
            for run in range(max(1, args.runs)):
                seconds, granted = measure(url, args.users)
                rates.append(args.users / seconds)
                verdict = "ok" if rates[-1] >= TARGETS[backend] else "MISSED"
                rows.append({"backend": backend, "run": run, "fill_s": filled, "seconds": seconds,
                             "per_s": rates[-1], "granted": granted})
                print(f"{backend:<11} history filled in {filled:6.1f} s; reservation of {args.users:,} users: "
                      f"{seconds:6.2f} s = {rates[-1]:>9,.0f}/s (target ≥ {TARGETS[backend]:,}/s) {verdict}",
                      flush=True)
            if len(rates) > 1:
                print(f"{backend:<11} {len(rates)} runs: min {min(rates):,.0f}/s, median "
                      f"{statistics.median(rates):,.0f}/s (target ≥ {TARGETS[backend]:,}/s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
