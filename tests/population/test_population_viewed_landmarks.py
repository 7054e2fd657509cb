"""Issue 53: positions marked while the chart showed the values are data-derived wherever they are exported — a
``file:`` rule naming a RunConfig or the app's landmark file in ``lmdk population --config``, a policy table row or
``lmdk release --landmarks`` follows the file's ``landmark_origin`` as ``lmdk release --config`` does (a file that
does not say is read as "viewed"): refused unless declared or allowed as data-derived."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from population_support import fleet

from lmdk.cli import main
from lmdk.declared.origin import file_origin
from lmdk.errors import PolicyRefused
from lmdk.landmarks import parse_rule
from lmdk.selection.export import export_landmarks, rule_source

MARKS = [1, 5, 9, 30]


def _marks(tmp_path, name: str, **fields) -> str:
    """A landmark file holding MARKS with ``fields`` beside them; its path."""
    path = tmp_path / name
    path.write_text(json.dumps({**fields, "landmarks": MARKS}))
    return str(path)


def _population(tmp_path, landmarks: str, *extra: str) -> tuple[list[str], object]:
    """The arguments of an export of a small fleet under ``landmarks`` (a file: rule), and its output folder."""
    fleet(users=4, n=48, ids=[f"house-{i}" for i in range(4)]).to_csv(tmp_path / "meters.csv", index=False)
    (tmp_path / "policy.json").write_text(json.dumps({"landmarks": landmarks, "scheme": "skip", "epsilon": 1}))
    out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
    return ["population", str(tmp_path / "meters.csv"), "--config", str(tmp_path / "policy.json"), "--out", str(out),
            "--range", "0", "25", "--quiet", *extra], out


@pytest.mark.parametrize("fields", [{"data": "meter.csv", "events": 48}, {"data": "meter.csv", "events": 48,
                                                                           "landmark_origin": "viewed"},
                                    {"series": "meter", "source_hash": "ab12", "n": 48}])
def test_population_refuses_a_runconfigs_positions_marked_while_viewing(tmp_path, capsys, fields):
    """Before, ``file:runconfig.json`` read the positions and called them declared (Theorem 2 as stated)."""
    path = _marks(tmp_path, "marked.json", **fields)
    args, out = _population(tmp_path, f"file:{path}")
    assert main(args) == 3
    err = capsys.readouterr().err
    assert "marked while the chart showed the values" in err and "--declared-landmarks" in err
    assert "--allow-data-landmarks" in err and not out.exists()
    args, out = _population(tmp_path, f"file:{path}", "--allow-data-landmarks")
    assert main(args) == 0
    said = json.loads((out / "aggregates.json").read_text())
    assert said["landmark_set"]["kind"] == "unprotected" and "NOT PROTECTED" in json.dumps(said["guarantee"])


def test_population_keeps_positions_declared_in_the_file_or_written_as_a_list(tmp_path, capsys):
    for path in (_marks(tmp_path, "declared.json", data="meter.csv", events=48, landmark_origin="declared"),
                 str(tmp_path / "list.csv")):
        (tmp_path / "list.csv").write_text("\n".join(map(str, MARKS)))
        args, out = _population(tmp_path, f"file:{path}")
        assert main(args) == 0, capsys.readouterr().err
        said = json.loads((out / "aggregates.json").read_text())
        assert said["landmark_set"]["kind"] == "declared" and "NOT PROTECTED" not in json.dumps(said["guarantee"])


def test_a_policy_table_row_with_viewed_positions_is_refused_naming_the_row(tmp_path, capsys):
    path = _marks(tmp_path, "viewed.json", landmark_origin="viewed", data="meter.csv", events=48)
    args, _ = _population(tmp_path, "calendar:daily@01:00-06:00")
    pd.DataFrame({"user": ["house-1"], "landmarks": [f"file:{path}"], "epsilon": [1.0],
                  "scheme": ["skip"]}).to_csv(tmp_path / "table.csv", index=False)
    assert main([*args, "--policies", str(tmp_path / "table.csv")]) == 3
    err = capsys.readouterr().err
    assert "policy table row 1" in err and "marked while the chart showed the values" in err


def test_release_refuses_the_apps_landmark_file_without_an_origin(tmp_path, capsys):
    frame = fleet(users=1, n=48)
    frame[["timestamp", "value"]].to_csv(tmp_path / "meter.csv", index=False)
    path = _marks(tmp_path, "landmarks.json", series="meter", source_hash="ab12", n=48)
    args = ["release", str(tmp_path / "meter.csv"), "--scheme", "skip", "--epsilon", "1", "--range", "0", "25",
            "--landmarks", f"file:{path}", "--out", str(tmp_path / "out.csv")]
    assert main(args) == 3 and "marked while the chart showed" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()
    _marks(tmp_path, "landmarks.json", series="meter", source_hash="ab12", n=48, landmark_origin="declared")
    assert main(args) == 0, capsys.readouterr().err


def test_the_core_reads_the_files_origin(tmp_path):
    viewed = parse_rule(f"file:{_marks(tmp_path, 'v.json', landmark_origin='viewed')}")
    assert file_origin(viewed.path) == "viewed" and file_origin(_marks(tmp_path, "p.json")) == "declared"
    assert file_origin(_marks(tmp_path, "d.json", landmark_origin="data")) == "data"
    with pytest.raises(PolicyRefused, match="marked while the chart showed"):
        rule_source(viewed)
    assert rule_source(viewed, allow_data_landmarks=True).kind == "unprotected"
    from lmdk.data.series import from_values

    series = from_values(list(range(48)), pd.date_range("2024-01-01", periods=48, freq="h"))
    with pytest.raises(PolicyRefused):
        export_landmarks(series, viewed)
    assert export_landmarks(series, viewed, allow_data_landmarks=True).indices.tolist() == MARKS
