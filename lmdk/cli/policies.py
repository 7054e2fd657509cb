"""``lmdk population --policies FILE``: per-user policies (a policy table) and the officer's bounds.

Users with a row of the table are released under it; the others under ``--config``, or, without one, withheld
with the reason "no policy". A row outside ``--max-epsilon`` / ``--schemes`` withholds that user (a printed line
names the row and the bound); the run goes on with the others and exits 0 when at least one user was released;
when every user was withheld, 4 if the ledger's cap withheld any of them, else 3 (refused). With ``--ledger``
each user is charged their own row's total ε (ε + ε_sel); users the table withholds are charged nothing.
"""
from __future__ import annotations

import argparse
import sys

from lmdk.cli.arguments import positive_float

POLICIES_EXAMPLES = """per-user policies:
  lmdk population fleet.parquet --policies policies.csv --range 0 25 --out per-user/
  lmdk population fleet.parquet --policies policies.csv --config default.json --max-epsilon 2 \\
      --schemes adaptive,skip --range 0 25 --out bounded/

policies.csv: user,landmarks,epsilon,scheme[,mechanism,w,dummies] — one row per user, e.g.
  alice,calendar:mon-fri@18:00-22:00,1.0,adaptive
  bob,ics:bob.ics,0.5,skip            (his own calendar export; recurring events expanded, each in its zone)
  carol,times:carol.txt,1.0,uniform   (declared date/times, one per line; START/END for a span)
Paths are read next to the table. Users without a row take --config, or are withheld ("no policy").
With --ledger/--cap each user is charged their own row's total ε; users the table withholds are charged nothing."""


def policies_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--policies``, ``--max-epsilon`` and ``--schemes``."""
    parser.add_argument("--policies", metavar="FILE",
                        help="a policy table (CSV, Parquet or JSON: user, landmarks, epsilon, scheme[, mechanism, w, "
                             "dummies]): each user's declared landmarks, ε and scheme. Users without a row take "
                             "--config, or are withheld ('no policy')")
    parser.add_argument("--max-epsilon", type=positive_float("--max-epsilon"), metavar="EPS",
                        help="the officer's bound on each user's total ε: a table row above it withholds that user")
    parser.add_argument("--schemes", metavar="LIST",
                        help="the schemes a table row may use, comma-separated (e.g. adaptive,skip): another withholds "
                             "that user")


def assignment_for(args, base, default):
    """The run's per-user Assignment (None without --policies); prints one line per row outside the bounds."""
    from lmdk.errors import ParameterError
    from lmdk.policies import Bounds, assign, parse_schemes, read_table

    if args.policies is None:
        if args.max_epsilon is not None or args.schemes is not None:
            raise ParameterError("--max-epsilon and --schemes bound the rows of a policy table; give --policies FILE")
        return None
    bounds = Bounds(args.max_epsilon, parse_schemes(args.schemes) if args.schemes is not None else None)
    plan = assign(read_table(args.policies), default, base, bounds)
    for row, breach in plan.refused:
        print(f"lmdk: withheld user {row.user}: {row.label} is refused: {breach}", file=sys.stderr)
    return plan


def summary_lines(result) -> list[str]:
    """The lines a per-user run prints: one per policy applied, and the withheld users by reason."""
    agg = result.aggregates
    lines = [f"per-user policies: {agg['users']:,} users released under {sum(1 for p in agg['policies'] if p['users'])}"
             f" policies, {agg['withheld_users']:,} withheld"]
    for p in agg["policies"]:
        if p["users"]:
            origin = (p["landmark_set"] or {}).get("kind", "declared")
            lines.append(f"  {p['policy']}: {p['scheme']}, ε = {p['epsilon_total']:g}, landmarks {p['landmarks']} "
                         f"({origin}): {p['users']:,} users")
    for reason, count in agg["withheld"].items():
        lines.append(f"  withheld {count:,}: {reason}")
    return lines
