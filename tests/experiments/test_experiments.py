"""Tests of the experiment runner: registry, CLI validation, determinism, outputs, every figure at a tiny size."""
from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from lmdk.cli import experiments as command
from lmdk.errors import ParameterError
from lmdk.experiments import runner as ex


def _toy_run(cfg: dict, reps: int, rng: np.random.Generator) -> pd.DataFrame:
    """A toy figure: noisy draws around the configured mean."""
    return pd.DataFrame({"repetition": np.arange(reps), "value": cfg["mu"] + rng.normal(size=reps)})


TOY = ex.FigureSpec(
    name="toy-test", paper="landmark", title="toy", claim="none",
    configs=lambda: [{"mu": float(m), "label": f"m{m}"} for m in range(5)],
    run=_toy_run, summarise=ex.by_measures("value"), default_repetitions=7, block=3,
)


@pytest.fixture(autouse=True)
def _toy_registered():
    ex.FIGURES[TOY.name] = TOY
    yield
    ex.FIGURES.pop(TOY.name, None)


def test_registry_lists_both_papers_in_order():
    names = ex.figure_names("all")
    assert names.index("fig7") < names.index("fig11")
    assert all(ex.FIGURES[n].paper == "landmark" for n in ex.figure_names("landmark"))


def test_toy_summary_is_tidy_and_blocks_cover_all_repetitions():
    df = ex.run_figure("toy-test", seed=3)
    assert list(df.columns[:3]) == ["mu", "label", "repetitions"]
    assert (df["repetitions"] == 7).all() and len(df) == 5
    assert (df["value_ci_low"] <= df["value"]).all() and (df["value"] <= df["value_ci_high"]).all()
    # means near the configured centre (7 draws, sd 1 → |error| < 3 with overwhelming probability)
    assert np.all(np.abs(df["value"] - df["mu"]) < 3)


def test_same_seed_same_csv_regardless_of_jobs(tmp_path):
    a = ex.run_figure("toy-test", seed=11, jobs=1)
    b = ex.run_figure("toy-test", seed=11, jobs=2)
    c = ex.run_figure("toy-test", seed=12, jobs=1)
    pa, pb = ex.write_csv(a, tmp_path / "a.csv"), ex.write_csv(b, tmp_path / "b.csv")
    assert pa.read_bytes() == pb.read_bytes()
    assert not np.allclose(a["value"], c["value"])


def test_run_figure_rejects_bad_arguments():
    with pytest.raises(ParameterError, match="unknown figure"):
        ex.run_figure("fig99")
    with pytest.raises(ParameterError, match="repetitions"):
        ex.run_figure("toy-test", repetitions=0)
    with pytest.raises(ParameterError, match="seed"):
        ex.run_figure("toy-test", seed=-1)
    with pytest.raises(ParameterError, match="jobs"):
        ex.run_figure("toy-test", jobs=0)


def test_progress_printer_writes_to_stream():
    buf = io.StringIO()
    ex.run_figure("toy-test", progress=buf)
    assert "toy-test" in buf.getvalue() and "15/15" in buf.getvalue()  # 5 configs × 3 blocks


def test_progress_callback_gets_every_task():
    calls: list[tuple[int, int]] = []
    ex.run_figure("toy-test", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(i, 15) for i in range(1, 16)]


def test_progress_callback_with_jobs_counts_to_total():
    calls: list[tuple[int, int]] = []
    ex.run_figure("toy-test", jobs=2, progress=lambda done, total: calls.append((done, total)))
    assert [d for d, _ in calls] == list(range(1, 16)) and {t for _, t in calls} == {15}


def test_mean_ci_edge_cases():
    assert ex.mean_ci(np.array([2.0])) == (2.0, 0.0, 2.0, 2.0)
    assert all(np.isnan(v) for v in ex.mean_ci(np.array([np.nan])))
    mean, std, lo, hi = ex.mean_ci(np.array([1.0, 2.0, 3.0]))
    assert mean == 2.0 and std == 1.0 and lo < 2.0 < hi


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fig99"], "unknown figure 'fig99'"),
        (["fig7", "--repetitions", "0"], "--repetitions must be between 1"),
        (["fig7", "--repetitions", "ten"], "--repetitions must be a whole number"),
        (["fig7", "--seed", "-4"], "seed must be non-negative"),
        (["fig7", "--jobs", "0"], "--jobs must be between 1"),
        (["fig7", "--formats", "csv,pdf"], "formats must be a comma-separated subset"),
        ([], "the following arguments are required: FIGURE"),
    ],
)
def test_cli_rejects_bad_arguments_with_clear_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        command.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_rejects_out_that_is_a_file(tmp_path, capsys):
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(SystemExit):
        command.main(["toy-test", "--out", str(f)])
    assert "is not a directory" in capsys.readouterr().err


def test_cli_writes_csv_and_json(tmp_path, capsys):
    assert command.main(["toy-test", "--out", str(tmp_path), "--formats", "csv", "--quiet", "--seed", "5"]) == 0
    df = pd.read_csv(tmp_path / "toy-test.csv")
    assert len(df) == 5 and (tmp_path / "toy-test.json").exists()
    assert "toy-test: 5 rows" in capsys.readouterr().out


def test_module_entry_point_reports_unknown_figure():
    proc = subprocess.run([sys.executable, "-m", "lmdk", "experiments", "nope"], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown figure 'nope'" in proc.stderr


def test_every_registered_figure_has_a_chart_and_a_tiny_test():
    assert set(ex.figure_names("all")) <= set(TINY_TESTED) | {"toy-test"}
    from lmdk.experiments import charts as experiments_charts

    assert set(ex.figure_names("all")) - {"toy-test"} <= set(experiments_charts.CHARTS)


TINY_TESTED = ["fig7", "fig8", "fig9", "fig10", "fig11", "priste-budget", "priste-utility", "priste-runtime",
               "priste-table2", "baselines"]  # baselines: tests/baselines/test_baselines_figure.py


@pytest.mark.parametrize("name", ["fig7", "fig8", "fig9", "fig10", "fig11", "priste-budget"])
def test_every_landmark_figure_runs_tiny_and_is_well_formed(name):
    spec = ex.figures()[name]
    grid = spec.configs()
    few = grid[:: max(len(grid) // 4, 1)][:4] if name.startswith("fig") else grid[:1]
    df = ex.run_figure(name, repetitions=2, seed=1, configs=few)
    keys = list(dict.fromkeys(k for c in few for k in c))
    assert len(df) >= len(few) and all(k in df.columns for k in keys)
    numeric = df.select_dtypes("number").drop(columns=[c for c in df if c.endswith(("_std", "_ci_low", "_ci_high"))])
    assert np.isfinite(numeric.drop(columns=["value"], errors="ignore").to_numpy(dtype=float)).all()
    from lmdk.experiments import charts as experiments_charts

    fig = experiments_charts.figure_chart(name, df)
    assert len(fig.data) > 0


def test_real_figure_same_csv_across_jobs(tmp_path):
    few = ex.figures()["fig10"].configs()[:3]
    a = ex.run_figure("fig10", repetitions=3, seed=4, jobs=1, configs=few)
    b = ex.run_figure("fig10", repetitions=3, seed=4, jobs=2, configs=few)
    assert ex.write_csv(a, tmp_path / "a.csv").read_bytes() == ex.write_csv(b, tmp_path / "b.csv").read_bytes()


def test_priste_utility_tiny_covers_every_panel_and_is_well_formed():
    grid = ex.figures()["priste-utility"].configs()
    few = [next(c for c in grid if c["panel"].startswith(p) and c["epsilon"] == 2.0)
           for p in ("fig12", "fig13", "fig14")]
    df = ex.run_figure("priste-utility", repetitions=2, seed=1, configs=few)
    assert len(df) == 3 and (df["repetitions"] == 2).all()
    assert {"panel", "alpha0", "delta", "sigma", "epsilon", "mean_alpha", "mean_distance_m", "halvings"} <= set(df)
    measures = df[["mean_alpha", "mean_distance_m", "halvings"]].to_numpy(dtype=float)
    assert np.isfinite(measures).all()
    # PriSTE only ever lowers the budget: 0 < mean α ≤ α₀
    assert ((df["mean_alpha"] > 0) & (df["mean_alpha"] <= df["alpha0"] + 1e-12)).all()
    assert (df["mean_distance_m"] >= 0).all()
    from lmdk.experiments import charts as experiments_charts

    assert len(experiments_charts.figure_chart("priste-utility", df).data) > 0


def test_priste_runtime_tiny_has_positive_times_and_brute_force_measured_only_when_small():
    few = [{"vary": "length", "size": 3}, {"vary": "width", "size": 8}]
    df = ex.run_figure("priste-runtime", repetitions=2, seed=1, configs=few)
    assert {"vary", "size", "width", "length", "method", "seconds", "extrapolated"} <= set(df)
    assert set(df["method"]) == {"priste_joint", "priste_worst_case", "brute_force_joint"}
    assert len(df) == 6 and (df["repetitions"] == 2).all()
    assert np.isfinite(df["seconds"]).all() and (df["seconds"] > 0).all()
    assert (df.loc[df["method"] != "brute_force_joint", "extrapolated"] == 0).all()
    brute = df[df["method"] == "brute_force_joint"].set_index("vary")
    assert brute.loc["length", "extrapolated"] == 0  # 5³ = 125 sequences: fully enumerated
    assert brute.loc["width", "extrapolated"] == 1  # 8⁵ = 32768 sequences: beyond the 128 timed, whatever the load
    assert list(df.loc[df["vary"] == "width", "length"].unique()) == [5]
    from lmdk.experiments import charts as experiments_charts

    assert len(experiments_charts.figure_chart("priste-runtime", df).data) > 0


# -------------------------------------------------------------------- chart builders (no runs: hand-made summaries)


def _fig7_summary() -> pd.DataFrame:
    """A fig7-shaped summary: every configuration of two data sets at 0/20/40 %, MAE growing with the scheme."""
    from lmdk.experiments import landmark as el

    rows = [c for c in el.fig7_configs() if c["dataset"] in ("hue", "contacts") and c["landmark_pct"] <= 40]
    df = pd.DataFrame(rows)
    df["mae"] = np.where(df["unit"] == "kWh", 10.0 ** (np.arange(len(df)) % 4), 40.0) + df["dummies"] * 5
    return df.assign(mae_ci_low=df["mae"] * 0.9, mae_ci_high=df["mae"] * 1.1, repetitions=3)


def test_fig7_chart_groups_bars_per_scheme_with_dummy_diamonds_on_the_same_offset():
    from lmdk.experiments import charts as ech

    fig = ech.figure_chart("fig7", _fig7_summary())
    bars = [t for t in fig.data if t.type == "bar"]
    diamonds = [t for t in fig.data if t.type == "scatter" and t.mode == "markers"]
    lines = [t for t in fig.data if t.type == "scatter" and t.mode == "lines+markers"]
    assert {t.name for t in bars} == {"skip", "uniform", "adaptive"} and len(bars) == 6  # 3 schemes × 2 panels
    assert {t.name for t in diamonds} == {"skip + dummies", "uniform + dummies", "adaptive + dummies"}
    assert all(t.marker.symbol == "diamond" for t in diamonds)
    assert {t.offsetgroup for t in diamonds} == {t.offsetgroup for t in bars} == {"skip", "uniform", "adaptive"}
    assert {t.name for t in lines} == {"event-level", "user-level"}
    assert fig.layout.barmode == "group" and fig.layout.scattermode == "group"
    assert list(bars[0].x) == ["0 %", "20 %", "40 %"]  # categorical: bars sit on the measured percentages
    for t in bars + diamonds + lines:  # one colour per scheme, the dashboard's
        scheme = t.name.split(" ")[0].removesuffix("-level")
        colour = t.marker.color if t.type == "bar" else (t.line.color if t in lines else t.marker.color)
        assert colour == ech.SCHEME_COLORS[scheme]
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert len(legend) == len(set(legend)) == 8  # each entry once, not once per panel


def test_fig7_chart_log_axis_shows_decades_only_with_units():
    from lmdk.experiments import charts as ech

    fig = ech.figure_chart("fig7", _fig7_summary())
    hue, contacts = fig.layout.yaxis, fig.layout.yaxis2
    assert hue.type == "log" and "kWh" in hue.title.text and "%" in contacts.title.text
    assert contacts.type != "log"
    assert all(np.log10(v) == round(np.log10(v)) for v in hue.tickvals)
    assert list(hue.ticktext) == ["1", "10", "100", "1\u2009000"]


def test_bands_are_fills_without_markers_and_clipped_at_zero():
    from lmdk.experiments import charts as ech

    df = pd.DataFrame({"landmark_pct": [0, 20, 40], "distribution": "uniform", "metric": "euclidean",
                       "distance": [0.01, 0.02, 0.0], "distance_ci_low": [-0.01, 0.01, -0.02],
                       "distance_ci_high": [0.03, 0.03, 0.02]})
    fig = ech.figure_chart("fig10", df)
    band = next(t for t in fig.data if t.fill == "toself")
    assert band.mode == "lines" and min(band.y) == 0.0
    assert "rgba" in band.fillcolor  # translucent fill, opaque line


def test_fig11_chart_bars_per_share_in_shades_of_uniform_blue():
    from lmdk.experiments import charts as ech

    rows = [{"dataset": "hue", "unit": "kWh", "landmark_pct": p, "dummy_share": sh, "mae": 100 * sh + p}
            for p in (0, 20) for sh in (0.01, 0.1, 0.25, 0.5)]
    fig = ech.figure_chart("fig11", pd.DataFrame(rows))
    assert [t.name for t in fig.data] == ["1 %", "10 %", "25 %", "50 %"]
    assert [t.marker.color for t in fig.data] == ech.SHARE_BLUES
    assert fig.layout.yaxis.title.text == "MAE (kWh)"


def test_priste_budget_chart_rows_per_plm_with_reference_and_event_windows():
    from lmdk.experiments import charts as ech
    from lmdk.experiments import priste as ep

    rows = [{"panel": p, "epsilon": e, "alpha0": a, "t": t, "repetitions": 2, "alpha": a / (2 + t) * e}
            for p in ep.PANELS for e in (0.1, 1.0) for a in ep.ALPHAS for t in range(30)]
    fig = ech.figure_chart("priste-budget", pd.DataFrame(rows))
    refs = [t for t in fig.data if t.name == "α₀ (no calibration)"]
    assert len(refs) == len(ep.PANELS) * len(ep.ALPHAS)
    assert sorted({t.y[0] for t in refs}) == sorted(ep.ALPHAS)
    windows = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(windows) == len(ep.ALPHAS) * 5  # one window per panel, two in Fig. 10
    curves = [t for t in fig.data if t.name and t.name.startswith("ε =")]
    assert min(min(t.x) for t in curves) == 1  # timestamps drawn 1-based like the paper
    assert all(fig.layout[f"yaxis{i or ''}"].type == "log" for i in range(0, 9) if i != 1)


def test_configurations_with_the_same_run_key_run_once_and_keep_the_others_seeds(monkeypatch):
    import dataclasses

    spec = ex.figures()["priste-utility"]
    grid = spec.configs()
    pick = [next(c for c in grid if c["panel"].startswith(p) and c["sigma"] == s and c["alpha0"] == 1.0
                 and c["epsilon"] == 2.0) for p, s in (("fig12", 1.0), ("fig14", 1.0), ("fig14", 2.0))]
    calls = []
    real_task = ex._run_task
    monkeypatch.setattr(ex, "_run_task", lambda *a: calls.append(a[1]["panel"]) or real_task(*a))
    shared = ex.run_figure("priste-utility", repetitions=2, seed=3, configs=pick)
    assert len(calls) == 2 and list(shared["panel"]) == [c["panel"] for c in pick]  # fig14 σ = 1 was not run
    measures = ["mean_alpha", "mean_distance_m", "halvings", "mean_alpha_ci_low"]
    assert shared.loc[1, measures].tolist() == shared.loc[0, measures].tolist()
    monkeypatch.setitem(ex.FIGURES, "priste-utility", dataclasses.replace(spec, run_key=None))
    separate = ex.run_figure("priste-utility", repetitions=2, seed=3, configs=pick)
    assert len(calls) == 5
    pd.testing.assert_frame_equal(separate.loc[[0, 2]], shared.loc[[0, 2]])  # the others keep their seeds
    assert separate.loc[1, "mean_alpha"] != shared.loc[1, "mean_alpha"]  # run on its own, it gets its own seed


def test_priste_utility_chart_one_legend_per_panel_and_km_units():
    from lmdk.experiments import charts as ech
    from lmdk.experiments import priste as ep

    rows = [dict(c, repetitions=2, mean_alpha=0.01 * c["epsilon"], mean_distance_m=5000.0, halvings=1.0,
                 mean_alpha_ci_low=0.0, mean_alpha_ci_high=0.1, mean_distance_m_ci_low=0.0,
                 mean_distance_m_ci_high=9000.0) for c in ep.utility_configs()]
    fig = ech.figure_chart("priste-utility", pd.DataFrame(rows))
    assert not any(t.fill == "toself" for t in fig.data)  # 2 repetitions: no bands
    legends = {t.legend for t in fig.data if t.showlegend}
    assert legends == {"legend", "legend2", "legend3"}
    names = {t.legend: set() for t in fig.data}
    for t in fig.data:
        names[t.legend].add(t.name)
    assert names["legend"] == {"0.5-PLM", "1-PLM", "3-PLM", "5-PLM"}
    assert names["legend2"] == {"δ = 0.01", "δ = 0.1", "δ = 0.3"}
    assert fig.layout.yaxis4.title.text == "average distance (km)"
    assert max(max(t.y) for t in fig.data if t.yaxis == "y4") == 5.0  # metres shown as km


def test_priste_runtime_chart_marks_extrapolated_brute_force_points_open():
    from lmdk.experiments import charts as ech

    rows = [{"vary": v, "size": n, "method": m, "repetitions": 2, "seconds": s * n,
             "extrapolated": float(m.startswith("brute") and n > 5)}
            for v in ("length", "width") for n in (5, 7) for m, s in
            (("priste_joint", 0.001), ("priste_worst_case", 0.1), ("brute_force_joint", 1.0))]
    fig = ech.figure_chart("priste-runtime", pd.DataFrame(rows))
    assert len(fig.data) == 6
    brute = [t for t in fig.data if t.legendgroup == "brute_force_joint"]
    assert all(list(t.marker.color) == [ech.OKABE_ITO[7], "#FFFFFF"] for t in brute)
    assert fig.layout.yaxis.type == "log" and fig.layout.xaxis2.title.text == "event width (cells)"


def test_fig9_chart_has_a_dashed_no_correlation_line_in_every_panel():
    from lmdk.experiments import charts as ech

    rows = [{"distribution": d, "landmark_pct": p, "correlation": c, "quantity": q, "statistic": "max",
             "value": 1.0 + p / 100 + (c != "none")}
            for d in ("skewed", "uniform") for p in (0, 50, 100) for c in ("none", "moderate", "strong")
            for q in ("overall", "own", "bound")]
    fig = ech.figure_chart("fig9", pd.DataFrame(rows))
    refs = [t for t in fig.data if t.name == "no correlation"]
    assert len(refs) == 6 and all(t.line.dash == "dash" for t in refs)  # 3 quantities × 2 correlations
    assert sum(t.showlegend is not False for t in refs) == 1
    curves = [t for t in fig.data if t.name in ("skewed", "uniform")]
    assert len(curves) == 12 and {t.line.color for t in curves if t.name == "skewed"} == {ech.OKABE_ITO[0]}


@pytest.mark.parametrize("name", [n for n in ex.figure_names("all") if n != "toy-test"])
def test_every_figure_has_a_small_cached_run_that_charts(name):
    cached = ex.load_cached(name)
    assert cached is not None, f"run: lmdk experiments {name} --out assets/experiments_default --formats csv"
    df, meta = cached
    spec = ex.figures()[name]
    assert meta["figure"] == name and meta["repetitions"] <= max(spec.page_repetitions, 10)
    assert set(spec.config_keys()) <= set(df.columns) and len(df) > 0
    from lmdk.experiments import charts as experiments_charts

    assert len(experiments_charts.figure_chart(name, df).data) > 0


def test_no_import_circle_between_runner_figures_and_charts():
    """The registry is a plain table; figure modules and charts never import the runner or each other."""
    import ast
    from pathlib import Path

    pkg = Path(ex.__file__).parent

    def lmdk_imports(name: str) -> set[str]:
        module = pkg / f"{name}.py"
        files = [module] if module.exists() else sorted((pkg / name).glob("*.py"))  # a module or a package
        assert files, name
        found = set()
        for path in files:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lmdk.experiments"):
                    found.add(node.module)
                    found.update(f"{node.module}.{a.name}" for a in node.names)
        return found

    figure_modules = {"lmdk.experiments.landmark", "lmdk.experiments.priste", "lmdk.experiments.runner",
                      "lmdk.experiments.registry"}
    assert not lmdk_imports("charts") & figure_modules
    for figure in ("landmark", "priste", "spec", "registry"):
        assert "lmdk.experiments.runner" not in lmdk_imports(figure)


def test_an_error_interval_is_cut_at_zero():
    """'mae_ci_low -298' (issue 35): the lower bound of a mean absolute error is never negative."""
    import pandas as pd

    from lmdk.experiments.spec import summarise_mean_ci

    raw = pd.DataFrame({"k": 1, "repetition": [0, 1, 2], "mae": [1.0, 2.0, 900.0], "dip": [-5.0, 0.0, 900.0]})
    out = summarise_mean_ci(raw, ["k"], ["mae", "dip"]).iloc[0]
    assert out["mae_ci_low"] == 0.0 and out["mae_ci_high"] > out["mae"]
    assert out["dip_ci_low"] < 0  # a difference may be negative: left as it is
