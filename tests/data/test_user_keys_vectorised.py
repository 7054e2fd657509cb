"""The vectorised path of the user key rule (issue 52): a column whose every value is a number gets its keys from
numpy — the same keys, value for value, as the per-value rule (:func:`lmdk.data.ids.user_key`) — and anything else
(text ids, an empty or non-finite value, booleans, an int beyond int64) is left to the per-value rule."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lmdk.data.ids import key_map, numeric_keys, user_key, user_keys
from lmdk.errors import DataError

FLOATS = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                   st.integers(-2**70, 2**70).map(float),  # integral floats, beyond int64 too
                   st.sampled_from([-0.0, 0.5, 1e-7, 2.0**63, -2.0**63, 2.0**63 - 1024, 9007199254740993.0]))
INTS = st.integers(-2**63, 2**63 - 1)


def per_value(values) -> list[str]:
    """The per-value rule: each value's key as :func:`user_key` gives it (a column of numbers only)."""
    return [user_key(v) for v in values]


@given(hnp.arrays(np.float64, st.integers(0, 40), elements=FLOATS))
def test_a_float_column_gets_the_per_value_keys(array):
    fast = numeric_keys(array)
    assert fast is not None  # every value a finite number: the vectorised path is taken
    assert fast == per_value(array.tolist()) == user_keys(array) == user_keys(pd.Series(array))


@given(hnp.arrays(st.sampled_from([np.int64, np.int32, np.uint8, np.uint64]), st.integers(0, 40)))
def test_an_integer_column_gets_the_per_value_keys(array):
    assert numeric_keys(array) == per_value(array) == per_value(array.tolist())


@given(st.lists(st.one_of(INTS, FLOATS), min_size=1, max_size=40))
def test_a_list_of_ints_and_floats_gets_the_per_value_keys(values):
    fast = numeric_keys(values)
    if fast is None:  # left to the per-value rule only for an int the float64 array would round
        assert any(isinstance(v, int) and abs(v) >= 2**53 for v in values)
    assert user_keys(values) == per_value(values)


@given(st.lists(st.one_of(INTS, FLOATS, st.booleans(), st.text(max_size=3), st.just(float("inf"))), min_size=1,
                max_size=20))
def test_anything_else_is_left_to_the_per_value_rule(values):
    fast = numeric_keys(values)
    if any(isinstance(v, (bool, str)) or v == float("inf") for v in values):
        assert fast is None
    elif fast is None:  # an int the float64 array would round (|v| ≥ 2^53) is left to the per-value rule too
        assert any(isinstance(v, int) and abs(v) >= 2**53 for v in values)
    else:
        assert fast == per_value(values)


def test_the_keys_of_the_issue_and_of_pandas_columns():
    assert numeric_keys(np.array([7.0, 7.5, -0.0, 1e20, 1e-7])) == ["7", "7.5", "0", "100000000000000000000", "1e-07"]
    assert user_keys(pd.Series([7, 8], dtype="Int64")) == user_keys(pd.Series([7.0, 8.0], dtype="Float64")) == [
        "7", "8"]
    assert numeric_keys(np.array([True, False])) is None and numeric_keys(["7.0", "8"]) is None
    assert numeric_keys([2**70, 1]) is None and user_keys([2**70, 1]) == [str(2**70), "1"]  # exact, per value
    assert key_map(np.array([7.0, 8.0, 7.0])) == {7.0: "7", 8.0: "8"}
    assert key_map(pd.Series([3, 1, 3, 2])) == {3: "3", 1: "1", 2: "2"}  # first appearance order


@pytest.mark.parametrize("column", [np.array([1.0, np.nan]), pd.Series([1, None], dtype="Int64"),
                                    pd.Series([1.0, None], dtype="Float64"), [1, None]])
def test_an_empty_cell_of_a_numeric_column_names_its_row(column):
    with pytest.raises(DataError, match="row 2: the user id is empty"):
        user_keys(column)
