"""The temporal privacy loss of one policy's budgets, as ``lmdk loss`` writes it: the correlation's transition
matrix from a name, a strength or a CSV file, and the per-timestamp table of BPL/FPL/TPL and the landmark
quantities (papers/000 §2.3, §3.3)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lmdk.errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd

    from lmdk.present.release import Policy


def correlation_matrix(text: str) -> tuple[np.ndarray, str]:
    """A transition matrix from 'weak|moderate|strong', a smoothing strength s, or a CSV file, and its label."""
    from lmdk import tpl
    from lmdk.present.views_loss import read_transition_matrix

    if text in tpl.CORRELATION:
        return tpl.transition_matrix(text), f"{text} (s = {tpl.CORRELATION[text]:g})"
    path = Path(text)
    if path.is_file():
        return read_transition_matrix(path.read_bytes()), f"matrix {path.name}"
    try:
        s = float(text)
    except ValueError:
        raise ParameterError(f"--correlation {text!r}: use weak, moderate, strong, a strength s > 0 or a CSV "
                             "file of a transition matrix") from None
    return tpl.transition_matrix(s), f"s = {s:g}"


def loss_table(series, policy: Policy, P: np.ndarray) -> pd.DataFrame:
    """Per timestamp: budget, landmark flag, BPL/FPL/TPL and the landmark temporal privacy loss."""
    import pandas as pd

    from lmdk import schemes, tpl

    n = len(series)
    budgets = schemes.allocate(policy.scheme, n, policy.landmarks, policy.epsilon, w=policy.w)
    bpl, fpl, tpl_t = tpl.temporal_privacy_loss(budgets, P)
    lm = tpl.landmark_temporal_privacy_loss(budgets, policy.landmarks, P)
    flag = np.zeros(n, dtype=np.int8)
    flag[policy.landmarks] = 1
    from lmdk.exports.export import iso_times

    return pd.DataFrame({
        "timestamp": iso_times(series.timestamps), "budget": budgets, "landmark": flag, "bpl": bpl, "fpl": fpl,
        "tpl": tpl_t, "landmark_overall": lm.overall, "landmark_own": lm.own, "landmark_bound": lm.bound,
    })
