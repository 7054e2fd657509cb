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
from lmdk.population.fleet import FLEET_RULE, MAX_CELLS, synthetic_fleet
from lmdk.population.input import frame_source, open_source, upload_source
from lmdk.present.population import user_series
from lmdk.synthetic import DISTRIBUTIONS

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "realworld"


def test_the_fleet_rule_finds_exactly_the_landmarks_placed_with_each_users_share():
    f = synthetic_fleet(40, 300, (0.1, 0.5), rng=3)
    assert set(f.distributions) <= set(DISTRIBUTIONS) and len(set(f.distributions)) > 1
    assert ((f.shares >= 0.1 - 1 / 300) & (f.shares <= 0.5 + 1 / 300)).all()
    source = frame_source(f.table)
    rule = parse_rule(FLEET_RULE)
    for user in (0, 7, 39):
        series = user_series(source, user)
        assert len(series) == 300 and len(rule.indices(series)) == round(f.shares[user] * 300)


def test_skewed_users_have_their_landmarks_early():
    f = synthetic_fleet(200, 400, (0.2, 0.2), rng=5)
    values = f.table["value"].to_numpy().reshape(200, 400)
    quiet_time = np.array([np.flatnonzero(row < 0.1).mean() for row in values])
    skewed, symmetric = quiet_time[f.distributions == "skewed"], quiet_time[f.distributions == "symmetric"]
    assert skewed.mean() < 120 < symmetric.mean()


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
