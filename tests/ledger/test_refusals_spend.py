"""Spending is charged when it happens (issue 52): a private landmark selection that ran stays charged when Theorem 2
then refuses the export, and a refused export prints and writes nothing computed from the data. Seeds are for
demonstrations only: a seed beside --ledger or --cap is refused (exit 2). Run as the attacker ran them."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk import ledger
from lmdk.cli import main

REFUSED = ["release", "sample:hue", "--scheme", "event", "--epsilon", "1", "--landmarks", "percentile:20",
           "--landmark-epsilon", "0.5", "--range", "0", "25", "--dataset", "hue"]


def test_a_release_refused_after_its_private_selection_charges_the_selection_and_prints_no_count(url, tmp_path,
                                                                                               capsys):
    codes = []
    for i in range(3):  # the attack: refused three times, |L| printed each time, Σε = 0 recorded
        codes.append(main(REFUSED + ["--out", str(tmp_path / f"r{i}.csv"), "--ledger", url, "--cap", "1.5"]))
        err = capsys.readouterr().err
        assert "|L|" not in err and "n = " not in err and "MAE" not in err, err  # nothing from the data
        assert not (tmp_path / f"r{i}.csv").exists()
        if codes[-1] == 3:
            assert "ε_sel = 0.5" in err and "charged" in err
    # 1st: refused by Theorem 2, ε_sel charged (0.5); 2nd: 0.5 + 1.5 > 1.5, refused by the cap before anything runs
    assert codes == [3, 4, 4]
    spent = ledger.spent_by_user(ledger.records(url).entries, "hue")
    assert spent == {"series": pytest.approx(0.5)}


def test_refusals_without_a_cap_add_up_what_each_selection_spent(url, tmp_path, capsys):
    for i in range(3):
        assert main(REFUSED + ["--out", str(tmp_path / f"r{i}.csv"), "--ledger", url, "--quiet"]) == 3
    assert ledger.summary(url, dataset="hue")["epsilon_basic"] == pytest.approx(1.5)


def _population(tmp_path, users: int = 3):
    rng = np.random.default_rng(1)
    times = pd.date_range("2026-01-05", periods=48, freq="h")
    table = pd.DataFrame({"user": np.repeat(np.arange(1, users + 1), len(times)),
                          "timestamp": np.tile(times.astype(str), users),
                          "value": rng.uniform(0, 5, users * len(times))})
    table.to_parquet(tmp_path / "meters.parquet", index=False)
    (tmp_path / "policy.json").write_text(json.dumps({"landmarks": "percentile:20", "scheme": "event",
                                                      "epsilon": 1.0}))
    return ["population", str(tmp_path / "meters.parquet"), "--config", str(tmp_path / "policy.json"),
            "--range", "0", "25", "--landmark-epsilon", "0.5"]


def test_a_refused_population_writes_no_summary_prints_no_mae_and_charges_each_selection(url, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(_population(tmp_path) + ["--out", str(out), "--ledger", url, "--dataset", "meters", "--cap", "3"])
    err = capsys.readouterr().err
    assert code == 3
    assert not out.exists() and not list(tmp_path.glob(".out.partial-*"))  # no summary.parquet, no aggregates
    assert "MAE" not in err and "landmark share" not in err and "violated for" not in err, err
    assert "ε_sel = 0.5" in err
    spent = ledger.spent_by_user(ledger.records(url).entries, "meters")
    assert spent == {"1": pytest.approx(0.5), "2": pytest.approx(0.5), "3": pytest.approx(0.5)}


def test_a_population_without_a_ledger_refused_by_theorem_2_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(_population(tmp_path) + ["--out", str(out)]) == 3
    assert not out.exists()
    assert "MAE" not in capsys.readouterr().err


# --------------------------------------------------------------------------- seeds are for demonstrations only
SEEDED = ["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks", "calendar:sun@09:00-12:00",
          "--range", "0", "25", "--seed", "4", "--repetitions", "50", "--quiet"]


def test_a_seed_cannot_talk_past_a_spent_cap(url, tmp_path, capsys):
    plain = [a for a in SEEDED if a not in ("--seed", "4", "--repetitions", "50")]
    assert main(plain + ["--out", str(tmp_path / "r.csv"), "--ledger", url, "--dataset", "hue", "--cap", "1"]) == 0
    before = ledger.summary(url, dataset="hue")["releases"]
    capsys.readouterr()
    assert main(SEEDED + ["--out", str(tmp_path / "s.csv"), "--ledger", url, "--dataset", "hue"]) == 2
    err = capsys.readouterr().err
    assert "--seed" in err and "--ledger" in err and "Traceback" not in err
    assert not (tmp_path / "s.csv").exists()
    assert ledger.summary(url, dataset="hue")["releases"] == before


def test_a_seed_beside_a_cap_is_refused(tmp_path, capsys):
    assert main(SEEDED + ["--out", str(tmp_path / "s.csv"), "--cap", "1"]) == 2
    assert not (tmp_path / "s.csv").exists()


@pytest.mark.parametrize("where", ["flag", "policy"])
def test_a_population_seed_from_the_flag_or_the_policy_file_is_refused_with_a_ledger(where, tmp_path, capsys):
    args = _population(tmp_path)
    if where == "policy":
        (tmp_path / "policy.json").write_text(json.dumps({"landmarks": "none", "scheme": "uniform", "epsilon": 1.0,
                                                          "seed": 3}))
    else:
        args += ["--seed", "3"]
    out = tmp_path / "demo"
    code = main(args + ["--out", str(out), "--ledger", str(tmp_path / "l.jsonl"), "--dataset", "meters"])
    assert code == 2 and not out.exists() and not (tmp_path / "l.jsonl").exists()
    err = capsys.readouterr().err
    assert ("policy file's 'seed'" if where == "policy" else "--seed") in err


def test_a_refused_aggregate_prints_no_count_of_its_users(tmp_path, capsys):
    _population(tmp_path, users=4)
    code = main(["aggregate", str(tmp_path / "meters.parquet"), "--statistic", "sum", "--range", "0", "25",
                 "--landmarks", "calendar:daily@18:00-20:00", "--scheme", "event", "--epsilon", "1"])
    captured = capsys.readouterr()
    assert code == 3 and "violates" in captured.err
    assert "users" not in captured.err and "bins of" not in captured.err and captured.out == ""
