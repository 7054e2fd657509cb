"""Period caps from the running totals (issue 52): a user's spend in the current day or month, as a reservation reads
it, equals a plain SUM of its live charges in the period — over uneven histories that cross period boundaries, with
cancellations and with old entries imported late — and SQLite reads it by probes of the batch's users' rows, never a
scan of the period."""
from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest
from test_running_totals import Recording, assert_totals_match_history, entry, rows

from lmdk import ledger
from lmdk.ledger.budget import period_start

DATABASES = pytest.mark.parametrize("url", ["sqlite", "postgresql"], indirect=True)


def plain_sums(url: str, dataset: str, since: str) -> dict[str, float]:
    """{person: Σ ε} of the live charges of ``dataset`` at or after ``since``, summed directly."""
    return {p: float(s) for p, s in rows(
        url, "SELECT c.person, SUM(c.epsilon) FROM lmdk_charges c WHERE c.dataset = ? AND c.time >= ? AND NOT EXISTS "
             "(SELECT 1 FROM lmdk_cancels k WHERE k.id = c.export_id) GROUP BY c.person", (dataset, since))}


@DATABASES
@pytest.mark.parametrize("period", ["day", "month"])
@pytest.mark.parametrize("seed", range(3))
def test_period_spend_equals_the_plain_sum_over_uneven_histories(url, tmp_path, period, seed):
    rng = random.Random(seed)
    users = [f"u{n}" for n in range(25)]
    moment = datetime(2026, 1, 20, 6, tzinfo=UTC)
    ledger.reserve_users(url, "d", {"u0": 0.001}, cap=1000.0, period=period, entry=entry(), now=moment)
    for _ in range(rng.randint(8, 16)):  # releases hours to weeks apart, across days and months
        moment += timedelta(hours=rng.choice([1, 5, 13, 30, 24 * 9]))
        chosen = rng.sample(users, rng.randint(1, len(users)))
        charges = {u: round(rng.uniform(0.001, 0.3), 3) for u in chosen}
        reservation = ledger.reserve_users(url, "d", charges, entry=entry(), now=moment)
        if rng.random() < 0.3:
            ledger.cancel(url, reservation)
    now = moment + timedelta(hours=rng.choice([0, 2, 20]))
    since = period_start(period, now)
    ledger.reserve_users(url, "d", dict.fromkeys(users[:10], 0.01), entry=entry(), now=now)
    # old entries imported after it: charges earlier than ones already recorded ("late"), before and in the period
    start = datetime.fromisoformat(since)
    source = tmp_path / "old.jsonl"
    times = [start - timedelta(hours=1), start - timedelta(days=3), start, start + (now - start) / 2]
    lines = [entry(0.2, dataset="d", charges={u: 0.2}, users=1, id=f"old{k}",
                   time=times[k % 4].isoformat(timespec="seconds")).to_json()
             for k, u in enumerate(rng.sample(users[:12], 8))]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ledger.import_jsonl(str(source), url)
    asked = rng.sample(users, rng.randint(10, len(users)))
    expected = plain_sums(url, "d", since)
    reservation = ledger.reserve_users(url, "d", dict.fromkeys(asked, 0.001), entry=entry(), now=now)
    assert set(reservation.granted) == set(asked)
    for user in asked:
        assert math.isclose(reservation.spent.get(user, 0.0), expected.get(user, 0.0), abs_tol=1e-9), user
    assert_totals_match_history(url)


@DATABASES
def test_a_daily_cap_refuses_on_the_days_spend_only(url, monkeypatch):
    import lmdk.ledger.sql as sql

    monkeypatch.setattr(sql, "CANCELLED_LIMIT", 1)  # past the limit: the same decision
    day = datetime(2026, 3, 1, 9, tzinfo=UTC)
    ledger.reserve_users(url, "d", {"a": 0.9, "b": 0.5}, cap=1.0, period="day", entry=entry(), now=day)
    for hour in (1, 2):
        ledger.cancel(url, ledger.reserve_users(url, "d", {"b": 0.2}, entry=entry(), now=day + timedelta(hours=hour)))
    granted, withheld = ledger.reserve_users(url, "d", {"a": 0.2, "b": 0.4}, entry=entry(),
                                             now=day + timedelta(hours=3))
    assert set(granted) == {"b"} and "ε spent 0.9" in withheld["a"]
    granted, withheld = ledger.reserve_users(url, "d", {"a": 0.9, "b": 0.9}, entry=entry(),
                                             now=day + timedelta(days=1))  # a new day: a fresh budget
    assert set(granted) == {"a", "b"} and not withheld


def test_sqlite_reads_a_period_by_probes_of_the_batchs_rows_never_a_scan(tmp_path):
    from lmdk.ledger.store import open_ledger

    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for day in range(40):
        ledger.reserve_users(url, "nation", {f"u{n}": 0.01 for n in range(300)}, cap=5.0, period="month",
                             entry=entry(), now=start + timedelta(days=day))
    rows(url, "ANALYZE")
    since = period_start("month", start + timedelta(days=40))

    def plans(tx):
        recording = Recording(tx.cur)
        tx.cur = recording
        spent = tx.spent("nation", since, ["u1", "u2"], ["nation"])
        tx.cur = recording.cursor
        assert spent == pytest.approx({"u1": 0.09, "u2": 0.09})  # 1 to 9 February
        assert not any("lmdk_charges" in sql for sql, _ in recording.statements)  # the period is never summed
        return [[row[-1] for row in tx.cur.execute("EXPLAIN QUERY PLAN " + sql, args).fetchall()]
                for sql, args in recording.statements if "lmdk_totals" in sql and "MAX(n)" not in sql]

    found = open_ledger(url).run(plans)
    assert len(found) == 4  # the last totals (a sample, the batch), then the period's start (a sample, the batch)
    for steps in found:
        assert not any(step.startswith(("SCAN t", "SCAN x", "SCAN at", "SCAN above", "SCAN lmdk_totals"))
                       for step in steps), steps
        assert any("USING PRIMARY KEY (dataset=? AND n=? AND person=?)" in step for step in steps), steps
