"""A population release does not depend on batching, chunking, row order or a user split across chunks."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from population_support import fleet, read_released

from lmdk import population
from lmdk.population import partition, seeding
from lmdk.population.input import open_source
from lmdk.relation import PAPERS_UNIT_CHANGE, public_range

POLICY = {"landmarks": "percentile:20", "scheme": "adaptive", "epsilon": 1.0, "seed": 7}


def _run(table, tmp_path, name, **kwargs):
    """release() into tmp_path/name; returns (result, released rows)."""
    result = population.release(table, POLICY, out=tmp_path / name, protects=PAPERS_UNIT_CHANGE, **kwargs)
    return result, read_released(result.released)


def test_same_output_whatever_the_batches_chunks_and_row_order(tmp_path):
    small_fleet = fleet()
    base, rows = _run(small_fleet, tmp_path, "base")
    variants = {
        "tiny batches": dict(batch_cells=100),  # one user per batch
        "small chunks": dict(rows=37),  # users split across chunks (carried over)
        "shuffled": dict(table=small_fleet.sample(frac=1.0, random_state=3), rows=200),  # hash buckets on disk
    }
    for name, kwargs in variants.items():
        table = kwargs.pop("table", small_fleet)
        other, other_rows = _run(table, tmp_path, name.replace(" ", "_"), **kwargs)
        pd.testing.assert_frame_equal(other.summary, base.summary, obj=name)
        pd.testing.assert_frame_equal(other_rows, rows, obj=name)


def test_a_user_split_across_parquet_row_groups(tmp_path):
    table = fleet(users=4, n=50, ragged=False)
    path = tmp_path / "fleet.parquet"
    table.to_parquet(path, row_group_size=30)  # every user straddles a row-group boundary
    whole, rows = _run(table, tmp_path, "frame")
    split, split_rows = _run(path, tmp_path, "parquet", rows=30)
    assert list(split.summary["n"]) == [50] * 4
    pd.testing.assert_frame_equal(split.summary, whole.summary)
    pd.testing.assert_frame_equal(split_rows, rows)


def test_carry_over_and_buckets_yield_whole_users():
    small_fleet = fleet()
    source = open_source(small_fleet)
    for frames in (partition.carried(source.chunks(25)), partition.spilled(source, 25, len(small_fleet))):
        seen = []
        for frame in frames:
            users = pd.unique(frame["user"]).tolist()
            assert not set(users) & set(seen)
            seen += users
        assert sorted(seen) == sorted(pd.unique(small_fleet["user"]).tolist())
    assert partition.scan(source, 25).clustered
    assert not partition.scan(open_source(small_fleet.sample(frac=1.0, random_state=0)), 25).clustered


def test_user_streams_are_keyed_by_seed_scheme_and_id():
    def draw(seed, scheme, user):
        return seeding.user_generator(seed, scheme, user).random()
    assert draw(1, "uniform", 7) == draw(1, "uniform", "7") == draw(1, "uniform", np.int64(7))
    assert len({draw(1, "uniform", 7), draw(2, "uniform", 7), draw(1, "skip", 7), draw(1, "uniform", 8)}) == 4


def test_unseeded_releases_are_fresh_and_record_no_entropy(tmp_path):
    small_fleet = fleet()
    policy = {**POLICY, "seed": None, "landmark_epsilon": 0.5}  # a data-derived rule, selected privately (issue 33)
    a = population.release(small_fleet, policy, out=tmp_path / "a", protects=public_range(-50, 50))
    b = population.release(small_fleet, policy, out=tmp_path / "b", protects=public_range(-50, 50))
    assert not np.array_equal(read_released(a.released)["released"], read_released(b.released)["released"])
    assert json.loads((tmp_path / "a" / "policy.json").read_text())["seed"] is None
    assert a.aggregates["sampler"] == "discrete" and a.aggregates["demonstration_seed"] is None
    assert a.aggregates["sensitivity"] == 100.0  # the public range [−50, 50]
    assert "any single reading's value, whatever it is between -50 and 50, at ε = 1.5 (landmark selection ε_sel = 0.5" \
        in a.aggregates["guarantee"]["protected"]
    released = read_released(a.released)
    assert set(released.columns) == {"user", "timestamp", "released"}  # no columns that reveal L
    first = next(a.released.rglob("*.parquet"))  # the export note travels in every file's metadata
    assert b"fresh OS entropy" in pq.read_schema(first).metadata[b"lmdk"]


def test_summary_matches_the_release(tmp_path):
    small_fleet = fleet()
    result, rows = _run(small_fleet, tmp_path, "s")
    s = result.summary
    assert s["theorem2_holds"].all() and (s["worst_sigma"] <= 1.0 + 1e-9).all()
    counts = rows.groupby("user").size()
    assert counts.to_dict() == dict(zip(s["user"].astype(str), s["n"], strict=True))
    assert (s["landmarks"] == np.round(0.2 * s["n"]).astype(int)).all()
    lm = rows.groupby("user")["landmark"].sum()
    assert lm.to_dict() == dict(zip(s["user"].astype(str), s["landmarks"], strict=True))
    pub = rows.groupby("user")["published"].mean()
    assert np.allclose(pub.loc[s["user"].astype(str)].to_numpy(), s["published_share"])
    agg = result.aggregates
    assert agg["users"] == 12 and agg["violated"] == 0 and sum(agg["landmark_share_histogram"]["counts"]) == 12
    assert agg["mae_quantiles"]["0.5"] == pytest.approx(float(np.median(s["mae"])))
