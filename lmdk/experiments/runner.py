"""Experiment runner reproducing the figures of both papers (its command line, ``lmdk experiments
FIGURE``, is :mod:`lmdk.cli.experiments`).

Each figure is a :class:`FigureSpec`: a grid of configurations, a function that runs one
configuration for a block of repetitions (repetitions are a numpy axis inside it) and a
summary that turns the raw rows into the tidy CSV (one row per configuration with the
mean and a 95 % confidence interval over repetitions). Every (configuration, block) task
gets its own seed spawned from ``--seed`` with :class:`numpy.random.SeedSequence`, so the
CSV is identical for identical seeds whatever ``--jobs`` is. The core stays free of
plotting: charts are drawn by :mod:`lmdk.experiments.charts`, which imports plotly lazily.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from lmdk.assets import ASSETS
from lmdk.errors import ParameterError
from lmdk.experiments.registry import FIGURES, GROUPS, figure_names, figures, ordered_names  # noqa: F401 (re-exported)
from lmdk.experiments.spec import (  # noqa: F401 (re-exported: figure code and tests use them via the runner)
    PAPERS,
    FigureSpec,
    as_is,
    by_measures,
    mean_ci,
    summarise_mean_ci,
)

MAX_REPETITIONS = 100_000
MAX_JOBS = 64
DEFAULT_CACHE = ASSETS / "experiments_default"
FORMATS = ("csv", "html", "png")

# --------------------------------------------------------------------------- progress


class Progress:
    """Progress of a run: a tqdm bar on a text stream (stderr in the CLI) or calls ``callback(done, total)``.

    ``stream`` may be a file-like object, a callable (e.g. a page's progress widget; called after every
    finished task) or None (silent).
    """

    def __init__(self, label: str, total: int, stream=sys.stderr):
        self.total = max(total, 1)
        self.callback = stream if callable(stream) and not hasattr(stream, "write") else None
        self.done = 0
        self.bar = None
        if self.callback is None and stream is not None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, desc=label, file=stream, unit="task", mininterval=0.5,
                            dynamic_ncols=True)

    def update(self, n: int = 1) -> None:
        """Count ``n`` finished tasks and report them."""
        self.done += n
        if self.callback is not None:
            self.callback(self.done, self.total)
        if self.bar is not None:
            self.bar.update(n)
            if self.done >= self.total:
                self.bar.close()


# --------------------------------------------------------------------------- running


def _blocks(repetitions: int, block: int | None) -> list[tuple[int, int]]:
    """Split ``repetitions`` into (start, size) blocks of at most ``block``."""
    size = repetitions if block is None else max(1, min(block, repetitions))
    return [(s, min(size, repetitions - s)) for s in range(0, repetitions, size)]


def _run_task(name: str, config: dict, start: int, size: int, seed: np.random.SeedSequence) -> pd.DataFrame:
    """Run one (configuration, block) task in this or a worker process."""
    spec = FIGURES[name]
    raw = spec.run(dict(config), size, np.random.default_rng(seed))
    raw = raw.copy()
    if "repetition" in raw:
        raw["repetition"] = raw["repetition"].to_numpy() + start
    for key, value in reversed(list(config.items())):
        if key not in raw:
            raw.insert(0, key, [value] * len(raw))
    return raw


BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_BLAS_SETTERS = ("openblas_set_num_threads", "openblas_set_num_threads64_",
                 "scipy_openblas_set_num_threads", "scipy_openblas_set_num_threads64_")


def single_threaded_blas() -> None:
    """Worker initialiser: one BLAS thread per worker, so ``--jobs`` workers do not oversubscribe the cores.

    Workers are forked after numpy has loaded OpenBLAS, so the environment variables alone come too
    late; the already-loaded OpenBLAS libraries (found in /proc/self/maps) are told directly. Best effort:
    on other platforms only the environment is set.
    """
    import ctypes

    for var in BLAS_THREAD_VARS:
        os.environ[var] = "1"
    try:
        with open("/proc/self/maps") as maps:
            libs = {line.split()[-1] for line in maps if "openblas" in line.split()[-1].lower()}
    except OSError:
        return
    for path in sorted(libs):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _BLAS_SETTERS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(1)


def validate_run_args(repetitions: int, seed: int, jobs: int) -> None:
    """Raise ParameterError naming the argument when repetitions/seed/jobs are out of range."""
    if isinstance(repetitions, bool) or not isinstance(repetitions, (int, np.integer)):
        raise ParameterError(f"repetitions must be an integer, not {repetitions!r}")
    if not 1 <= repetitions <= MAX_REPETITIONS:
        raise ParameterError(f"repetitions must be between 1 and {MAX_REPETITIONS}, got {repetitions}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or not 1 <= jobs <= MAX_JOBS:
        raise ParameterError(f"jobs must be an integer between 1 and {MAX_JOBS}, got {jobs!r}")


def run_figure(
    name: str,
    *,
    repetitions: int | None = None,
    seed: int = 0,
    jobs: int = 1,
    configs: Iterable[dict] | None = None,
    progress: TextIO | Callable[[int, int], None] | None = None,
    parameters: dict | None = None,
    keep_raw: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Run every configuration of figure ``name`` and return its tidy summary DataFrame.

    ``parameters``: figure-wide settings (e.g. ``{"cell_km": 1.0}`` for a PriSTE figure), defaults from
    ``FigureSpec.parameters``; they lead every configuration (a configuration that sets one keeps its value).
    The seeds depend only on the configurations' order, so two parameter values share their random streams.

    ``progress``: None (silent), a text stream for a progress bar, or ``callback(done, total)`` called
    after each (configuration, repetition block) task — the Experiments page can feed ``st.progress``.
    ``keep_raw``: return (summary, raw), raw being the per-repetition rows the summary was made from.
    """
    if name not in FIGURES:
        raise ParameterError(f"unknown figure {name!r}; choose one of: {', '.join(ordered_names())}")
    spec = FIGURES[name]
    repetitions = spec.default_repetitions if repetitions is None else repetitions
    validate_run_args(repetitions, seed, jobs)
    params = spec.with_parameters(parameters)
    grid = [{**params, **c} for c in (spec.configs() if configs is None else configs)]
    keys = spec.config_keys() if configs is None else list(dict.fromkeys(k for c in grid for k in c))
    children = np.random.SeedSequence(seed).spawn(len(grid))
    source = _first_with_same_run(spec, grid)
    tasks = []
    for idx, (cfg, child) in enumerate(zip(grid, children, strict=True)):
        if source[idx] != idx:
            continue  # run once, under the first configuration with the same run key (and its seed)
        blocks = _blocks(repetitions, spec.block)
        for (start, size), block_seed in zip(blocks, child.spawn(len(blocks)), strict=True):
            tasks.append((name, cfg, start, size, block_seed))
    bar = Progress(name, len(tasks), progress)
    results: list[pd.DataFrame | None] = [None] * len(tasks)
    if jobs == 1 or len(tasks) == 1:
        for i, task in enumerate(tasks):
            results[i] = _run_task(*task)
            bar.update()
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), initializer=single_threaded_blas) as pool:
            futures = {pool.submit(_run_task, *task): i for i, task in enumerate(tasks)}
            for fut in as_completed(futures):
                results[futures[fut]] = fut.result()
                bar.update()
    raw = pd.concat(results, ignore_index=True)
    summary = spec.summarise(raw, keys).reset_index(drop=True)
    if not all(s == i for i, s in enumerate(source)):
        summary = _repeat_shared_rows(summary, grid, source)
    return (summary, raw) if keep_raw else summary


def _first_with_same_run(spec: FigureSpec, grid: list[dict]) -> list[int]:
    """For each configuration, the index of the first configuration with the same ``spec.run_key`` (itself if none)."""
    if spec.run_key is None:
        return list(range(len(grid)))
    first: dict = {}
    return [first.setdefault(spec.run_key(cfg), i) for i, cfg in enumerate(grid)]


def _repeat_shared_rows(summary: pd.DataFrame, grid: list[dict], source: list[int]) -> pd.DataFrame:
    """Summary rows in configuration order, a configuration that was not run getting its source's rows."""
    parts = []
    for cfg, src in zip(grid, source, strict=True):
        match = np.ones(len(summary), dtype=bool)
        for k, v in grid[src].items():
            col = summary[k]
            match &= (col.isna().to_numpy() if pd.isna(v) else (col == v).to_numpy())
        parts.append(summary[match].assign(**cfg))
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- output


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    """Write a tidy CSV with a fixed float format so identical runs give identical bytes."""
    from lmdk.exports.cells import safe_cells

    path.parent.mkdir(parents=True, exist_ok=True)
    safe_cells(df).to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
    return path


def write_outputs(
    name: str, df: pd.DataFrame, out: Path, formats: Sequence[str] = FORMATS, meta: dict | None = None,
    png_batch: list | None = None,
) -> dict[str, Path]:
    """Write ``name``.csv / .html / .png (+ a .json of run metadata) into ``out``.

    With ``png_batch`` the PNG is queued as (figure, path) instead, for one batched kaleido call.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    if "csv" in formats:
        written["csv"] = write_csv(df, out / f"{name}.csv")
    if meta is not None:
        written["json"] = out / f"{name}.json"
        written["json"].write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    if "html" in formats or "png" in formats:
        from lmdk.experiments import charts as charts

        fig = charts.figure_chart(name, df)
        if "html" in formats:
            written["html"] = charts.write_html(fig, out / f"{name}.html")
        if "png" in formats:
            written["png"] = out / f"{name}.png"
            if png_batch is None:
                charts.write_png(fig, written["png"])
            else:
                png_batch.append((fig, written["png"]))
    return written


def load_cached(name: str, cache: Path = DEFAULT_CACHE) -> tuple[pd.DataFrame, dict] | None:
    """The cached small default run of figure ``name`` (CSV + metadata), or None if absent."""
    csv, meta = Path(cache) / f"{name}.csv", Path(cache) / f"{name}.json"
    if not csv.exists():
        return None
    info = json.loads(meta.read_text()) if meta.exists() else {}
    return pd.read_csv(csv), info


# --------------------------------------------------------------------------- a run of figures


@dataclass(frozen=True)
class RunOptions:
    """How to run figures (the flags of ``lmdk experiments``): repetitions (None: each figure's
    default), master seed, worker processes, output folder and formats, the PriSTE cell and the raw rows."""

    repetitions: int | None = None
    seed: int = 0
    jobs: int = 1
    out: Path = Path("out")
    formats: tuple[str, ...] = FORMATS
    cell_km: float | None = None
    raw: bool = False

    def overrides(self) -> dict:
        """The figure-wide parameters these options set (``cell_km``)."""
        return {} if self.cell_km is None else {"cell_km": self.cell_km}


@dataclass(frozen=True)
class FigureRun:
    """One figure run and written: its rows, computing time and the files written."""

    name: str
    rows: int
    seconds: float
    written: dict[str, Path]


def run_and_write(name: str, options: RunOptions, progress: TextIO | Callable[[int, int], None] | None = None,
                  png_batch: list | None = None) -> FigureRun:
    """Run figure ``name`` under ``options`` and write its outputs (CSV, HTML, PNG or queued in ``png_batch``, the
    run's metadata JSON, with ``raw`` the per-repetition rows) into ``options.out``."""
    spec = FIGURES[name]
    reps = spec.default_repetitions if options.repetitions is None else options.repetitions
    params = {k: v for k, v in options.overrides().items() if k in spec.parameters}
    t0 = time.perf_counter()
    result = run_figure(name, repetitions=reps, seed=options.seed, jobs=options.jobs, progress=progress,
                        parameters=params, keep_raw=options.raw)
    seconds = time.perf_counter() - t0
    if isinstance(result, tuple):  # raw: (summary, raw)
        df, raw = result
        options.out.mkdir(parents=True, exist_ok=True)
        from lmdk.exports.cells import safe_cells

        safe_cells(raw).to_csv(options.out / f"{name}.raw.csv.gz", index=False, float_format="%.10g")
    else:
        df = result
    meta = {
        "figure": name, "title": spec.title, "paper": PAPERS[spec.paper], "repetitions": reps,
        "seed": options.seed, "jobs": options.jobs, "seconds": round(seconds, 2), "rows": len(df),
        "lmdk_version": _version(), **spec.with_parameters(params), **spec.extra.get("units", {}),
    }
    written = write_outputs(name, df, options.out, options.formats, meta, png_batch=png_batch)
    return FigureRun(name, len(df), seconds, written)


def _version() -> str:
    from lmdk.version import __version__

    return __version__
