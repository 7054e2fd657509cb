"""The loader's words reach the command line: the detected mapping, every warning, --strict, daylight saving."""
from __future__ import annotations

import pandas as pd

from lmdk import cli

IOWA = "date,source,megawatthours\n" + "".join(
    f"2024-01-{d:02d},{s},{100 + d + i}\n" for d in range(1, 18) for i, s in enumerate(("Coal", "Wind", "Nuclear")))


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_release_prints_the_mapping_and_every_warning(capsys, tmp_path):
    path = tmp_path / "iowa.csv"
    path.write_text(IOWA)
    code, _, err = run(capsys, "release", str(path), "--scheme", "event", "--epsilon", "1", "--landmarks", "none",
                       "--range", "0", "500", "--out", str(tmp_path / "r.csv"))
    assert code == 0, err
    assert f"read {path} as: delimiter ','" in err and "'megawatthours'" in err
    assert "warning: 51 rows shared 17 timestamps; averaged them" in err and "'source'" in err


def test_strict_turns_warnings_into_an_error(capsys, tmp_path):
    path = tmp_path / "iowa.csv"
    path.write_text(IOWA)
    code, out, err = run(capsys, "release", str(path), "--scheme", "event", "--epsilon", "1", "--landmarks", "none",
                         "--range", "0", "500", "--strict")
    assert code == cli.EXIT_INPUT and out == "" and err.count("\n") == 1
    assert "--strict" in err and "averaged them" in err


def test_daylight_saving_offsets_are_converted_and_said(capsys, tmp_path):
    spring = ["2024-03-31 00:00+01:00", "2024-03-31 01:00+01:00", "2024-03-31 03:00+02:00", "2024-03-31 04:00+02:00"]
    autumn = ["2024-10-27 01:00+02:00", "2024-10-27 02:00+02:00", "2024-10-27 02:00+01:00", "2024-10-27 03:00+01:00"]
    path = tmp_path / "meter.csv"
    path.write_text("timestamp,kwh\n" + "".join(f"{t},{0.5 + i / 10}\n" for i, t in enumerate(spring + autumn)))
    out = tmp_path / "r.csv"
    code, _, err = run(capsys, "release", str(path), "--scheme", "event", "--epsilon", "1", "--landmarks", "none",
                       "--range", "0", "25", "--out", str(out))
    assert code == 0, err
    assert "warning: timestamps carried UTC offsets +01:00 and +02:00 (daylight saving); converted to UTC" in err
    times = pd.to_datetime(pd.read_csv(out, comment="#")["timestamp"])
    assert len(times) == 8 and times.is_unique and str(times.dt.tz) == "UTC"
