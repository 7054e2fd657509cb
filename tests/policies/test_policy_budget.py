"""Spent and remaining ε per user of a policy table, from ledger entries that name their user."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from lmdk.policies.budget import spent_by_user


@dataclass
class Entry:
    fingerprint: str
    epsilon: float
    user: object = None


def test_entries_are_composed_per_user_and_against_the_cap():
    entries = [Entry("a", 1.0, "alice"), Entry("a", 0.5, "alice"), Entry("b", 2.0, 7), Entry("c", 9.0)]
    out = spent_by_user(entries, ["alice", "7", "carol"], cap=3.0).set_index("user")
    assert out.loc["alice", "releases"] == 2 and out.loc["alice", "epsilon_basic"] == pytest.approx(1.5)
    assert out.loc["7", "epsilon_basic"] == 2.0 and out.loc["7", "remaining"] == pytest.approx(1.0)  # 7 and "7" match
    assert out.loc["carol", "releases"] == 0 and out.loc["carol", "remaining"] == 3.0  # the entry without a user
    assert 1.0 <= out.loc["alice", "epsilon_pld"] <= 1.5
    assert spent_by_user(entries, ["alice"])["remaining"].isna().all()  # no cap: nothing to remain under
