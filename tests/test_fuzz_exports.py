"""Malformed exports from a fuzz (issue 36): UTF-16 and gzip files are read, a clock change's repeated hour is
named (and resolved by the time zone), clamped values are counted, an audit without landmarks says so."""
from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk import data, relation
from lmdk.data import mapping as mp
from lmdk.exports.export import export_scheme_release
from lmdk.present.audit import positions_headline

REALWORLD = Path(__file__).resolve().parents[2] / "shared" / "data" / "realworld"
REDD = REALWORLD / "redd_house1_channel1_epoch_header.csv"
EXCEL = REALWORLD / "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv"


@pytest.mark.skipif(not EXCEL.exists(), reason="../shared/data/realworld is absent")
def test_utf16_unicode_text_and_csv_gz_read_as_the_original(tmp_path):
    original = data.load_series(str(EXCEL))
    text = EXCEL.read_bytes().decode("utf-8-sig")
    (tmp_path / "unicode.txt").write_bytes(text.encode("utf-16"))  # Excel's "Unicode text": BOM + UTF-16 LE
    (tmp_path / "nobom.csv").write_bytes(text.encode("utf-16-le"))
    (tmp_path / "meter.csv.gz").write_bytes(gzip.compress(EXCEL.read_bytes()))
    for name in ("unicode.txt", "nobom.csv", "meter.csv.gz"):
        series = data.load_series(str(tmp_path / name))
        assert len(series) == len(original) and np.array_equal(series.values, original.values), name


@pytest.mark.skipif(not REDD.exists(), reason="../shared/data/realworld is absent")
def test_a_population_reads_a_gzipped_long_table(tmp_path):
    from lmdk.aggregate import build

    frame = pd.read_csv(REDD)
    table = pd.concat([frame.assign(user=u) for u in ("a", "b")])
    path = tmp_path / "two.csv.gz"
    path.write_bytes(gzip.compress(table.to_csv(index=False).encode()))
    agg = build(str(path), "sum", value_range=(0, 1000), bin="1h")
    assert agg.users["all"] == 2


def _autumn_csv(path: Path) -> int:
    wall = list(pd.date_range("2024-10-27 00:00", "2024-10-27 05:30", freq="30min"))
    at = wall.index(pd.Timestamp("2024-10-27 03:00"))
    times = wall[:at] + [pd.Timestamp("2024-10-27 02:00"), pd.Timestamp("2024-10-27 02:30")] + wall[at:]
    pd.DataFrame({"timestamp": [str(t) for t in times], "value": np.arange(len(times), dtype=float)}).to_csv(
        path, index=False)
    return len(times)


def test_the_repeated_autumn_hour_is_named_and_the_time_zone_resolves_it(tmp_path):
    path = tmp_path / "local.csv"
    rows = _autumn_csv(path)
    naive = data.load_series(str(path))
    assert any("02:00–02:59 on 2024-10-27 appears twice" in w and "--tz" in w for w in naive.warnings)
    spec = replace(mp.detect(str(path)).spec, timezone="Europe/Berlin")
    zoned = data.load_series(str(path), mapping=spec)
    assert len(zoned) == rows and not any("appears twice" in w for w in zoned.warnings)
    assert zoned.timestamps.is_monotonic_increasing and zoned.timestamps.is_unique


def test_release_with_tz_keeps_both_hours(tmp_path, capsys):
    from lmdk import cli

    path = tmp_path / "local.csv"
    rows = _autumn_csv(path)
    out = tmp_path / "out.csv"
    code = cli.main(["release", str(path), "--scheme", "uniform", "--epsilon", "1", "--range", "0", "25",
                     "--landmarks", "calendar:daily@02:00-03:00", "--tz", "Europe/Berlin", "--out", str(out),
                     "--summary", str(tmp_path / "s.json")])
    assert code == 0, capsys.readouterr().err
    import json

    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["events"] == rows and summary["landmarks"] == 4  # 02:00, 02:30 twice: wall clock in Berlin


def test_clamped_values_are_counted_in_the_export():
    series = data.from_values(np.array([1.0, 30.0, -2.0, 5.0, 40.0]), units="kWh")
    exported = export_scheme_release(series, [1], "uniform", 1.0, protects=relation.public_range(0, 25, "kWh"))
    assert exported.clamped == 3
    assert "Clamped: 3 of 5 values lay outside the public range [0, 25]" in exported.note


def test_aggregate_counts_clamped_readings():
    from lmdk.aggregate import build

    times = pd.date_range("2024-01-01", periods=4, freq="1h")
    table = pd.DataFrame({"user": ["a"] * 4 + ["b"] * 4, "timestamp": list(times) * 2,
                          "value": [1, 2, 99, 3, -1, 2, 2, 2]})
    agg = build(table, "sum", value_range=(0, 25))
    assert any(w.startswith("2 readings lay outside the public range [0, 25]") for w in agg.warnings)


def test_audit_without_landmarks_says_there_are_none():
    audit = {"scheme": "uniform", "landmarks": 0,
             "landmark_inference": {"by_dummies": {"none": {"auc": float("nan"), "attacker": "repeats"}}}}
    text = positions_headline([audit])
    assert "no landmarks" in text and "nan" not in text and "lets an attacker find the landmarks" not in text
