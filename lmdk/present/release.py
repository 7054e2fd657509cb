"""One series released under a policy, as ``lmdk release``, ``loss``, ``audit`` and ``plan`` compute it: the policy
(landmarks, scheme, mechanism, ε, …), a demonstration release from a seed, its summary (n, |L|, budgets, the
Theorem 2 verdict) and the released table — the command line parses and prints, this module computes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError
from lmdk.relation import Relation

DEMONSTRATION_SELECTION = 33
"""The stream (beside the seed) a demonstration's private landmark selection draws from."""


@dataclass(frozen=True)
class Policy:
    """What a release needs besides the data: landmarks, scheme, mechanism, ε, w, repetitions, seed."""

    landmarks: np.ndarray
    scheme: str
    mechanism: str
    epsilon: float
    w: int | None
    repetitions: int  # releases written
    seed: int | None
    dummies: dict | None = None
    draws: int = 1  # releases drawn: a RunConfig's repetitions, so a seeded stream matches the app's
    relation: Relation | None = None  # what ε protects (Δ = its sensitivity)


def landmark_positions(rule: str | None, series, tz: str | None = None, configured=None) -> np.ndarray:
    """The landmark set: ``rule`` on the series (calendar windows in ``tz``'s wall clock), else the configured
    positions (a RunConfig's)."""
    from lmdk import landmarks as lmk

    if rule is not None:
        return np.asarray(lmk.parse_rule(rule).indices(series, tz), dtype=np.int64)
    if configured is not None:
        return np.asarray(configured, dtype=np.int64)
    raise ParameterError("no landmarks: pass --landmarks RULE, declared in advance (e.g. --landmarks "
                         "calendar:daily@18:00-22:00, file:landmarks.csv, or none) or --config")


def view_relation(policy: Policy) -> Relation:
    """What a demonstration protects: the policy's relation (its Δ and the exports' sampler, as the app's views),
    or the papers' Δ = 1 without one (the command says so)."""
    from lmdk.relation import PAPERS_UNIT_CHANGE

    return policy.relation if policy.relation is not None else PAPERS_UNIT_CHANGE


def run_release(series, policy: Policy):
    """(mechanism input, Release, origin) of ``policy`` on ``series``; fresh entropy unless a seed is set."""
    from lmdk import schemes
    from lmdk.data.mechanism_input import release_input
    from lmdk.exports.runconfig import scheme_rng

    x, _, origin = release_input(series, policy.landmarks)
    rng = scheme_rng(policy.seed, policy.scheme) if policy.seed is not None else np.random.default_rng()
    rel = schemes.release(x, policy.landmarks, policy.scheme, policy.epsilon, protects=view_relation(policy),
                          mechanism=policy.mechanism, repetitions=policy.draws, rng=rng, w=policy.w,
                          dummies=policy.dummies)
    return x, rel, origin


def demonstration_landmarks(series, rule, policy: Policy, landmark_epsilon: float):
    """The landmark set a seeded demonstration selects privately at ``landmark_epsilon`` from ``rule`` (as an
    export would, from the policy's seed): a ``lmdk.selection.export`` landmark source."""
    from lmdk.selection.export import export_landmarks

    assert policy.seed is not None  # a demonstration
    return export_landmarks(series, rule, landmark_epsilon=landmark_epsilon, relation=policy.relation,
                            rng=np.random.default_rng([policy.seed, DEMONSTRATION_SELECTION]),
                            allow_data_landmarks=True)


def release_summary(series, policy: Policy, rel) -> dict:
    """n, |L|, budgets, the worst Σ ε over L ∪ {t} and the Theorem 2 verdict of one release."""
    from lmdk import privacy

    budgets = np.atleast_2d(rel.budgets)
    worst = float(np.max(privacy.landmark_loss(budgets, policy.landmarks))) if budgets.size else 0.0
    return {
        "events": len(series), "landmarks": int(len(policy.landmarks)), "scheme": policy.scheme,
        "mechanism": policy.mechanism, "epsilon": policy.epsilon, "budget_min": float(budgets.min()),
        "budget_max": float(budgets.max()), "budget_total": float(budgets.sum(axis=-1).max()),
        "worst_sum_over_L_and_t": worst, "theorem2_holds": bool(worst <= policy.epsilon * (1 + 1e-9)),
        "reproducible_seed": policy.seed is not None,
    }


def summary_line(summary: dict) -> str:
    """The one line said about a release: n, |L|, ε, budgets, the worst Σ and the Theorem 2 verdict."""
    verdict = ("satisfies (ε, L)-landmark privacy (Theorem 2)" if summary["theorem2_holds"]
               else "VIOLATES (ε, L)-landmark privacy (Theorem 2)")
    return (f"{summary['scheme']}: n = {summary['events']:,}, |L| = {summary['landmarks']:,}, "
            f"ε = {summary['epsilon']:g}, budgets {summary['budget_min']:.4g}..{summary['budget_max']:.4g} per event, "
            f"worst Σ over L ∪ {{t}} = {summary['worst_sum_over_L_and_t']:.4g} → {verdict}")


def released_table(series, policy: Policy, rel, origin):
    """The released series as a table: the app's released-series CSV, one block per repetition."""
    import pandas as pd

    from lmdk.exports.export import released_frame

    frames = []
    for r in range(policy.repetitions):
        frame = released_frame(series, rel, policy.landmarks, policy.mechanism, origin, repetition=r)
        if policy.repetitions > 1:
            frame.insert(0, "repetition", r + 1)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
