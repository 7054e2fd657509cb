"""Plans for aggregate streams (issue 36): the relative error of a statistic over many users.

An aggregate's error is read relative to the statistic: ``relative MAE = MAE / mean |true statistic|`` (one ratio
of two means, never a mean of per-bin ratios, which a bin near 0 would dominate). Two questions:

- :func:`plan_relative` — "what ε gives 2 % on this file's N users?": the planner (:func:`lmdk.plan.plan`) with the
  absolute target ``relative × mean |statistic|`` under the aggregate relation; its validated MAE and 95 % interval
  are divided by the same mean.
- :func:`users_for` — "how many homes do I need for 2 % at ε = 1?": the file's statistic is taken as N₀ users'
  and scaled to N users (a sum or count grows ∝ N: the per-user profile times N; a mean stays, its Δ = width/N
  shrinks), the release is drawn at the given ε with the exports' sampler (common random numbers: the same seed at
  every N, so the error is monotone in N up to Monte-Carlo noise), and the smallest N meeting the target is found
  by doubling and bisection. A scheme whose error does not fall with N — Skip's approximation at the landmarks is a
  fixed share of the statistic — is infeasible: the answer says so with the lowest error reached (at
  ``MAX_USERS``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError

MAX_USERS = 10**9
USERS_REPETITIONS = 20


def _scale(values: np.ndarray) -> float:
    """mean |statistic|: the denominator of every relative error."""
    scale = float(np.mean(np.abs(values))) if values.size else 0.0
    if not np.isfinite(scale) or scale <= 0:
        raise ParameterError("the statistic is 0 in every bin: a relative error has nothing to be relative to")
    return scale


def _check_target(target: float) -> float:
    value = float(target)
    if not np.isfinite(value) or value <= 0:
        raise ParameterError(f"--target-relative-mae must be a number > 0 (e.g. 0.02 for 2 %), not {target!r}")
    return value


def plan_relative(values, landmarks, target_relative: float, protects, *, schemes=None, w=None, rng=0,
                  repetitions: int | None = None) -> dict:
    """``{scheme: {epsilon, achieved_relative_mae, ci95, feasible}}`` for a relative MAE target on ``values`` (an
    aggregate series) under ``protects`` (:func:`lmdk.relation.aggregate`)."""
    from lmdk import plan as planner

    x = np.asarray(values, dtype=float)
    scale = _scale(x)
    target = planner.Target(error=_check_target(target_relative) * scale)
    result = planner.plan(x, landmarks, target, protects=protects, schemes=schemes or planner.PLAN_SCHEMES, w=w,
                          rng=rng, repetitions=repetitions)
    out = {}
    for name, p in result.schemes.items():
        ci = [None if not np.isfinite(c) else float(c) / scale for c in p.ci95]
        achieved = float(p.achieved_mae) / scale if np.isfinite(p.achieved_mae) else None
        out[name] = {"epsilon": p.epsilon, "achieved_relative_mae": achieved, "ci95": ci, "feasible": p.feasible}
    return out


@dataclass(frozen=True)
class UsersAnswer:
    """The smallest N for one scheme, and the relative MAE measured there (infeasible: at MAX_USERS)."""

    users: int | None
    achieved_relative_mae: float
    feasible: bool

    def to_json(self) -> dict:
        return {"users": self.users, "achieved_relative_mae": self.achieved_relative_mae, "feasible": self.feasible}


def _relative_mae(x0: np.ndarray, n0: int, n: int, landmarks, scheme: str, epsilon: float, relation_for, w,
                  seed: int, repetitions: int) -> float:
    """Relative MAE of ``scheme`` at ε when the statistic of ``n0`` users is scaled to ``n`` users."""
    from lmdk import schemes as sch

    protects = relation_for(n)
    x = x0 * (n / n0) if protects.statistic != "mean" else x0
    rel = sch.release(x, landmarks, scheme, epsilon, protects=protects, repetitions=repetitions,
                      rng=np.random.default_rng(seed), w=w)
    return float(np.mean(np.abs(np.asarray(rel.values) - x[None, :]))) / _scale(x)


def users_for(values, n_users: int, landmarks, epsilon: float, target_relative: float, relation_for, *,
              schemes=None, w=None, seed: int = 0, repetitions: int = USERS_REPETITIONS) -> dict:
    """``{scheme: UsersAnswer}``: the smallest number of users N whose statistic meets ``target_relative`` at
    ``epsilon`` (see the module docstring). ``relation_for(N)``: the aggregate relation for N users."""
    from lmdk import plan as planner

    x0 = np.asarray(values, dtype=float)
    _scale(x0)
    target = _check_target(target_relative)
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ParameterError(f"--users-for needs ε > 0, not {epsilon!r}")
    n0 = int(n_users)
    w = w if w is not None else x0.size
    out = {}
    for scheme in schemes or planner.PLAN_SCHEMES:
        def error(n: int, scheme: str = scheme) -> float:
            return _relative_mae(x0, n0, n, landmarks, scheme, epsilon, relation_for, w, seed, repetitions)

        low, high = 0, 1
        err = error(high)
        while err > target and high < MAX_USERS:
            low, high = high, min(MAX_USERS, high * 4)
            err = error(high)
        if err > target:
            out[scheme] = UsersAnswer(None, err, False)
            continue
        while high - low > max(1, high // 200):  # 0.5 % of N is as fine as the Monte-Carlo error allows
            mid = (low + high) // 2
            mid_err = error(mid)
            if mid_err <= target:
                high, err = mid, mid_err
            else:
                low = mid
        out[scheme] = UsersAnswer(high, err, True)
    return out
