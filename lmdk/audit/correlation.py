"""Correlation: a Bayesian attacker who knows the Markov correlation of the series guesses one event's value from
every release, next to the temporal privacy loss (TPL) that bounds it (paper §2.3 and §3.3; Cao et al.).

The series is a two-state Markov chain over the neighbours' two values (the public range's ends: "at home" /
"away") with the transition matrix of strength s (``lmdk.tpl.transition_matrix``, Laplacian smoothing §4.1.2),
started in its stationary law (a fair coin). Every trial draws its own chain and releases it once,
as ``lmdk.schemes.release`` does (``lmdk.audit.rows``: the exports' path, sampler and public range). The attacker
computes the exact posterior of every event by the forward–backward recursion of the chain (log-odds form for
two states), using the released values where fresh noise was drawn, and guesses the likelier value. Without
correlation its success at t is at most e^{ε_t}/(1 + e^{ε_t}); with it, at most e^{α_t}/(1 + e^{α_t}) with α_t
the TPL at t (BPL + FPL − ε_t). Skip's landmarks spend nothing, yet their neighbours' releases give them away
under strong correlation: TPL says by how much, the attack shows it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.audit.loss import clopper_pearson
from lmdk.errors import ParameterError

TPL_ROWS = 64  # budget rows whose TPL is computed when they differ between releases (Adaptive)


@dataclass(frozen=True)
class CorrelationResult:
    """Per timestamp: the attack's success, the TPL bound and the no-correlation bound; and at the target event."""

    s: float
    success: np.ndarray  # (n,) share of correct guesses at every t
    bound: np.ndarray  # (n,) e^{α_t}/(1 + e^{α_t}), mean over releases
    bound_plain: np.ndarray  # (n,) e^{ε_t}/(1 + e^{ε_t}), mean over releases
    tpl: np.ndarray  # (n,) mean TPL α_t
    target: int  # the event reported (the landmark with the largest TPL, else the largest TPL)
    ci: tuple[float, float]  # 95 % interval of the success at the target
    trials: int

    def to_dict(self) -> dict:
        """JSON-ready summary at the target event (the curves stay in Python)."""
        t = self.target
        return {"s": self.s, "event": t, "success": float(self.success[t]), "ci": list(self.ci),
                "bound_tpl": float(self.bound[t]), "tpl": float(self.tpl[t]),
                "bound_no_correlation": float(self.bound_plain[t]), "trials": self.trials,
                "exceeds_tpl_bound": bool(self.ci[0] > self.bound[t] + 1e-9),
                "exceeds_no_correlation_bound": bool(self.ci[0] > self.bound_plain[t] + 1e-9)}


def chains(paths: int, n: int, s: float, rng: np.random.Generator) -> np.ndarray:
    """(paths, n) 0/1 states of the two-state chain of strength s, started from its stationary law."""
    from lmdk.tpl import transition_matrix

    flip = float(transition_matrix(s, 2)[0, 1])
    steps = rng.random((paths, n)) < flip
    steps[:, 0] = rng.random(paths) < 0.5
    return (np.cumsum(steps, axis=1) % 2).astype(np.int8)


def _carry(logodds: np.ndarray, stay: float) -> np.ndarray:
    """Log-odds of the next state given log-odds of this one (one step of the symmetric two-state chain)."""
    ls, lf = np.log(stay), np.log1p(-stay)
    return np.logaddexp(ls + logodds, lf) - np.logaddexp(lf + logodds, ls)


def posterior_logodds(evidence: np.ndarray, stay: float) -> np.ndarray:
    """(trials, n) log P(state 1 | all releases)/P(state 0 | …) from per-event evidence ln p(o_t|1) − ln p(o_t|0)."""
    trials, n = evidence.shape
    forward = np.empty((trials, n))
    acc = evidence[:, 0].copy()  # stationary prior: log-odds 0
    forward[:, 0] = acc
    for t in range(1, n):
        acc = _carry(acc, stay) + evidence[:, t]
        forward[:, t] = acc
    out = forward.copy()
    msg = np.zeros(trials)  # the future's evidence about state t, as log-odds
    for t in range(n - 2, -1, -1):
        msg = _carry(msg + evidence[:, t + 1], stay)
        out[:, t] += msg
    return out


def _tpl_rows(budgets: np.ndarray, P: np.ndarray) -> np.ndarray:
    """TPL of each budget row: once when every row is the same (data-independent schemes), otherwise for TPL_ROWS
    evenly spaced rows (Adaptive's budgets differ between releases)."""
    from lmdk.tpl import temporal_privacy_loss

    if np.array_equal(budgets, np.broadcast_to(budgets[:1], budgets.shape)):
        return temporal_privacy_loss(budgets[:1], P)[2]
    pick = np.linspace(0, budgets.shape[0] - 1, min(TPL_ROWS, budgets.shape[0])).astype(int)
    return temporal_privacy_loss(budgets[pick], P)[2]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(0.5 * x))


def attack(a, b, landmarks, n: int, scheme: str, epsilon: float, s: float, trials: int, rng, calibration,
           mechanism: str, w=None, dummies=None) -> CorrelationResult:
    """The correlated-series attack: ``trials`` chains over the two values a, b (scalars, or points for locations),
    each released once; per t, the attacker's success, the TPL bound and the no-correlation bound."""
    from lmdk.audit.neighbours import llr
    from lmdk.audit.rows import release_rows
    from lmdk.tpl import transition_matrix

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if trials < 10:
        raise ParameterError(f"trials must be at least 10 for the correlation attack, got {trials}")
    gen = np.random.default_rng(rng)
    P = transition_matrix(s, 2)
    states = chains(trials, n, s, gen).astype(bool)
    x = np.where(states[..., None], b, a) if a.ndim else np.where(states, b, a)
    if mechanism == "randomized_response":
        x = x.astype(np.int64)
    rel = release_rows(x, landmarks, scheme, epsilon, mechanism=mechanism, rng=gen, w=w, calibration=calibration,
                       dummies=dummies)
    values, budgets, published = (np.asarray(v) for v in (rel.values, rel.budgets, rel.published))
    shape = values.shape[1:]
    evidence = llr(values, budgets, published, np.broadcast_to(a, shape), np.broadcast_to(b, shape), mechanism,
                   rel.sensitivity)
    logodds = posterior_logodds(evidence, float(P[0, 0]))
    success = np.where(logodds == 0, 0.5, (logodds > 0) == states).mean(axis=0)
    alpha = _tpl_rows(budgets, P)
    mask = np.zeros(n, dtype=bool)
    mask[np.asarray(landmarks, dtype=np.int64)] = True
    tpl = alpha.mean(axis=0)
    pool = np.flatnonzero(mask) if mask.any() else np.arange(n)
    target = int(pool[np.argmax(tpl[pool])])
    low, high = clopper_pearson(round(success[target] * trials), trials, 0.025)
    return CorrelationResult(float(s), success, _sigmoid(alpha).mean(axis=0), _sigmoid(budgets).mean(axis=0), tpl,
                             target, (float(low), float(high)), trials)
