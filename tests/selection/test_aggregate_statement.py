"""Issue 33 through ``lmdk aggregate``: a data-derived rule is refused naming the declared alternatives, and with
--allow-data-landmarks every line of the statement about the landmark set names the rule that read the data."""
from __future__ import annotations

import pandas as pd

from lmdk import cli


def _table(path, a: float) -> str:
    """One user holding [20, a, 20] kWh (the issue's neighbours), as a long table."""
    pd.DataFrame({"user": 1, "timestamp": pd.date_range("2026-01-01", periods=3, freq="h"),
                  "value": [20.0, a, 20.0]}).to_csv(path, index=False)
    return str(path)


def test_aggregate_refuses_and_names_a_file_of_times(tmp_path, capsys):
    code = cli.main(["aggregate", _table(tmp_path / "u.csv", 5.0), "--statistic", "sum", "--range", "0", "25",
                     "--landmarks", "below:10", "--scheme", "skip", "--epsilon", "1", "--out", str(tmp_path / "a.csv")])
    (line,) = [t for t in capsys.readouterr().err.splitlines() if t.startswith("lmdk:")]
    assert code == cli.EXIT_VIOLATION and "calendar:" in line and "a file of times" in line


def test_aggregate_statement_names_the_data_derived_rule(tmp_path, capsys):
    out = tmp_path / "a.csv"
    code = cli.main(["aggregate", _table(tmp_path / "u.csv", 5.0), "--statistic", "sum", "--range", "0", "25",
                     "--landmarks", "below:10", "--scheme", "skip", "--epsilon", "1", "--out", str(out),
                     "--allow-data-landmarks", "--quiet"])
    assert code == 0, capsys.readouterr().err
    head = [line for line in out.read_text().splitlines() if line.startswith("#")]
    # an aggregate's event is one user's reading in a bin, not the bin's value (the statistic)
    assert head[1].startswith("# NOT PROTECTED: any one user's reading at any hour whose landmark status could change "
                              "(below:10)")
    assert any(line.startswith("# Protected: only a change of any one user's readings that leaves") for line in head)
    assert any(line.startswith("# Landmark set: computed from these values (below:10)") for line in head)
    assert any("came from the data (below:10)" in line for line in head)
    assert not any("(below:…)" in line for line in head)
