"""Records that survive anything: JSON Lines split on ``\\n`` only with every line-breaking character escaped (an
existing poisoned file reads again), an idempotent import with exact counts, non-finite ε and totals refused,
periods compared as UTC instants."""
from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from lmdk import ledger
from lmdk.cli import main


def entry(epsilon: float = 1.0, **kw) -> ledger.LedgerEntry:
    return ledger.LedgerEntry(fingerprint="sha256:ab", epsilon=epsilon, scheme="uniform", mechanism="laplace",
                              tool="test", **kw)


def raw_line(**fields) -> str:
    """An entry line as the old writer wrote it (ensure_ascii=False: U+2028 raw in the file)."""
    data = {"fingerprint": "sha256:ab", "epsilon": 1.0, "scheme": "uniform", "mechanism": "laplace",
            "time": "2026-01-01T00:00:00+00:00", **fields}
    return json.dumps(data, ensure_ascii=False) + "\n"


def test_an_existing_file_poisoned_with_u2028_and_u0085_reads_again_for_every_dataset(tmp_path, capsys):
    path = tmp_path / "poisoned.jsonl"
    path.write_text(raw_line(dataset="me\u2028ter", charges={"a\u0085b": 1.0}, id="p1")
                    + raw_line(dataset="meter", charges={"u1": 0.5}, id="p2")
                    + raw_line(dataset="x", landmarks="rule\u2029\x1c\x0bend", id="p3"), encoding="utf-8")
    entries = ledger.read(path)
    assert [e.id for e in entries] == ["p1", "p2", "p3"]
    assert entries[0].charges == {"a\u0085b": 1.0} and entries[2].landmarks == "rule\u2029\x1c\x0bend"
    assert main(["ledger", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["releases"] == 3
    granted, _ = ledger.reserve_users(str(path), "meter", {"u1": 0.5}, cap=1.0, entry=entry(0.5))
    assert granted == {"u1": 0.5}  # the next reservation reads the whole file too


def test_every_line_breaking_character_is_escaped_when_written_and_reads_back(tmp_path):
    path = tmp_path / "l.jsonl"
    odd = "a\u2028b\u2029c\x85d\x00e\x0bf\x1cg\u200bh\r\n"
    ledger.append(path, entry(landmarks=odd, relation=odd, id="i\u2028d"))
    raw = path.read_bytes().decode("utf-8")
    assert raw.count("\n") == 1 and raw.endswith("\n")
    assert not any(ch in raw for ch in "\u2028\u2029\x85\x00\x0b\x1c\u200b\r")
    assert raw.splitlines() == [raw[:-1]]  # even str.splitlines sees one record
    (back,) = ledger.read(path)
    assert back.landmarks == odd and back.relation == odd and back.id == "i\u2028d"


def test_import_is_idempotent_with_exact_counts(url, tmp_path, capsys):
    source = tmp_path / "source.jsonl"
    twin = entry(0.5, dataset="d", charges={"u": 0.5}, time="2026-01-01T00:00:00+00:00")
    ledger.append(source, [twin, twin, entry(0.25, dataset="d", charges={"v": 0.25}), entry(0.1, id="given")])
    assert main(["ledger", "import", str(source), "--into", url]) == 0
    assert "imported 4 of 4 entries (0 already in the ledger)" in capsys.readouterr().err
    assert main(["ledger", "import", str(source), "--into", url]) == 0
    assert "imported 0 of 4 entries (4 already in the ledger)" in capsys.readouterr().err
    found = ledger.records(url).entries
    assert len(found) == 4  # the two identical exports stay two, nothing twice
    assert ledger.spent_by_user(found, "d") == {"u": 1.0, "v": 0.25}


def test_a_duplicate_id_with_another_record_is_refused_naming_the_line_not_a_traceback(url, tmp_path, capsys):
    ledger.reserve_users(url, "d", {"u": 1.0}, entry=entry())
    (mine,) = ledger.records(url).entries
    source = tmp_path / "clash.jsonl"
    ledger.append(source, [entry(0.2, dataset="d", charges={"w": 0.2}), entry(0.3, dataset="d", id=mine.id)])
    capsys.readouterr()
    assert main(["ledger", "import", str(source), "--into", url]) == 2
    err = capsys.readouterr().err
    assert "clash.jsonl line 2" in err and "another record" in err and "Traceback" not in err
    assert len(ledger.records(url).entries) == 1


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_epsilon_or_cap_in_a_file_is_refused(tmp_path, value, capsys):
    path = tmp_path / "l.jsonl"
    path.write_text(f'{{"fingerprint": "sha256:ab", "epsilon": {value}, "scheme": "u", "mechanism": "laplace"}}\n')
    assert main(["ledger", str(path)]) == 2
    path.write_text(f'{{"record": "cap", "dataset": "d", "cap": {value}, "period": "none"}}\n')
    assert main(["ledger", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_totals_that_overflow_are_refused_not_a_traceback_or_infinity(tmp_path, capsys):
    path = tmp_path / "l.jsonl"
    ledger.append(path, [entry(1e308, dataset="d", charges={"u": 1e308}) for _ in range(2)])
    assert main(["ledger", str(path)]) == 2
    assert "not a finite number" in capsys.readouterr().err
    with pytest.raises(ledger.ParameterError, match="not a finite number"):
        ledger.reserve_users(str(path), "d", {"u": 1.0}, cap=5.0, entry=entry())


def test_periods_are_compared_as_utc_instants(url, tmp_path):
    """An export at 23:30 at UTC−2 on 1 March is 01:30 UTC on 2 March: it counts against 2 March's daily cap."""
    source = tmp_path / "offsets.jsonl"
    source.write_text(raw_line(dataset="d", charges={"u": 1.0}, time="2026-03-01T23:30:00-02:00", id="o1")
                      + raw_line(dataset="d", charges={"v": 1.0}, time="2026-03-02T00:30:00+02:00", id="o2")
                      + json.dumps({"record": "cap", "dataset": "d", "cap": 1.0, "period": "day"}) + "\n")
    assert main(["ledger", "import", str(source), "--into", url]) == 0
    noon = datetime(2026, 3, 2, 12, tzinfo=UTC)
    granted, withheld = ledger.reserve_users(url, "d", {"u": 0.5, "v": 0.5}, entry=entry(0.5), now=noon)
    assert granted == {"v": 0.5}  # v's export was on 1 March (22:30 UTC); u's on 2 March
    assert "u" in withheld
    assert ledger.read(source)[0].time == "2026-03-02T01:30:00+00:00"
