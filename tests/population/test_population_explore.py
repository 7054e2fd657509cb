"""The Population page's core: the synthetic fleet, scheme comparison, flagged users, one user's series,
uploads read from memory."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from population_support import fleet as small_fleet

from lmdk import population
from lmdk.errors import DataError, ParameterError
from lmdk.landmarks import parse_rule
from lmdk.population.explore import compare_schemes, flagged, headline, user_series
from lmdk.population.fleet import FLEET_RULE, MAX_CELLS, synthetic_fleet
from lmdk.population.input import frame_source, open_source, upload_source
from lmdk.relation import PAPERS_UNIT_CHANGE
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


def test_comparison_flags_violations_and_degenerate_users_with_a_reason():
    table = compare_schemes(frame_source(synthetic_fleet(30, 200, (0.05, 0.95), rng=0).table),
                            population.Policy(landmarks=FLEET_RULE, scheme="uniform", epsilon=1.0, seed=0),
                            ("event", "uniform", "adaptive"), protects=PAPERS_UNIT_CHANGE)
    assert sorted(table["scheme"].unique()) == ["adaptive", "event", "uniform"] and len(table) == 90
    bad = flagged(table)
    assert (bad.loc[bad["scheme"] == "event", "reason"] == "violates Theorem 2").all()
    assert len(bad[bad["scheme"] == "event"]) == 30  # every user has landmarks
    heavy = bad[(bad["scheme"] == "uniform")]
    assert (heavy["reason"] == "no better than user level").all() and heavy["landmark_share"].min() > 0.3
    text = headline(table, ("event", "uniform", "adaptive"), 1.0, "kWh")
    assert "*adaptive*" in text.split("gives")[0] and "*event* does **not** protect" in text
    # the yardstick (issue 35): each user's error of guessing the middle of the public range, without the data
    from lmdk.population.explore import guess_errors
    from lmdk.present.headlines import Guess

    fleet = synthetic_fleet(30, 200, (0.05, 0.95), rng=0).table
    guesses = guess_errors(frame_source(fleet), (0.0, 25.0))
    first = fleet[fleet["user"].astype(str) == guesses.index[0]]["value"]
    assert len(guesses) == 30 and guesses.iloc[0] == pytest.approx((first - 12.5).abs().mean())
    said = headline(table, ("event", "uniform", "adaptive"), 1.0, "kWh",
                    Guess(mae=float(guesses.median()), value=12.5, range_text="0–25 kWh"))
    assert "the middle of the public range 0–25 kWh" in said and said.count(". ") + 1 <= 2


def test_a_users_series_is_its_rows_and_an_unknown_user_is_named():
    table = small_fleet(4, 50)
    series = user_series(frame_source(table), 2)
    rows = table[table["user"] == 2]
    np.testing.assert_array_equal(series.frame["value"].to_numpy(), rows["value"].to_numpy())
    with pytest.raises(DataError, match="user '9'"):
        user_series(frame_source(table), "9")


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


def test_user_level_is_never_flagged_as_no_better_than_itself():
    table = compare_schemes(frame_source(synthetic_fleet(20, 100, rng=2).table),
                            population.Policy(landmarks=FLEET_RULE, scheme="user", epsilon=1.0, seed=0), ("user",),
                            protects=PAPERS_UNIT_CHANGE)
    assert table["degenerate"].any() and flagged(table).empty
