"""Text alternatives of the charts (ui.charts.alt_text) and the typed landmark positions (ui.landmark_keys), issue
28."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from ui import landmark_keys
from ui.charts import alt_text


def test_a_budget_table_reads_as_one_sentence():
    budgets = {"event": np.ones(8), "skip": np.array([1, 0, 1, 0, 1, 0, 1, 1.0])}
    table = alt_text.budget_table(budgets, [1, 3, 5])
    assert list(table.columns) == ["t", "landmark", "event εₜ", "skip εₜ"]
    said = alt_text.summarize(table, "Budget εₜ per timestamp", over="t")
    assert said == ("Budget εₜ per timestamp for t = 0–7 (8 values): landmark: 3 of 8; event εₜ 1 throughout; "
                    "skip εₜ 0 to 1 (mean 0.625).")


def test_labelled_rows_are_read_row_by_row():
    rows = pd.DataFrame({"scheme": ["event", "user"], "MAE": [0.5, 4.0]})
    assert alt_text.summarize(rows, "MAE per scheme") == "MAE per scheme — event: MAE 0.5; user: MAE 4."


def test_dummies_are_flagged_apart_from_landmarks():
    table = alt_text.series_table(pd.date_range("2024-01-01", periods=5, freq="h", tz="UTC"), np.arange(5.0),
                                  [1], value_name="kWh", dummies=[1, 2])
    assert table["landmark"].tolist() == [False, True, False, False, False]
    assert table["dummy"].tolist() == [False, False, True, False, False]  # a landmark is never a dummy
    assert table["time"][0] == "2024-01-01 00:00:00"


def test_a_path_is_said_as_its_extent():
    lat, lon = np.array([50.0, 50.01, 50.02]), np.array([8.0, 8.01, 8.0])
    said = alt_text.summarize(alt_text.track_table(range(3), lat, lon, [2]), "The path", over="t")
    assert "the path within 0.715 km × 2.21 km around (50.0100, 8.0050)" in said and "landmark: 1 of 3" in said


def test_many_columns_are_cut_and_named_columns_kept():
    wide = pd.DataFrame({"t": range(3), **{f"c{i}": np.arange(3.0) + i for i in range(12)}})
    said = alt_text.summarize(wide, "Wide", over="t")
    assert said.endswith("; 4 more columns in the data.") and "c7" in said and "c8" not in said


def test_long_tables_are_thinned_for_display_only():
    shown, step = alt_text.thin(pd.DataFrame({"a": range(1_234)}))
    assert step == 3 and len(shown) <= alt_text.TABLE_ROWS + 1 and shown["a"].iloc[-1] == 1_233


def test_a_figure_without_a_table_is_read_from_its_named_traces():
    fig = go.Figure([go.Scatter(y=[1, 3, 2], name="a"), go.Scatter(y=[0, 0, 0], hoverinfo="skip", name="edge"),
                     go.Bar(x=[1.0, 2.0], y=["u", "v"], orientation="h", name="b")])
    table = alt_text.figure_table(fig)
    assert sorted(set(table["trace"])) == ["a", "b"]
    assert alt_text.summarize(table, "X") == "X (5 points): a 1 to 3 (mean 2); b 1 to 2 (mean 1.5)."


def test_summarize_by_gives_one_value_per_group():
    data = pd.DataFrame({"scheme": ["a", "a", "b"], "AUC": [0.5, 0.6, 0.9]})
    assert alt_text.summarize_by(data, "scheme", "AUC", "AUC") == "AUC: a 0.6; b 0.9."


@pytest.mark.parametrize("typed, expected", [
    ("12, 40–45", [12, 40, 41, 42, 43, 44, 45]),
    ("1 2;3 .. 5, 7 to 8", [1, 2, 3, 4, 5, 7, 8]),
    (" 9 - 10 ", [9, 10]),
    ("5, 5, 4-5", [4, 5]),
])
def test_typed_positions_are_parsed(typed, expected):
    assert landmark_keys.parse_positions(typed, 100).tolist() == expected


@pytest.mark.parametrize("typed, says", [
    ("", "type positions first"), ("abc", "'abc' is not a position"), ("5-3", "runs backwards"),
    ("99, 100", "positions run from 0 to 99"), ("-1", "not a position"),
])
def test_bad_positions_are_named(typed, says):
    with pytest.raises(ValueError, match=says):
        landmark_keys.parse_positions(typed, 100)


def test_timestamps_read_as_pandas_writes_them_local_and_vectorised():
    import pandas as pd

    dst = pd.date_range("2024-03-30", periods=60, freq="h", tz="Europe/London")  # across the spring change
    assert alt_text.time_labels(dst) == [str(t) for t in dst.tz_localize(None)]
    assert alt_text.time_labels(pd.DatetimeIndex(["2024-01-01 08:00", None])) == ["2024-01-01 08:00:00", "NaT"]
    assert alt_text.time_labels(pd.DatetimeIndex(["2024-01-01 00:00:00.5", "2024-01-01 00:00:01"])) == [
        "2024-01-01 00:00:00.500000", "2024-01-01 00:00:01.000000"]  # one precision for the whole column
    assert alt_text.time_labels(["a", "b"]) == ["a", "b"]


def _random_columns(seed: int) -> tuple[dict, str | None, list | None]:
    """A random chart table as plain columns: labels, t, times, flags, integers, floats with NaN, constants."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 5, 12, 13, 200]))
    cols: dict = {}
    if n <= 12 and rng.random() < 0.5:
        cols["scheme"] = [f"s{j}" if rng.random() < 0.9 else "same" for j in range(n)]
    cols["t"] = np.arange(n)
    if rng.random() < 0.5:
        cols["time"] = [f"2024-01-01 {j:02d}" for j in range(n)]
    for c in range(int(rng.integers(0, 11))):
        pick = rng.random()
        if pick < 0.2:
            cols[f"c{c}"] = rng.random(n) < 0.3
        elif pick < 0.4:
            cols[f"c{c}"] = rng.integers(-5, 5, n)
        elif pick < 0.5:
            cols[f"c{c}"] = np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n))
        elif pick < 0.55:
            cols[f"c{c}"] = np.full(n, 3.0)
        else:
            cols[f"c{c}"] = rng.normal(size=n) * 10.0 ** rng.integers(-3, 5)
    if rng.random() < 0.2:
        cols["latitude"], cols["longitude"] = rng.normal(size=n) + 50, rng.normal(size=n)
    said = [c for c in cols if rng.random() < 0.5] if rng.random() < 0.4 else None
    return cols, ("t" if rng.random() < 0.5 else None), said


@pytest.mark.parametrize("seed", range(60))
def test_plain_columns_read_as_the_dataframe_of_them_does(seed):
    """The pages hand a chart's numbers over as plain columns (the DataFrame is built only when "Show data" opens):
    the sentence is the one the DataFrame of the same columns gets, word for word."""
    cols, over, said = _random_columns(seed)
    assert alt_text.sentence(cols, "What", over=over, said=said) == alt_text.sentence(
        pd.DataFrame(cols), "What", over=over, said=said)


def test_the_column_builders_are_their_tables():
    """budget_columns / release_columns / rows_columns hold what budget_table / release_table / rows_table do."""
    budgets = {"uniform": np.full(6, 0.5), "skip": np.array([1, 0, 1, 1, 0, 1.0])}
    pd.testing.assert_frame_equal(pd.DataFrame(alt_text.budget_columns(budgets, [1, 4], dummies=[2])),
                                  alt_text.budget_table(budgets, [1, 4], dummies=[2]))
    summaries = {"skip": (np.arange(6.0), np.arange(6.0) - 1, np.arange(6.0) + 1)}
    times = pd.date_range("2024-01-01", periods=6, freq="h")
    columns = alt_text.release_columns(times, np.ones(6), summaries, value_name="kWh")
    pd.testing.assert_frame_equal(pd.DataFrame(columns),
                                  alt_text.release_table(times, np.ones(6), summaries, value_name="kWh"))
    rows = [{"scheme": "a", "mae": 1.0, "clamped": 0.5}, {"scheme": "b", "mae": 2.0}]
    pd.testing.assert_frame_equal(pd.DataFrame(alt_text.rows_columns(rows, alt_text.MAE_COLUMNS)),
                                  alt_text.rows_table(rows, alt_text.MAE_COLUMNS))
    assert alt_text.summarize(alt_text.rows_columns(rows, alt_text.MAE_COLUMNS), "MAE") == (
        "MAE — a: MAE 1, MAE clamped 0.5; b: MAE 2.")
