"""``lmdk loss``: the temporal privacy loss (BPL/FPL/TPL and the landmark quantities) of a policy's budgets."""
from __future__ import annotations

import argparse

from lmdk.cli.common import EXIT_OK, policy_flags, policy_from_args, read_input, say, write_table

LOSS_EXAMPLES = """examples:
  lmdk loss sample:hue --config runconfig.json --correlation strong --out loss.csv
  lmdk loss meter.csv --scheme uniform --epsilon 1 --landmarks below:0.5 --correlation matrix.csv"""


def cmd_loss(args) -> int:
    """``lmdk loss``: temporal privacy loss of a policy's budgets under a correlation."""
    from lmdk.present.loss import correlation_matrix, loss_table

    cfg, series = read_input(args)
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
    loss.set_defaults(func=cmd_loss, seed=None, repetitions=None)  # a loss table draws no release
