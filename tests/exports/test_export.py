"""export_release: the CSV of one release round-trips and leaves the originals out by default."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import lmdk
from lmdk import schemes
from lmdk.data import sample
from lmdk.errors import ParameterError
from lmdk.exports import export_release
from lmdk.exports.export import release_frame


def read(text: str) -> pd.DataFrame:
    """Parse an exported CSV (round_trip: pandas' default float parser may be off by one ulp)."""
    return pd.read_csv(io.StringIO(text), float_precision="round_trip")


def test_values_release_round_trips_bit_for_bit():
    hue = sample("hue", n=50)
    rel = schemes.release(hue.values, [3, 7, 20], "uniform", 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=2, rng=1)
    text = export_release(hue.timestamps, rel.values[0], rel.budgets[0], rel.published[0], [3, 7, 20])
    back = read(text)
    assert list(back.columns) == ["timestamp", "released", "budget", "published", "landmark"]
    np.testing.assert_array_equal(back["released"].to_numpy(), rel.values[0])  # shortest repr round-trips
    np.testing.assert_array_equal(back["budget"].to_numpy(), rel.budgets[0])
    np.testing.assert_array_equal(back["published"].to_numpy(), rel.published[0].astype(int))
    assert back["landmark"].sum() == 3 and back["landmark"][7] == 1
    assert pd.DatetimeIndex(pd.to_datetime(back["timestamp"], utc=True)).equals(hue.timestamps.tz_convert("UTC"))
    assert "original" not in text


def test_original_and_dummies_only_when_asked():
    t = pd.date_range("2020", periods=4, freq="h")
    back = read(export_release(t, [1.5, 2, 3, 4], [0.5, 0, 0.5, 0], [1, 0, 1, 0], np.array([0, 1, 0, 0], bool),
                               original=[1, 2, 3, 4], dummies=[2]))
    assert list(back.columns) == ["timestamp", "original", "released", "budget", "published", "landmark", "dummy"]
    np.testing.assert_array_equal(back["landmark"], [0, 1, 0, 0])
    np.testing.assert_array_equal(back["dummy"], [0, 0, 1, 0])


def test_two_dimensional_release_gets_named_columns():
    t = pd.date_range("2020", periods=2, freq="h")
    frame = release_frame(t, [[1, 2], [3, 4]], [1, 1], [True, True], [], names=("x", "y"), original=[[0, 0], [1, 1]])
    assert list(frame.columns[:5]) == ["timestamp", "original_x", "original_y", "released_x", "released_y"]


@pytest.mark.parametrize("kwargs,word", [
    ({"released": [1, 2, 3]}, "released"),
    ({"budgets": [1]}, "budgets"),
    ({"landmarks": [5]}, "landmarks"),
    ({"original": [1]}, "original"),
])
def test_shape_errors_name_the_argument(kwargs, word):
    args = {"timestamps": pd.date_range("2020", periods=2, freq="h"), "released": [1, 2], "budgets": [1, 1],
            "published": [1, 1], "landmarks": [0]}
    args.update(kwargs)
    with pytest.raises(ParameterError, match=word):
        export_release(**args)
