"""Names already stored are normalised on read, so an existing ledger keeps its budgets: charges and caps an older
lmdk wrote under ``Meters``, ``meters `` or ``ＭＥＴＥＲＳ`` count against the dataset key ``meters`` — in a
reservation, in a later batch of one, and in ``lmdk ledger --by user`` — on SQLite and PostgreSQL ledgers written
with the old schema by raw SQL, and on an old JSON Lines file."""
from __future__ import annotations

import json
import sqlite3

import pytest

from lmdk import ledger
from lmdk.cli import main

OLD_SCHEMA = """
CREATE TABLE lmdk_datasets (dataset TEXT PRIMARY KEY, cap {real}, period TEXT);
CREATE TABLE lmdk_exports (seq {serial} PRIMARY KEY, id TEXT NOT NULL UNIQUE, time TEXT NOT NULL,
    dataset TEXT NOT NULL, entry TEXT NOT NULL);
CREATE TABLE lmdk_charges (export_id TEXT NOT NULL, dataset TEXT NOT NULL, person TEXT NOT NULL, time TEXT NOT NULL,
    epsilon {real} NOT NULL);
CREATE INDEX lmdk_charges_by_dataset ON lmdk_charges (dataset, time);
CREATE INDEX lmdk_charges_by_export ON lmdk_charges (export_id);
"""
"""The tables of lmdk before per-dataset keys (a dataset's row, its exports and charges, names as typed)."""

TIME = "2026-01-05T10:00:00+00:00"


def entry(epsilon: float = 1.0, **kw) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=epsilon, scheme="uniform", mechanism="laplace",
                              tool="test", **kw)


def old_rows(spent: list[tuple[str, dict[str, float]]], caps: dict[str, float]):
    """(export rows, charge rows, dataset rows) as an older lmdk wrote them: each export's dataset name as typed."""
    exports, charges = [], []
    for number, (name, users) in enumerate(spent):
        export_id = f"old{number}"
        body = json.loads(entry(max(users.values()), dataset=name, charges=users, users=len(users), id=export_id,
                                time=TIME).to_json())
        body.pop("charges")
        exports.append((export_id, TIME, name, json.dumps(body)))
        charges += [(export_id, name, user, TIME, eps) for user, eps in users.items()]
    return exports, charges, [(name, cap, "none") for name, cap in caps.items()]


def write_old_ledger(kind: str, tmp_path, request, spent, caps) -> str:
    """A ledger of ``kind`` holding ``spent`` [(dataset name as typed, {user: ε})] and ``caps`` {name: cap},
    written by raw SQL in the old schema (JSON Lines: old lines), then opened as today's lmdk opens it."""
    exports, charges, datasets = old_rows(spent, caps)
    if kind == "jsonl":
        path = tmp_path / "old.jsonl"
        lines = [json.dumps({"record": "cap", "dataset": name, "cap": cap, "period": "none"})
                 for name, cap, _ in datasets]
        for (_, _, _, body), (_, users) in zip(exports, spent, strict=True):
            lines.append(json.dumps({**json.loads(body), "charges": users}))
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return str(path)
    if kind == "sqlite":
        path = tmp_path / "old.db"
        with sqlite3.connect(path) as conn:
            conn.executescript(OLD_SCHEMA.format(real="REAL", serial="INTEGER"))
            conn.executemany("INSERT INTO lmdk_exports (id, time, dataset, entry) VALUES (?, ?, ?, ?)", exports)
            conn.executemany("INSERT INTO lmdk_charges VALUES (?, ?, ?, ?, ?)", charges)
            conn.executemany("INSERT INTO lmdk_datasets VALUES (?, ?, ?)", datasets)
        conn.close()
        return f"sqlite:///{path}"
    import psycopg
    from conftest import new_database

    url = new_database(request)
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute(OLD_SCHEMA.format(real="DOUBLE PRECISION", serial="BIGSERIAL"))
        cur.executemany("INSERT INTO lmdk_exports (id, time, dataset, entry) VALUES (%s, %s, %s, %s)", exports)
        cur.executemany("INSERT INTO lmdk_charges VALUES (%s, %s, %s, %s, %s)", charges)
        cur.executemany("INSERT INTO lmdk_datasets VALUES (%s, %s, %s)", datasets)
    ledger.init_ledger(url)  # the owner upgrades the old ledger once (the new tables and index)
    return url


@pytest.fixture(params=["jsonl", "sqlite", "postgresql"])
def kind(request):
    return request.param


def test_old_charges_under_a_raw_name_count_against_the_normalised_key(kind, tmp_path, request):
    url = write_old_ledger(kind, tmp_path, request, [("Meters", {"7": 0.8, "9": 0.2})], {"Meters": 1.0})
    granted, withheld = ledger.reserve_users(url, "meters", {"7": 0.5, "8": 0.5, "9": 0.5}, entry=entry())
    assert granted == {"8": 0.5, "9": 0.5}  # 7 had spent 0.8 of the cap of 1 under "Meters"
    assert "7" in withheld and "cap ε = 1 per user" in withheld["7"]


def test_every_raw_spelling_of_a_name_adds_up_and_other_datasets_do_not(kind, tmp_path, request):
    spent = [("Meters", {"7": 0.4}), ("meters ", {"7": 0.4}), ("ＭＥＴＥＲＳ", {"7": 0.15}),
             ("Other", {"7": 5.0}), ("sha256:ff", {"7": 5.0})]
    url = write_old_ledger(kind, tmp_path, request, spent, {})
    granted, withheld = ledger.reserve_users(url, "meters", {"7": 0.1}, cap=1.0, entry=entry())
    assert not granted and "7" in withheld  # 0.4 + 0.4 + 0.15 spent under three spellings: 1.05 > 1
    granted, withheld = ledger.reserve_users(url, "meters", {"7": 0.05}, entry=entry())
    assert granted == {"7": 0.05} and not withheld  # exactly the cap: "Other" and the content key are not counted


def test_a_later_batch_counts_the_old_names_too(kind, tmp_path, request, monkeypatch):
    if kind == "jsonl":
        pytest.skip("JSON Lines reserves in one step")
    from lmdk.ledger import sql

    monkeypatch.setattr(sql, "BATCH", 1)
    url = write_old_ledger(kind, tmp_path, request, [("Meters", {"8": 1.0}), ("METERS", {"9": 1.0})],
                           {"Meters": 1.0})
    granted, withheld = ledger.reserve_users(url, "meters", {"7": 0.5, "8": 0.5, "9": 0.5}, entry=entry())
    assert granted == {"7": 0.5} and set(withheld) == {"8", "9"}


def test_lmdk_ledger_by_user_lists_old_charges_under_the_key(kind, tmp_path, request, capsys):
    url = write_old_ledger(kind, tmp_path, request, [("Meters", {"7": 0.4}), ("meters ", {"7": 0.4})],
                           {"Meters": 1.0})
    ledger.reserve_users(url, "meters", {"7": 0.1}, entry=entry())
    out = ledger.summary(url, dataset="Meters", users=True)
    assert out["dataset"] == "meters" and set(out["by_user"]) == {"7"}
    assert out["by_user"]["7"]["epsilon_basic"] == pytest.approx(0.9)
    assert out["by_user"]["7"]["remaining"] == pytest.approx(0.1)
    capsys.readouterr()
    assert main(["ledger", url, "--dataset", "meters", "--by", "user"]) == 0


def test_a_cap_row_stored_under_a_raw_name_binds_the_key(tmp_path):
    """A ledger of the first per-dataset cap table (``lmdk_caps``) written before names were normalised."""
    path = tmp_path / "caps.db"
    url = f"sqlite:///{path}"
    ledger.init_ledger(url)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO lmdk_caps (dataset, cap, period, time) VALUES ('Meters', 0.5, 'none', ?)", (TIME,))
    conn.close()
    granted, withheld = ledger.reserve_users(url, "meters", {"7": 0.6}, entry=entry())
    assert not granted and "cap ε = 0.5 per user" in withheld["7"]
