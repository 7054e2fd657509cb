"""The Dask engine (a 2-worker LocalCluster started here) gives the in-process output, byte for byte."""
from __future__ import annotations

import pandas as pd
import pytest
from population_support import fleet, read_released

from lmdk import population
from lmdk.relation import PAPERS_UNIT_CHANGE

pytest.importorskip("distributed")


def test_local_cluster_equals_in_process(tmp_path):
    table = fleet(users=10, n=96, seed=4)
    path = tmp_path / "fleet.parquet"
    table.sample(frac=1.0, random_state=2).to_parquet(path, row_group_size=200)  # users scattered
    policy = {"landmarks": "percentile:20", "scheme": "adaptive", "epsilon": 1.0, "seed": 5}
    local = population.release(path, policy, out=tmp_path / "local", rows=300, protects=PAPERS_UNIT_CHANGE)
    dask = population.release(path, policy, out=tmp_path / "dask", workers=2, processes=False, rows=300,
                              protects=PAPERS_UNIT_CHANGE)
    pd.testing.assert_frame_equal(dask.summary, local.summary)
    pd.testing.assert_frame_equal(read_released(dask.released), read_released(local.released))


def test_local_cluster_reads_row_ranges_of_clustered_parquet(tmp_path):
    table = fleet(users=9, n=80, seed=6)
    path = tmp_path / "sorted.parquet"
    table.to_parquet(path, row_group_size=70)  # users straddle row groups; ranges are cut at user boundaries
    policy = {"landmarks": "percentile:30", "scheme": "skip", "epsilon": 2.0, "seed": 1}
    local = population.release(path, policy, out=tmp_path / "local", protects=PAPERS_UNIT_CHANGE)
    dask = population.release(path, policy, out=tmp_path / "dask", workers=2, processes=False, rows=150,
                              protects=PAPERS_UNIT_CHANGE)
    pd.testing.assert_frame_equal(dask.summary, local.summary)
    pd.testing.assert_frame_equal(read_released(dask.released), read_released(local.released))


def test_user_ranges_cut_at_user_boundaries_and_read_rows(tmp_path):
    from lmdk.population import partition
    from lmdk.population.input import open_source

    table = fleet(users=7, n=30, seed=2)
    path = tmp_path / "t.parquet"
    table.to_parquet(path, row_group_size=11)
    info = partition.scan(open_source(path), 16)
    assert info.clustered and info.users == 7 and info.rows == len(table)
    ranges = partition.user_ranges(info, 40)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(table)
    assert all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:], strict=False))
    users = table["user"].to_numpy()
    for a, b in ranges:
        assert a == 0 or users[a] != users[a - 1]  # never inside a user
        rows = partition.read_rows([str(path)], ["user", "value"], a, b).to_pandas()
        assert rows["value"].tolist() == table["value"].iloc[a:b].tolist()
