"""The ``lmdk`` command line: release, loss, experiments; exit codes; same release as the app and the API."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import lmdk
from lmdk import cli, privacy
from lmdk.exports.export import export_release
from lmdk.exports.files import demonstration_note
from lmdk.exports.runconfig import RunConfig, scheme_rng
from lmdk.present import views

HUE_RULE = "percentile:20"  # data-derived: exports need --allow-data-landmarks or --landmark-epsilon (issue 33)
DECLARED_RULE = "calendar:daily@18:00-22:00"


def run(capsys, *argv):
    """(exit code, stdout, stderr) of one in-process ``lmdk`` call."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def app_released_csv(cfg: RunConfig, scheme: str) -> str:
    """The released-series CSV exactly as the Schemes page builds it (views.summarize → export_release)."""
    series = cfg.sample_series()
    L = np.asarray(cfg.landmarks, dtype=np.int64)
    x, mechanism, _ = views.release_input(series, L)
    rel = lmdk.release(x, L, scheme, cfg.epsilon,
                       protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism=mechanism, repetitions=cfg.repetitions,
                       rng=scheme_rng(cfg.seed, scheme), w=cfg.w)
    summ = views.summarize(scheme, x, rel, L, cfg.epsilon, mechanism)
    return export_release(series.timestamps, summ.first, summ.budgets, summ.first_published, L, seed=cfg.seed)


@pytest.fixture
def hue_config(tmp_path):
    """A RunConfig as the app saves it for the HUE sample (20 % lowest readings as landmarks)."""
    series = lmdk.sample("hue")
    L = lmdk.landmarks.by_percentile(series.values, 0.2)
    cfg = RunConfig(data="sample:hue", events=len(series), landmarks=tuple(int(i) for i in L),
                    schemes=("uniform", "adaptive"), mechanism="laplace", epsilon=1.0, w=10, repetitions=3, seed=7)
    path = tmp_path / "runconfig.json"
    path.write_text(cfg.to_json())
    return cfg, path


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_release_with_an_app_runconfig_reproduces_the_app_csv_byte_for_byte(capsys, tmp_path, hue_config, scheme):
    cfg, path = hue_config
    out = tmp_path / "released.csv"
    code, _, err = run(capsys, "release", "sample:hue", "--config", str(path), "--scheme", scheme,
                       "--seed", str(cfg.seed), "--out", str(out))
    assert code == cli.EXIT_OK, err
    assert out.read_bytes() == app_released_csv(cfg, scheme).encode()
    assert "demonstration seed 7" in err and "satisfies" in err


def test_cli_app_and_python_api_agree(capsys, hue_config):
    """Same policy and seed: the CLI's stdout equals the Python API's released_frame and the app's CSV."""
    cfg, _ = hue_config
    code, out, _ = run(capsys, "release", "sample:hue", "--scheme", "skip", "--epsilon", "1", "--landmarks",
                       HUE_RULE, "--seed", "7", "--repetitions", "3", "--quiet")
    assert code == 0
    assert out.startswith("# DEMONSTRATION ONLY")  # a seeded output says so inside itself
    first_block = pd.read_csv(pd.io.common.StringIO(out), float_precision="round_trip", comment="#")
    first_block = first_block[first_block["repetition"] == 1].drop(columns="repetition").reset_index(drop=True)
    series = lmdk.sample("hue")
    L = lmdk.landmarks.by_percentile(series.values, 0.2)
    rel = lmdk.release(series.values, L, "skip", 1.0,
                       protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="laplace", repetitions=3,
                       rng=scheme_rng(7, "skip"))
    api = lmdk.exports.export.released_frame(series, rel, L, "laplace")
    assert api.to_csv(index=False, lineterminator="\n") == first_block.to_csv(index=False, lineterminator="\n")
    assert demonstration_note(7) + "\n" + api.to_csv(index=False, lineterminator="\n") == app_released_csv(
        RunConfig(data="sample:hue", events=1000, landmarks=tuple(map(int, L)), schemes=("skip",),
                  mechanism="laplace", epsilon=1.0, repetitions=3, seed=7), "skip")


def test_without_a_seed_each_release_draws_fresh_noise(capsys, tmp_path):
    outs = []
    for _ in range(2):
        code, out, err = run(capsys, "release", "sample:hue", "--scheme", "uniform", "--epsilon", "1",
                             "--landmarks", DECLARED_RULE, "--range", "0", "25")
        assert code == 0 and "fresh OS entropy" in err
        assert out.startswith("# lmdk export: noise from fresh OS entropy") and "exact discrete Laplace" in out
        frame = pd.read_csv(pd.io.common.StringIO(out), comment="#")
        assert list(frame.columns) == ["timestamp", "released"]  # no column that reveals L
        outs.append(out)
    assert outs[0] != outs[1]


def test_a_policy_that_violates_landmark_privacy_is_refused_unless_allowed(capsys, tmp_path):
    out = tmp_path / "r.csv"
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "event", "--epsilon", "1",
                       "--landmarks", HUE_RULE, "--out", str(out), "--bound", "10", "--allow-data-landmarks")
    assert code == cli.EXIT_VIOLATION and not out.exists()
    assert "violates the landmark-privacy policy" in err and "--allow-violation" in err
    assert "|L|" not in err and "n = " not in err  # a refused export prints nothing computed from the data
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "event", "--epsilon", "1",
                       "--landmarks", HUE_RULE, "--out", str(out), "--allow-violation", "--bound", "10",
                       "--allow-data-landmarks", "--summary",
                       str(tmp_path / "s.json"))
    assert code == 0 and out.exists()
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["theorem2_holds"] is False and summary["landmarks"] == 200
    assert summary["worst_sum_over_L_and_t"] == pytest.approx(201.0)


def test_summary_matches_theorem_2_accounting(capsys, tmp_path):
    code, _, _ = run(capsys, "release", "sample:hue", "--scheme", "adaptive", "--epsilon", "0.5", "--landmarks",
                     "below:0.5", "--summary", str(tmp_path / "s.json"), "--out", str(tmp_path / "r.parquet"),
                     "--bound", "10", "--include-private-columns", "--allow-data-landmarks")
    assert code == 0
    summary = json.loads((tmp_path / "s.json").read_text())
    frame = pd.read_parquet(tmp_path / "r.parquet")
    series = lmdk.sample("hue")
    L = np.flatnonzero(series.values <= 0.5)
    assert summary["landmarks"] == L.size and len(frame) == 1000
    assert summary["theorem2_holds"] and privacy.satisfies_landmark_privacy(frame["budget"].to_numpy(), L, 0.5)


def test_trajectory_release_writes_lat_lon_columns(capsys, tmp_path):
    code, out, _ = run(capsys, "release", "sample:taxi", "--scheme", "skip", "--epsilon", "1", "--landmarks",
                       "stay:30min", "--quiet", "--radius", "200", "--bound", "50000", "--allow-data-landmarks")
    assert code == 0
    frame = pd.read_csv(pd.io.common.StringIO(out), comment="#")
    assert {"released_lat", "released_lon"} <= set(frame.columns) and len(frame) == 1000


@pytest.mark.parametrize("argv, needle", [
    (["release", "no-such-file.csv", "--epsilon", "1"], "is not a file"),
    (["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks", "median:3"],
     "unknown landmark rule"),
    (["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks", "stay:30min"],
     "needs a trajectory"),
    (["release", "sample:hue", "--scheme", "uniform", "--epsilon", "1"], "no landmarks"),
    (["release", "sample:hue", "--landmarks", "none", "--epsilon", "1"], "no scheme"),
    (["release", "sample:hue", "--scheme", "uniform", "--landmarks", "none", "--mechanism", "planar_laplace",
      "--epsilon", "1"], "does not apply"),
    (["loss", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks", "none", "--correlation", "tight"],
     "--correlation"),
])
def test_bad_input_is_one_line_naming_the_fix(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == cli.EXIT_INPUT and out == ""
    assert needle in err and "Traceback" not in err and err.count("\n") == 1


def test_bad_config_file_is_a_clean_error(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "release", "sample:hue", "--config", str(bad))
    assert code == cli.EXIT_INPUT and "not valid JSON" in err and "Traceback" not in err


def test_bad_epsilon_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["release", "sample:hue", "--epsilon", "0"])
    assert exc.value.code == 2 and "--epsilon must be a finite number > 0" in capsys.readouterr().err


def test_loss_writes_bpl_fpl_tpl_and_landmark_quantities(capsys, tmp_path, hue_config):
    _, path = hue_config
    out = tmp_path / "loss.csv"
    code, _, err = run(capsys, "loss", "sample:hue", "--config", str(path), "--scheme", "uniform",
                       "--correlation", "strong", "--out", str(out))
    assert code == 0 and "max TPL" in err
    table = pd.read_csv(out)
    assert list(table.columns) == ["timestamp", "budget", "landmark", "bpl", "fpl", "tpl", "landmark_overall",
                                   "landmark_own", "landmark_bound"]
    assert len(table) == 1000 and table["landmark"].sum() == 200
    bpl, fpl, tpl = lmdk.tpl.temporal_privacy_loss(table["budget"].to_numpy(), lmdk.tpl.transition_matrix("strong"))
    np.testing.assert_allclose(table["tpl"], tpl)
    assert (table["landmark_bound"] <= table["budget"].sum() + 1e-9).all()


def test_experiments_subcommand_is_the_runner(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["experiments", "--help"])
    assert exc.value.code == 0 and "lmdk experiments" in capsys.readouterr().out


def test_python_dash_m_lmdk_prints_help():
    done = subprocess.run([sys.executable, "-m", "lmdk", "release", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "examples:" in done.stdout and "fresh OS" in done.stdout
    assert "--range" in done.stdout and "--up-to" in done.stdout


def test_an_export_needs_a_public_range_and_one_release(capsys):
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "uniform", "--epsilon", "1",
                       "--landmarks", HUE_RULE)
    assert code == cli.EXIT_INPUT and "public range" in err
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks",
                       HUE_RULE, "--bound", "10", "--repetitions", "3")
    assert code == cli.EXIT_INPUT and "spends ε again" in err


def test_parquet_export_carries_the_note_in_its_metadata(capsys, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    code, _, _ = run(capsys, "release", "sample:hue", "--scheme", "uniform", "--epsilon", "1", "--landmarks",
                     DECLARED_RULE, "--bound", "10", "--out", str(out))
    assert code == 0 and b"fresh OS entropy" in pq.read_schema(out).metadata[b"lmdk"]


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive"])
def test_attacker_with_everything_exported_cannot_remove_the_noise(capsys, tmp_path, hue_config, scheme):
    """The attacker regenerates the noise from the RunConfig's seed and subtracts it (recovers a seeded view
    to ~1e-13); on an export the recovered series must stay at least as far from the original as the noise."""
    cfg, path = hue_config
    series = cfg.sample_series()
    L = np.asarray(cfg.landmarks)
    bound = 10.0

    def recover(released: np.ndarray) -> np.ndarray:
        zeros = lmdk.release(np.zeros(len(series)), L, scheme, cfg.epsilon,
                             protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=cfg.repetitions,
                             rng=scheme_rng(cfg.seed, scheme), w=cfg.w)
        return released - zeros.values[0]  # the regenerated noise of repetition 1

    code, demo, _ = run(capsys, "release", "sample:hue", "--config", str(path), "--scheme", scheme, "--seed",
                        str(cfg.seed), "--quiet")
    demo_values = pd.read_csv(pd.io.common.StringIO(demo), comment="#")["released"].to_numpy()
    fresh = lmdk.allocate(scheme, len(series), L, cfg.epsilon) > 0 if scheme != "adaptive" else None
    if scheme != "adaptive":  # the data-independent noise of a seeded view comes straight off where it was drawn
        assert np.max(np.abs(recover(demo_values) - series.values)[fresh]) < 1e-9
    code, export, _ = run(capsys, "release", "sample:hue", "--config", str(path), "--scheme", scheme, "--bound",
                          str(bound), "--quiet", "--allow-data-landmarks")  # the fixture's set is the lowest 20 %
    assert code == 0 and "seed" not in export.splitlines()[0]
    released = pd.read_csv(pd.io.common.StringIO(export), comment="#")["released"].to_numpy()
    budgets = lmdk.allocate(scheme if scheme != "adaptive" else "uniform", len(series), L, cfg.epsilon)
    noise_scale = float(np.median(1.0 / budgets[budgets > 0]))
    error = np.mean(np.abs(recover(released) - series.values)[fresh if fresh is not None else slice(None)])
    assert error > 0.5 * min(noise_scale, bound)


def test_a_config_marked_while_viewing_the_values_or_saying_nothing_needs_declared_landmarks(capsys, tmp_path):
    """Issue 53: the lowest 20 % typed on the Data page, saved without an origin or as "viewed", is not "declared in
    advance"; ``--declared-landmarks`` confirms a set that was, and the statement records it."""
    import dataclasses

    series = lmdk.sample("hue")
    low = tuple(int(i) for i in lmdk.landmarks.by_percentile(series.values, 0.2))
    cfg = RunConfig(data="sample:hue", events=len(series), landmarks=low, schemes=("skip",), mechanism="laplace",
                    epsilon=1.0, relation={"kind": "range", "low": 0.0, "high": 25.0})
    old, viewed = tmp_path / "old.json", tmp_path / "viewed.json"
    old.write_text(cfg.to_json())
    viewed.write_text(dataclasses.replace(cfg, landmark_origin="viewed").to_json())
    out = tmp_path / "r.csv"
    for path in (old, viewed):
        code, _, err = run(capsys, "release", "sample:hue", "--config", str(path), "--out", str(out))
        assert code == cli.EXIT_VIOLATION and not out.exists() and "Theorem 2 holds as stated" not in err
        assert f"lmdk release --config {path} --declared-landmarks" in err
    code, _, err = run(capsys, "release", "sample:hue", "--config", str(viewed), "--out", str(out),
                       "--allow-data-landmarks")
    assert code == cli.EXIT_OK and "NOT PROTECTED" in out.read_text() and "Theorem 2 holds as stated" not in err
    summary = tmp_path / "s.json"
    code, _, err = run(capsys, "release", "sample:hue", "--config", str(old), "--out", str(tmp_path / "d.csv"),
                       "--declared-landmarks", "--summary", str(summary))
    assert code == cli.EXIT_OK, err
    said = json.loads(summary.read_text())
    assert said["landmark_set"]["kind"] == "declared" and "--declared-landmarks" in said["landmark_set"]["rule"]
    assert "confirmed declared with --declared-landmarks" in said["guarantee"]["landmark_set"]
    notes = "\n".join(line for line in (tmp_path / "d.csv").read_text().splitlines() if line.startswith("#"))
    assert "confirmed declared with --declared-landmarks" in notes and "NOT PROTECTED" not in notes
    code, _, err = run(capsys, "release", "sample:hue", "--scheme", "skip", "--epsilon", "1", "--range", "0", "25",
                       "--landmarks", "none", "--declared-landmarks")
    assert code == 2 and "--config" in err


def test_release_with_a_windowed_daily_runconfig_releases_the_views_events(capsys, tmp_path):
    """A config of a window of daily sums (the app's long-series view) releases exactly those events."""
    from lmdk.data import resample

    cfg = RunConfig(data="sample:hue", events=50, landmarks=(3, 9), schemes=("uniform",), mechanism="laplace",
                    epsilon=1.0, repetitions=1, seed=7, view={"start": 200, "aggregate": "daily", "how": "sum"},
                    relation={"kind": "range", "low": 0.0, "high": 625.0}, landmark_origin="declared")
    path = tmp_path / "runconfig.json"
    path.write_text(cfg.to_json())
    out = tmp_path / "released.csv"
    code, _, err = run(capsys, "release", "sample:hue", "--config", str(path), "--out", str(out))
    assert code == cli.EXIT_OK, err
    days = resample.window(resample.aggregate(lmdk.sample("hue", n=None), "daily", "sum"), 200, 50)
    released = pd.read_csv(out, comment="#")
    assert len(released) == 50 and "Protected: any single day's value, whatever it is between 0 and 625" in err
    assert (pd.to_datetime(released["timestamp"], utc=True) == pd.to_datetime(days.timestamps, utc=True)).all()
    assert released["released"].between(0, 625).all()


def test_an_app_config_whose_landmarks_a_detector_found_is_refused_or_said_unprotected(capsys, tmp_path, hue_config):
    """Issue 33: the app records that its detector read the values; the export does not call that set declared."""
    import dataclasses

    cfg, _ = hue_config
    path = tmp_path / "data_config.json"
    path.write_text(dataclasses.replace(cfg, landmark_origin="data").to_json())
    out = tmp_path / "released.csv"
    code, _, err = run(capsys, "release", "sample:hue", "--config", str(path), "--scheme", "skip", "--range", "0",
                       "25", "--out", str(out))
    assert code == cli.EXIT_VIOLATION and "calendar:" in err and not out.exists()
    code, _, err = run(capsys, "release", "sample:hue", "--config", str(path), "--scheme", "skip", "--range", "0",
                       "25", "--out", str(out), "--allow-data-landmarks")
    assert code == cli.EXIT_OK, err
    notes = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert any("NOT PROTECTED" in line for line in notes)
    assert not any("declared in advance" in line for line in notes)
