"""The Population page's synthetic fleet (its landmark rule, skew, seed and bounds) and uploads read from memory;
the comparisons drawn from it are tested in tests/present/test_present_population.py."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from population_support import fleet as small_fleet

from lmdk.errors import DataError, ParameterError
from lmdk.landmarks import parse_rule
from lmdk.population.fleet import FLEET_RULE, MAX_CELLS, QUIET, declared_rule, quiet_hours, synthetic_fleet
from lmdk.population.input import frame_source, open_source, upload_source
from lmdk.present.population import user_series
from lmdk.synthetic import DISTRIBUTIONS

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "realworld"


def test_each_user_declares_a_calendar_rule_that_marks_exactly_its_quiet_hours():
    """Issue 53: the quiet hours were found by below:0.1, a rule that reads the values; now every user declares its
    landmarks (a calendar rule drawn before any reading) and they are its quiet hours, with its share."""
    f = synthetic_fleet(40, 300, (0.1, 0.5), rng=3)
    assert set(f.distributions) <= set(DISTRIBUTIONS) and len(set(f.distributions)) > 1
    assert len(f.rules) == 40 and set(f.declared()) == {str(u) for u in range(40)}
    assert ((f.shares >= 0.1 - 1 / 24) & (f.shares <= 0.5 + 1 / 24)).all()
    source = frame_source(f.table)
    for user in range(40):
        rule = parse_rule(f.declared()[str(user)])
        assert rule.kind == "calendar" and not rule.data_dependent
        series = user_series(source, user)
        quiet = np.flatnonzero(series.values < QUIET)
        np.testing.assert_array_equal(rule.indices(series), quiet)
        assert len(quiet) == round(f.shares[user] * 300)
    assert FLEET_RULE == "declared" and parse_rule(f"below:{QUIET:g}").data_dependent


def test_the_declared_hours_follow_the_users_distribution_over_the_day():
    assert declared_rule(quiet_hours("skewed", 5)) == "calendar:daily@00:00-05:00"
    assert declared_rule(quiet_hours("symmetric", 4)) == "calendar:daily@10:00-14:00"
    assert declared_rule(quiet_hours("bimodal", 4)) == "calendar:daily@00:00-02:00+daily@22:00-24:00"
    assert quiet_hours("uniform", 4).tolist() == [0, 6, 12, 18]
    assert declared_rule([]) == "none" and declared_rule(range(24)) == "calendar:daily@00:00-24:00"
    f = synthetic_fleet(200, 240, (0.2, 0.2), rng=5)
    values = f.table["value"].to_numpy().reshape(200, 240)
    hour = np.array([(np.flatnonzero(row < QUIET) % 24).mean() for row in values])  # the start is 00:00
    assert hour[f.distributions == "skewed"].max() < 6 < hour[f.distributions == "symmetric"].min()
    with pytest.raises(ParameterError, match="hours"):
        quiet_hours("skewed", 25)


def test_the_fleet_is_deterministic_in_its_seed_and_bounded():
    a, b = synthetic_fleet(5, 50, rng=1), synthetic_fleet(5, 50, rng=1)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not synthetic_fleet(5, 50, rng=2).table.equals(a.table)
    with pytest.raises(ParameterError, match="users × events"):
        synthetic_fleet(2_000, MAX_CELLS // 2_000 + 1)
    with pytest.raises(ParameterError, match="share_range"):
        synthetic_fleet(5, 50, (0.6, 0.2))


def test_uploads_are_read_from_memory_like_files(tmp_path):
    table = small_fleet(3, 40)
    buffer = io.BytesIO()
    table.to_parquet(buffer, index=False)
    from_parquet = pd.concat(list(upload_source(buffer.getvalue(), "fleet.parquet").chunks(10_000)))
    csv = table.to_csv(index=False).encode()
    from_csv = pd.concat(list(upload_source(csv, "fleet.csv").chunks(10_000)))
    path = tmp_path / "fleet.csv"
    path.write_bytes(csv)
    from_path = pd.concat(list(open_source(path).chunks(10_000)))
    assert len(from_parquet) == len(from_csv) == len(from_path) == len(table)
    np.testing.assert_allclose(from_csv["value"].to_numpy(), from_path["value"].to_numpy())
    with pytest.raises(DataError, match="Parquet"):
        upload_source(b"PAR1 not really", "broken.parquet")


def test_the_two_taxi_tdrive_file_uploads_as_two_users():
    path = REALWORLD / "tdrive_taxi1_and_2_combined.txt"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    frame = pd.concat(list(upload_source(path.read_bytes(), path.name).chunks(10_000)))
    assert frame["user"].nunique() == 2 and {"lat", "lon"} <= set(frame.columns)
