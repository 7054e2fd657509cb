"""Running totals (issue 52, at a nation's scale): each charge appends its user's running total to ``lmdk_totals``, so
a lifetime cap reads one row per user instead of every charge. The totals are only ever appended, always equal the
sum of the charges (after refusals, cancellations, imports and concurrent reservations), and the spent they give is
the spent the charges give; a ledger from before gains them summed from its charges, and a PostgreSQL ledger not yet
upgraded by ``lmdk ledger init`` refuses a release without charging anything."""
from __future__ import annotations

import math
import sqlite3
import threading
from contextlib import closing

import pytest

from lmdk import ledger
from lmdk.errors import LmdkError
from lmdk.ledger import store

DATABASES = pytest.mark.parametrize("url", ["sqlite", "postgresql"], indirect=True)


def entry(epsilon: float = 1.0, **kw) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=epsilon, scheme="uniform", mechanism="laplace",
                              tool="test", **kw)


def rows(url: str, sql: str, args: tuple = ()) -> list[tuple]:
    """The rows of ``sql`` read directly from the ledger's database."""
    if url.startswith("sqlite:///"):
        with closing(sqlite3.connect(url[len("sqlite:///"):])) as conn, conn:
            return conn.execute(sql, args).fetchall()
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(sql.replace("?", "%s"), args).fetchall()


def latest_totals(url: str) -> dict[tuple[str, str], tuple[int, float]]:
    """{(dataset, person): (n, total)} of each user's last running-total row."""
    return {(d, p): (int(n), float(t)) for d, p, n, t in rows(
        url, "SELECT t.dataset, t.person, t.n, t.total FROM lmdk_totals t WHERE t.n = "
             "(SELECT MAX(x.n) FROM lmdk_totals x WHERE x.dataset = t.dataset AND x.person = t.person)")}


def charge_sums(url: str, live: bool = False) -> dict[tuple[str, str], tuple[int, float]]:
    """{(dataset, person): (charges, Σ ε)} of the charges (``live``: cancelled exports left out)."""
    where = " WHERE NOT EXISTS (SELECT 1 FROM lmdk_cancels k WHERE k.id = c.export_id)" if live else ""
    return {(d, p): (int(k), float(s)) for d, p, k, s in rows(
        url, f"SELECT c.dataset, c.person, COUNT(*), SUM(c.epsilon) FROM lmdk_charges c{where} "
             "GROUP BY c.dataset, c.person")}


def assert_totals_match_history(url: str) -> None:
    """Every user's last running total is the sum of all its charges, and its n their number."""
    totals, sums = latest_totals(url), charge_sums(url)
    assert set(totals) == set(sums)
    for key, (count, total) in sums.items():
        assert totals[key][0] == count, key
        assert math.isclose(totals[key][1], total, rel_tol=1e-12), key
    every = rows(url, "SELECT dataset, person, n, total FROM lmdk_totals ORDER BY dataset, person, n")
    for (d1, p1, n1, t1), (d2, p2, n2, t2) in zip(every, every[1:], strict=False):  # appended, never rewritten
        if (d1, p1) == (d2, p2):
            assert n2 == n1 + 1 and t2 >= t1


@DATABASES
def test_totals_equal_the_history_after_grants_refusals_cancellations_imports_and_charges(url, tmp_path):
    ledger.reserve_users(url, "meters", {"a": 0.4, "b": 0.7, "c": 0.1}, cap=1.0, entry=entry())
    second = ledger.reserve_users(url, "meters", {"a": 0.5, "b": 0.5, "d": 0.2}, entry=entry())
    assert set(second.withheld) == {"b"}  # refused: no charge, no total
    ledger.cancel(url, second)  # withdrawn: its rows stay (in the totals), uncounted
    store.charge(url, entry(0.05, dataset="meters", charges={"a": 0.05, "e": 0.05}, users=2, id="sel1"), "selection")
    ledger.reserve_users(url, "other", {"a": 0.3}, cap=5.0, entry=entry())
    source = tmp_path / "old.jsonl"
    source.write_text(entry(0.25, dataset="meters", charges={"c": 0.25}, users=1, id="imported1",
                            time="2025-01-01T00:00:00+00:00").to_json() + "\n", encoding="utf-8")
    ledger.import_jsonl(str(source), url)
    assert_totals_match_history(url)
    # what a reservation reads from the totals is what the live charges sum to
    live = {p: s for (d, p), (_, s) in charge_sums(url, live=True).items() if d == "meters"}
    third = ledger.reserve_users(url, "meters", dict.fromkeys(["a", "b", "c", "d", "e"], 0.01), entry=entry())
    assert set(third.spent) == {"a", "b", "c", "d", "e"}
    for user, spent in third.spent.items():
        assert math.isclose(spent, live.get(user, 0.0), rel_tol=1e-12, abs_tol=1e-15), user
    assert math.isclose(third.spent["a"], 0.45) and third.spent["d"] == 0.0  # d's only charge was cancelled
    assert_totals_match_history(url)


@DATABASES
def test_a_lifetime_cap_is_checked_against_the_running_totals(url):
    ledger.reserve_users(url, "meters", {"a": 0.1, "b": 0.1}, cap=1.0, entry=entry())
    # a total appended by hand (as a later charge would): the reservation reads it, not the charges' sum
    rows(url, "INSERT INTO lmdk_totals (dataset, person, n, total) VALUES (?, ?, ?, ?) RETURNING n",
         ("meters", "a", 2, 0.95))
    granted, withheld = ledger.reserve_users(url, "meters", {"a": 0.1, "b": 0.1}, entry=entry())
    assert set(granted) == {"b"} and "ε spent 0.95" in withheld["a"]


@DATABASES
def test_more_cancelled_exports_than_the_limit_sum_the_charges_and_decide_the_same(url, monkeypatch):
    import lmdk.ledger.sql as sql

    ledger.reserve_users(url, "meters", {"a": 0.2, "b": 0.2}, cap=1.0, entry=entry())
    for _ in range(3):
        ledger.cancel(url, ledger.reserve_users(url, "meters", {"a": 0.3}, entry=entry()))
    fast = ledger.reserve_users(url, "meters", {"a": 0.1, "b": 0.1}, entry=entry())
    ledger.cancel(url, fast)
    monkeypatch.setattr(sql, "CANCELLED_LIMIT", 1)
    slow = ledger.reserve_users(url, "meters", {"a": 0.1, "b": 0.1}, entry=entry())
    assert fast.spent == pytest.approx({"a": 0.2, "b": 0.2}) and slow.spent == pytest.approx(fast.spent)
    assert_totals_match_history(url)


@DATABASES
def test_concurrent_reservations_append_totals_that_equal_the_history_and_never_pass_the_cap(url):
    ledger.reserve_users(url, "meters", {"u0": 0.1}, cap=1.0, entry=entry())
    users = [f"u{n}" for n in range(12)]
    errors: list[BaseException] = []

    def release(offset: int) -> None:
        try:
            for round_ in range(4):
                chosen = users[(offset + round_) % 4::2]  # overlapping users between threads
                reservation = ledger.reserve_users(url, "meters", dict.fromkeys(chosen, 0.15), entry=entry())
                if offset % 3 == 0 and reservation.id:
                    ledger.cancel(url, reservation)  # a refusal after the reservation: appended, uncounted
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    threads = [threading.Thread(target=release, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert_totals_match_history(url)
    live = charge_sums(url, live=True)
    assert all(total <= 1.0 + 1e-9 for (_, _), (_, total) in live.items())  # the cap held under concurrency
    assert any(total > 0.8 for (_, _), (_, total) in live.items())  # the budget was spent up to it


def old_sqlite_ledger(path) -> str:
    """A SQLite ledger as lmdk wrote it before the running totals: charges of three users, one export cancelled."""
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.executescript("""
            CREATE TABLE lmdk_datasets (dataset TEXT PRIMARY KEY, cap REAL, period TEXT);
            CREATE TABLE lmdk_exports (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
                time TEXT NOT NULL, dataset TEXT NOT NULL, entry TEXT NOT NULL);
            CREATE TABLE lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL,
                time TEXT NOT NULL, epsilon REAL NOT NULL, PRIMARY KEY (dataset, person, time, export_id))
                WITHOUT ROWID;
            CREATE TABLE lmdk_caps (seq INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL,
                cap REAL NOT NULL, period TEXT NOT NULL, time TEXT NOT NULL);
            CREATE TABLE lmdk_cancels (id TEXT PRIMARY KEY, time TEXT NOT NULL);
            INSERT INTO lmdk_caps (dataset, cap, period, time) VALUES ('meters', 1.0, 'none', '2026-01-01');
            INSERT INTO lmdk_charges VALUES ('e1', 'meters', 'a', '2026-01-02T00:00:00+00:00', 0.6),
                ('e1', 'meters', 'b', '2026-01-02T00:00:00+00:00', 0.3),
                ('e2', 'meters', 'a', '2026-01-03T00:00:00+00:00', 0.3),
                ('e3', 'meters', 'b', '2026-01-04T00:00:00+00:00', 0.5);
            INSERT INTO lmdk_cancels VALUES ('e3', '2026-01-04T00:00:01+00:00');
            """)
        for export_id, time in (("e1", "2026-01-02"), ("e2", "2026-01-03"), ("e3", "2026-01-04")):
            body = entry(0.6, dataset="meters", id=export_id, time=f"{time}T00:00:00+00:00").to_json()
            conn.execute("INSERT INTO lmdk_exports (id, time, dataset, entry) VALUES (?, ?, 'meters', ?)",
                         (export_id, f"{time}T00:00:00+00:00", body))
    return f"sqlite:///{path}"


def test_an_old_sqlite_ledger_opens_with_totals_summed_from_its_charges_and_keeps_its_budgets(tmp_path):
    url = old_sqlite_ledger(tmp_path / "old.db")
    granted, withheld = ledger.reserve_users(url, "meters", {"a": 0.2, "b": 0.2, "c": 0.2}, entry=entry())
    assert set(granted) == {"b", "c"} and "ε spent 0.9" in withheld["a"]  # a: 0.6 + 0.3; b's 0.5 was cancelled
    totals = latest_totals(url)
    assert totals[("meters", "a")] == (2, pytest.approx(0.9))  # summed from its charges, one row each, once
    assert totals[("meters", "b")] == (3, pytest.approx(1.0))  # 0.3 + 0.5 (cancelled, in the totals) + 0.2
    assert_totals_match_history(url)
    assert len(ledger.records(url).entries) == 3  # e1, e2 and the new export; e3 stays cancelled


def test_an_old_postgresql_ledger_is_summed_by_init_and_refuses_releases_until_then(blank_database):
    import psycopg

    url = blank_database
    ledger.init_ledger(url)
    ledger.reserve_users(url, "meters", {"a": 0.6, "b": 0.3}, cap=1.0, entry=entry())
    with psycopg.connect(url) as conn:  # as lmdk left it before the running totals
        conn.execute("DROP TABLE lmdk_totals")
    with pytest.raises(LmdkError, match="lmdk ledger init"):
        ledger.reserve_users(url, "meters", {"a": 0.2}, entry=entry())
    assert charge_sums(url)[("meters", "a")] == (1, pytest.approx(0.6))  # nothing charged
    ledger.init_ledger(url)
    assert latest_totals(url) == {("meters", "a"): (1, pytest.approx(0.6)), ("meters", "b"): (1, pytest.approx(0.3))}
    granted, withheld = ledger.reserve_users(url, "meters", {"a": 0.5, "b": 0.5}, entry=entry())
    assert set(granted) == {"b"} and set(withheld) == {"a"}
    assert_totals_match_history(url)


@DATABASES
def test_a_reservation_in_many_batches_reads_and_appends_each_users_total_once(url, monkeypatch):
    import lmdk.ledger.sql as sql

    monkeypatch.setattr(sql, "BATCH", 7)
    charges = {f"u{n}": 0.01 * (n % 5 + 1) for n in range(40)}
    ledger.reserve_users(url, "nation", charges, cap=0.1, entry=entry())
    again = ledger.reserve_users(url, "nation", charges, entry=entry())
    assert again.spent == pytest.approx(charges)
    assert set(again.withheld) == {f"u{n}" for n in range(40) if 2 * charges[f"u{n}"] > 0.1 + 1e-12}
    assert_totals_match_history(url)


class Recording:
    """A cursor that remembers the statements it ran."""

    def __init__(self, cursor):
        self.cursor, self.statements = cursor, []

    def execute(self, sql, args=()):
        self.statements.append((sql, args))
        return self.cursor.execute(sql, args)

    def __getattr__(self, name):
        return getattr(self.cursor, name)


def test_sqlite_reads_a_batchs_totals_by_probes_never_by_a_scan_of_the_dataset(tmp_path):
    from lmdk.ledger.store import open_ledger

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger.reserve_users(url, "nation", {f"u{n}": 0.01 for n in range(2000)}, cap=1.0, entry=entry())

    def plans(tx):
        recording = Recording(tx.cur)
        tx.cur = recording
        tx.read_latest("nation", ["u1", "u2"])
        tx.cur = recording.cursor
        sql, args = recording.statements[-1]  # the highest n, a sample's guess, then the batch
        assert len(recording.statements) == 3
        return [row[-1] for row in tx.cur.execute("EXPLAIN QUERY PLAN " + sql, args).fetchall()]

    found = open_ledger(url).run(plans)
    # the batch (json_each) is the outer loop; lmdk_totals is probed by (dataset, n, person), never scanned
    assert any(step.startswith("SCAN j") for step in found), found
    assert not any(step.split()[:2] in (["SCAN", name] for name in ("t", "x", "at", "above", "lmdk_totals"))
                   for step in found), found
    assert any("USING PRIMARY KEY (dataset=? AND n=? AND person=?)" in step for step in found), found


def test_a_sqlite_ledger_clustered_by_person_is_rebuilt_once_with_the_same_totals_and_budgets(tmp_path):
    path = tmp_path / "before.db"
    url = old_sqlite_ledger(path)
    with closing(sqlite3.connect(path)) as conn, conn:  # the layout of the running totals' first version
        conn.executescript("""
            CREATE TABLE lmdk_totals (dataset TEXT NOT NULL, person TEXT NOT NULL, n BIGINT NOT NULL,
                total REAL NOT NULL, PRIMARY KEY (dataset, person, n)) WITHOUT ROWID;
            INSERT INTO lmdk_totals VALUES ('meters', 'a', 1, 0.6), ('meters', 'a', 2, 0.9),
                ('meters', 'b', 1, 0.3), ('meters', 'b', 2, 0.8);""")
    before_totals, before_charges = latest_totals(url), charge_sums(url)
    assert rows(url, "PRAGMA user_version") == [(0,)]
    assert ledger.records(url).entries  # opened: rebuilt into the clustered layout
    assert rows(url, "PRAGMA user_version") == [(3,)]
    after = latest_totals(url)  # summed again from the charges, with times: the same n, the same totals
    assert {k: n for k, (n, _) in after.items()} == {k: n for k, (n, _) in before_totals.items()}
    assert {k: t for k, (_, t) in after.items()} == pytest.approx({k: t for k, (_, t) in before_totals.items()})
    assert charge_sums(url) == before_charges
    assert "lmdk_charges_before" not in {name for (name,) in rows(url, "SELECT name FROM sqlite_master")}
    granted, withheld = ledger.reserve_users(url, "meters", {"a": 0.2, "b": 0.2, "c": 0.2}, entry=entry())
    assert set(granted) == {"b", "c"} and "ε spent 0.9" in withheld["a"]
    assert_totals_match_history(url)
    assert latest_totals(url)[("meters", "b")] == (3, pytest.approx(1.0))


@pytest.mark.parametrize("seed", range(6))
def test_sqlite_finds_every_users_last_total_whatever_the_guess(tmp_path, seed):
    import random

    from lmdk.ledger.store import open_ledger

    rng = random.Random(seed)
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    users = [f"u{n}" for n in range(30)]
    for _ in range(rng.randint(1, 12)):  # users of uneven histories: the sample's guess is wrong for some
        chosen = rng.sample(users, rng.randint(1, len(users)))
        ledger.reserve_users(url, "d", dict.fromkeys(chosen, 0.01), cap=100.0, entry=entry())
    expected = latest_totals(url)
    asked = rng.sample(users, rng.randint(1, len(users)))
    found = open_ledger(url).run(lambda tx: tx.read_latest("d", asked))
    assert found == {p: expected[("d", p)] for p in asked if ("d", p) in expected}
    ledger.reserve_users(url, "d", dict.fromkeys(asked, 0.01), entry=entry())
    assert_totals_match_history(url)


def test_a_user_ahead_of_a_batch_of_new_users_keeps_its_spent(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger.reserve_users(url, "d", {"a": 0.9}, cap=1.0, entry=entry())
    granted, withheld = ledger.reserve_users(url, "d", dict.fromkeys(["a", *(f"n{k}" for k in range(200))], 0.2),
                                             entry=entry())
    assert "a" in withheld and len(granted) == 200
