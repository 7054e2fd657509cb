"""``lmdk audit``: the JSON keys, the exit code of a policy that leaks more than it claims, --dummies on audit and
release, the correlation part, the tables, and one-line errors."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from lmdk import cli

RULE = "calendar:daily@01:00-06:00"  # declared: a data-derived rule adds flip neighbours (tested below)
POLICY = ["sample:hue", "--epsilon", "1", "--landmarks", RULE, "--range", "0", "25", "--trials", "300"]


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_audit_writes_the_issues_json_keys(capsys, tmp_path):
    path = tmp_path / "audit.json"
    code, out, err = run(capsys, "audit", *POLICY, "--scheme", "skip", "--json", str(path))
    assert code == 0, err
    data = json.loads(path.read_text())
    for key in ("epsilon_claimed", "epsilon_lower", "epsilon_upper"):
        assert isinstance(data[key], float)
    assert data["epsilon_lower"] <= data["epsilon_claimed"] == 1.0
    assert {"auc", "precision_at_k", "chance"} <= set(data["landmark_inference"])
    assert data["landmark_inference"]["auc"] >= 0.8 and data["landmark_inference"]["chance"] == pytest.approx(0.21)
    assert {"success", "bound"} <= set(data["value_inference"])
    assert data["trials"] == 300 and data["relation"]["high"] == 25
    assert "lets an attacker find the landmarks" in err and "AUC" in err
    assert out == ""  # --json: nothing on standard output


def test_same_seed_same_json(capsys):
    code, first, _ = run(capsys, "audit", *POLICY, "--scheme", "uniform", "--seed", "3")
    code2, again, _ = run(capsys, "audit", *POLICY, "--scheme", "uniform", "--seed", "3")
    assert code == code2 == 0 and json.loads(first) == json.loads(again)


def test_a_policy_that_leaks_more_than_it_claims_exits_3(capsys):
    code, out, err = run(capsys, "audit", *POLICY, "--scheme", "event")
    data = json.loads(out)
    assert code == cli.EXIT_VIOLATION and data["exceeds_claim"] and data["worst_neighbour"] == "theorem2"
    assert "the promise was ε = 1" in err and "leaks more than promised" in err


def test_dummies_on_audit_and_release(capsys, tmp_path):
    code, out, err = run(capsys, "audit", *POLICY, "--scheme", "skip", "--dummies", "random")
    data = json.loads(out)
    assert code == 0, err
    inference = data["landmark_inference"]
    assert inference["dummies"] == "random"
    assert inference["auc"] < inference["by_dummies"]["none"]["auc"]
    summary, ledger = tmp_path / "s.json", tmp_path / "l.jsonl"
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "skip", "--epsilon", "1", "--landmarks",
                       RULE, "--range", "0", "25", "--dummies", "partitioned", "--out",
                       str(tmp_path / "r.csv"), "--summary", str(summary), "--ledger", str(ledger))
    assert code == 0, err
    said = json.loads(summary.read_text())
    assert "dummy landmarks hide them" in " ".join(said["guarantee"]["not_protected"])
    assert "selection's own ε is 0.01" in " ".join(said["guarantee"]["not_protected"])
    assert json.loads(ledger.read_text().splitlines()[0])["dummies"]["method"] == "partitioned"


def test_correlation_and_tables(capsys, tmp_path):
    table = tmp_path / "audit.csv"
    code, out, err = run(capsys, "audit", *POLICY, "--scheme", "skip", "--correlation", "strong", "--out",
                         str(table), "--json", str(tmp_path / "a.json"))
    assert code == 0, err
    data = json.loads((tmp_path / "a.json").read_text())
    c = data["correlation"]
    assert c["s"] == 0.01 and c["bound_no_correlation"] == pytest.approx(0.5) and c["success"] > 0.6
    assert c["ci"][0] <= c["bound_tpl"]
    rows = pd.read_csv(table)
    assert list(rows["scheme"]) == ["skip"] * 3 and "ε̂ lower" in rows
    assert "correlated series (s = 0.01)" in err


@pytest.mark.parametrize("argv, needle", [
    (["audit", "sample:hue", "--scheme", "skip", "--epsilon", "1", "--landmarks", "percentile:20"], "--range"),
    ([*("audit", *POLICY[:-2]), "--scheme", "skip", "--trials", "0"], "--trials"),
    ([*("audit", *POLICY), "--scheme", "skip", "--dummies", "clever"], "--dummies"),
    ([*("audit", *POLICY), "--scheme", "skip", "--correlation", "tight"], "--correlation"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, needle):
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    _, err = capsys.readouterr()
    assert code == cli.EXIT_INPUT and needle in err
    assert err.strip().count("\n") <= 1 or "usage" in err


def test_a_data_derived_rule_gets_flip_neighbours_and_the_verdict_covers_them(capsys):
    argv = ["audit", "sample:hue", "--scheme", "skip", "--epsilon", "1", "--landmarks", "percentile:20", "--range",
            "0", "25", "--trials", "300"]
    code, out, err = run(capsys, *argv)
    data = json.loads(out)
    assert code == 3 and data["worst_neighbour"] == "flip" and data["exceeds_claim"], err
    assert "landmark status flips" in data["neighbours"]["flip"]["description"]
    code, out, err = run(capsys, *argv, "--landmark-epsilon", "1")
    data = json.loads(out)
    assert code == 0, err
    assert data["neighbours"]["flip"]["epsilon_claimed"] == 2.0
