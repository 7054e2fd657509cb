"""The ledger's caps from the command line: ``lmdk release`` refused with exit 4 before any noise, population and
aggregate runs withholding users, a refusal for another reason charging nothing, ``lmdk ledger --by user``."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk import ledger
from lmdk.cli import main

RELEASE = ["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks",
           "calendar:sun@09:00-12:00", "--range", "0", "25", "--quiet"]


def test_release_past_the_cap_exits_4_naming_cap_spent_and_asked_and_draws_nothing(tmp_path, capsys, monkeypatch):
    url = f"sqlite:///{tmp_path / 'l.db'}"
    for i in range(2):
        assert main(RELEASE + ["--out", str(tmp_path / f"r{i}.csv"), "--ledger", url, "--dataset", "hue",
                               "--cap", "2"]) == 0
    capsys.readouterr()
    import lmdk.exports.export as export

    def no_noise(*args, **kwargs):
        raise AssertionError("noise drawn for a refused export")

    monkeypatch.setattr(export, "export_scheme_release", no_noise)
    assert main(RELEASE + ["--out", str(tmp_path / "r3.csv"), "--ledger", url, "--dataset", "hue"]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cap ε = 2" in err and "ε spent 2" in err and "ε asked 1" in err
    assert not (tmp_path / "r3.csv").exists()
    assert ledger.summary(url, dataset="hue")["epsilon_basic"] == 2.0


def test_a_refusal_after_the_reservation_charges_nothing(tmp_path, capsys):
    path = tmp_path / "l.jsonl"
    violating = ["release", "sample:hue", "--scheme", "pegasus", "--w", "24", "--epsilon", "1", "--landmarks",
                 "calendar:sun@09:00-12:00", "--range", "0", "25", "--quiet", "--out", str(tmp_path / "x.csv")]
    declared = RELEASE + ["--landmark-epsilon", "0.5", "--out", str(tmp_path / "y.csv")]  # bad input: exit 2
    assert main(declared + ["--ledger", str(path), "--cap", "5"]) == 2
    assert "--landmark-epsilon" in capsys.readouterr().err
    assert ledger.read(path) == [] and ledger.spent_by_user(ledger.read(path), "x") == {}
    assert main(violating + ["--ledger", str(path), "--dataset", "x", "--cap", "1"]) == 3  # Theorem 2, after noise
    assert ledger.read(path) == [] and ledger.read_records(path).caps["x"].cap == 1.0
    assert main(RELEASE + ["--out", str(tmp_path / "z.csv"), "--ledger", str(path), "--dataset", "x"]) == 0
    assert ledger.spent_by_user(ledger.read(path), "x") == {"series": 1.0}  # the refused one left the budget whole


def test_cap_dataset_and_period_need_a_ledger(tmp_path, capsys):
    assert main(RELEASE + ["--out", str(tmp_path / "r.csv"), "--cap", "2"]) == 2
    assert "--cap needs --ledger URL" in capsys.readouterr().err


@pytest.fixture
def day(tmp_path):
    """Write one day of 24 hourly readings for the given users; returns the file."""
    rng = np.random.default_rng(0)
    (tmp_path / "policy.json").write_text(json.dumps({"landmarks": "calendar:daily@18:00-22:00",
                                                      "scheme": "adaptive", "epsilon": 0.5}))

    def write(name: str, users: list[str], date: str):
        times = pd.date_range(date, periods=24, freq="h").astype(str)
        table = pd.concat([pd.DataFrame({"user": u, "timestamp": times, "value": rng.uniform(0, 5, 24)})
                           for u in users])
        path = tmp_path / f"{name}.csv"
        table.to_csv(path, index=False)
        return path
    return write


def test_population_withholds_users_past_their_cap_and_releases_the_others(tmp_path, day, capsys):
    url = f"sqlite:///{tmp_path / 'l.db'}"

    def run(name: str, users: list[str], date: str) -> int:
        return main(["population", str(day(name, users, date)), "--config", str(tmp_path / "policy.json"),
                     "--out", str(tmp_path / name), "--range", "0", "25", "--quiet", "--ledger", url,
                     "--dataset", "meters-2026", "--cap", "1"])

    assert run("d1", ["a", "b"], "2026-01-01") == 0
    assert run("d2", ["a", "b", "c"], "2026-01-02") == 0
    capsys.readouterr()
    assert run("d3", ["a", "c"], "2026-01-03") == 0  # a has spent 1: withheld; c has 0.5 left
    err = capsys.readouterr().err
    assert "withheld 1 users" in err and "cap ε = 1" in err
    summary = pd.read_parquet(tmp_path / "d3" / "summary.parquet")
    reasons = dict(zip(summary["user"], summary["withheld"], strict=True))
    assert reasons["c"] is None and "ε spent 1, ε asked 0.5" in reasons["a"]
    released = {p.name for p in (tmp_path / "d3" / "released").iterdir()}
    assert released == {"user=c"}
    totals = json.loads((tmp_path / "d3" / "aggregates.json").read_text())
    assert totals["withheld_users"] == 1 and list(totals["withheld"].values()) == [1]  # {reason: count}
    assert run("d4", ["a", "b"], "2026-01-04") == 4  # every user withheld
    assert "no user released" in capsys.readouterr().err and not (tmp_path / "d4" / "released").exists()
    assert main(["ledger", url, "--by", "user"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["releases"] == 3 and out["cap"] == {"epsilon": 1.0, "period": "none"}
    assert {u: (v["epsilon_basic"], v["remaining"]) for u, v in out["by_user"].items()} == {
        "a": (1.0, 0.0), "b": (1.0, 0.0), "c": (1.0, 0.0)}
    assert all(v["epsilon_basic"] >= v["epsilon_pld"] >= 0.5 for v in out["by_user"].values())


def test_aggregate_withholds_users_past_their_cap(tmp_path, day, capsys):
    path = tmp_path / "l.jsonl"
    meters = day("m", ["a", "b", "c"], "2026-01-04")
    ledger.reserve_users(str(path), "district", {"a": 1.0}, cap=1.0, entry=ledger.LedgerEntry(
        fingerprint="sha256:00", epsilon=1.0, scheme="uniform", mechanism="laplace"))
    args = ["aggregate", str(meters), "--statistic", "sum", "--range", "0", "25", "--landmarks",
            "calendar:sun@09:00-12:00", "--scheme", "uniform", "--epsilon", "0.5", "--ledger", str(path),
            "--dataset", "district", "--quiet", "--json", str(tmp_path / "s.json"), "--out", str(tmp_path / "o.csv")]
    assert main(args) == 0
    assert "withheld 1 users" in capsys.readouterr().err
    assert json.loads((tmp_path / "s.json").read_text())["n_users"] == 2  # a left out of the sum
    assert ledger.spent_by_user(ledger.read(path), "district") == {"a": 1.0, "b": 0.5, "c": 0.5}


def test_lmdk_ledger_by_user_needs_one_dataset_and_a_plain_path_keeps_todays_output(tmp_path, capsys):
    path = tmp_path / "l.jsonl"
    entry = ledger.LedgerEntry(fingerprint="sha256:00", epsilon=1.0, scheme="uniform", mechanism="laplace")
    ledger.reserve_users(str(path), "x", {"a": 1.0}, entry=entry)
    ledger.reserve_users(str(path), "y", {"a": 1.0}, entry=entry)
    assert main(["ledger", str(path)]) == 0
    assert "by_user" not in json.loads(capsys.readouterr().out)
    assert main(["ledger", str(path), "--by", "user"]) == 2
    assert "--dataset NAME" in capsys.readouterr().err
    assert main(["ledger", str(path), "--by", "user", "--dataset", "y"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["releases"] == 1 and out["by_user"] == {"a": {"releases": 1, "epsilon_basic": 1.0,
                                                             "epsilon_pld": 1.0, "remaining": None}}
