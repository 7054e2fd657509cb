"""Budgets against the real servers: SQLite, PostgreSQL (started by the suite, :mod:`postgres_support`) and the
JSON Lines file under its lock. Eight processes at once against one cap; a population run killed part-way; the
cap, its period and the import, on every backend."""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk import ledger
from lmdk.cli import main

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ["jsonl", "sqlite", "postgresql"]


@pytest.fixture(scope="module")
def postgres():
    """One PostgreSQL server for this module (initdb + pg_ctl in a temporary folder)."""
    from postgres_support import postgres_server, require_postgres

    require_postgres()
    with postgres_server() as url:
        yield url


@pytest.fixture(params=BACKENDS)
def url(request, tmp_path):
    """A fresh, empty ledger of each backend."""
    if request.param == "jsonl":
        return str(tmp_path / "ledger.jsonl")
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.db'}"
    return _database(request, "t")


def _database(request, prefix: str) -> str:
    """A new database on the module's PostgreSQL server, its ledger tables created (``lmdk ledger init``)."""
    from postgres_support import fresh_database

    url = fresh_database(request.getfixturevalue("postgres"), prefix + uuid.uuid4().hex[:12])
    ledger.open_ledger(url).init()
    return url


def export(epsilon: float = 1.0, **kw) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=epsilon, scheme="adaptive", mechanism="laplace",
                              tool="test", **kw)


def _one_export(url: str, barrier, results) -> None:
    barrier.wait()  # all eight start their transaction at once
    granted, withheld = ledger.reserve_users(url, "meters-2026", {"house-1": 0.5, "house-2": 0.75}, cap=2.0,
                                             entry=export())
    results.put((sorted(granted), sorted(withheld)))


def test_eight_processes_at_once_spend_exactly_the_cap(url):
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(8), context.Queue()
    workers = [context.Process(target=_one_export, args=(url, barrier, results)) for _ in range(8)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    # cap 2: house-1 (0.5 each) fits 4 times, house-2 (0.75 each) twice; the others are withheld, never charged
    assert sum("house-1" in granted for granted, _ in outcomes) == 4
    assert sum("house-2" in granted for granted, _ in outcomes) == 2
    assert all(set(granted) | set(withheld) == {"house-1", "house-2"} for granted, withheld in outcomes)
    spent = ledger.spent_by_user(ledger.records(url).entries, "meters-2026")
    assert spent == {"house-1": 2.0, "house-2": 1.5}
    out = ledger.summary(url, users=True)
    assert out["by_user"]["house-1"]["remaining"] == 0.0 and out["by_user"]["house-2"]["remaining"] == 0.5
    assert out["releases"] == 4


def test_a_stored_cap_binds_later_exports_and_cannot_be_raised(url):
    granted, withheld = ledger.reserve_users(url, "d", {"a": 1.0}, cap=1.5, entry=export())
    assert granted == {"a": 1.0} and not withheld
    granted, withheld = ledger.reserve_users(url, "d", {"a": 1.0, "b": 1.0}, entry=export())  # no --cap given
    assert granted == {"b": 1.0} and "cap ε = 1.5" in withheld["a"] and "ε spent 1, ε asked 1" in withheld["a"]
    with pytest.raises(ledger.ParameterError, match="lowered, never raised"):
        ledger.reserve_users(url, "d", {"c": 1.0}, cap=5.0, entry=export())
    granted, withheld = ledger.reserve_users(url, "d", {"b": 0.5}, cap=1.2, entry=export())  # lowering: kept
    assert "b" in withheld and ledger.records(url).caps["d"] == ledger.Cap(1.2, "none")
    assert ledger.spent_by_user(ledger.records(url).entries, "d") == {"a": 1.0, "b": 1.0}


def test_the_cap_resets_each_utc_day_and_cancel_refunds(url):
    day1, day2 = datetime(2026, 3, 1, 23, 0, tzinfo=UTC), datetime(2026, 3, 2, 0, 30, tzinfo=UTC)
    first = ledger.reserve_users(url, "d", {"a": 1.0}, cap=1.0, period="day", entry=export(), now=day1)
    assert first.granted == {"a": 1.0}
    assert ledger.reserve_users(url, "d", {"a": 1.0}, entry=export(), now=day1).withheld
    assert ledger.reserve_users(url, "d", {"a": 1.0}, entry=export(), now=day2).granted == {"a": 1.0}
    ledger.cancel(url, first)
    assert ledger.spent_by_user(ledger.records(url).entries, "d") == {"a": 1.0}  # day 2's alone
    with pytest.raises(ledger.ParameterError, match="period cannot change"):
        ledger.reserve_users(url, "d", {"a": 1.0}, period="month", entry=export(), now=day2)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_import_moves_every_entry_and_cap(backend, tmp_path, request):
    url = f"sqlite:///{tmp_path / 'ledger.db'}" if backend == "sqlite" else _database(request, "i")
    source = tmp_path / "old.jsonl"
    ledger.append(source, [export(0.5), export(1.0, users=3), export(0.25, charges={"x": 0.25}, dataset="m")])
    ledger.reserve_users(str(source), "m", {"x": 0.5}, cap=3.0, entry=export())
    assert main(["ledger", "import", str(source), "--into", url]) == 0
    moved, original = ledger.records(url), ledger.records(str(source))
    assert len(moved.entries) == len(original.entries) == 4 and moved.caps == original.caps
    key = lambda e: (e.time, e.epsilon, e.users)  # noqa: E731
    assert sorted(map(key, moved.entries)) == sorted(map(key, original.entries))
    assert ledger.summary(url)["epsilon_basic"] == ledger.summary(str(source))["epsilon_basic"] == 2.25


# --------------------------------------------------------------------------- a population run killed part-way
def _population(folder: Path, users: int) -> Path:
    rng = np.random.default_rng(1)
    times = pd.date_range("2026-01-05", periods=24, freq="h")
    table = pd.DataFrame({"user": np.repeat([f"h{u:04d}" for u in range(users)], len(times)),
                          "timestamp": np.tile(times.astype(str), users),
                          "value": rng.uniform(0, 5, users * len(times))})
    path = folder / "meters.parquet"
    table.to_parquet(path, index=False)
    (folder / "policy.json").write_text(json.dumps({"landmarks": "none", "scheme": "uniform",
                                                    "epsilon": 0.5}))
    return path


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_population_run_killed_part_way_has_reserved_every_user_it_wrote(backend, tmp_path, request):
    url = f"sqlite:///{tmp_path / 'ledger.db'}" if backend == "sqlite" else _database(request, "k")
    data, out = _population(tmp_path, 1500), tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "lmdk", "population", str(data), "--config",
                             str(tmp_path / "policy.json"), "--out", str(out), "--range", "0", "25", "--quiet",
                             "--ledger", url, "--dataset", "meters", "--cap", "2"], env=env,
                            stderr=subprocess.PIPE)
    def user_folders() -> list[Path]:  # --out is built in place or under a temporary name (.out.partial-…)
        return [p for pattern in ("out/.released-staging/user=*", ".out.partial-*/.released-staging/user=*")
                for p in tmp_path.glob(pattern)]

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if any(any(p.iterdir()) for p in user_folders()):
            break  # a user's file, not only its (just created, still empty) folder: else SIGKILL may land before
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode() if proc.stderr else ""
    written = {p.name.removeprefix("user=") for p in user_folders() if any(p.iterdir())}
    assert written and not (out / "released").exists()  # killed part-way, after some releases were written
    spent = ledger.spent_by_user(ledger.records(url).entries, "meters")
    assert written <= set(spent) and all(spent[user] == 0.5 for user in written)
