"""The generated 'Reproduce in Python' script runs as is and prints the numbers the Schemes page shows."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import lmdk
from lmdk.exports.runconfig import RunConfig, scheme_rng
from lmdk.present import views
from lmdk.present.reproduce import schemes_script

ROOT = Path(__file__).resolve().parents[1]
REALWORLD = ROOT.parent / "shared" / "data" / "realworld"


def run_script(text: str, tmp_path: Path) -> dict[str, float]:
    script = tmp_path / "reproduce_schemes.py"
    script.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    return {r[0]: float(r[1]) for r in rows}


def page_mae(series, cfg: RunConfig) -> dict[str, float]:
    """The MAE the Schemes page computes (ui.session.cache.scheme_summary → views.summarize)."""
    x, mechanism, _ = views.release_input(series, cfg.landmarks)
    out = {}
    for s in cfg.schemes:
        rel = lmdk.release(x, np.asarray(cfg.landmarks), s, cfg.epsilon,
                           protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism=mechanism,
                           repetitions=cfg.repetitions, rng=scheme_rng(cfg.seed, s), w=cfg.w)
        out[s] = views.summarize(s, x, rel, cfg.landmarks, cfg.epsilon, mechanism).mae
    return out


def test_script_for_the_bundled_sample_prints_the_pages_mae(tmp_path):
    series = lmdk.sample("hue")
    L = tuple(int(i) for i in lmdk.landmarks.by_percentile(series.values, 0.2))
    cfg = RunConfig(data="sample:hue", events=1000, landmarks=L, schemes=("user", "uniform", "adaptive"),
                    mechanism="laplace", epsilon=0.5, w=10, repetitions=20, seed=4)
    got = run_script(schemes_script(cfg), tmp_path)
    want = page_mae(series, cfg)
    assert set(got) == set(want)
    for s in want:
        assert got[s] == pytest.approx(want[s], rel=1e-5)  # printed with 6 significant figures


@pytest.mark.skipif(not REALWORLD.is_dir(), reason="../shared/data/realworld is absent")
def test_script_for_an_upload_reads_the_file_with_the_views_import_mapping(tmp_path):
    from lmdk.data import mapping

    path = REALWORLD / "uci_hourly_kwh_excel_de_bom_semicolon_decimalcomma.csv"
    detection = mapping.detect(path)
    series = mapping.apply(path, detection.spec)
    cfg = RunConfig(data="sha256:" + series.source_hash, events=len(series), landmarks=(3, 4, 5),
                    schemes=("skip", "user"), mechanism="laplace", epsilon=1.0, repetitions=5, seed=1,
                    mapping=detection.spec.to_dict())
    got = run_script(schemes_script(cfg, data_path=str(path)), tmp_path)
    want = page_mae(series, cfg)
    for s in want:
        assert got[s] == pytest.approx(want[s], rel=1e-5)


def test_tpl_script_prints_the_temporal_loss_pages_maxima(tmp_path):
    """The second page: the Temporal privacy loss view's three maxima, as ui.session.cache_loss computes them."""
    from lmdk import privacy, tpl
    from lmdk.present.reproduce import tpl_script

    series = lmdk.sample("hue")
    L = tuple(int(i) for i in lmdk.landmarks.by_percentile(series.values, 0.2))
    cfg = RunConfig(data="sample:hue", events=1000, landmarks=L, schemes=("uniform", "adaptive"),
                    mechanism="laplace", epsilon=1.0, w=10, repetitions=10, seed=2)
    P = tpl.transition_matrix("strong")
    script = tmp_path / "reproduce_tpl.py"
    script.write_text(tpl_script(cfg, "adaptive", P), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    printed = {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in done.stdout.splitlines()[1:]}
    x, mechanism, _ = views.release_input(series, L)
    rel = lmdk.release(x, np.asarray(L), "adaptive", 1.0,
                       protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism=mechanism, repetitions=10,
                       rng=scheme_rng(2, "adaptive"), w=10)
    budgets = views.summarize("adaptive", x, rel, L, 1.0, mechanism).budgets  # what the page analyses
    _, _, tpl_t = tpl.temporal_privacy_loss(budgets, P)
    overall = tpl.landmark_temporal_privacy_loss(budgets, np.asarray(L), P).overall
    assert printed["max TPL"] == pytest.approx(tpl_t.max(), rel=1e-5)
    assert printed["max overall loss with landmarks"] == pytest.approx(overall.max(), rel=1e-5)
    assert printed["same without correlation"] == pytest.approx(privacy.landmark_loss(budgets, L).max(), rel=1e-5)


def test_overview_script_prints_the_examples_verdicts(tmp_path):
    from lmdk.present.reproduce import overview_script

    script = tmp_path / "reproduce_overview.py"
    script.write_text(overview_script([1, 3, 5], 1.0), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    verdicts = {line.split()[0]: line.split()[-1] for line in done.stdout.splitlines()[1:]}
    assert verdicts == {"event": "violates", "user": "satisfies", "uniform": "satisfies", "skip": "satisfies"}
    uniform = next(line for line in done.stdout.splitlines() if line.startswith("uniform"))
    assert "0.25" in uniform and "worst Σ = 1" in uniform  # ε/(|L|+1) with three landmarks


@pytest.mark.parametrize("source", ["taxi", "walk"])
def test_spatiotemporal_script_prints_the_pages_leakage_and_distances(tmp_path, source):
    from lmdk import priste
    from lmdk.present.reproduce import spatiotemporal_script
    from lmdk.priste import views as pv

    view = {"source": source, "T": 12, "cell_m": 500, "side": 6, "trace_seed": 2, "estimate": source == "taxi",
            "sigma": 1.0, "kind": "presence", "window": (3, 6), "region": [0, 1, 2, 7], "epsilon": 0.5,
            "alpha": 0.5, "delta": None, "repetitions": 2, "seed": 4}
    script = tmp_path / "reproduce_spatiotemporal.py"
    script.write_text(spatiotemporal_script(view), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    # the page's computation (pages/spatiotemporal_events.py → run_comparison)
    if source == "walk":
        grid, M, cells = pv.synthetic_walk(6, 6, 500.0, 1.0, 12, 2)
    else:
        latlon = lmdk.data.sample("taxi", n=12, seed=2).latlon()
        grid, cells = pv.snap_trace(latlon[:, 0], latlon[:, 1], 500.0)
        M = priste.estimate_transition(cells, 0.01, m=grid.m)
    mask = np.zeros(grid.m, dtype=bool)
    mask[[0, 1, 2, 7]] = True
    res = pv.compare(cells, priste.Event("presence", mask, np.arange(3, 7)), 0.5, 0.5, M, grid, 2, seed=4)
    assert f"mean distance {res.priste_distance_m:.6g} m" in done.stdout
    assert f"max median leakage {res.plain_leakage['median'].max():.6g}" in done.stdout


def test_dummies_script_prints_the_pages_selection_and_mae(tmp_path):
    from lmdk import dummies
    from lmdk.present.reproduce import dummies_script
    from ui.session import cache, cache_loss, state

    series = lmdk.sample("hue", n=300)
    landmarks = tuple(range(5, 300, 10))
    cfg = RunConfig(data="sample:hue", events=300, landmarks=landmarks, schemes=("uniform", "adaptive"),
                    mechanism="laplace", epsilon=1.0, w=10, repetitions=4, seed=3)
    script = tmp_path / "reproduce_dummies.py"
    script.write_text(dummies_script(cfg, "partitioned", "position", 0.05, state.SCHEME_NAMES), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    # what the page computes (ui.session.cache_loss, the same functions pages/dummy_landmarks.py calls)
    x, mechanism, _ = views.release_input(series, np.asarray(landmarks))
    token, L = "test", np.asarray(landmarks, dtype=np.int64)
    sel = cache_loss.selection(token, 300, L, 0.05, "partitioned", "position", 3)
    assert f"|L′| = {sel.chosen.size:,}" in done.stdout
    assert f"chosen {dummies.membership_disclosure(sel).chosen:.6g}" in done.stdout
    options = (("protects", lmdk.relation.PAPERS_UNIT_CHANGE),)  # ui.session.relation.options
    maes = cache_loss.dummy_maes(cache.data_key(token, x, L), ("uniform", "adaptive"), 1.0, mechanism, 4, 3, 10,
                                 "partitioned", 0.05, "position", options, _token=token, _x=x, _landmarks=L)
    for scheme, (mae, ci) in maes.items():
        assert f"{scheme:<10} MAE with dummies {mae:.6g} (95 % CI {ci[0]:.6g} to {ci[1]:.6g})" in done.stdout
