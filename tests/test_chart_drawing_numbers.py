"""The shortcuts an ε change's charts take for speed (issue 56) give the numbers of the plain numpy they replace:
rounding to significant digits, bucketing for grid decimation, the release panel's 90th percentile, and a chart's
sentence read from some of a table's columns."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ui.charts import alt_text
from ui.charts.decimate import _bucketed, grid_decimate, rounded
from ui.charts.scheme_charts import _quantile, median_readable

FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)


def _rounded_before(values, digits: int) -> np.ndarray:
    """``rounded`` as it was before issue 56: the positive and negative scales apart, by boolean indexing."""
    a = np.array(values, dtype=float)
    ok = np.isfinite(a) & (a != 0)
    v = a[ok]
    k = digits - 1 - np.floor(np.log10(np.abs(v))).astype(int)
    up = k >= 0
    r = np.empty_like(v)
    with np.errstate(over="ignore", invalid="ignore"):  # subnormals: 10^310 overflows there too
        r[up] = np.round(v[up] * 10.0 ** k[up]) / 10.0 ** k[up]
        r[~up] = np.round(v[~up] / 10.0 ** -k[~up]) * 10.0 ** -k[~up]
    a[ok] = r
    return a


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(0, 40), elements=FLOATS), st.integers(3, 6))
def test_rounding_to_significant_digits_gives_the_numbers_it_gave_before(values, digits):
    assert np.array_equal(rounded(values, digits), _rounded_before(values, digits), equal_nan=True)


def test_rounding_keeps_zero_nan_and_infinities_and_the_extremes():
    values = np.array([0.0, np.nan, np.inf, -np.inf, 1.23456e300, -9.87654e-300, 123456.0, 0.000123456])
    assert np.array_equal(rounded(values, 4), [0.0, np.nan, np.inf, -np.inf, 1.235e300, -9.877e-300, 123500.0,
                                               0.0001235], equal_nan=True)
    assert np.array_equal(rounded(values.reshape(2, 4), 4), rounded(values, 4).reshape(2, 4), equal_nan=True)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(1, 60), elements=st.floats(-1e6, 1e6)), st.integers(1, 7))
def test_buckets_pad_the_last_one_with_its_final_value(values, k):
    (buckets,) = _bucketed(k, values)
    assert np.array_equal(buckets, np.pad(values, (0, -values.size % k), mode="edge").reshape(-1, k))
    line, lo, hi = grid_decimate(k, values, values - 1, values + 1)
    assert line.size == lo.size == hi.size == 2 * buckets.shape[0]


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(1, 80), elements=st.floats(0, 1e9)), st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
def test_the_percentile_of_a_panel_is_numpys(values, q):
    assert _quantile(values, q) == float(np.quantile(values, q))


def test_a_median_far_from_the_original_is_left_out_with_numpys_percentile_in_its_note():
    original = np.linspace(0, 10, 200)
    median = original + np.r_[np.zeros(150), np.full(50, 6.0)]
    shown, far = median_readable(median, original, [-5.0, 15.0])
    assert not shown and far == float(np.quantile(np.abs(median - original), 0.9)) == 6.0


TABLES = [
    pd.DataFrame({"t": np.arange(30), "landmark": np.arange(30) % 4 == 0, "a": np.linspace(0, 1, 30),
                  "b": np.arange(30) % 5, "time": [f"2024-01-01 {h % 24:02d}:00" for h in range(30)]}),
    pd.DataFrame({"scheme": ["event", "skip", "adaptive"], "mae": [1.5, 0.25, np.nan], "low": [1, 0, 2],
                  "ok": [True, False, True]}),
    pd.DataFrame({"t": np.arange(4), "latitude": [1.0, 1.1, 1.2, 1.3], "longitude": [2.0, 2.1, 2.0, 2.2],
                  "s latitude": [1.0, 1.0, 1.1, 1.2], "s longitude": [2.0, 2.2, 2.1, 2.0]}),
]


def test_a_sentence_read_from_some_columns_is_that_of_the_sub_table():
    for table in TABLES:
        for over in (None, "t"):
            for said in ([], [table.columns[1]], list(table.columns[1:3]), list(table.columns)):
                kept = [c for c in table if c == over or c in said]
                assert alt_text.sentence(table, "What", over=over, said=said) == alt_text.sentence(
                    table[kept], "What", over=over), (over, said)


def test_a_table_of_labelled_rows_is_read_row_by_row_with_its_values_as_written():
    said = alt_text.summarize(TABLES[1], "MAE")
    assert said == "MAE — event: mae 1.5, low 1, ok yes; skip: mae 0.25, low 0, ok no; adaptive: low 2, ok yes."
