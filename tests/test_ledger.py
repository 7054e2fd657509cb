"""The privacy ledger: composition (Σ ε and the PLD total), the JSON Lines file, ``lmdk ledger``, the
``--ledger`` option of ``lmdk release``/``lmdk population`` and the app's session ledger with its cap."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from app_support import navigation_mode  # noqa: F401 (autouse fixture for the AppTest below)

from lmdk import ledger
from lmdk.cli import main


def entry(epsilon: float, fingerprint: str = "sha256:aa", **kw) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint=fingerprint, epsilon=epsilon, scheme="uniform", mechanism="laplace", **kw)


# --------------------------------------------------------------------------- composition
def test_basic_composition_is_the_hand_computed_sum_and_pld_lies_between_max_and_sum():
    eps = [0.5, 1.0, 0.25, 2.0, 0.1]
    totals = ledger.compose([entry(e) for e in eps])
    assert totals["releases"] == 5
    assert totals["epsilon_basic"] == pytest.approx(3.85, abs=1e-12)
    assert max(eps) <= totals["epsilon_pld"] <= totals["epsilon_basic"]
    assert totals["delta"] == 1e-6 and totals["epsilon_max"] == 2.0


@pytest.mark.parametrize("epsilon,k", [(0.1, 100), (0.05, 400), (0.5, 50)])
def test_pld_total_of_k_identical_releases_beats_the_advanced_composition_bound(epsilon, k):
    delta = 1e-6
    totals = ledger.compose([entry(epsilon)] * k, delta=delta)
    advanced = epsilon * math.sqrt(2 * k * math.log(1 / delta)) + k * epsilon * (math.exp(epsilon) - 1)
    assert totals["epsilon_pld"] <= advanced  # Dwork, Rothblum & Vadhan 2010 (Theorem 3.20 of Dwork & Roth)
    assert totals["epsilon_pld"] < k * epsilon == pytest.approx(totals["epsilon_basic"])
    assert totals["epsilon_pld"] >= epsilon


def test_a_single_release_costs_its_epsilon_and_an_empty_ledger_nothing():
    assert ledger.compose([entry(0.7)])["epsilon_pld"] == pytest.approx(0.7)
    empty = ledger.compose([])
    assert (empty["releases"], empty["epsilon_basic"], empty["epsilon_pld"], empty["epsilon_by_fingerprint"]) == (
        0, 0.0, 0.0, {})


def test_totals_per_fingerprint_compose_each_input_alone():
    totals = ledger.compose([entry(1.0, "sha256:a"), entry(1.0, "sha256:a"), entry(0.5, "sha256:b")])
    by = totals["epsilon_by_fingerprint"]
    assert by["sha256:a"]["releases"] == 2 and by["sha256:a"]["epsilon_basic"] == 2.0
    assert by["sha256:b"]["epsilon_basic"] == 0.5 and by["sha256:b"]["epsilon_pld"] == pytest.approx(0.5)
    assert totals["epsilon_basic"] == 2.5


def test_compose_refuses_a_delta_outside_zero_one():
    with pytest.raises(ledger.ParameterError, match="delta"):
        ledger.compose([entry(1.0)], delta=0)


def test_cap_check_counts_the_next_export():
    batch = [entry(1.0), entry(1.0)]
    assert not ledger.would_exceed(batch, 1.0, None)
    assert not ledger.would_exceed(batch, 1.0, 3.0)
    assert ledger.would_exceed(batch, 1.5, 3.0)


def test_the_relation_comes_from_the_policy_or_its_release_and_defaults_to_delta_one():
    from types import SimpleNamespace

    class Range:
        sensitivity = 25.0

        def label(self) -> str:
            return "range [0, 25] kWh (Δ = 25)"

    assert ledger.relation_of(SimpleNamespace(relation=Range()), SimpleNamespace(sensitivity=3.0)) == (
        25.0, "range [0, 25] kWh (Δ = 25)")
    assert ledger.relation_of(SimpleNamespace(relation=None), SimpleNamespace(sensitivity=2.0)) == (
        2.0, "one event's value changes by up to 2")
    assert ledger.relation_of(None, mechanism="randomized_response") == (1.0, "one event's contact changes")


# --------------------------------------------------------------------------- the file
def test_round_trip_of_the_file_and_a_missing_file_is_empty(tmp_path):
    path = tmp_path / "ledger.jsonl"
    assert ledger.read(path) == []
    first = entry(1.0, landmarks="percentile:20", landmark_count=200, sensitivity=25.0,
                  relation="range [0, 25] kWh (Δ = 25)", tool="test")
    ledger.append(path, first)
    ledger.append(path, [entry(0.5, "sha256:bb", w=5, dummies={"k": 3}), entry(2.0)])
    back = ledger.read(path)
    assert back == [first, entry(0.5, "sha256:bb", w=5, dummies={"k": 3}, time=back[1].time),
                    entry(2.0, time=back[2].time)]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(line)["time"].endswith("+00:00") for line in lines)
    assert ledger.parse_jsonl(ledger.to_jsonl(back)) == back


def test_fingerprints_are_hashes_never_the_data(tmp_path):
    from lmdk import data

    series = data.sample("hue")
    fp = ledger.fingerprint_series(series)
    assert fp.startswith("sha256:") and len(fp) == 7 + 64
    assert fp == ledger.fingerprint_series(data.sample("hue")) != ledger.fingerprint_series(series.head(10))
    file = tmp_path / "x.csv"
    file.write_bytes(b"a,b\n1,2\n")
    assert ledger.fingerprint_path(file) == ledger.fingerprint_bytes(b"a,b\n1,2\n")
    assert ledger.fingerprint_path(tmp_path).startswith("sha256:")


@pytest.mark.parametrize("line,match", [("{not json", "line 2 is not valid JSON"),
                                        ('{"epsilon": 1}', "line 2: ledger entry lacks fingerprint"),
                                        ('{"fingerprint": "f", "epsilon": -1, "scheme": "u", "mechanism": "m"}',
                                         "line 2: ledger entry: epsilon must be")])
def test_a_malformed_line_is_named(tmp_path, line, match):
    path = tmp_path / "ledger.jsonl"
    path.write_text(entry(1.0).to_json() + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ledger.LedgerError, match=match):
        ledger.read(path)


def test_append_starts_a_new_line_after_a_file_without_a_final_newline(tmp_path):
    path = tmp_path / "ledger.jsonl"
    path.write_text(entry(1.0).to_json(), encoding="utf-8")
    ledger.append(path, entry(2.0))
    assert [e.epsilon for e in ledger.read(path)] == [1.0, 2.0]


# --------------------------------------------------------------------------- command line
KEYS = {"releases", "epsilon_basic", "epsilon_pld", "delta", "epsilon_by_fingerprint"}


def test_lmdk_ledger_prints_the_totals_as_json(tmp_path, capsys):
    path = tmp_path / "ledger.jsonl"
    ledger.append(path, [entry(1.0), entry(0.5, "sha256:bb")])
    assert main(["ledger", str(path), "--delta", "1e-9"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert KEYS <= set(out) and out["releases"] == 2 and out["epsilon_basic"] == 1.5 and out["delta"] == 1e-9
    assert set(out["epsilon_by_fingerprint"]) == {"sha256:aa", "sha256:bb"}


def test_lmdk_ledger_exit_codes(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n", encoding="utf-8")
    assert main(["ledger", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1" in err
    assert main(["ledger", str(tmp_path / "missing.jsonl")]) == 2
    assert "is not a file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["ledger", str(bad), "--delta", "2"])
    assert exc.value.code == 2


RELEASE = ["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks", "percentile:20",
           "--bound", "10", "--quiet", "--allow-data-landmarks"]


def test_two_releases_with_a_ledger_spend_two_and_a_seeded_demonstration_is_refused(tmp_path, capsys):
    path = tmp_path / "L.jsonl"
    for i in range(2):
        assert main(RELEASE + ["--out", str(tmp_path / f"r{i}.csv"), "--ledger", str(path)]) == 0
    assert main(RELEASE + ["--out", str(tmp_path / "demo.csv"), "--seed", "0", "--ledger", str(path)]) == 2
    assert not (tmp_path / "demo.csv").exists()  # seeds are for demonstrations only: never beside a ledger
    capsys.readouterr()
    assert main(["ledger", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["releases"] == 2 and out["epsilon_basic"] == 2.0
    (first, second) = ledger.read(path)
    assert first.fingerprint == second.fingerprint and first.tool == "lmdk release"
    assert (first.scheme, first.mechanism, first.landmarks, first.landmark_count) == ("uniform", "laplace",
                                                                                    "percentile:20", 200)
    fields = {f.name for f in ledger.fields(ledger.LedgerEntry)}
    assert all(set(json.loads(line)) == fields for line in path.read_text().splitlines())  # no data, only its hash


def test_a_seeded_demonstration_alone_writes_no_ledger(tmp_path):
    path = tmp_path / "L.jsonl"
    assert main(RELEASE + ["--out", str(tmp_path / "demo.csv"), "--seed", "3"]) == 0
    assert main(RELEASE + ["--out", str(tmp_path / "demo2.csv"), "--seed", "3", "--ledger", str(path)]) == 2
    assert not path.exists() and not (tmp_path / "demo2.csv").exists()


def test_help_says_a_seeded_demonstration_is_not_a_release_and_is_refused_beside_a_ledger(capsys):
    with pytest.raises(SystemExit):
        main(["release", "--help"])
    assert "not a release: a seed beside --ledger or --cap is refused" in " ".join(capsys.readouterr().out.split())


def test_population_appends_one_entry_per_run_with_its_users(tmp_path, capsys):
    rng = np.random.default_rng(0)
    times = pd.date_range("2024-01-01", periods=48, freq="h").astype(str)
    table = pd.concat([pd.DataFrame({"user": f"house-{u}", "timestamp": times, "value": rng.uniform(0, 5, 48)})
                       for u in range(3)])
    table.to_csv(tmp_path / "meters.csv", index=False)
    (tmp_path / "policy.json").write_text(json.dumps({"landmarks": "percentile:25", "scheme": "adaptive",
                                                      "epsilon": 0.5}))
    path = tmp_path / "L.jsonl"
    base = ["population", str(tmp_path / "meters.csv"), "--config", str(tmp_path / "policy.json"), "--quiet",
            "--ledger", str(path), "--dataset", "meters"]
    assert main(base + ["--out", str(tmp_path / "a"), "--bound", "20", "--allow-data-landmarks"]) == 0
    assert main(base + ["--out", str(tmp_path / "demo"), "--seed", "1"]) == 2  # a seed beside a ledger: refused
    assert not (tmp_path / "demo").exists()
    (run,) = ledger.read(path)
    assert (run.users, run.epsilon, run.tool, run.landmarks) == (3, 0.5, "lmdk population", "percentile:25")
    assert run.fingerprint == ledger.fingerprint_path(tmp_path / "meters.csv")


# --------------------------------------------------------------------------- the app
def test_recording_an_export_appends_to_the_session_ledger_and_withdraws_the_confirmation(monkeypatch):
    import streamlit as st

    from ui import ledger as ledger_ui
    from ui.session import state

    session: dict = {state.LEDGER_ACCEPT: True}
    monkeypatch.setattr(st, "session_state", session)
    fields = {"fingerprint": "sha256:cc", "epsilon": 1.0, "scheme": "adaptive", "mechanism": "laplace",
              "landmark_count": 3, "tool": "app"}
    ledger_ui.record(fields)
    ledger_ui.record(fields)
    assert [e.epsilon for e in session[state.LEDGER]] == [1.0, 1.0] and session[state.LEDGER_ACCEPT] is False
    session[state.LEDGER_CAP] = 2.5
    assert ledger_ui.blocked(1.0) and not ledger_ui.blocked(0.5)
    session[state.LEDGER_ACCEPT] = True
    assert not ledger_ui.blocked(1.0)


@pytest.fixture
def schemes_page():
    """The Schemes & utility page of the HUE sample: its public range (0–25 kWh) makes the release to hand out
    available without further input."""
    import app_support

    return app_support.open_exports(app_support.open_page("pages/schemes_utility.py", 120, reps="5",
                                                          schemes="uniform,adaptive"))


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _release_button(at):
    return next(b for b in at.get("download_button") if b.proto.label == "Release to hand out (CSV)")


def test_app_shows_the_session_total_and_holds_an_export_past_the_cap(schemes_page):
    from ui.session import state

    at = schemes_page
    metrics = _metrics(at)
    assert metrics["Releases"] == "0" and metrics["ε, summed"] == "0"
    assert not _release_button(at).proto.disabled
    assert any(b.proto.label == "Privacy ledger (JSON Lines)" for b in at.get("download_button"))
    at.session_state[state.LEDGER] = [entry(1.0, tool="app"), entry(1.0, tool="app")]  # two clicks recorded
    at.run()
    metrics = _metrics(at)
    assert metrics["Releases"] == "2" and metrics["ε, summed"] == "2"
    assert 1.0 <= float(metrics["ε at δ = 10⁻⁶"]) <= 2.0
    at.number_input(key=f"w_{state.LEDGER_CAP}").set_value(2.5).run()  # ε = 1 next: 3 > 2.5
    assert not at.exception, at.exception
    assert _release_button(at).proto.disabled
    assert any("past the cap" in w.value for w in at.warning)
    at.checkbox(key=state.LEDGER_ACCEPT).check().run()
    assert not _release_button(at).proto.disabled
    at.number_input(key=f"w_{state.LEDGER_CAP}").set_value(10.0).run()  # a cap far away: no question
    assert not any(c.key == state.LEDGER_ACCEPT for c in at.checkbox) and not _release_button(at).proto.disabled
    assert at.session_state[state.LEDGER_CAP] == 10.0
