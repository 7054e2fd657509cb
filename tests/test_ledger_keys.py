"""One key per person, one key per dataset, name the person (issue 52): each attack of the issue tried as an
attacker would — the same households with their ids as floats, a dataset name spelled another way, the same series
saved again, two meters under one dataset, entries from before per-user budgets — and the key rules themselves."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk import ledger
from lmdk.cli import main
from lmdk.data.ids import dataset_key, dataset_name, key_map, series_key, user_key, user_keys
from lmdk.errors import DataError, ParameterError

POLICY = {"landmarks": "calendar:daily@18:00-22:00", "scheme": "adaptive", "epsilon": 0.6}
RELEASE = ["--scheme", "uniform", "--epsilon", "1", "--landmarks", "calendar:sun@09:00-12:00", "--range", "0", "25",
           "--quiet"]


def _meter(rng, hours: int = 48) -> pd.DataFrame:
    """One meter's hourly readings."""
    times = pd.date_range("2026-01-01", periods=hours, freq="h").strftime("%Y-%m-%d %H:%M:%S")
    return pd.DataFrame({"timestamp": times, "value": np.round(rng.uniform(0, 5, hours), 3)})


# --------------------------------------------------------------------------- the rules
def test_a_column_of_numbers_is_read_as_numbers_and_integral_ones_are_their_integer_text():
    assert user_keys([7, 8]) == user_keys([7.0, 8.0]) == user_keys(["7.00", "8"]) == ["7", "8"]
    assert user_keys(np.array([7.0, 7.5])) == ["7", "7.5"]
    assert user_keys(["7.0", "alice"]) == ["7.0", "alice"]  # not every value a number: text
    assert user_keys([" Ame\u0301lie "]) == ["Am\u00e9lie"]  # stripped, NFC
    assert user_key("7.0") == user_key(7) == "7"
    assert key_map([7.0, 8.0, 7.0]) == {7.0: "7", 8.0: "8"}


@pytest.mark.parametrize(("values", "needle"), [
    (["a", "b\x00c"], "row 2: the user id 'b\\x00c' holds the control character U+0000"),
    (["a", "line\u2028sep"], "row 2: the user id 'line\\u2028sep' holds the control character U+2028"),
    (["me\u200bter"], "row 1: the user id"),
    (["a", "series"], "row 2: the user id 'series' is reserved"),
    (["*"], "row 1: the user id '*' is reserved"),
    (["a", "  "], "row 2: the user id is empty"),
    ([1.0, float("nan")], "row 2: the user id is empty"),
])
def test_refused_user_ids_name_the_row_and_the_rule(values, needle):
    with pytest.raises(DataError, match="^user column ") as info:
        user_keys(values)
    assert needle in str(info.value)


def test_dataset_names_have_one_alphabet_and_stored_names_are_normalised_on_read():
    spellings = ("meter", "Meter", "meter ", "\uff4d\uff45\uff54\uff45\uff52", "METER")
    assert {dataset_name(n) for n in spellings} == {"meter"}
    assert dataset_name("meters-2026_v1.2") == "meters-2026_v1.2"
    for bad in ("me\u200bter", "meters 2026", "m\u00e8ter", "", "a/b", "\u0430"):  # ZWSP, space, è, slash, Cyrillic а
        with pytest.raises(ParameterError, match="lowercase letters a-z, digits"):
            dataset_name(bad)
    assert dataset_key("  \uff2d\uff45ter ") == "meter"
    entry = ledger.LedgerEntry(fingerprint="sha256:00", epsilon=1.0, scheme="u", mechanism="laplace", dataset="Meter")
    assert entry.budget_key == "meter"


def test_the_content_key_is_the_parsed_series_not_the_files_bytes(tmp_path):
    from lmdk.data import load_series

    frame = _meter(np.random.default_rng(1))
    text = frame.to_csv(index=False)
    files = {"a.csv": text.encode(), "b.csv": (text + "\n").encode(), "c.csv": text.replace("\n", "\r\n").encode(),
             "d.csv": frame[["value", "timestamp"]].to_csv(index=False).encode()}
    for name, raw in files.items():
        (tmp_path / name).write_bytes(raw)
    frame.to_parquet(tmp_path / "e.parquet")
    keys = {series_key(load_series(str(tmp_path / name))) for name in [*files, "e.parquet"]}
    assert len(keys) == 1
    changed = frame.copy()
    changed.loc[3, "value"] += 0.001
    changed.to_csv(tmp_path / "f.csv", index=False)
    assert series_key(load_series(str(tmp_path / "f.csv"))) not in keys  # a changed row is a new key


# --------------------------------------------------------------------------- the attacks
def _population(tmp_path, name: str, users: list, url: str, *extra: str) -> int:
    """Run lmdk population on one day of the given users (ids written as given) under --dataset meters --cap 1."""
    rng = np.random.default_rng(len(name))
    table = pd.concat([_meter(rng, 24).assign(user=u) for u in users])
    table.to_csv(tmp_path / f"{name}.csv", index=False)
    return main(["population", str(tmp_path / f"{name}.csv"), "--config", str(tmp_path / "policy.json"), "--out",
                 str(tmp_path / name), "--range", "0", "25", "--quiet", "--ledger", url, "--cap", "1", *extra])


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
def test_the_same_households_as_floats_are_the_same_people(tmp_path, capsys, backend):
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    url = str(tmp_path / "l.jsonl") if backend == "jsonl" else f"sqlite:///{tmp_path / 'l.db'}"
    assert _population(tmp_path, "day1", [7, 8], url, "--dataset", "meters") == 0
    assert _population(tmp_path, "day2", ["7.0", "8.0"], url, "--dataset", "meters") == 4  # 0.6 + 0.6 > 1
    assert "no user released" in capsys.readouterr().err
    assert not (tmp_path / "day2" / "released").exists()
    assert main(["ledger", url, "--by", "user", "--dataset", "meters"]) == 0
    by_user = json.loads(capsys.readouterr().out)["by_user"]
    assert {u: v["epsilon_basic"] for u, v in by_user.items()} == {"7": 0.6, "8": 0.6}


def test_a_population_run_with_a_ledger_names_its_dataset(tmp_path, capsys):
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    assert _population(tmp_path, "day1", ["a", "b"], str(tmp_path / "l.jsonl")) == 2
    assert "lmdk population --ledger needs --dataset NAME" in capsys.readouterr().err
    assert not (tmp_path / "l.jsonl").exists()


def test_a_control_character_in_the_user_column_is_refused_before_anything_is_charged(tmp_path, capsys):
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    assert _population(tmp_path, "day1", ["a", "b\u2028c"], str(tmp_path / "l.jsonl"), "--dataset", "m") == 2
    err = capsys.readouterr().err
    assert "row 2" in err and "U+2028" in err and "Traceback" not in err
    assert ledger.read(tmp_path / "l.jsonl") == []


def test_a_dataset_name_spelled_another_way_is_the_same_budget_or_refused(tmp_path, capsys):
    _meter(np.random.default_rng(2)).to_csv(tmp_path / "m.csv", index=False)
    path = tmp_path / "l.jsonl"
    base = ["release", str(tmp_path / "m.csv"), *RELEASE, "--out", str(tmp_path / "r.csv"), "--ledger", str(path)]
    assert main(base + ["--dataset", "meter", "--cap", "1"]) == 0
    for name in ("meter", "Meter", "meter ", "\uff4d\uff45\uff54\uff45\uff52"):
        assert main(base + ["--dataset", name]) == 4, name  # the cap of 'meter' is spent
        assert "cap ε = 1 per user of dataset 'meter'" in capsys.readouterr().err
    assert main(base + ["--dataset", "me\u200bter"]) == 2
    assert "lowercase letters a-z, digits" in capsys.readouterr().err
    assert ledger.summary(str(path))["epsilon_basic"] == 1.0


def test_a_stored_name_from_before_the_rule_keeps_its_budget(tmp_path, capsys):
    _meter(np.random.default_rng(2)).to_csv(tmp_path / "m.csv", index=False)
    path = tmp_path / "l.jsonl"
    old = ledger.LedgerEntry(fingerprint="sha256:00", epsilon=1.0, scheme="uniform", mechanism="laplace",
                             dataset="Meters", charges={"series": 1.0})
    path.write_text(json.dumps({"record": "cap", "dataset": "Meters", "cap": 1.0, "period": "none"}) + "\n"
                    + old.to_json() + "\n")
    assert main(["release", str(tmp_path / "m.csv"), *RELEASE, "--out", str(tmp_path / "r.csv"), "--ledger",
                 str(path), "--dataset", "meters"]) == 4
    assert "ε spent 1" in capsys.readouterr().err


def test_the_same_series_saved_again_shares_its_budget(tmp_path, capsys):
    frame = _meter(np.random.default_rng(3))
    text = frame.to_csv(index=False)
    (tmp_path / "a.csv").write_text(text)
    (tmp_path / "b.csv").write_bytes((text + "\n").encode())
    (tmp_path / "c.csv").write_bytes(text.replace("\n", "\r\n").encode())
    frame.to_parquet(tmp_path / "d.parquet")
    path = tmp_path / "l.jsonl"

    def release(name: str, *extra: str) -> int:
        return main(["release", str(tmp_path / name), *RELEASE, "--out", str(tmp_path / "r.csv"), "--ledger",
                     str(path), *extra])

    assert release("a.csv", "--cap", "1") == 0
    for name in ("b.csv", "c.csv", "d.parquet"):
        assert release(name) == 4, name
    capsys.readouterr()
    assert ledger.compose(ledger.read(path))["epsilon_basic"] == 1.0


def test_two_meters_under_one_dataset_named_by_user_each_get_their_own_cap(tmp_path, capsys):
    rng = np.random.default_rng(4)
    _meter(rng).to_csv(tmp_path / "a.csv", index=False)
    _meter(rng).to_csv(tmp_path / "b.csv", index=False)
    path = tmp_path / "l.jsonl"

    def release(name: str, *extra: str) -> int:
        return main(["release", str(tmp_path / name), *RELEASE, "--out", str(tmp_path / "r.csv"), "--ledger",
                     str(path), "--dataset", "meters", *extra])

    assert release("a.csv", "--user", "7", "--cap", "1") == 0
    assert release("b.csv", "--user", "household-8") == 0  # another person: a budget of their own
    assert release("a.csv", "--user", "7.0") == 4  # the same person (the key rule): refused
    capsys.readouterr()
    assert ledger.spent_by_user(ledger.read(path), "meters") == {"7": 1.0, "household-8": 1.0}
    assert release("a.csv", "--user", "series") == 2  # the ledger's own keys are reserved
    assert "reserved" in capsys.readouterr().err
    assert main(["release", str(tmp_path / "a.csv"), *RELEASE, "--out", str(tmp_path / "r.csv"), "--user", "7"]) == 2
    assert "--user needs --ledger URL" in capsys.readouterr().err


def _store(file, entry, url: str) -> None:
    """Put ``entry`` into the ledger at ``url`` as an older tool wrote it: a line appended to a JSON Lines ledger,
    or imported into a database."""
    if url.startswith("sqlite:///"):
        file.write_text(entry.to_json() + "\n")
        assert main(["ledger", "import", str(file), "--into", url]) == 0
    else:
        with open(url, "a", encoding="utf-8") as handle:
            handle.write(entry.to_json() + "\n")


@pytest.mark.parametrize("backend", ["jsonl", "sqlite"])
def test_entries_from_before_per_user_budgets_count_against_every_user(tmp_path, capsys, backend):
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    url = str(tmp_path / "l.jsonl") if backend == "jsonl" else f"sqlite:///{tmp_path / 'l.db'}"
    legacy = ledger.LedgerEntry(fingerprint="sha256:00", epsilon=0.6, scheme="uniform", mechanism="laplace",
                                users=3, dataset="meters")
    assert legacy.user_charges() == {ledger.EVERY_USER: 0.6}
    _store(tmp_path / "old.jsonl", legacy, url)
    assert _population(tmp_path, "day1", ["u1", "u2", "u3"], url, "--dataset", "meters") == 4  # 0.6 + 0.6 > 1
    assert "ε spent 0.6, ε asked 0.6" in capsys.readouterr().err
    assert main(["ledger", url, "--by", "user", "--dataset", "meters"]) == 0
    assert json.loads(capsys.readouterr().out)["by_user"]["*"]["remaining"] == pytest.approx(0.4)
    spent = ledger.LedgerEntry(fingerprint="sha256:01", epsilon=0.3, scheme="uniform", mechanism="laplace",
                               dataset="meters", charges={"u1": 0.3})
    _store(tmp_path / "u1.jsonl", spent, url)
    out = ledger.summary(url, dataset="meters", users=True)
    assert out["by_user"]["u1"]["epsilon_basic"] == pytest.approx(0.9)  # its own 0.3 and the legacy 0.6
    assert out["by_user"]["u1"]["remaining"] == pytest.approx(0.1)


# --------------------------------------------------------------------------- the app's hand-out release
def test_the_apps_hand_out_release_is_the_cli_entry_and_charges_the_person_named(tmp_path, monkeypatch):
    import streamlit as st

    from lmdk import data
    from lmdk.present.release import Policy
    from ui import ledger as ledger_ui
    from ui.session import state

    url = f"sqlite:///{tmp_path / 'l.db'}"
    session: dict = {}
    monkeypatch.setattr(st, "session_state", session)
    monkeypatch.setenv("LMDK_LEDGER_URL", url)
    from ui import auth

    monkeypatch.setattr(auth, "current", lambda: auth.Access(auth.OFFICER, subject="officer-sub", login=True))
    series = data.sample("hue")

    class View:  # what entry_fields reads of the page's current view
        landmarks = np.array([1, 2, 3])

    View.series = series
    from lmdk.relation import public_range
    from ui.session import relation

    protects = public_range(0, 25, "kWh")
    monkeypatch.setattr(relation, "current", lambda cur: protects)
    fields = ledger_ui.entry_fields(View(), "uniform", "laplace", 1.0, 24)
    cli = ledger.release_entry(series, Policy(landmarks=np.array([1, 2, 3]), scheme="uniform", mechanism="laplace",
                                              epsilon=1.0, w=None, repetitions=1, seed=None, relation=protects))
    same = ("fingerprint", "epsilon", "scheme", "mechanism", "landmark_count", "sensitivity", "relation", "sampler")
    assert {k: fields[k] for k in same} == {k: getattr(cli, k) for k in same}  # one builder for both
    assert fields["sampler"] == "discrete" and fields["sensitivity"] == 25.0
    assert "dataset" not in fields or fields["dataset"] is None  # no dataset named: the data's content key
    session[state.LEDGER_DATASET] = "Meters"
    assert "name the person" in ledger_ui.database_refusal(View(), 1.0)  # a dataset named asks for the person
    assert ledger_ui.blocked(1.0, View())
    for person in ("7", "household-8"):
        session[state.LEDGER_PERSON] = person
        fields = ledger_ui.entry_fields(View(), "uniform", "laplace", 1.0, 24)
        assert ledger_ui.reserving(lambda payload: "a release", fields)("x") == "a release"
    session[state.LEDGER_PERSON] = "7.0"  # the same person as 7
    ledger.reserve_users(url, "meters", {"7": 0.5}, cap=1.5, entry=cli)  # the cap stored: 7 has 0.5 left
    assert "ε spent 1.5" in ledger_ui.database_refusal(View(), 1.0)
    fields = ledger_ui.entry_fields(View(), "uniform", "laplace", 1.0, 24)
    assert ledger_ui.reserving(lambda payload: "a release", fields)("x").startswith("# Refused by the privacy ledger")
    assert ledger.spent_by_user(ledger.records(url).entries, "meters") == {"7": 1.5, "household-8": 1.0}


def test_a_policy_table_reads_its_user_column_by_the_same_rule():
    from lmdk.policies.assign import Assignment, charges
    from lmdk.policies.table import PolicyTableError, read_frame, table_from_frame

    rows = "user,landmarks,epsilon,scheme\n7.0,none,1,uniform\n8,none,0.5,uniform\n"
    table = table_from_frame(read_frame(rows.encode(), "p.csv"))
    assert [row.user for row in table.rows] == ["7", "8"] and table.for_user(7).epsilon == 1.0
    from types import SimpleNamespace

    plan = Assignment((SimpleNamespace(epsilon=1.0, landmark_epsilon=None),), ("--config",), {"7": 0, "8": 0},
                      "no policy")
    assert charges(plan, ["7.0", "8.00", "9"]) == {"7": 1.0, "8": 1.0}  # 9 has no policy: charged nothing
    with pytest.raises(PolicyTableError, match=r"row 2: the user id .* U\+0007"):
        table_from_frame(read_frame(b"user,landmarks,epsilon,scheme\na,none,1,uniform\nb\x07,none,1,uniform\n",
                                    "p.csv"))
    with pytest.raises(PolicyTableError, match="row 1: the user id 'series' is reserved"):
        table_from_frame(read_frame(b"user,landmarks,epsilon,scheme\nseries,none,1,uniform\n", "p.csv"))
    assert plan.of(7.0) == plan.of("7") == 0
