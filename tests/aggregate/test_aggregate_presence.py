"""Issue 53, aggregates: Δ covers a user's presence (absent counts 0), rows without a user id, a public time range,
and the statement and JSON that say so — attacked as an attacker would: two neighbouring tables, many releases."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta

from lmdk import cli, relation
from lmdk.aggregate import ALL, build
from lmdk.errors import DataError

HOURS = [f"2024-01-01 {h:02d}:00" for h in range(4)]


def neighbours(tmp_path: Path) -> tuple[Path, Path]:
    """Two tables that differ only in user b's 01:00 reading: absent, or 200 (range 100 200)."""
    rows = [("a", t, 200.0) for t in HOURS] + [("b", t, 150.0) for t in HOURS if not t.endswith("01:00")]
    without, with_b = tmp_path / "without.csv", tmp_path / "with.csv"
    pd.DataFrame(rows, columns=["user", "timestamp", "value"]).to_csv(without, index=False)
    pd.DataFrame(rows + [("b", HOURS[1], 200.0)], columns=["user", "timestamp", "value"]).to_csv(with_b, index=False)
    return without, with_b


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def release_json(capsys, tmp_path: Path, table: Path, *extra) -> tuple[pd.DataFrame, dict]:
    out, summary = tmp_path / f"{table.stem}.out.csv", tmp_path / f"{table.stem}.json"
    code, _, err = run(capsys, "aggregate", table, "--statistic", "sum", "--range", 100, 200, "--landmarks",
                       "calendar:daily@02:00-03:00", "--scheme", "uniform", "--epsilon", 1e6, "--out", out,
                       "--json", summary, *extra)
    assert code == 0, err
    return pd.read_csv(out, comment="#"), json.loads(summary.read_text())


def test_the_stated_delta_bounds_what_one_users_presence_moves_a_bin(tmp_path, capsys):
    without, with_b = neighbours(tmp_path)
    a, ja = release_json(capsys, tmp_path, without)
    b, jb = release_json(capsys, tmp_path, with_b)
    moved = float(np.max(np.abs(a["released"].to_numpy() - b["released"].to_numpy())))
    assert moved == pytest.approx(200, abs=1)  # at ε = 10⁶ the release is the statistic: b's presence moves 200
    assert ja["sensitivity"] == jb["sensitivity"] == 200.0 >= moved - 1  # the JSON's Δ covers it (was 100)
    assert ja["range"] == [0, 400]  # N·min(0, LOW) .. N·max(0, HIGH): nothing is clamped
    assert build(without, "sum", value_range=(100, 200)).sensitivity == 200.0
    rel = relation.aggregate("sum", users=2, low=100, high=200)
    assert rel.sensitivity == 200.0 and rel.value_range == (0.0, 400.0)
    assert relation.aggregate("mean", users=4, low=100, high=200).sensitivity == 50.0
    assert relation.aggregate("sum", users=3, low=-5, high=-1).sensitivity == 5.0  # max(0, −1) − min(0, −5)


def clopper_pearson_lower_loss(k1: int, k0: int, trials: int, alpha: float = 1e-3) -> float:
    """Lower confidence bound of ln(P1/P0) from counts k1, k0 out of ``trials`` each."""
    p1_low = beta.ppf(alpha / 2, k1, trials - k1 + 1) if k1 > 0 else 0.0
    p0_high = beta.ppf(1 - alpha / 2, k0 + 1, trials - k0) if k0 < trials else 1.0
    return float(np.log(p1_low / p0_high)) if p1_low > 0 else -np.inf


def test_many_releases_of_the_two_neighbours_stay_within_epsilon(tmp_path):
    """The attacker releases both neighbours 20,000 times at ε = 1 and thresholds b's bin at the midpoint: with
    Δ = 100 (old) the lower bound on ε̂ is about 1.4 > 1; with Δ = 200 the loss stays under ε."""
    from lmdk import schemes

    without, with_b = neighbours(tmp_path)
    x0 = build(without, "sum", value_range=(100, 200)).series[ALL].to_numpy()
    x1 = build(with_b, "sum", value_range=(100, 200)).series[ALL].to_numpy()
    assert x1[1] - x0[1] == 200
    rel = relation.aggregate("sum", users=2, low=100, high=200)
    trials = 20_000
    draws = [schemes.release(x, [], "uniform", 1.0, protects=rel, repetitions=trials,
                             rng=np.random.default_rng(seed)).values[:, 1] for seed, x in ((1, x0), (2, x1))]
    mid = (x0[1] + x1[1]) / 2
    k0, k1 = int(np.sum(draws[0] > mid)), int(np.sum(draws[1] > mid))
    eps_low = max(clopper_pearson_lower_loss(k1, k0, trials), clopper_pearson_lower_loss(trials - k0, trials - k1,
                                                                                          trials))
    assert eps_low <= 1.0


def test_the_mean_is_not_clamped_into_bias(tmp_path):
    """b is absent in odd hours: the mean is (a + b)/N with absent as 0, released as it is at ε = 10⁶ (was 208.9
    for a true 150 because the range [100, 200] clamped it)."""
    rows = [(u, f"2024-01-01 {h:02d}:00", 150.0) for u in "ab" for h in range(24) if u == "a" or h % 2 == 0]
    table = tmp_path / "odd.csv"
    pd.DataFrame(rows, columns=["user", "timestamp", "value"]).to_csv(table, index=False)
    agg = build(table, "mean", value_range=(100, 200))
    truth = agg.series[ALL].to_numpy()
    assert truth[1] == 75.0 and truth[0] == 150.0
    out = tmp_path / "mean.csv"
    assert cli.main(["aggregate", str(table), "--statistic", "mean", "--range", "100", "200", "--landmarks",
                     "calendar:daily@02:00-03:00", "--scheme", "uniform", "--epsilon", "1e6", "--out", str(out),
                     "--quiet"]) == 0
    released = pd.read_csv(out, comment="#")["released"].to_numpy()
    assert np.mean(released) == pytest.approx(np.mean(truth), abs=0.5)
    assert not any("outside the public range" in w for w in agg.warnings)


def test_the_statement_says_n_is_public_and_absent_counts_zero(tmp_path, capsys):
    without, _ = neighbours(tmp_path)
    out = tmp_path / "s.csv"
    code, _, err = run(capsys, "aggregate", without, "--statistic", "sum", "--range", 100, 200, "--landmarks",
                       "calendar:daily@02:00-03:00", "--scheme", "skip", "--epsilon", 1, "--out", out)
    assert code == 0, err
    note = "\n".join(line for line in out.read_text().splitlines() if line.startswith("#"))
    assert "N = 2, the number of users counted from the input's user ids, is public under this relation" in note
    assert "each anywhere between 100 and 200 or absent (counted as 0)" in note
    assert "contribution lies in [0, 200] (Δ = 200)" in note


def rows_without_user(tmp_path: Path) -> Path:
    rows = [("a", t, 150.0) for t in HOURS] + [("b", t, 150.0) for t in HOURS] + [("", HOURS[1], 200.0),
                                                                                 ("", HOURS[2], 200.0)]
    path = tmp_path / "nouser.csv"
    pd.DataFrame(rows, columns=["user", "timestamp", "value"]).to_csv(path, index=False)
    return path


def test_rows_without_a_user_id_are_refused_naming_how_many_and_the_flag(tmp_path, capsys):
    table = rows_without_user(tmp_path)
    code, _, err = run(capsys, "aggregate", table, "--statistic", "mean", "--range", 0, 200, "--landmarks",
                       "calendar:daily@02:00-03:00", "--scheme", "skip", "--epsilon", 1)
    assert code == 2 and "2 rows have no user id" in err and "--drop-rows-without-user" in err
    assert "Traceback" not in err
    with pytest.raises(DataError, match="2 rows have no user id"):
        build(table, "sum", value_range=(0, 200))


def test_drop_rows_without_user_drops_them_and_reports_dropped_rows(tmp_path, capsys):
    table = rows_without_user(tmp_path)
    out, summary = tmp_path / "d.csv", tmp_path / "d.json"
    code, _, err = run(capsys, "aggregate", table, "--statistic", "mean", "--range", 0, 200, "--landmarks",
                       "calendar:daily@02:00-03:00", "--scheme", "uniform", "--epsilon", 1e6, "--out", out, "--json",
                       summary, "--drop-rows-without-user")
    assert code == 0, err
    data = json.loads(summary.read_text())
    assert data["dropped_rows"] == 2 and data["n_users"] == 2  # no pseudo-user: N counts a and b only
    assert "dropped_rows 2" in err
    released = pd.read_csv(out, comment="#")["released"].to_numpy()
    assert released == pytest.approx(np.full(4, 150.0), abs=0.5)


def test_a_public_time_range_fixes_the_released_bins(tmp_path, capsys):
    """One row of user c a day before everyone else moves the first bin a day earlier — unless the range is
    public: then the bins are exactly those of --time-range, c's early row dropped and counted, bins without
    readings released with noise."""
    rows = [(u, f"2024-01-02 {h:02d}:00", 100.0) for u in "ab" for h in range(3)] + [("c", "2024-01-01 00:00", 5.0)]
    table = tmp_path / "early.csv"
    pd.DataFrame(rows, columns=["user", "timestamp", "value"]).to_csv(table, index=False)
    out, summary = tmp_path / "r.csv", tmp_path / "r.json"
    code, _, err = run(capsys, "aggregate", table, "--statistic", "sum", "--range", 0, 200, "--landmarks",
                       "calendar:daily@02:00-03:00", "--scheme", "uniform", "--epsilon", 1, "--out", out, "--json",
                       summary, "--time-range", "2024-01-02 00:30", "2024-01-02 05:10")
    assert code == 0, err
    table_out = pd.read_csv(out, comment="#")
    assert table_out["timestamp"].tolist() == [f"2024-01-02T{h:02d}:00:00+00:00" for h in range(6)]  # widened outward
    data = json.loads(summary.read_text())
    assert data["outside_rows"] == 1 and data["time_range"] == {"start": "2024-01-02 00:00:00",
                                                                "end": "2024-01-02 06:00:00", "public": True}
    lines = out.read_text().splitlines()
    assert lines[1].startswith("# Time range: public, given in advance")
    # without it: the first lines say the span was read from the data and is not protected
    code, _, err = run(capsys, "aggregate", table, "--statistic", "sum", "--range", 0, 200, "--landmarks",
                       "calendar:daily@02:00-03:00", "--scheme", "uniform", "--epsilon", 1, "--out", out)
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines[1].startswith("# Not protected: the time range was read from the data")
    assert pd.read_csv(out, comment="#")["timestamp"].iloc[0] == "2024-01-01T00:00:00+00:00"


def test_plan_takes_the_time_range_and_the_drop_flag(tmp_path, capsys):
    table = rows_without_user(tmp_path)
    code, _, err = run(capsys, "plan", table, "--statistic", "sum", "--range", 0, 200, "--landmarks",
                       "calendar:daily@02:00-03:00", "--target-relative-mae", 0.5, "--schemes", "uniform")
    assert code == 2 and "--drop-rows-without-user" in err
    code, out, err = run(capsys, "plan", table, "--statistic", "sum", "--range", 0, 200, "--landmarks",
                         "calendar:daily@02:00-03:00", "--target-relative-mae", 0.5, "--schemes", "uniform",
                         "--drop-rows-without-user", "--time-range", "2024-01-01", "2024-01-02")
    assert code == 0, err
    assert "24 bins of 1h" in out and "Time range: public" in err
