"""Issue 53: the audit sees groups. A privately selected rule gets the group neighbours — the k events the rule
marks on the series (without noise, fixed in advance) moved together, each release selecting privately — claimed
at ε + k·ε_sel; and every verdict quotes the total ε the statement promises (ε_sel + ε), not the release's ε alone.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk import cli
from lmdk.audit import audit
from lmdk.data.series import from_values
from lmdk.landmarks import parse_rule
from lmdk.present.audit import loss_headline
from lmdk.relation import public_range

RULE = "percentile:50"
EPS, EPS_SEL = 0.01, 2.0
PROTECTS = public_range(0, 25)
SERIES = from_values(np.array([0.0] * 5 + [2.0] * 6))  # the D (the rule marks the five 0s and one 2)


def _audit(trials: int, seed: int = 0):
    L = parse_rule(RULE).indices(SERIES)
    return audit(SERIES, L, "skip", EPS, protects=PROTECTS, trials=trials, seed=seed, rule=RULE,
                 landmark_epsilon=EPS_SEL, dummy_methods=(), position_trials=20)


def test_the_group_neighbours_move_the_marked_events_together_and_are_claimed_at_k_selections():
    result = _audit(10_000)
    group = result.pairs["group"]
    marked = tuple(int(i) for i in parse_rule(RULE).indices(SERIES))
    assert group.cells == marked and len(marked) == 6
    assert group.claimed == pytest.approx(EPS + 6 * EPS_SEL)  # ε + k·ε_sel = 12.01
    # the attacker who sees the selected sets tells the group apart far beyond one event's promise, within its own
    assert EPS + EPS_SEL < group.estimate.lower <= group.claimed
    assert not result.exceeds
    said = result.to_dict()
    assert said["neighbours"]["group"]["epsilon_claimed"] == pytest.approx(12.01)
    assert said["neighbours"]["group"]["changed_events"] == 6


def test_every_verdict_quotes_the_total_the_statement_promises():
    said = _audit(1_000).to_dict()
    assert said["epsilon_claimed"] == pytest.approx(EPS + EPS_SEL)
    assert said["epsilon_release"] == EPS and said["landmark_epsilon"] == EPS_SEL
    assert "No attack broke the promise of ε = 2.01 for one hour" in loss_headline([said], "hour")


def test_lmdk_audit_reports_the_promise_of_two_for_one_plus_one(capsys, tmp_path):
    data = tmp_path / "lm.csv"
    pd.DataFrame({"timestamp": pd.date_range("2024-01-01", periods=11, freq="h"),
                  "value": SERIES.values}).to_csv(data, index=False)
    path = tmp_path / "audit.json"
    code = cli.main(["audit", str(data), "--scheme", "skip", "--epsilon", "1", "--landmarks", RULE,
                     "--landmark-epsilon", "1", "--range", "0", "25", "--trials", "300", "--json", str(path)])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert "No attack broke the promise of ε = 2 for one hour" in err
    said = json.loads(path.read_text())
    assert said["epsilon_claimed"] == 2.0 and said["neighbours"]["group"]["epsilon_claimed"] == 7.0
    assert "moved together" in err  # the group's line, claimed at 1 + 6·1


def test_a_fixed_landmark_set_has_no_group_neighbours():
    L = parse_rule(RULE).indices(SERIES)
    result = audit(SERIES, L, "skip", EPS, protects=PROTECTS, trials=200, rule=RULE, dummy_methods=(),
                   position_trials=20)
    assert "group" not in result.pairs and result.to_dict()["epsilon_claimed"] == EPS

