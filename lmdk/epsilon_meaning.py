"""What an ε means in the world's terms: how far it lets an attacker's belief move, and where it sits among the ε
of published deployments (issue 56).

The bound is the definition read as a bet (Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*,
§2.3; the landmark paper's Definition 1, §2): the likelihood ratio of any output under two neighbouring inputs is at
most e^ε, so by Bayes' rule a prior odds p / (1 − p) on one protected event becomes posterior odds of at most
e^ε · p / (1 − p). Pure stdlib arithmetic: a caption beside every ε control calls it on each rerun.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from lmdk.errors import ParameterError


@dataclass(frozen=True)
class Deployment:
    """One published deployment of differential privacy: who, what, its ε, δ and the unit ε protects."""

    organisation: str
    what: str
    epsilon: float
    delta: str  # as published ("" for pure ε-DP): the registry gives bounds such as "< 10⁻⁷"
    unit: str  # what one ε covers, or the trust model (local: each device randomises its own report)

    @property
    def label(self) -> str:
        """Short name: organisation and product, e.g. "Apple emoji suggestions"."""
        return f"{self.organisation} {self.what}"

    @property
    def terms(self) -> str:
        """ε, δ and unit in one parenthesis-free phrase, e.g. "ε 4, δ < 10⁻⁷, per user"."""
        parts = [f"ε {self.epsilon:g}"] + ([f"δ {self.delta}"] if self.delta else []) + [self.unit]
        return ", ".join(parts)


@dataclass(frozen=True)
class Source:
    """Where a table of published values comes from (cited, not copied)."""

    name: str
    publisher: str
    url: str


SOURCE = Source(name="Deployments Registry", publisher="OpenDP",
                url="https://registry.opendp.org/deployments-registry")
"""The public registry of differential-privacy deployments kept by OpenDP, after Dwork, Kohli & Mulligan's
"Expose your Epsilons!" (2019): the source of every row of DEPLOYMENTS."""

DEPLOYMENTS: tuple[Deployment, ...] = (
    Deployment("Apple", "emoji suggestions", 4.0, "", "local model"),
    Deployment("Apple", "Safari auto-play intent detection", 8.0, "", "local model"),
    Deployment("Microsoft", "Assistive AI", 4.0, "< 10⁻⁷", "per user"),
    Deployment("LinkedIn", "Audience Engagement API", 34.9, "7·10⁻⁹", "per month"),
    Deployment("Israel", "live-births release (2014)", 9.98, "", "per birth"),
)
"""Published ε, as the issue's table gives them from SOURCE (issue 56), in that order."""

UNITS_NOTE = ("These ε protect different things (per user, per month, per birth, or each report in the local "
              "model), so the comparison is a scale, not an equivalence.")


@dataclass(frozen=True)
class EpsilonMeaning:
    """What one ε means: the belief bound (from a 50 % prior) and where it sits among DEPLOYMENTS."""

    epsilon: float
    belief: float  # the most a 50 % belief about one protected event can become
    bound: str  # the belief bound as a sentence
    placement: str  # "below all" | "equal" | "between" | "above all"
    below: tuple[Deployment, ...]  # the deployments with the nearest ε under this one (all tied); () when equal
    equal: tuple[Deployment, ...]  # the deployments with this very ε
    above: tuple[Deployment, ...]  # the deployments with the nearest ε over this one (all tied); () when equal
    position: str  # where ε sits, every neighbour named
    note: str = UNITS_NOTE

    @property
    def summary(self) -> str:
        """Bound and position in one line (no source: the caller links SOURCE)."""
        return f"{self.bound} Published deployments: {self.position}"


def _number(value, wrong: str) -> float:
    """``value`` as a float (a bool is not a number here), else a ParameterError saying ``wrong``."""
    if isinstance(value, bool):
        raise ParameterError(f"{wrong}, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{wrong}, got {value!r}") from exc


def _checked(epsilon: float) -> float:
    """ε as a float, finite and > 0, else a ParameterError naming the fix."""
    value = _number(epsilon, "epsilon must be a number > 0 such as 1.0")
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(f"epsilon must be finite and > 0 (e.g. 1.0), got {epsilon!r}")
    return value


def belief_bound(epsilon: float, prior: float = 0.5) -> float:
    """The most an attacker's belief in one protected event can move to from ``prior``: p·e^ε / (p·e^ε + 1 − p)."""
    eps = _checked(epsilon)
    p = _number(prior, "prior must be a probability strictly between 0 and 1")
    if not 0 < p < 1:
        raise ParameterError(f"prior must be a probability strictly between 0 and 1 (e.g. 0.5), got {prior!r}")
    # Written as 1 / (1 + (1 − p)/p · e^−ε) so that a large ε underflows towards 1 instead of overflowing.
    return 1.0 / (1.0 + (1.0 - p) / p * math.exp(-eps))


def _group(deployments: tuple[Deployment, ...]) -> str:
    """Deployments sharing one ε: "ε 4 (A, local model; B, δ < 10⁻⁷, per user)"."""
    items = "; ".join(", ".join([d.label] + ([f"δ {d.delta}"] if d.delta else []) + [d.unit]) for d in deployments)
    return f"ε {deployments[0].epsilon:g} ({items})"


def _percent(share: float) -> str:
    """A bound as a percentage; near 1, rounded up with the decimals it takes to stay below 100 % (it is an "at most"),
    or "" when even three decimals would show 100 %."""
    if share < 0.995:
        return f"{round(100 * share)} %"
    for decimals in (1, 2, 3):
        shown = math.ceil(share * 100 * 10**decimals) / 10**decimals
        if shown < 100:
            return f"{shown:.{decimals}f} %"
    return ""


def meaning(epsilon: float) -> EpsilonMeaning:
    """What ``epsilon`` means: the belief bound from 50 % and its place among DEPLOYMENTS, every neighbour named."""
    return _meaning(_checked(epsilon))


@lru_cache(maxsize=256)
def _meaning(eps: float) -> EpsilonMeaning:
    """meaning() of a checked ε, cached: a page's rerun asks again for the same slider value."""
    belief = belief_bound(eps)
    shown = _percent(belief)
    bound = (f"ε = {eps:g}: an attacker's 50 % guess about one protected event can move to "
             + (f"at most {shown}." if shown else "near certainty (over 99.999 %)."))
    equal = tuple(d for d in DEPLOYMENTS if math.isclose(d.epsilon, eps, rel_tol=1e-9))
    lower = [] if equal else [d.epsilon for d in DEPLOYMENTS if d.epsilon < eps]
    upper = [] if equal else [d.epsilon for d in DEPLOYMENTS if d.epsilon > eps]
    below = tuple(d for d in DEPLOYMENTS if lower and d.epsilon == max(lower))
    above = tuple(d for d in DEPLOYMENTS if upper and d.epsilon == min(upper))
    if equal:
        placement, position = "equal", f"the same as {_group(equal)}."
    elif not below:
        placement, position = "below all", f"below all of them; the lowest is {_group(above)}."
    elif not above:
        placement, position = "above all", f"above all of them; the highest is {_group(below)}."
    else:
        placement, position = "between", f"between {_group(below)} and {_group(above)}."
    return EpsilonMeaning(epsilon=eps, belief=belief, bound=bound, placement=placement, below=below, equal=equal,
                          above=above, position=position)
