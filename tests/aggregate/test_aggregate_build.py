"""Aggregate streams (lmdk.aggregate.build): what each statistic counts, and that one user moves a bin by ≤ Δ."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmdk.aggregate import ALL, Region, build
from lmdk.errors import DataError, ParameterError

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "realworld"
T0 = pd.Timestamp("2024-01-01")


def _table(values: dict[str, list[float]], freq: str = "1h") -> pd.DataFrame:
    """A long table: user → readings at T0, T0 + freq, …"""
    rows = [(u, T0 + k * pd.Timedelta(freq), v) for u, vs in values.items() for k, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["user", "timestamp", "value"])


def test_sum_clamps_each_reading_and_a_missing_user_contributes_zero():
    table = _table({"a": [1.0, 30.0, 2.0], "b": [-5.0, 4.0]})
    agg = build(table, "sum", value_range=(0, 25))
    assert agg.series[ALL].tolist() == [1.0, 25.0 + 4.0, 2.0]
    assert agg.users == {ALL: 2} and agg.sensitivity == 25.0 and agg.statistic_range() == (0.0, 50.0)
    assert agg.series[ALL].index[0] == T0 and agg.bin == "1h"


def test_mean_divides_the_sum_by_the_number_of_users():
    agg = build(_table({"a": [1.0, 3.0], "b": [3.0, 5.0], "c": [2.0, 1.0]}), "mean", value_range=(0, 25))
    assert agg.series[ALL].tolist() == pytest.approx([2.0, 3.0])
    assert agg.statistic_range() == (0.0, 25.0)


def test_readings_sharing_a_bin_are_averaged_with_a_warning_that_counts_them():
    table = _table({"a": [1.0, 3.0, 10.0, 20.0]}, freq="30min")
    agg = build(table, "sum", value_range=(0, 25), bin="1h")
    assert agg.series[ALL].tolist() == [2.0, 15.0]
    assert any("2 readings shared a bin" in w for w in agg.warnings)


def test_groups_compose_in_parallel_and_small_groups_are_warned_about():
    table = _table({"a": [1.0], "b": [2.0], "c": [4.0]})
    groups = pd.DataFrame({"user": ["a", "b", "c"], "group": ["north", "north", "south"]})
    agg = build(table, "sum", value_range=(0, 25), groups=groups)
    assert agg.series["north"].tolist() == [3.0] and agg.series["south"].tolist() == [4.0]
    assert agg.users == {"north": 2, "south": 1}
    assert any("fewer than 10 users: north, south" in w for w in agg.warnings)
    with pytest.raises(DataError, match=r"exactly one group; in two or more: 'a' \(north, south\)"):
        build(table, "sum", value_range=(0, 25), groups=pd.concat([groups, pd.DataFrame({"user": ["a"],
                                                                                          "group": ["south"]})]))


def test_contact_counts_cap_each_person_per_bin_and_count_a_pair_once():
    t = [T0, T0 + pd.Timedelta("1min"), T0 + pd.Timedelta("2min"), T0 + pd.Timedelta("3min")]
    rows = pd.DataFrame({"user": ["a", "b", "a", "b"], "contact": ["b", "a", "c", "c"], "timestamp": t})
    rows.loc[1, "timestamp"] = t[0]  # (b, a) at the same time is (a, b) listed under the other person
    one = build(rows, "count", bin="5min")
    assert one.series[ALL].tolist() == [1.0] and one.sensitivity == 1.0 and one.users == {ALL: 3}
    assert any("2 contact rows were dropped" in w for w in one.warnings)
    two = build(rows, "count", bin="5min", max_per_user=2)
    assert two.series[ALL].tolist() == [3.0] and two.sensitivity == 2.0 and two.statistic_range() == (0.0, 6.0)


def test_location_counts_count_users_inside_the_region_once_per_bin():
    table = pd.DataFrame({"user": ["a", "a", "b", "c"],
                          "timestamp": [T0, T0 + pd.Timedelta("10min"), T0, T0 + pd.Timedelta("1h")],
                          "lat": [48.0, 48.0001, 48.0, 10.0], "lon": [11.0, 11.0, 11.0005, 10.0]})
    agg = build(table, "count", region=Region(48.0, 11.0, 100.0))
    assert agg.series[ALL].tolist() == [2.0, 0.0] and agg.sensitivity == 1.0


@given(st.lists(st.floats(-10, 40), min_size=6, max_size=6), st.lists(st.floats(-10, 40), min_size=6, max_size=6),
       st.lists(st.floats(-10, 40), min_size=6, max_size=6))
def test_one_user_moves_any_bin_of_the_sum_by_at_most_delta(others, mine, changed):
    before = build(_table({"x": others, "me": mine}), "sum", value_range=(0, 25))
    after = build(_table({"x": others, "me": changed}), "sum", value_range=(0, 25))
    moved = np.max(np.abs(before.series[ALL].to_numpy() - after.series[ALL].to_numpy()))
    assert moved <= before.sensitivity * (1 + 1e-12)


def test_the_aggregate_is_a_series_every_concept_applies_to():
    agg = build(_table({"a": [1.0, 2.0, 3.0], "b": [1.0, 1.0, 1.0]}), "sum", value_range=(0, 25))
    series = agg.to_series(units="kWh")
    assert series.kind == "values" and series.values.tolist() == [2.0, 3.0, 4.0] and "2 users" in series.name
    with pytest.raises(ParameterError, match="no group 'x'"):
        agg.to_series("x")


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"statistic": "median", "value_range": (0, 25)}, "statistic must be one of"),
    ({"statistic": "sum"}, "public range of one reading"),
    ({"statistic": "count"}, "count applies to contacts"),
    ({"statistic": "sum", "value_range": (0, 25), "bin": "soon"}, "not a time width"),
    ({"statistic": "sum", "value_range": (5, 5)}, "low < high"),
    ({"statistic": "sum", "value_range": (0, 25), "max_per_user": 0}, "max_per_user"),
])
def test_bad_parameters_name_the_field(kwargs, words):
    with pytest.raises(ParameterError, match=words):
        build(_table({"a": [1.0]}), **kwargs)


@pytest.mark.skipif(not (REALWORLD / "sociopatterns_primaryschool.csv").exists(), reason="../shared absent")
def test_sociopatterns_contacts_per_five_minutes():
    agg = build(REALWORLD / "sociopatterns_primaryschool.csv", "count", bin="5min")
    counts = agg.series[ALL]
    assert agg.users == {ALL: 242} and agg.sensitivity == 1.0
    assert counts.max() <= 242 // 2  # K = 1: one contact per person and bin, so at most N/2 pairs
    assert counts.sum() > 10_000 and any("contact rows were dropped" in w for w in agg.warnings)


@pytest.mark.slow
def test_dask_gives_the_in_process_aggregate(tmp_path):
    """Clustered Parquet (row ranges at user boundaries, no shuffle) and an in-memory table (shuffled by user) on a
    LocalCluster give the same sums and warnings as the in-process build."""
    rng = np.random.default_rng(5)
    table = _table({f"u{i}": rng.uniform(-2, 30, size=48).tolist() for i in range(12)}, freq="20min")
    path = tmp_path / "fleet.parquet"
    table.to_parquet(path, index=False)
    groups = pd.DataFrame({"user": [f"u{i}" for i in range(12)], "group": ["a"] * 6 + ["b"] * 6})
    from distributed import LocalCluster

    local = build(path, "sum", value_range=(0, 25), groups=groups)
    # one cluster of two worker processes for both sources, reached by its address as --scheduler does (a cluster
    # per build, workers=2, took ~10 s to start each time)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        for source in (path, table):
            spread = build(source, "sum", value_range=(0, 25), groups=groups, scheduler=cluster.scheduler_address,
                           rows=100)
            for g in ("a", "b"):
                assert np.allclose(spread.series[g].to_numpy(), local.series[g].to_numpy())
            assert spread.users == local.users and spread.warnings == local.warnings
