"""The ledger against a PostgreSQL server that tries to weaken it, and at scale: isolation set by the code whatever
the database's or the URL's default (read committed, repeatable read, serializable), a release role that may only
SELECT and INSERT, and reservations in batches of users (issue 52)."""
from __future__ import annotations

import multiprocessing
import sqlite3
import traceback
import uuid

import pytest

from lmdk import ledger
from lmdk.errors import LmdkError
from lmdk.ledger import sql

LEVELS = ("read committed", "repeatable read", "serializable")


@pytest.fixture(scope="module")
def postgres():
    """One PostgreSQL server for this module (initdb + pg_ctl in a temporary folder)."""
    from postgres_support import postgres_server, require_postgres

    require_postgres()
    with postgres_server() as url:
        yield url


def _database(server: str, prefix: str, init: bool = True) -> str:
    """A new database on the server, its ledger tables created as the owner (``lmdk ledger init``) unless not."""
    from postgres_support import fresh_database

    url = fresh_database(server, prefix + uuid.uuid4().hex[:10])
    if init:
        ledger.open_ledger(url).init()
    return url


def export(epsilon: float = 1.0) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=epsilon, scheme="adaptive", mechanism="laplace",
                              tool="lmdk release")


def _release(url: str, dataset: str, barrier, results) -> None:
    """One ``lmdk release`` of one series under cap 3: its outcome, or the traceback it died with."""
    try:
        barrier.wait()
        granted, _ = ledger.reserve_users(url, dataset, {"series": 1.0}, cap=3.0, entry=export())
        results.put(("granted" if granted else "refused", ""))
    except BaseException:  # noqa: BLE001 — the test reports what escaped
        results.put(("traceback", traceback.format_exc()))


def _round(url: str, dataset: str, processes: int = 12) -> list[tuple[str, str]]:
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(processes), context.Queue()
    workers = [context.Process(target=_release, args=(url, dataset, barrier, results)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=180) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    return outcomes


@pytest.mark.parametrize("where", ["database", "url"])
@pytest.mark.parametrize("level", LEVELS)
def test_twelve_releases_against_cap_3_grant_exactly_3_whatever_the_servers_isolation(postgres, level, where):
    import psycopg

    url = _database(postgres, "iso")
    if where == "database":
        name = url.rsplit("/", 1)[1]
        with psycopg.connect(postgres, autocommit=True) as conn:
            conn.execute(f"ALTER DATABASE \"{name}\" SET default_transaction_isolation TO '{level}'")
        with psycopg.connect(url) as conn:  # the attack is in place: a new session starts at that level
            assert conn.execute("SHOW transaction_isolation").fetchone()[0] == level
    else:
        from urllib.parse import quote

        url += "?options=" + quote("-c default_transaction_isolation=" + level.replace(" ", "\\ "), safe="")
        with psycopg.connect(url) as conn:
            assert conn.execute("SHOW default_transaction_isolation").fetchone()[0] == level
    for round_ in range(3):  # each round a dataset's first use: its cap is stored by the race's winner
        outcomes = _round(url, f"meter-{round_}")
        escaped = [text for kind, text in outcomes if kind == "traceback"]
        assert not escaped, escaped[0]
        assert sum(kind == "granted" for kind, _ in outcomes) == 3, outcomes
        spent = ledger.spent_by_user(ledger.records(url).entries, f"meter-{round_}")
        assert spent == {"series": 3.0}


# ------------------------------------------------------------------------------------------------ least privilege
def _release_role(owner_url: str, role: str) -> str:
    """A LOGIN role with SELECT and INSERT on the ledger's tables, nothing more; its URL."""
    import psycopg

    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT SELECT, INSERT ON {', '.join(sql.TABLES)} TO {role}")
    host = owner_url.split("@", 1)[1]
    return f"postgresql://{role}@{host}"


def test_releases_run_as_a_role_that_may_only_select_and_insert(postgres):
    import psycopg

    owner = _database(postgres, "priv")
    role = "rel_" + uuid.uuid4().hex[:8]
    url = _release_role(owner, role)
    # releases work, the cap given with the first is stored (an INSERT) and holds
    first = ledger.reserve_users(url, "meters", {"a": 1.0, "b": 1.5}, cap=2.0, entry=export())
    assert first.granted == {"a": 1.0, "b": 1.5} and not first.withheld
    second = ledger.reserve_users(url, "meters", {"a": 1.0, "b": 1.0}, entry=export())
    assert second.granted == {"a": 1.0} and "cap ε = 2" in second.withheld["b"]
    # a cancellation is an appended record: the refused export's charge no longer counts
    ledger.cancel(url, second)
    assert ledger.spent_by_user(ledger.records(url).entries, "meters") == {"a": 1.0, "b": 1.5}
    assert ledger.reserve_users(url, "meters", {"a": 1.0}, entry=export()).granted == {"a": 1.0}
    # a release may lower the cap (an appended cap row; the lowest binds), never raise it
    assert ledger.reserve_users(url, "meters", {"c": 1.0}, cap=1.0, entry=export()).granted == {"c": 1.0}
    assert ledger.records(url).caps["meters"] == ledger.Cap(1.0, "none")
    assert ledger.reserve_users(url, "meters", {"c": 0.5}, entry=export()).withheld
    with pytest.raises(LmdkError, match="never raised"):
        ledger.reserve_users(url, "meters", {"d": 1.0}, cap=5.0, entry=export())
    # concurrent releases as the role still grant exactly the cap (the advisory lock needs no privilege)
    outcomes = _round(url, "other", processes=8)
    assert [k for k, _ in outcomes].count("granted") == 3, outcomes
    # the role cannot change or erase what was recorded
    for statement in ("UPDATE lmdk_caps SET cap = 100", "DELETE FROM lmdk_charges", "DELETE FROM lmdk_exports",
                      "UPDATE lmdk_charges SET epsilon = 0", "DELETE FROM lmdk_cancels",
                      "CREATE TABLE lmdk_other (x int)"):
        with psycopg.connect(url, autocommit=True) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)
    assert ledger.spent_by_user(ledger.records(owner).entries, "meters") == {"a": 2.0, "b": 1.5, "c": 1.0}


def test_a_release_creates_no_table_and_says_to_run_init(postgres):
    import psycopg

    url = _database(postgres, "noinit", init=False)
    with pytest.raises(LmdkError, match="lmdk ledger init"):
        ledger.reserve_users(url, "meters", {"a": 1.0}, cap=2.0, entry=export())
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'lmdk%'").fetchone()[0] == 0


# ---------------------------------------------------------------------------------------------------- in batches
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_reservation_in_batches_checks_each_users_cap_and_reads_only_its_batch(backend, tmp_path, request,
                                                                                 monkeypatch):
    url = f"sqlite:///{tmp_path / 'l.db'}" if backend == "sqlite" else _database(request.getfixturevalue(
        "postgres"), "batch")
    ledger.reserve_users(url, "d", {f"u{i}": 1.5 for i in range(0, 10, 2)}, cap=2.0, entry=export())  # evens spent
    monkeypatch.setattr(sql, "BATCH", 3)
    read: list[list[str]] = []
    spent = sql.SqlTransaction.spent

    def spying(self, dataset, since, users=None, *args, **kwargs):
        read.append(sorted(users) if users is not None else ["<every user>"])
        return spent(self, dataset, since, users, *args, **kwargs)

    monkeypatch.setattr(sql.SqlTransaction, "spent", spying)
    reservation = ledger.reserve_users(url, "d", {f"u{i}": 1.0 for i in range(10)}, entry=export())
    assert set(reservation.granted) == {f"u{i}" for i in range(1, 10, 2)}
    assert set(reservation.withheld) == {f"u{i}" for i in range(0, 10, 2)}
    assert read == [["u0", "u1", "u2"], ["u3", "u4", "u5"], ["u6", "u7", "u8"], ["u9"]]  # 4 transactions
    entries = ledger.records(url).entries
    assert len(entries) == 2 and entries[1].users == 5 and entries[1].charges == reservation.granted
    ledger.cancel(url, reservation)  # one id for every batch: the whole reservation is withdrawn
    assert ledger.spent_by_user(ledger.records(url).entries, "d") == {f"u{i}": 1.5 for i in range(0, 10, 2)}


def test_an_sqlite_ledger_from_before_keeps_its_caps_and_charges(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:  # the schema and rows the ledger wrote before (caps updated in place)
        conn.executescript("""
            CREATE TABLE lmdk_datasets (dataset TEXT PRIMARY KEY, cap REAL, period TEXT);
            CREATE TABLE lmdk_exports (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
                time TEXT NOT NULL, dataset TEXT NOT NULL, entry TEXT NOT NULL);
            CREATE TABLE lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL,
                time TEXT NOT NULL, epsilon REAL NOT NULL);
            CREATE INDEX lmdk_charges_by_dataset ON lmdk_charges (dataset, time);
            INSERT INTO lmdk_datasets VALUES ('meters', 2.0, 'none');""")
        body = export(1.5).to_json()
        conn.execute("INSERT INTO lmdk_exports (id, time, dataset, entry) VALUES ('e1', '2026-01-01T00:00:00+00:00', "
                     "'meters', ?)", (body,))
        conn.execute("INSERT INTO lmdk_charges VALUES ('e1', 'meters', 'a', '2026-01-01T00:00:00+00:00', 1.5)")
    url = f"sqlite:///{path}"
    reservation = ledger.reserve_users(url, "meters", {"a": 1.0, "b": 1.0}, entry=export())
    assert reservation.granted == {"b": 1.0} and "cap ε = 2" in reservation.withheld["a"]
    with pytest.raises(LmdkError, match="never raised"):
        ledger.reserve_users(url, "meters", {"c": 1.0}, cap=3.0, entry=export())
    assert ledger.records(url).caps == {"meters": ledger.Cap(2.0, "none")}
    with sqlite3.connect(path) as conn:  # rebuilt once into the clustered layout, its charge kept
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        kept = conn.execute("SELECT person, epsilon FROM lmdk_charges WHERE export_id = 'e1'").fetchall()
        assert kept == [("a", 1.5)]
