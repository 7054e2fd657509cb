"""``lmdk loss``: the temporal privacy loss (BPL/FPL/TPL and the landmark quantities) of a policy's budgets."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from lmdk.cli.common import EXIT_OK, Policy, policy_flags, policy_from_args, read_input, say, write_table
from lmdk.errors import ParameterError

LOSS_EXAMPLES = """examples:
  lmdk loss sample:hue --config runconfig.json --correlation strong --out loss.csv
  lmdk loss meter.csv --scheme uniform --epsilon 1 --landmarks below:0.5 --correlation matrix.csv"""


def correlation_matrix(text: str) -> tuple[np.ndarray, str]:
    """A transition matrix from 'weak|moderate|strong', a smoothing strength s, or a CSV file."""
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


def loss_table(series, policy: Policy, P: np.ndarray):
    """Per timestamp: budget, landmark flag, BPL/FPL/TPL and the landmark temporal privacy loss."""
    import pandas as pd

    from lmdk import schemes, tpl

    n = len(series)
    budgets = schemes.allocate(policy.scheme, n, policy.landmarks, policy.epsilon, w=policy.w)
    bpl, fpl, tpl_t = tpl.temporal_privacy_loss(budgets, P)
    lm = tpl.landmark_temporal_privacy_loss(budgets, policy.landmarks, P)
    flag = np.zeros(n, dtype=np.int8)
    flag[policy.landmarks] = 1
    return pd.DataFrame({
        "timestamp": series.timestamps.astype(str), "budget": budgets, "landmark": flag, "bpl": bpl, "fpl": fpl,
        "tpl": tpl_t, "landmark_overall": lm.overall, "landmark_own": lm.own, "landmark_bound": lm.bound,
    })


def cmd_loss(args) -> int:
    """``lmdk loss``: temporal privacy loss of a policy's budgets under a correlation."""
    cfg, series = read_input(args)
    args.seed, args.repetitions = None, 1
    policy = policy_from_args(args, series, cfg)
    P, label = correlation_matrix(args.correlation)
    table = loss_table(series, policy, P)
    write_table(table, args.out)
    say(args, f"{policy.scheme}, ε = {policy.epsilon:g}, correlation {label}: max TPL = {table['tpl'].max():.4g}, "
               f"max landmark temporal privacy loss = {table['landmark_bound'].max():.4g} "
               f"(the definition gives {table['landmark_overall'].max():.4g}; sequential composition caps it at Σ ε)")
    return EXIT_OK


def configure(loss: argparse.ArgumentParser) -> None:
    """Add the ``loss`` arguments to ``loss``."""
    policy_flags(loss)
    loss.add_argument("--correlation", default="moderate",
                      help="weak|moderate|strong, a smoothing strength s > 0, or a CSV transition matrix")
    loss.set_defaults(func=cmd_loss)
