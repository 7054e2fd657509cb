"""The value attack: a Bayesian attacker with a stated prior guesses one event's value from the release, and its
success is compared with what ε allows.

The attacker knows the mechanism, the budgets and every other event (the worst case of Definition 1); its prior
over the event's value is the public range's two ends (a binary guess: "was the meter at 0 or at 25 kWh in that
hour?", "was the person at this place or 200 m away?") or a population's histogram over the public range. It
guesses the value of largest posterior (maximum a posteriori, the best guess on average). For an ε-DP release
the posterior of any value v is at most π_v·e^ε / (π_v·e^ε + 1 − π_v), so the success of any guess is at most

    π_max·e^ε / (π_max·e^ε + 1 − π_max)  — e^ε / (1 + e^ε) for a fair binary guess,

the bound drawn beside the measured success (Dwork & Roth 2014 §2.3; Wasserman & Zhou 2010).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.audit.loss import clopper_pearson
from lmdk.errors import ParameterError

HISTOGRAM_BINS = 5


@dataclass(frozen=True)
class Prior:
    """The attacker's prior over one event's value: support points and their probabilities."""

    support: np.ndarray  # (k,) values, or (k, 2) locations; binary priors keep per-event points (see ``binary``)
    weights: np.ndarray  # (k,) probabilities summing to 1
    name: str  # "range" (the public range's ends) or "histogram"

    def __post_init__(self) -> None:
        """Check weights are a probability vector matching the support."""
        w = np.asarray(self.weights, dtype=float)
        if w.ndim != 1 or w.size < 2 or w.size != len(self.support) or np.any(w < 0) or abs(w.sum() - 1) > 1e-9:
            raise ParameterError("prior weights must be ≥ 0, sum to 1 and give one weight per support point (≥ 2)")

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return {"name": self.name, "support": np.asarray(self.support).tolist(),
                "weights": np.asarray(self.weights).tolist()}


def binary(a, b) -> Prior:
    """A fair coin between the two neighbours' values a and b (the public range's ends, a location and its move)."""
    return Prior(np.array([a, b], dtype=float), np.array([0.5, 0.5]), "range")


def histogram(sample, low: float, high: float, bins: int = HISTOGRAM_BINS) -> Prior:
    """The histogram of a population's values (``sample``, clamped to the public range) in ``bins`` equal bins over
    the span of the sample; support at the bin centres (empty bins get no weight)."""
    x = np.clip(np.asarray(sample, dtype=float).ravel(), low, high)
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ParameterError("a histogram prior needs a non-empty sample of finite values")
    counts, edges = np.histogram(x, bins=bins, range=(float(x.min()), float(max(x.max(), x.min() + 1e-9))))
    centres = (edges[:-1] + edges[1:]) / 2
    keep = counts > 0
    if keep.sum() < 2:
        raise ParameterError("the histogram prior puts all weight on one bin: the guess would be certain without "
                             "any release; use the range prior")
    return Prior(centres[keep], counts[keep] / counts.sum(), "histogram")


def bound(epsilon: float, weights) -> float:
    """The largest success of any guess at an ε-DP event: π_max·e^ε / (π_max·e^ε + 1 − π_max)."""
    p = float(np.max(weights))
    return p * np.exp(epsilon) / (p * np.exp(epsilon) + 1 - p)


def log_likelihood(values: np.ndarray, budget: np.ndarray, published: np.ndarray, support: np.ndarray,
                   mechanism: str, sensitivity: float) -> np.ndarray:
    """(trials, k): ln p(o | v_i) up to a constant per release, for releases ``values`` (trials[, 2]) of one event."""
    o = values[:, None]
    if mechanism == "randomized_response":
        ll = np.where(o == support[None, :], budget[:, None], 0.0)
    elif mechanism == "planar_laplace":
        d = o - support[None, :, :]
        ll = -np.hypot(d[..., 0], d[..., 1]) * budget[:, None] / sensitivity
    else:
        ll = -np.abs(o - support[None, :]) * budget[:, None] / sensitivity
    return np.where(published[:, None], ll, 0.0)


@dataclass(frozen=True)
class GuessResult:
    """Success of the MAP guess of one event's value, with its 95 % interval, the bound ε allows and a coin's."""

    success: float
    ci: tuple[float, float]
    bound: float  # what the claimed ε allows
    chance: float  # the prior's best guess without any release (π_max)
    event: int  # the timestamp attacked
    prior: str
    trials: int
    budget_bound: float = float("nan")  # what the event's own budget ε_t allows

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return {"success": self.success, "ci": list(self.ci), "bound": self.bound, "chance": self.chance,
                "event": self.event, "prior": self.prior, "trials": self.trials, "budget_bound": self.budget_bound}


def map_success(loglik: list[np.ndarray], weights) -> tuple[float, tuple[float, float]]:
    """Success of the MAP guess: ``loglik[j]`` (trials, k) are releases drawn with the event at support point j.

    Ties between the most probable points are broken uniformly at random (counted in expectation); the 95 %
    interval is Clopper–Pearson on the effective number of guesses (exact for a fair binary prior)."""
    w = np.asarray(weights, dtype=float)
    logw = np.log(np.where(w > 0, w, 1e-300))
    rates = []
    for j, ll in enumerate(loglik):
        post = ll + logw[None, :]
        top = post.max(axis=1, keepdims=True)
        tied = np.isclose(post, top, rtol=0, atol=1e-12)
        rates.append(float(np.mean(tied[:, j] / tied.sum(axis=1))))
    success = float(np.dot(w, rates))
    trials = loglik[0].shape[0]
    effective = trials * w.sum() ** 2 / np.sum(w ** 2)
    low, high = clopper_pearson(round(success * effective), int(round(effective)), 0.025)
    return success, (float(low), float(high))
