"""``lmdk release --scheme bd|ba|fast|pegasus``: the export's budget column holds the ε each timestamp spends, so it
sums correctly in any window (BD/BA), over the series (FAST) and per event (PeGaSus); Theorem 2 still refuses."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import lmdk
from lmdk import cli, schemes
from lmdk.exports.runconfig import scheme_rng
from lmdk.relation import public_range


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def read_export(path) -> pd.DataFrame:
    text = path.read_text(encoding="utf-8")
    return pd.read_csv(io.StringIO("\n".join(line for line in text.splitlines() if not line.startswith("#"))))


@pytest.mark.parametrize("scheme", ["bd", "ba", "fast", "pegasus"])
def test_release_exports_the_budget_each_timestamp_spends(capsys, tmp_path, scheme):
    out, summary = tmp_path / "released.csv", tmp_path / "summary.json"
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", scheme, "--w", "24", "--epsilon", "1",
                       "--landmarks", "none", "--range", "0", "25", "--include-private-columns",
                       "--summary", str(summary), "--out", str(out))
    assert code == cli.EXIT_OK, err
    frame = read_export(out)
    budget = frame["budget"].to_numpy()
    assert len(frame) == len(lmdk.sample("hue")) and np.all((frame["released"] >= 0) & (frame["released"] <= 25))
    if scheme in ("bd", "ba"):
        sums = np.convolve(budget, np.ones(24))[:len(budget)]  # every window of 24 consecutive hours
        assert sums.max() <= 1 + 1e-9 and budget.min() >= 0
        assert "any 24 consecutive hours together" in out.read_text()
    elif scheme == "fast":
        assert budget.sum() <= 1 + 1e-9 and frame["published"].sum() == np.count_nonzero(budget)
    else:
        assert np.allclose(budget, 1.0) and frame["published"].all()
    facts = json.loads(summary.read_text())
    assert facts["scheme"] == scheme and facts["sampler"] == "discrete" and facts["theorem2_holds"]
    assert "does not use the landmark set" in facts["guarantee"]["protected"]


def test_seeded_release_is_the_apps_view(capsys, tmp_path):
    out = tmp_path / "demo.csv"
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "ba", "--w", "12", "--epsilon", "0.5",
                       "--landmarks", "none", "--range", "0", "25", "--seed", "3", "--out", str(out))
    assert code == cli.EXIT_OK, err
    series = lmdk.sample("hue")
    rel = schemes.release(series.values, [], "ba", 0.5, protects=public_range(0, 25, "kWh"), w=12,
                          rng=scheme_rng(3, "ba"))
    assert np.allclose(read_export(out)["released"].to_numpy(), rel.values[0])


def test_event_level_pegasus_violates_landmark_privacy_unless_allowed(capsys, tmp_path):
    argv = ["release", "sample:hue", "--scheme", "pegasus", "--epsilon", "1", "--landmarks", "percentile:20",
            "--range", "0", "25", "--out", str(tmp_path / "p.csv"), "--allow-data-landmarks"]
    code, _, err = run(capsys, *argv)
    assert code == cli.EXIT_VIOLATION and "violates the landmark-privacy policy" in err and "|L|" not in err
    code, _, err = run(capsys, *argv, "--allow-violation")
    assert code == cli.EXIT_OK, err


def test_locations_are_refused_in_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "release", "sample:taxi", "--scheme", "fast", "--epsilon", "1", "--landmarks", "none",
                       "--radius", "200", "--bound", "50000", "--out", str(tmp_path / "t.csv"))
    assert code != cli.EXIT_OK and "values (laplace) only" in err


def test_loss_refuses_a_baseline_whose_budgets_depend_on_the_data(capsys, tmp_path):
    """``lmdk loss`` analyses data-independent allocations; the app's temporal-loss page analyses a baseline's run."""
    code, _, err = run(capsys, "loss", "sample:hue", "--scheme", "fast", "--epsilon", "1", "--landmarks",
                       "percentile:20", "--out", str(tmp_path / "loss.csv"))
    assert code != cli.EXIT_OK and "one series only" in err and len(err.strip().splitlines()) == 1
