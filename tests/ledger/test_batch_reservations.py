"""At a nation's scale (issue 52): a reservation checks every user's cap over its batch at once — no Python check per
user — and still grants and withholds exactly what the per-user rule does; the batch's charges are written in one
statement (PostgreSQL: the batch as one JSON parameter) and read back exactly, whatever the user ids and ε hold."""
from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from lmdk import ledger
from lmdk.errors import ParameterError
from lmdk.ledger.budget import Cap, decide, decide_batch
from lmdk.ledger.compose import personal_spent
from lmdk.ledger.entry import EVERY_USER


def entry() -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=1.0, scheme="uniform", mechanism="laplace", tool="test")


def test_a_reservation_of_many_users_makes_no_python_check_per_user(url, monkeypatch):
    import lmdk.ledger.sql as sql

    monkeypatch.setattr(sql, "BATCH", 40)  # several batches of one reservation
    users = 130
    ledger.reserve_users(url, "meters", {f"u{n}": 0.75 for n in range(0, users, 2)}, cap=1.0, entry=entry())
    calls = []
    checks = importlib.import_module("lmdk.ledger.budget")  # where the cap check lives
    original = checks.finite_sum
    monkeypatch.setattr(checks, "finite_sum", lambda values: calls.append(1) or original(values))
    granted, withheld = ledger.reserve_users(url, "meters", {f"u{n}": 0.5 for n in range(users)}, entry=entry())
    # every user's cap checked: those who spent 0.75 cannot spend 0.5 more under cap 1, the others can
    assert set(granted) == {f"u{n}" for n in range(1, users, 2)}
    assert set(withheld) == {f"u{n}" for n in range(0, users, 2)}
    assert "ε spent 0.75, ε asked 0.5" in withheld["u0"]
    assert len(calls) <= 3, f"{len(calls)} per-user checks for {users} users: the batch is not checked at once"


def _old_rule(dataset, spent, charges, cap):
    """What a reservation decided before: personal_spent, then decide user by user."""
    personal = personal_spent(spent, charges)
    granted, withheld = decide(dataset, personal, charges, cap)
    return granted, withheld, {user: personal.get(user, 0.0) for user in charges}


@pytest.mark.parametrize("seed", range(25))
def test_the_batch_check_decides_what_the_per_user_rule_decides(seed):
    rng = np.random.default_rng(seed)
    cap = Cap(float(rng.choice([1.0, 0.3, 2.5])), "none")
    users = [f"u{n}" for n in range(200)] + ([EVERY_USER] if seed % 3 == 0 else [])
    charges = {user: float(rng.choice([0.1, 0.2, 0.05, 1 / 3, cap.cap])) for user in users}
    spent = {user: float(rng.choice([0.0, 0.1, 0.2, 0.7, cap.cap - charges[user], cap.cap]))
             for user in users if rng.random() < 0.7}
    if seed % 2 == 0:  # an entry from before per-user budgets: its ε counts for every user
        spent[EVERY_USER] = float(rng.choice([0.1, 0.2]))
    spent["stranger"] = 5.0  # a user of the dataset not in this batch changes nothing
    assert decide_batch("meters", spent, charges, cap) == _old_rule("meters", spent, charges, cap)
    assert decide_batch("meters", spent, charges, None) == (charges, {}, dict.fromkeys(users, 0.0))


def test_a_cap_reached_exactly_by_binary_fractions_still_passes_and_one_ulp_more_does_not():
    cap = Cap(0.3, "none")
    spent = {"a": 0.1, "b": 0.1, "c": math.nextafter(0.2, 1.0)}
    granted, withheld, before = decide_batch("m", spent, {"a": 0.2, "b": 0.2 + 1e-9, "c": 0.1}, cap)
    assert set(granted) == {"a", "c"} and set(withheld) == {"b"}  # 0.1 + 0.2 > 0.3 by an ulp: within the tolerance
    assert before == {"a": 0.1, "b": 0.1, "c": math.nextafter(0.2, 1.0)}


def test_a_total_that_is_not_a_finite_number_is_refused_for_the_whole_batch():
    with pytest.raises(ParameterError, match="not a finite number"):
        decide_batch("m", {"a": 1e308}, {"ok": 0.1, "a": 1e308}, Cap(1.0))
    with pytest.raises(ParameterError, match="not a finite number"):
        decide_batch("m", {"a": math.nan}, {"a": 0.1}, Cap(1.0))


@pytest.mark.parametrize("url", ["sqlite", "postgresql"], indirect=True)
def test_the_batchs_charges_are_stored_exactly_whatever_the_ids_and_epsilons(url):
    charges = {'quote"and\\backslash': 0.1 + 0.2, "ｍｅｔｅｒ": 1 / 3, "😀": 1e-300, "7": 5e-324, "o'neil": 0.7,
               "ä-combined": math.nextafter(0.5, 1.0), "u 2": 123456.789}
    reservation = ledger.reserve_users(url, "meters", charges, cap=1e6, entry=entry())
    assert reservation.granted == charges
    found = ledger.records(url)
    stored = [e for e in found.entries if e.budget_key == "meters"]
    assert len(stored) == 1 and stored[0].charges == charges  # every id and every bit of every ε
    again = ledger.reserve_users(url, "meters", charges, entry=entry())
    assert again.spent == charges  # the sums a reservation reads are the stored ε
