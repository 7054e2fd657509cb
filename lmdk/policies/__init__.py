"""Per-user policies (issue 37): a policy table of declared landmarks, ε and scheme per user, the officer's bounds,
and which policy each user of a population is released under.

    from lmdk import policies
    table = policies.read_table("policies.csv")          # user, landmarks, epsilon, scheme[, mechanism, w, dummies]
    plan = policies.assign(table, default=None, base=base_policy,
                           bounds=policies.Bounds(max_epsilon=2.0, schemes=("adaptive", "skip")))
    lmdk.population.release("meters.parquet", base_policy, out="released/", assignment=plan, protects=…)
"""
from __future__ import annotations

from lmdk.policies.assign import NO_POLICY, Assignment, Bounds, assign, parse_schemes, row_policy
from lmdk.policies.table import COLUMNS, PolicyRow, PolicyTable, PolicyTableError, read_table, table_from_frame

__all__ = ["COLUMNS", "NO_POLICY", "Assignment", "Bounds", "PolicyRow", "PolicyTable", "PolicyTableError", "assign",
           "parse_schemes", "read_table", "row_policy", "table_from_frame"]
