"""Issue 53: every statement names the scheme it describes — ``lmdk release``'s printed and JSON statement,
``lmdk population``, ``lmdk aggregate`` and the app's guarantee (all built by :func:`lmdk.exports.statement.guarantee`)
— and the uniform and adaptive statements no longer explain themselves with Skip's repeats."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmdk import cli
from lmdk.exports.statement import guarantee
from lmdk.relation import public_range
from lmdk.schemes import ALL_SCHEMES

NAMES = {"uniform": "the Uniform scheme", "skip": "the Skip scheme", "adaptive": "the Adaptive scheme",
         "user": "user-level privacy", "event": "event-level privacy", "w-event": "w-event privacy (w = 4)",
         "bd": "BD (Kellaris et al. 2014)", "ba": "BA (Kellaris et al. 2014)", "fast": "FAST (Fan & Xiong 2014)",
         "pegasus": "PeGaSus"}


@pytest.mark.parametrize("scheme", ALL_SCHEMES)
def test_the_statement_names_its_scheme_in_text_lines_and_json(scheme):
    said = guarantee(public_range(0, 25), scheme, 1.0, landmarks=3, sampler="discrete", event="hour", w=4)
    assert NAMES[scheme] in said.scheme
    assert f"Released under {said.scheme}." in said.text() and f"Released under {said.scheme}." in said.lines()
    assert said.to_dict()["scheme"] == said.scheme
    if scheme != "skip":
        assert "Skip repeats" not in said.text()


def _users(path) -> str:
    rng = np.random.default_rng(5)
    times = pd.date_range("2024-01-01", periods=24, freq="h").astype(str)
    pd.concat([pd.DataFrame({"user": f"u{u}", "timestamp": times, "value": rng.uniform(0, 25, 24)})
               for u in range(3)]).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("scheme,name", [("uniform", "Uniform"), ("adaptive", "Adaptive"), ("skip", "Skip")])
def test_lmdk_aggregate_names_its_scheme(tmp_path, capsys, scheme, name):
    out = tmp_path / "a.csv"
    code = cli.main(["aggregate", _users(tmp_path / "u.csv"), "--statistic", "sum", "--range", "0", "25",
                     "--landmarks", "calendar:daily@01:00-03:00", "--scheme", scheme, "--epsilon", "1", "--out",
                     str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    head = "\n".join(line for line in out.read_text().splitlines() if line.startswith("#"))
    assert f"# Released under the {name} scheme." in head
    assert ("Skip repeats the previous value" in head) == (scheme == "skip")


def test_lmdk_population_names_its_scheme(tmp_path, capsys):
    (tmp_path / "p.json").write_text(json.dumps({"landmarks": "calendar:daily@01:00-03:00", "scheme": "adaptive",
                                                 "epsilon": 1.0}))
    code = cli.main(["population", _users(tmp_path / "m.csv"), "--config", str(tmp_path / "p.json"), "--range", "0",
                     "25", "--quiet", "--out", str(tmp_path / "o")])
    assert code == 0, capsys.readouterr().err
    said = json.loads((tmp_path / "o" / "aggregates.json").read_text())["guarantee"]
    assert said["scheme"] == "the Adaptive scheme" and said["text"].startswith("Released under the Adaptive scheme.")


def test_lmdk_release_names_its_scheme_in_print_and_json(tmp_path, capsys):
    summary = tmp_path / "s.json"
    code = cli.main(["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks",
                     "calendar:daily@18:00-22:00", "--range", "0", "25", "--out", str(tmp_path / "r.csv"),
                     "--summary", str(summary)])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert "Released under the Uniform scheme." in err
    said = json.loads(summary.read_text())["guarantee"]
    assert said["scheme"] == "the Uniform scheme" and "Released under the Uniform scheme." in said["text"]
    assert "Skip repeats" not in said["text"]
