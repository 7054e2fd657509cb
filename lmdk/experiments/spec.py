"""A reproducible figure as data (:class:`FigureSpec`) and the summaries that turn repetitions into CSV rows.

Figure modules (``landmark``, ``priste``) build specs from these; ``registry`` lists them; ``runner`` runs them.
Nothing here imports a figure module or a chart.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

PAPERS = {
    "landmark": "Katsomallo et al., Landmark privacy, CODASPY '22 (papers/000)",
    "priste": "Cao et al., PriSTE, TKDE 2019 (papers/001)",
}
RunFn = Callable[[dict, int, np.random.Generator], pd.DataFrame]
SummaryFn = Callable[[pd.DataFrame, Sequence[str]], pd.DataFrame]


@dataclass(frozen=True)
class FigureSpec:
    """One reproducible figure: its configurations, how to run one, how to summarise."""

    name: str
    paper: str
    title: str
    claim: str
    configs: Callable[[], list[dict]]
    run: RunFn
    summarise: SummaryFn
    default_repetitions: int = 100
    block: int | None = None  # repetitions per task; None = all repetitions in one task
    page_repetitions: int = 10  # the small default run cached for the Experiments page
    notes: str = ""
    extra: dict = field(default_factory=dict)
    run_key: Callable[[dict], object] | None = None  # equal keys = one experiment shown in several configurations
    parameters: dict = field(default_factory=dict)  # figure-wide settings (name → default), e.g. PriSTE's cell_km;
    # every configuration carries them (leading CSV columns), the CLI sets them (--cell-km), the JSON records them

    def with_parameters(self, parameters: dict | None = None) -> dict:
        """The figure-wide parameters: the defaults updated by ``parameters``; ParameterError for unknown names."""
        from lmdk.errors import ParameterError

        given = dict(parameters or {})
        unknown = sorted(set(given) - set(self.parameters))
        if unknown:
            known = ", ".join(self.parameters) or "none"
            raise ParameterError(f"{self.name} has no parameter {', '.join(unknown)} (its parameters: {known})")
        return {**self.parameters, **given}

    def config_keys(self) -> list[str]:
        """Names of the configuration fields (the CSV's leading columns), figure-wide parameters first."""
        keys: list[str] = list(self.parameters)
        for cfg in self.configs():
            keys += [k for k in cfg if k not in keys]
        return keys


# --------------------------------------------------------------------------- summaries


def mean_ci(values: np.ndarray) -> tuple[float, float, float, float]:
    """Mean, sample std and the two ends of a 95 % t-confidence interval of the mean."""
    from scipy import stats

    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return (math.nan,) * 4
    mean = float(v.mean())
    if v.size == 1:
        return mean, 0.0, mean, mean
    std = float(v.std(ddof=1))
    half = float(stats.t.ppf(0.975, v.size - 1)) * std / math.sqrt(v.size)
    return mean, std, mean - half, mean + half


def nonnegative(measure: str) -> bool:
    """Whether a measure can never be negative (an error: MAE, a distance), so its interval is cut at 0."""
    return measure == "mae" or measure.startswith("mae_") or measure.endswith("_mae") or measure.endswith("_error")


def summarise_mean_ci(raw: pd.DataFrame, keys: Sequence[str], measures: Sequence[str]) -> pd.DataFrame:
    """Group raw per-repetition rows by ``keys`` and report mean/std/CI of each measure."""
    rows = []
    for key, grp in raw.groupby(list(keys), sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key, strict=True))
        row["repetitions"] = int(grp["repetition"].nunique())
        for m in measures:
            mean, std, lo, hi = mean_ci(grp[m].to_numpy())
            if nonnegative(m) and lo < 0:
                lo = 0.0  # an error is never negative: neither is the lower bound of its mean
            row[m] = mean
            row[f"{m}_std"] = std
            row[f"{m}_ci_low"] = lo
            row[f"{m}_ci_high"] = hi
        rows.append(row)
    return pd.DataFrame(rows)


def by_measures(*measures: str, extra_keys: Sequence[str] = ()) -> SummaryFn:
    """A summary function averaging ``measures`` over repetitions per configuration."""

    def summarise(raw: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
        return summarise_mean_ci(raw, list(keys) + list(extra_keys), measures)

    return summarise


def as_is(raw: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """A summary function for figures whose run already returns summarised rows."""
    return raw.drop(columns=["repetition"], errors="ignore").reset_index(drop=True)
