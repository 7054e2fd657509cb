"""The policy table (lmdk.policies): reading CSV, Parquet and JSON, errors naming the row and column, the
officer's bounds and which policy each user gets."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from lmdk.errors import ParameterError
from lmdk.policies import NO_POLICY, Bounds, PolicyTableError, assign, read_table, table_from_frame
from lmdk.population import Policy

ROWS = [{"user": "alice", "landmarks": "calendar:mon-fri@18:00-22:00", "epsilon": 1.0, "scheme": "adaptive"},
        {"user": 7, "landmarks": "times:t.txt", "epsilon": 0.5, "scheme": "skip", "w": None,
         "dummies": {"share": 0.05}},
        {"user": "carol", "landmarks": "none", "epsilon": 3.0, "scheme": "w-event", "w": 4, "mechanism": "laplace"}]
BASE = Policy("none", "adaptive", 1.0, relation={"kind": "range", "low": 0, "high": 25, "unit": "kWh"})


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "t.txt").write_text("2024-01-01 10:00\n")
    return tmp_path


def _check(table, folder):
    assert [r.user for r in table.rows] == ["alice", "7", "carol"]
    assert table.for_user(7).landmarks == f"times:{folder / 't.txt'}"  # read next to the table
    assert table.for_user("7").dummies["share"] == 0.05 and table.for_user(7.0).scheme == "skip"
    assert table.for_user("carol").w == 4 and table.for_user("carol").mechanism == "laplace"
    assert table.for_user("dave") is None


def test_csv_parquet_and_json_give_the_same_table(folder):
    frame = pd.DataFrame(ROWS).assign(dummies=[None, json.dumps({"share": 0.05}), None]).astype({"user": str})
    frame.to_csv(folder / "p.csv", index=False)
    frame.to_parquet(folder / "p.parquet")
    (folder / "p.json").write_text(json.dumps({"policies": ROWS}))
    tables = [read_table(folder / name) for name in ("p.csv", "p.parquet", "p.json")]
    for table in tables:
        _check(table, folder)
    assert tables[0].rows == tables[1].rows == tables[2].rows


def test_the_downloaded_csv_reads_back(folder):
    table = read_table(_write(folder, ROWS))
    (folder / "again.csv").write_text(table.to_csv())
    assert read_table(folder / "again.csv").rows == table.rows


def _write(folder, rows) -> str:
    path = folder / "p.json"
    path.write_text(json.dumps(rows))
    return str(path)


@pytest.mark.parametrize(("change", "message"), [
    ({"epsilon": 0}, "row 2 (user 7), column 'epsilon': 0.0 is not a budget; write a number > 0"),
    ({"epsilon": "lots"}, "column 'epsilon'"),
    ({"scheme": "magic"}, "row 2 (user 7), column 'scheme': 'magic' is not one of event, user"),
    ({"mechanism": "gauss"}, "column 'mechanism'"),
    ({"w": 1.5}, "column 'w': 1.5 is not a window length"),
    ({"dummies": "{count"}, "column 'dummies': '{count' is not JSON"),
    ({"dummies": {"colour": 1}}, "column 'dummies'"),
    ({"landmarks": "sometimes"}, "row 2 (user 7), column 'landmarks': unknown landmark rule"),
    ({"landmarks": "ics:missing.ics"}, "column 'landmarks': the file 'missing.ics' of 'ics:missing.ics' does not "
                                       "exist"),
    ({"landmarks": ""}, "column 'landmarks': the cell is empty"),
    ({"user": None}, "row 2, column 'user': the cell is empty"),
])
def test_errors_name_the_row_the_column_and_the_fix(folder, change, message):
    rows = [dict(ROWS[0]), {**ROWS[1], **change}]
    with pytest.raises(PolicyTableError) as caught:
        read_table(_write(folder, rows))
    assert message in str(caught.value)


def test_table_level_errors(folder):
    with pytest.raises(PolicyTableError, match="lacks the column"):
        table_from_frame(pd.DataFrame({"user": ["a"], "epsilon": [1]}))
    with pytest.raises(PolicyTableError, match="unknown column"):
        table_from_frame(pd.DataFrame([{**ROWS[0], "seed": 3}]))
    with pytest.raises(PolicyTableError, match="rows 1 and 2, column 'user': user alice has two policies"):
        table_from_frame(pd.DataFrame([ROWS[0], ROWS[0]]))
    (folder / "bad.ics").write_text("not a calendar")
    with pytest.raises(PolicyTableError, match="row 1 .*not an iCalendar file"):
        read_table(_write(folder, [{**ROWS[0], "landmarks": "ics:bad.ics"}]))
    with pytest.raises(ParameterError, match="cannot be read"):
        read_table(folder / "absent.csv")


def test_assign_rows_default_and_no_policy(folder):
    table = read_table(_write(folder, ROWS))
    default = Policy("calendar:daily@01:00-06:00", "uniform", 0.5, relation=BASE.relation)
    plan = assign(table, default, default)
    assert plan.origins[0] == "--config" and plan.of("dave") == 0
    alice = plan.variants[plan.of("alice")]
    assert (alice.landmarks, alice.scheme, alice.epsilon, alice.relation) == (
        "calendar:mon-fri@18:00-22:00", "adaptive", 1.0, default.relation)  # the row over --config's settings
    assert plan.origins[plan.of(7)] == "policy table row 2"
    no_default = assign(table, None, BASE)
    assert no_default.of("dave") == NO_POLICY and len(no_default.variants) == 3


def test_bounds_withhold_the_row_naming_it_and_the_bound(folder):
    table = read_table(_write(folder, ROWS))
    plan = assign(table, None, BASE, Bounds(max_epsilon=2.0, schemes=("adaptive", "w-event")))
    assert plan.of("carol") == "refused: policy table row 3 (user carol): epsilon 3 is over --max-epsilon 2"
    assert plan.of(7) == ("refused: policy table row 2 (user 7): scheme 'skip' is not among --schemes "
                          "adaptive,w-event")
    assert isinstance(plan.of("alice"), int) and [r.user for r, _ in plan.refused] == ["7", "carol"]
    selecting = Policy("none", "adaptive", 1.0, landmark_epsilon=1.5, relation=BASE.relation)
    data_rows = table_from_frame(pd.DataFrame([{**ROWS[0], "landmarks": "percentile:20"}, ROWS[2]]))
    plan = assign(data_rows, None, selecting, Bounds(max_epsilon=2.0))
    assert "epsilon 2.5 is over" in plan.of("alice")  # the bound is on ε + ε_sel of a selected set
    assert plan.of("carol").endswith("epsilon 3 is over --max-epsilon 2")  # a declared row selects nothing
    assert assign(table, None, selecting).variants[0].landmark_epsilon is None
    with pytest.raises(ParameterError, match="--config: epsilon 3 is over --max-epsilon 2"):
        assign(table, Policy("none", "adaptive", 3.0), BASE, Bounds(max_epsilon=2.0))
    with pytest.raises(ParameterError, match="--schemes"):
        Bounds(schemes=("adaptive", "fast"))


def test_a_csv_cell_with_commas_must_be_quoted(folder):
    path = folder / "p.csv"
    path.write_text('user,landmarks,epsilon,scheme\nvan,"place:52.52,13.40,200",1,adaptive\n')
    assert read_table(path).for_user("van").landmarks == "place:52.52,13.40,200"
    path.write_text("user,landmarks,epsilon,scheme\nvan,place:52.52,13.40,200,1,adaptive\n")
    with pytest.raises(PolicyTableError, match="quote a cell that holds commas"):
        read_table(path)
