"""The Dummy landmarks page's tables: the selection's options, the MAE with and without dummies, what the dummies
disclose."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ui.charts.style import number


def dummy_counts(sel) -> np.ndarray:
    """Dummies added by each nested option of a selection (option j adds j)."""
    return np.asarray(sel.options.sizes) - sel.options.landmarks.size


def options_table(sel) -> pd.DataFrame:
    """One row per option (option j adds j dummies): size, utility, probability and whether it was chosen."""
    sizes = np.asarray(sel.options.sizes)
    return pd.DataFrame({
        "dummies": sizes - sel.options.landmarks.size, "|L′|": sizes,
        "utility": sel.scores, "probability": sel.probabilities, "chosen": np.arange(sizes.size) == sel.index,
    })


def _interval(low: float, high: float) -> str:
    """A 95 % CI as "[low, high]", or "–" when a bound is not finite."""
    return f"[{number(low)}, {number(high)}]" if np.isfinite(low) and np.isfinite(high) else "–"


def mae_table(rows: list[dict], unit: str) -> pd.DataFrame:
    """MAE without and with dummies, their 95 % CIs and the relative cost, one row per scheme."""
    return pd.DataFrame({
        "scheme": [r["scheme"] for r in rows],
        f"MAE without ({unit})": [r["mae"] for r in rows],
        "95 % CI without": [_interval(r["low"], r["high"]) for r in rows],
        f"MAE with dummies ({unit})": [r["dummies"] for r in rows],
        "95 % CI with": [_interval(r["dummies_low"], r["dummies_high"]) for r in rows],
        "cost": [f"{100 * (r['dummies'] / r['mae'] - 1):+.0f} %" if r["mae"] > 0 else "—" for r in rows],
    })


MAE_NAMES = {"mae": "MAE without", "low": "low without", "high": "high without", "dummies": "MAE with dummies",
             "dummies_low": "low with", "dummies_high": "high with"}  # the MAE chart's text alternative's columns


def disclosure_table(disclosure) -> pd.DataFrame:
    """What an observer who knows the method learns from the marked events (the report's table)."""
    return pd.DataFrame({"": ["P(real landmark | marked), chosen option",
                              "P(real landmark | marked), expected over the options", "an unmarked event"],
                         "value": [f"{100 * disclosure.chosen:.0f} %", f"{100 * disclosure.expected:.0f} %",
                                   "known to be a regular event"]})
