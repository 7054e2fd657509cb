"""The planner's vocabulary: the target error one can accept, the answer per scheme and the plan, and the constants
of the search (see :mod:`lmdk.plan`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from lmdk.errors import ParameterError

PLAN_SCHEMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")
CLOSED_FORM = ("event", "user", "w-event", "uniform")
AT = ("all", "landmarks", "regular")
EPSILON_MIN, EPSILON_MAX = 1e-4, 1e9
"""The range of ε the planner considers; a target met at EPSILON_MIN is met at any ε."""
TOLERANCE = 0.05
"""Default stated accuracy: the validated error lies within ±5 % of the target."""
CELLS_PER_PASS = 40_000
"""Automatic repetitions: enough that repetitions × measured events ≈ 40,000 (a relative standard error of the MAE
of about 1 % for Skip and 1.5 % for Adaptive on HUE), within the bounds below."""
SEARCH_REPETITIONS = (8, 64)  # bounds of the automatic repetitions of a search's common random numbers
VALIDATION_REPETITIONS = (5, 100)  # bounds of the automatic repetitions of the validation with the real sampler
ADAPTIVE_CELLS = 4
"""Adaptive's search and validation get 4× the repetitions (up to 4× the upper bound): a noisy release it republishes
for up to 16 timestamps makes one repetition's MAE vary about 4× as much as Skip's (HUE: 19 % vs 4.5 % per
repetition). Its validation with the exact sampler costs about the n sequential steps, hardly the repetitions."""
COARSE_POINTS, FINE_POINTS = 13, 9  # a search's grids: 13 ε over 10^6 (×3.2 apart), then 9 in the bracket (×1.15)
ADAPTIVE_POINTS = 17  # Adaptive's one pass over its likely range (HUE: ×1.6 apart): its cost is the n steps
SEARCH_SPAN = 1e3  # the coarse grid spans SEARCH_SPAN below and above the scheme's reference ε


@dataclass(frozen=True)
class Target:
    """The error one can accept: a mean absolute error ≤ ``error`` (``probability`` None) or |error| ≤ ``error``
    with at least ``probability``, over ``at`` = all events, the landmarks or the regular events."""

    error: float
    at: str = "all"
    probability: float | None = None

    def __post_init__(self) -> None:
        """Validate; messages name the field and the fix."""
        try:
            error = float(self.error)
        except (TypeError, ValueError):
            raise ParameterError(f"target error must be a number > 0 (in the series' unit), "
                                 f"not {self.error!r}") from None
        if not math.isfinite(error) or error <= 0:
            raise ParameterError(f"target error must be a finite number > 0 (in the series' unit), not {self.error!r}")
        object.__setattr__(self, "error", error)
        if self.at not in AT:
            raise ParameterError(f"target 'at' must be one of {AT} (where the error is measured), not {self.at!r}")
        if self.probability is not None:
            try:
                p = float(self.probability)
            except (TypeError, ValueError):
                raise ParameterError(f"target probability must be a number in (0, 1), "
                                     f"not {self.probability!r}") from None
            if not 0 < p < 1:
                raise ParameterError(f"target probability must lie strictly between 0 and 1 (e.g. 0.9), not "
                                     f"{self.probability!r}")
            object.__setattr__(self, "probability", p)

    @property
    def kind(self) -> str:
        """"mae" or "within"."""
        return "mae" if self.probability is None else "within"

    def to_dict(self) -> dict:
        """JSON-ready fields (probability left out for a MAE target)."""
        out = {"error": self.error, "at": self.at}
        if self.probability is not None:
            out["probability"] = self.probability
        return out

    @classmethod
    def from_dict(cls, data) -> Target:
        """Build from ``to_dict`` output; unknown fields are named."""
        if isinstance(data, Target):
            return data
        if not isinstance(data, dict):
            raise ParameterError(f"target must be an object like {{'error': 0.5, 'at': 'all'}}, not {data!r}")
        unknown = sorted(set(data) - {"error", "at", "probability"})
        if unknown:
            raise ParameterError(f"target: unknown field(s) {unknown}; allowed: error, at, probability")
        if "error" not in data:
            raise ParameterError("target needs 'error': the error one can accept, in the series' unit")
        return cls(**data)

    def describe(self, unit: str = "", words: str = "events") -> str:
        """"a mean error of at most 0.5 kWh over all hours" / "within ±0.5 kWh with probability 90 % at landmarks"."""
        amount = f"{self.error:g} {unit}".strip()
        where = {"all": f"over all {words}", "landmarks": f"at the landmark {words}",
                 "regular": f"at the regular {words}"}[self.at]
        if self.probability is None:
            return f"a mean absolute error of at most {amount} {where}"
        return f"an error within ±{amount} with probability {100 * self.probability:g} % {where}"


@dataclass(frozen=True)
class SchemePlan:
    """One scheme's answer: the smallest ε that meets the target, or why none does, with the validated error."""

    scheme: str
    feasible: bool
    epsilon: float | None  # None when no ε meets the target
    achieved_mae: float  # validated with the real sampler at ``epsilon`` (infeasible: the lowest MAE it reaches)
    ci95: tuple[float, float]
    method: str  # "closed form" | "search"
    predicted: float  # the model's error at ``epsilon`` (MAE, or the probability of a within-target)
    achieved_probability: float | None = None  # within-targets: validated share of events within ±error
    probability_ci95: tuple[float, float] | None = None
    any_epsilon: bool = False  # the target holds at every ε the planner considers (the range caps the error)
    within_tolerance: bool = True
    satisfies: bool = True  # Theorem 2 ((ε, L)-landmark privacy) holds at ``epsilon``
    validated_at: float | None = None  # the ε of the validation run (infeasible: the largest ε searched)
    repetitions: int = 0  # of the validation run
    note: str = ""

    def to_json(self) -> dict:
        """The interface of ``lmdk plan --json``: epsilon, achieved_mae, ci95 [low, high], feasible."""
        return {"epsilon": self.epsilon, "achieved_mae": _finite_or_none(self.achieved_mae),
                "ci95": [_finite_or_none(self.ci95[0]), _finite_or_none(self.ci95[1])], "feasible": self.feasible}


@dataclass(frozen=True)
class Plan:
    """The answers for every scheme, with what they assumed (target, unit, Δ, range, sampler, tolerance)."""

    target: Target
    mechanism: str
    unit: str
    sensitivity: float
    value_range: tuple[float, float] | None
    sampler: str
    tolerance: float
    repetitions: int  # the most repetitions of any validation run (each SchemePlan has its own)
    schemes: dict = field(default_factory=dict)  # scheme → SchemePlan
    relation: dict | None = None
    landmark_epsilon: float = 0.0  # ε_sel of a private landmark selection, spent on top of every scheme's ε

    def total_epsilon(self, scheme: str) -> float | None:
        """What an export of ``scheme`` at its planned ε spends in all: ε + ε_sel (None when infeasible)."""
        eps = self.schemes[scheme].epsilon
        return None if eps is None else float(eps) + self.landmark_epsilon

    def to_json(self) -> dict:
        """{scheme: {epsilon, achieved_mae, ci95, feasible}} (``lmdk plan --json``); with a private landmark selection
        also epsilon_total = epsilon + landmark_epsilon, what the ledger and a cap count."""
        out = {s: p.to_json() for s, p in self.schemes.items()}
        if self.landmark_epsilon:
            for s, row in out.items():
                row.update(epsilon_total=self.total_epsilon(s), landmark_epsilon=self.landmark_epsilon)
        return out

    def feasible(self) -> dict:
        """{scheme: ε} of the schemes that meet the target."""
        return {s: p.epsilon for s, p in self.schemes.items() if p.feasible}


def _finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None

