"""The Dask engine (a 2-worker LocalCluster started here) gives the in-process output, byte for byte."""
from __future__ import annotations

import pandas as pd
import pytest

from lmdk import population
from population_support import fleet, read_released

pytest.importorskip("distributed")


def test_local_cluster_equals_in_process(tmp_path):
    table = fleet(users=10, n=96, seed=4)
    path = tmp_path / "fleet.parquet"
    table.sample(frac=1.0, random_state=2).to_parquet(path, row_group_size=200)  # users scattered
    policy = {"landmarks": "percentile:20", "scheme": "adaptive", "epsilon": 1.0, "seed": 5}
    local = population.release(path, policy, out=tmp_path / "local", rows=300)
    dask = population.release(path, policy, out=tmp_path / "dask", workers=2, processes=False, rows=300)
    pd.testing.assert_frame_equal(dask.summary, local.summary)
    pd.testing.assert_frame_equal(read_released(dask.released), read_released(local.released))
