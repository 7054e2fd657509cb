"""Loose ends of the ledger (issue 52): a refused export's selection is charged through the guarded store (a ledger
that cannot take it is an lmdk error, never a driver's traceback); when the reservation of a refused export cannot
be withdrawn the message says it stays charged (never "nothing was released or charged"); a malformed PostgreSQL
URL is bad input (exit 2) named without its secrets; an import that would raise a cap is worded for its line."""
from __future__ import annotations

import json
import sqlite3
import uuid

import pytest

from lmdk import ledger
from lmdk.cli import main
from lmdk.errors import LedgerUnavailable, LmdkError, ParameterError, ReservationKept
from lmdk.ledger import sql
from lmdk.ledger.reserve import Budget

SECRET = "s3cr3t-pw"
HUE = ["release", "sample:hue", "--epsilon", "1", "--range", "0", "25", "--dataset", "hue"]
SELECTION_REFUSED = HUE + ["--scheme", "event", "--landmarks", "percentile:20", "--landmark-epsilon", "0.5"]
THEOREM2_REFUSED = HUE + ["--scheme", "event", "--landmarks", "calendar:sun@09:00-12:00"]


def export(epsilon: float = 1.0) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=epsilon, scheme="uniform", mechanism="laplace",
                              tool="test")


def release_role(owner_url: str) -> tuple[str, str]:
    """A LOGIN role with SELECT and INSERT on the ledger's tables (what releases run as): (its URL, its name)."""
    import psycopg

    role = "rel_" + uuid.uuid4().hex[:8]
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT SELECT, INSERT ON {', '.join(sql.TABLES)} TO {role}")
    return f"postgresql://{role}@{owner_url.split('@', 1)[1]}", role


def revoke_inserts(owner_url: str, role: str) -> None:
    """The ledger stops taking the role's writes (the officer revoked them, or the server turned read-only)."""
    import psycopg

    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(f"REVOKE INSERT ON {', '.join(sql.TABLES)} FROM {role}")


# ------------------------------------------------------------------- 1. keep_spent goes through the guarded store
def test_a_refused_selection_the_ledger_cannot_take_is_an_lmdk_error_not_a_driver_traceback(blank_database):
    ledger.init_ledger(blank_database)
    url, role = release_role(blank_database)
    budget = Budget(url, "hue")
    reservation = budget.reserve(export(1.5), {"series": 1.5})
    assert reservation.granted == {"series": 1.5}
    revoke_inserts(blank_database, role)  # at that moment the ledger takes no write
    with pytest.raises(LedgerUnavailable) as caught:  # before: psycopg.errors.InsufficientPrivilege escaped
        budget.keep_spent(reservation, export(1.5), {"series": 0.5})
    text = str(caught.value)
    assert "may not do this" in text and reservation.id in text and "stays charged" in text
    # the whole reservation is still charged: the ledger never holds less than the selection spent
    assert ledger.spent_by_user(ledger.records(blank_database).entries, "hue") == {"series": 1.5}


# ------------------------------------------------- 2. a cancel that fails says the reservation stays charged
def locked_during_release(monkeypatch, path) -> list[sqlite3.Connection]:
    """The SQLite ledger at ``path`` becomes locked (another process holds its write lock past the timeout) just
    after the release's reservation, while the release runs and before its refusal is cleaned up."""
    import lmdk.cli.release as release_command
    import lmdk.ledger.sqlite as backend

    holders: list[sqlite3.Connection] = []
    real = release_command.reserve_release

    def reserve_then_lock(*args, **kwargs):
        reservation = real(*args, **kwargs)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        holders.append(holder)
        return reservation

    monkeypatch.setattr(backend, "TIMEOUT", 0.2)
    monkeypatch.setattr(release_command, "reserve_release", reserve_then_lock)
    return holders


@pytest.mark.parametrize("argv", [THEOREM2_REFUSED, SELECTION_REFUSED], ids=["theorem2", "after-selection"])
def test_a_refusal_whose_reservation_cannot_be_withdrawn_says_it_stays_charged(tmp_path, capsys, monkeypatch,
                                                                               argv):
    path = tmp_path / "l.db"
    url = f"sqlite:///{path}"
    holders = locked_during_release(monkeypatch, path)
    try:
        code = main(argv + ["--out", str(tmp_path / "r.csv"), "--ledger", url, "--quiet"])
    finally:
        for holder in holders:
            holder.rollback()
            holder.close()
    assert holders, "the release did not run"
    err = capsys.readouterr().err
    assert code == 5, err
    assert "nothing was released or charged" not in err, err  # before: the message said so, and it was false
    assert "stays charged" in err and "privacy officer" in err and "Traceback" not in err
    found = ledger.records(url)
    (entry,) = found.entries  # the reservation is still there, charged, and the message names it
    assert entry.id in err and f"ε = {entry.epsilon:g}" in err
    assert ledger.spent_by_user(found.entries, "hue") == {"series": pytest.approx(entry.epsilon)}
    assert not (tmp_path / "r.csv").exists()


def test_a_cancel_that_fails_after_an_error_names_that_error_first(tmp_path, monkeypatch):
    import lmdk.ledger.sqlite as backend

    path = tmp_path / "l.db"
    budget = Budget(f"sqlite:///{path}", "hue")
    reservation = budget.reserve(export(), {"series": 1.0})
    monkeypatch.setattr(backend, "TIMEOUT", 0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        try:
            raise ParameterError("--out: folder 'nowhere' does not exist")
        except ParameterError:
            with pytest.raises(ReservationKept) as caught:
                budget.cancel(reservation)
    finally:
        holder.rollback()
        holder.close()
    text = str(caught.value)
    assert text.startswith("--out: folder 'nowhere' does not exist; nothing was released")
    assert "cannot be reached" in text and reservation.id in text and "stays charged" in text


# --------------------------------------------------------------- 3. a malformed PostgreSQL URL is bad input
MALFORMED = [f"postgresql://lmdk:{SECRET}@127.0.0.1:54x/lmdk",
             f"postgresql://lmdk:{SECRET}/lmdk",  # no host: the password parses as the port
             f"postgresql://127.0.0.1:99999/lmdk?password={SECRET}",
             f"postgresql://127.0.0.1/lmdk?password={SECRET}&port=5432x",
             f"postgres://127.0.0.1:5432/lmdk?password={SECRET}&nosuchoption=1"]


@pytest.mark.parametrize("url", MALFORMED)
@pytest.mark.parametrize("command", ["release", "ledger", "init", "cap", "import"])
def test_a_malformed_postgresql_url_exits_2_named_without_its_secret(tmp_path, capsys, url, command):
    if command == "release":
        argv = HUE + ["--scheme", "uniform", "--landmarks", "calendar:sun@09:00-12:00", "--quiet",
                      "--out", str(tmp_path / "r.csv"), "--ledger", url]
    elif command == "import":
        ledger.append(tmp_path / "s.jsonl", export())
        argv = ["ledger", "import", str(tmp_path / "s.jsonl"), "--into", url]
    elif command == "cap":
        argv = ["ledger", "cap", url, "--dataset", "meters", "--cap", "1"]
    elif command == "init":
        argv = ["ledger", "init", url]
    else:
        argv = ["ledger", url]
    assert main(argv) == 2  # before: 5, "cannot be reached" — psycopg only failed at connect
    err = capsys.readouterr().err
    assert SECRET not in err and "Traceback" not in err, err
    assert "ledger URL postgresql://" in err and ("malformed" in err or "port is not a number" in err), err
    assert "nothing was released or charged" not in err
    assert not (tmp_path / "r.csv").exists()


def test_a_malformed_url_is_refused_before_anything_is_reserved_or_read():
    with pytest.raises(ParameterError, match="port is not a number") as caught:
        Budget(MALFORMED[0], "hue").check()
    assert SECRET not in str(caught.value)
    for good in ("postgresql://lmdk@db.example:5432/lmdk", "postgresql://[::1]:6543/lmdk",
                 "postgresql:///lmdk?host=/var/run/postgresql", "postgresql://h1:5432,h2:5433/lmdk"):
        Budget(good, "hue").check()  # well-formed: nothing connects here


# ------------------------------------------------------------------ 4. an import's refusal names its line
def test_an_import_raising_a_cap_is_worded_for_its_line_not_for_a_flag(url, tmp_path, capsys):
    granted, _ = ledger.reserve_users(url, "meter", {"series": 1.0}, cap=1.0, entry=export())
    assert granted == {"series": 1.0}
    caps = tmp_path / "caps.jsonl"
    for line, wanted in (({"record": "cap", "dataset": "meter", "cap": 1000, "period": "none"}, "cap ε = 1000"),
                         ({"record": "cap", "dataset": "meter", "cap": 1, "period": "day"}, "period 'day'")):
        caps.write_text(json.dumps(line) + "\n", encoding="utf-8")
        capsys.readouterr()
        assert main(["ledger", "import", str(caps), "--into", url]) == 2
        err = capsys.readouterr().err
        assert "caps.jsonl line 1: a cap line for dataset 'meter' gives " + wanted in err, err
        assert "--cap" not in err and "--period" not in err and "--dataset" not in err, err  # before: "--cap 1000: …"
        assert "nothing was imported" in err
    caps.write_text(json.dumps({"record": "cap", "dataset": "meter", "cap": -1}) + "\n", encoding="utf-8")
    assert main(["ledger", "import", str(caps), "--into", url]) == 2
    err = capsys.readouterr().err
    assert "line 1: the cap line's 'cap' must be a finite number > 0" in err and "--cap" not in err, err
    assert ledger.records(url).caps["meter"] == ledger.Cap(1.0, "none")


def test_the_flags_keep_their_wording(url):
    ledger.reserve_users(url, "meter", {"series": 1.0}, cap=1.0, entry=export())
    with pytest.raises(LmdkError, match=r"^--cap 5: dataset 'meter' has cap ε = 1 .*never raised"):
        ledger.set_cap(url, "meter", 5.0)
    with pytest.raises(LmdkError, match=r"^--period day: .*period cannot change"):
        ledger.set_cap(url, "meter", 1.0, "day")
