"""Per-user policies in a population run: each user released under their own policy (``lmdk.policies``).

The run is still one pass over the input: the Job carries one variant Job per distinct policy and which variant
each user takes (or why they are withheld); :func:`lmdk.population.process.process_assigned` splits every frame of
whole users by variant and runs the one-policy batch function on each part, so users of one policy still run in
lockstep. The summary gains, per user, the policy actually applied — ``scheme``, ``epsilon``, ``epsilon_total``
(with a private selection's ε_sel: what the ledger charges), ``landmark_rule``, ``landmark_origin`` (declared,
private, unprotected) and ``policy`` (the table row or ``--config``) — and ``withheld``, the reason a user was not
released (None when released). Each released file's note carries its own user's statement.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError, PolicyRefused
from lmdk.population.prepared import prepare

_RULE_NEEDS = {"place": "trajectory", "stay": "trajectory", "contacts": "contacts", "below": "values",
               "above": "values", "percentile": "values"}  # the kind of series a rule reads (lmdk.landmarks)


def _origin(plan) -> str:
    """Where a variant's landmarks come from: declared, private, unprotected, or 'data' (a demonstration)."""
    if plan.landmark_set is not None:
        return str(plan.landmark_set.kind)
    return "data" if plan.policy.rule.data_dependent else "declared"


def assigned_job(assignment, plan, kind: str, protects, private_columns, staging, batch_cells):
    """The run's Job with one variant per distinct policy of ``assignment`` (``plan``: the base policy's); returns
    (job, the variants' :class:`lmdk.population.prepared.Prepared`). A variant whose landmark rule reads the data is
    refused as a one-policy run is (:mod:`lmdk.selection.export`), naming where it came from."""
    prepared, variants = [], []
    for policy, origin in zip(assignment.variants, assignment.origins, strict=True):
        needs = _RULE_NEEDS.get(policy.rule.kind, kind)
        if needs != kind:
            raise ParameterError(f"{origin}: the landmark rule {policy.landmarks!r} reads {needs} series; this input "
                                 f"holds {kind} (use a declared rule: calendar:…, ics:…, times:…)")
        try:
            ready = prepare(policy, kind, protects, private_columns, staging, batch_cells)
        except PolicyRefused as exc:
            raise PolicyRefused(f"{origin}: {exc}") from None
        prepared.append(ready)
        columns = {"scheme": policy.scheme, "epsilon": float(policy.epsilon),
                   "epsilon_total": float(policy.epsilon) + float(policy.landmark_epsilon or 0.0),
                   "landmark_rule": policy.landmarks, "landmark_origin": _origin(ready), "policy": origin}
        variants.append((ready.job, columns))
    job = replace(plan.job, variants=tuple(variants), assign=dict(assignment.by_user), fallback=assignment.fallback)
    return job, tuple(prepared)


def released_rows(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary rows of the users released (not withheld), with plain dtypes."""
    released = summary[summary["withheld"].isna()]
    plain = {"landmarks": np.dtype(np.int64), "dropped": np.dtype(np.int64), "theorem2_holds": np.dtype(bool),
             "degenerate": np.dtype(bool)}
    convert = {column: dtype for column, dtype in plain.items() if released[column].dtype != dtype}
    return released.astype(convert) if convert else released


def describe(summary: pd.DataFrame, totals: dict, prepared, assignment) -> dict:
    """The aggregates of a per-user run (``totals``: over the released users) with each policy applied (its
    statement and how many users it released) and the withheld users by reason."""
    released = released_rows(summary)
    out = dict(totals)
    policies = []
    counts = released["policy"].value_counts()  # users released per policy, counted once
    for ready, origin in zip(prepared, assignment.origins, strict=True):
        pol = ready.policy
        users = int(counts.get(origin, 0))
        policies.append({"policy": origin, "users": users, "landmarks": pol.landmarks, "scheme": pol.scheme,
                         "epsilon": pol.epsilon, "epsilon_total": pol.epsilon + float(pol.landmark_epsilon or 0.0),
                         "mechanism": ready.mechanism, "w": pol.w, "dummies": pol.dummies,
                         "landmark_set": ready.landmark_set.to_dict() if ready.landmark_set is not None else None,
                         "guarantee": ready.statement.to_dict() if ready.statement is not None else None})
    used = [p for p in policies if p["users"]]
    single = used[0] if len(used) == 1 else None
    reasons = summary["withheld"].dropna().value_counts()
    out.update(per_user=True, policies=policies, withheld_users=int(reasons.sum()),
               withheld={str(k): int(v) for k, v in reasons.items()},
               scheme=single["scheme"] if single else "per user", epsilon=single["epsilon"] if single else None,
               landmark_rule=single["landmarks"] if single else "per user",
               guarantee=single["guarantee"] if single else None,
               landmark_set=single["landmark_set"] if single else None,
               epsilon_total=max((p["epsilon_total"] for p in used), default=None))
    return out
