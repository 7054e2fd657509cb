"""The Temporal privacy loss page's numbers: the losses of a run's budgets and the report's table of the largest."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ui.session import cache_loss


def losses_of(budgets, landmarks: np.ndarray, P: np.ndarray) -> tuple[cache_loss.Losses, float]:
    """The temporal and landmark temporal privacy losses of ``budgets`` under the transition matrix ``P`` (cached),
    and Σ of the budgets (sequential composition)."""
    return cache_loss.temporal_losses(np.asarray(budgets, dtype=float), landmarks, P), float(np.sum(budgets))


def maxima_table(losses: cache_loss.Losses, total: float) -> pd.DataFrame:
    """The largest losses (the report's table): max TPL, max overall loss with and without correlation, Σ εₜ."""
    return pd.DataFrame({"quantity": ["max TPL", "max overall loss with landmarks", "same without correlation",
                                      "Σ of all budgets"],
                         "value": [float(losses.tpl.max()), float(losses.overall.max()),
                                   float(losses.reference.max()), total]})
