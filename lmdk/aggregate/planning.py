"""Planning an aggregate release (:mod:`lmdk.plan.aggregate` on a statistic built by :mod:`lmdk.aggregate.build`):
the smallest ε per scheme for a relative error on the file's users, or the smallest number of users for it at
a given ε."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AggregatePlan:
    """What was planned: the file's users, bins and landmarks, and the answer per scheme (JSON-ready)."""

    users: int  # N of the file
    bins: int
    landmarks: int
    result: dict  # {scheme: {...}}: ε per scheme, or with ``users_for`` the users per scheme
    notes: tuple[str, ...] = ()  # the time range's line, rows dropped, a declared rule that marks no bin


def plan_aggregate(source, statistic: str, rule: str, target: float, *,
                   value_range: tuple[float, float] | None = None, bin: str = "1h", max_per_user: int = 1,
                   region: tuple[float, float, float] | None = None, tz: str | None = None,
                   schemes: tuple[str, ...] | None = None, w: int | None = None, seed: int = 0,
                   repetitions: int | None = None, users_for: float | None = None,
                   time_range: tuple[str, str] | None = None, drop_rows_without_user: bool = False) -> AggregatePlan:
    """Build ``statistic`` over the users of ``source``, mark the landmarks of ``rule`` (calendar windows in ``tz``)
    and plan the relative MAE ``target``: ε per scheme, or (``users_for`` an ε) the users each scheme needs."""
    from lmdk import relation
    from lmdk.aggregate.build import build
    from lmdk.aggregate.landmarks import bin_landmarks
    from lmdk.aggregate.partial import Region
    from lmdk.aggregate.release import time_range_line
    from lmdk.landmarks import parse_rule
    from lmdk.plan import PLAN_SCHEMES
    from lmdk.plan.aggregate import plan_relative
    from lmdk.plan.aggregate import users_for as users_needed

    agg = build(source, statistic, value_range=value_range, bin=bin, max_per_user=max_per_user,
                region=Region(*region) if region else None, time_range=time_range, tz=tz,
                drop_rows_without_user=drop_rows_without_user)
    series = agg.to_series(tz=tz)
    marked = bin_landmarks(parse_rule(rule), series, bin, tz, agg.zoned)
    L = marked.indices
    notes = (time_range_line(agg.time_range), f"landmarks read on {marked.clock}", *agg.warnings, *marked.warnings)
    n0 = agg.users["all"]
    counted = None if statistic != "count" else "contacts" if agg.kind == "contacts" else "region"
    low, high = value_range if statistic != "count" and value_range is not None else (None, None)

    def relation_for(n: int):
        return relation.aggregate(statistic, users=n, low=low, high=high, counted=counted,
                                  max_per_user=max_per_user if counted == "contacts" else 1)

    schemes = PLAN_SCHEMES if schemes is None else schemes
    values = series.values
    if users_for is not None:
        answers = users_needed(values, n0, L, users_for, target, relation_for, schemes=schemes, w=w, seed=seed)
        result = {name: a.to_json() for name, a in answers.items()}
    else:
        result = plan_relative(values, L, target, relation_for(n0), schemes=schemes, w=w, rng=seed,
                               repetitions=repetitions)
    return AggregatePlan(n0, len(series), len(L), result, notes)
