"""Caps only go down, whatever the path: an import that would raise a spent cap or change its period is refused
whole (exit 2, nothing imported, the line named), a JSON Lines ledger reads the lowest cap and the first period,
and ``lmdk ledger cap`` sets or lowers a cap and never raises it — on JSON Lines, SQLite and PostgreSQL."""
from __future__ import annotations

import json

from lmdk import ledger
from lmdk.cli import main


def entry(epsilon: float = 1.0, **kw) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=epsilon, scheme="uniform", mechanism="laplace",
                              tool="test", **kw)


def spend_cap_of_one(url: str) -> None:
    """A dataset 'meter' under cap 1, fully spent by one release."""
    granted, withheld = ledger.reserve_users(url, "meter", {"series": 1.0}, cap=1.0, entry=entry())
    assert granted == {"series": 1.0} and not withheld


def write_lines(path, records: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_an_import_raising_a_spent_cap_to_1000_is_refused_whole_naming_the_line(url, tmp_path, capsys):
    spend_cap_of_one(url)
    other = json.loads(entry(0.5, dataset="other", id="x1").to_json())
    caps = write_lines(tmp_path / "caps.jsonl", [other, {"record": "cap", "dataset": "meter", "cap": 1000,
                                                         "period": "none"}])
    capsys.readouterr()
    assert main(["ledger", "import", caps, "--into", url]) == 2
    err = capsys.readouterr().err
    assert "caps.jsonl line 2" in err and "never raised" in err and "nothing was imported" in err
    assert "Traceback" not in err
    found = ledger.records(url)
    assert found.caps["meter"] == ledger.Cap(1.0, "none")
    assert [e.budget_key for e in found.entries] == ["meter"]  # the file's other entry was not imported either
    # the attack's next three releases: each refused, Σε stays 1 against the cap of 1
    for _ in range(3):
        granted, withheld = ledger.reserve_users(url, "meter", {"series": 1.0}, entry=entry())
        assert not granted and "series" in withheld
    assert ledger.spent_by_user(ledger.records(url).entries, "meter") == {"series": 1.0}


def test_an_import_changing_a_lifetime_cap_into_a_daily_one_is_refused(url, tmp_path, capsys):
    spend_cap_of_one(url)
    caps = write_lines(tmp_path / "caps.jsonl", [{"record": "cap", "dataset": "meter", "cap": 1, "period": "day"}])
    assert main(["ledger", "import", caps, "--into", url]) == 2
    assert "caps.jsonl line 1" in capsys.readouterr().err
    assert ledger.records(url).caps["meter"] == ledger.Cap(1.0, "none")
    granted, _ = ledger.reserve_users(url, "meter", {"series": 1.0}, entry=entry())
    assert not granted


def test_an_import_lowering_a_cap_stores_it(url, tmp_path):
    spend_cap_of_one(url)
    caps = write_lines(tmp_path / "caps.jsonl", [{"record": "cap", "dataset": "meter", "cap": 0.5, "period": "none"},
                                                 {"record": "cap", "dataset": "new", "cap": 2, "period": "month"}])
    assert main(["ledger", "import", caps, "--into", url]) == 0
    found = ledger.records(url).caps
    assert found["meter"] == ledger.Cap(0.5, "none") and found["new"] == ledger.Cap(2.0, "month")


def test_a_json_lines_ledger_reads_the_lowest_cap_and_the_first_period(tmp_path):
    path = tmp_path / "l.jsonl"
    spend_cap_of_one(str(path))
    with path.open("a", encoding="utf-8") as handle:  # lines appended by hand after the cap was spent
        handle.write(json.dumps({"record": "cap", "dataset": "meter", "cap": 1000, "period": "day"}) + "\n")
        handle.write(json.dumps({"record": "cap", "dataset": "meter", "cap": 5, "period": "month"}) + "\n")
    assert ledger.read_records(path).caps["meter"] == ledger.Cap(1.0, "none")
    granted, withheld = ledger.reserve_users(str(path), "meter", {"series": 1.0}, entry=entry())
    assert not granted and "cap ε = 1 per user" in withheld["series"]


def test_lmdk_ledger_cap_sets_and_lowers_a_cap_and_never_raises_it(url, capsys):
    assert main(["ledger", "cap", url, "--dataset", "meter", "--cap", "2"]) == 0
    assert ledger.records(url).caps["meter"] == ledger.Cap(2.0, "none")
    assert main(["ledger", "cap", url, "--dataset", "meter", "--cap", "1"]) == 0
    assert ledger.records(url).caps["meter"] == ledger.Cap(1.0, "none")
    capsys.readouterr()
    assert main(["ledger", "cap", url, "--dataset", "meter", "--cap", "1000"]) == 2
    assert "never raised" in capsys.readouterr().err
    assert main(["ledger", "cap", url, "--dataset", "meter", "--cap", "1", "--period", "day"]) == 2
    assert "period cannot change" in capsys.readouterr().err
    assert ledger.records(url).caps["meter"] == ledger.Cap(1.0, "none")
    assert main(["ledger", "cap", url, "--dataset", "meter"]) == 2  # --cap is required
    assert main(["ledger", url, "--cap", "1"]) == 2  # --cap belongs to lmdk ledger cap
    assert "belongs to lmdk ledger cap" in capsys.readouterr().err
    granted, _ = ledger.reserve_users(url, "meter", {"a": 1.0, "b": 1.5}, entry=entry())
    assert granted == {"a": 1.0}


def test_release_cap_flag_still_sets_the_cap(url):
    granted, _ = ledger.reserve_users(url, "meter", {"series": 0.5}, cap=2.0, period="day", entry=entry(0.5))
    assert granted and ledger.records(url).caps["meter"] == ledger.Cap(2.0, "day")
