"""Plan from the error you can accept: a target error → the smallest ε per scheme (the inverse of schemes.release).

The question a privacy officer brings is "how much privacy can we afford if the hourly readings must stay within
±0.5 kWh?". :func:`plan` answers it for every budget scheme (paper §3.2: event, user, w-event, uniform, skip,
adaptive) under one neighbouring relation (:mod:`lmdk.relation`: Δ, the public range the values are clamped to,
the sampler), for a :class:`Target`:

- ``Target(error=x)``: the mean absolute error (paper §4.2.1) over all events, the landmarks or the regular events
  (``at``) is at most x;
- ``Target(error=x, probability=p)``: the error of an event stays within ±x with probability at least p (an event
  drawn from the chosen set; the data-independent schemes give every event the same budget, so there it holds for
  every given event).

How each answer is found:

- **Closed form** (event, user, w-event, uniform: one budget ε_t = ε/c at every timestamp, c = 1, n, w, |L| + 1;
  paper §3.2). Laplace (§2.1.1) with scale b = Δ/ε_t has E|Lap(b)| = b, so without clamping the MAE is Δ·c/ε
  and ε = Δ·c/x: halving the target doubles ε. With the public range [l, h] the exports clamp the value to the
  range before the noise and the release into it after (:mod:`lmdk.discrete_laplace` steps 1 and 4), and then
  E|o_t − x_t| = b·(1 − ½e^{−(h−x_t)/b} − ½e^{−(x_t−l)/b}) for x_t in the range (|Z| ~ Exp(b), E min(|Z|, a) =
  b(1 − e^{−a/b}) on either side); the planner solves that mean for b (Brent's method on log b). It is exact for
  the continuous Laplace with clamping; the exports' discrete Laplace on the 2^k grid differs by the rounding to a
  grid of at most 1/1024 of the noise scale. The error is capped at (h − l)/2 as ε → 0, so a target above the
  cap is met at any ε (``any_epsilon``). Probability targets: P(|o_t − x_t| ≤ x) = 1 − ½e^{−x/b}·(#sides the
  range leaves room to miss). Randomized response (§2.1.1, §4.1.2): a flip with probability 1/(e^{ε_t} + 1),
  i.e. a MAE of 100/(e^{ε_t} + 1) % wrong reports; planar Laplace: E r = 2Δ/ε_t (r ~ Gamma(2, Δ/ε_t)).
- **Search with common random numbers** (skip, adaptive: the error depends on the data — Skip republishes the
  previous release at landmarks, Adaptive decides from noisy changes when to publish). The unit noise of
  ``search_repetitions`` repetitions is drawn once and reused at every ε (the textbook sampler: a unit Laplace
  scaled by Δ/ε_t, the input and the release clamped to the public range as the exports do), so the error is a
  smooth, monotone-in-expectation function of ε; all candidate ε of a pass run in one vectorised release (ε per
  row). Skip: a coarse pass over a wide log grid brackets the target, a fine pass (steps of 15 %) narrows it;
  Adaptive: one pass of 17 ε between half event level's and 4× uniform's ε (extended if the target lies beyond;
  its cost is the n sequential steps, hardly the rows); then
  interpolation in log ε (and log MAE: a MAE falls like a power of ε) gives the answer. Schemes outside the six
  (baselines registered in :mod:`lmdk.schemes`) and dummy landmarks are searched the same way through
  :func:`lmdk.schemes.release` itself, with the same seed at every ε.

Every answer is then **validated once with the real sampler** (``lmdk.relation.release_options``: the exports'
exact discrete Laplace on the public range) at the planned ε, ``repetitions`` times: ``achieved_mae`` and its 95 %
interval (:func:`lmdk.metrics.mean_ci95`) are those measured numbers, never the model's. ``tolerance`` is the
stated accuracy: a feasible answer's validated error is expected within ±tolerance·x of the target x (the search
step, < 1 %, plus the Monte-Carlo error of both runs; ``within_tolerance`` says whether it was).

A scheme that cannot meet the target at any ε says so (``feasible=False``, ``epsilon=None``) and reports the
lowest error it reaches instead: Skip's approximation error at the landmarks is a floor no budget removes.

Because every mechanism's noise depends on Δ/ε alone (Dwork & Roth 2014, Theorem 3.6), the ε a target needs is
proportional to Δ for a fixed public range: :func:`tradeoff` turns one plan into the cost of protecting changes
of up to d instead of the whole range.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from lmdk.errors import ParameterError
from lmdk.metrics import UNITS, mean_ci95
from lmdk.rng import as_generator

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

    def to_json(self) -> dict:
        """{scheme: {epsilon, achieved_mae, ci95, feasible}} (``lmdk plan --json``)."""
        return {s: p.to_json() for s, p in self.schemes.items()}

    def feasible(self) -> dict:
        """{scheme: ε} of the schemes that meet the target."""
        return {s: p.epsilon for s, p in self.schemes.items() if p.feasible}


def _finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None


# ----------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class _Setup:
    x: np.ndarray  # the original series ((n,), (n,) 0/1 or (n, 2) metres)
    xc: np.ndarray  # clamped into the public range (values), else x
    mask: np.ndarray  # (n,) landmarks
    cells: np.ndarray  # (n,) the events the target measures
    mechanism: str
    delta: float
    value_range: tuple[float, float] | None
    options: dict  # lmdk.schemes.release options of the relation (real sampler)
    target: Target
    w: int
    default: np.ndarray


def _setup(series, landmarks, target, mechanism, relation, w) -> _Setup:
    from lmdk import relation as rel
    from lmdk.privacy import landmark_mask
    from lmdk.schemes import _prepare_series

    x = _prepare_series(series, mechanism)
    n = x.shape[0]
    mask = landmark_mask(landmarks, n)
    if mask.ndim != 1:
        raise ParameterError("landmarks: give one landmark set (indices or an (n,) mask) to plan for")
    target = Target.from_dict(target) if isinstance(target, dict) else target
    if not isinstance(target, Target):
        raise ParameterError("target must be a lmdk.plan.Target or its dict, e.g. Target(error=0.5)")
    if target.probability is not None and mechanism == "randomized_response":
        raise ParameterError("a within-±x target applies to values and locations; for contact bits give the mean "
                             "error (% wrong reports), which is the flip probability")
    cells = {"all": np.ones(n, bool), "landmarks": mask, "regular": ~mask}[target.at]
    if not cells.any():
        raise ParameterError(f"target at {target.at!r}: this series has no such events (|L| = {int(mask.sum())} of "
                             f"{n}); measure at 'all' or change the landmarks")
    protected = rel.Relation.from_dict(relation) if isinstance(relation, dict) else relation
    options = rel.release_options(protected, mechanism)
    delta = float(options.get("sensitivity", 1.0))
    value_range = options.get("value_range") if mechanism == "laplace" else None
    xc = np.clip(x, *value_range) if value_range is not None else x
    default = np.zeros(x.shape[1:], dtype=x.dtype)
    if value_range is not None:
        default = np.clip(default, *value_range)
    if w is None:
        w = n
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or not 1 <= w <= n:
        raise ParameterError(f"w (w-event window length) must be an integer in 1..n={n}, got {w!r}")
    return _Setup(x, xc, mask, cells, mechanism, delta, value_range, options, target, int(w), default)


def _share(scheme: str, s: _Setup) -> float:
    """c of the fixed per-event budget ε/c of a data-independent scheme (paper §3.2)."""
    n, k = s.mask.size, int(s.mask.sum())
    return {"event": 1.0, "user": float(n), "w-event": float(s.w),
            "uniform": float(k + (k < n))}[scheme]


# ----------------------------------------------------------------------------- closed forms
def _laplace_mae(x: np.ndarray, b, value_range) -> np.ndarray:
    """E|o − x| of the clamped Laplace release (mean over x) for each scale b; unclamped: b."""
    from lmdk.metrics import laplace_expected_error

    b = np.atleast_1d(np.asarray(b, dtype=float))
    if value_range is None:
        return b
    return laplace_expected_error(x[None, :], b[:, None], value_range).mean(axis=1)


def _laplace_within(x: np.ndarray, b, r: float, value_range) -> np.ndarray:
    """P(|o − x| ≤ r) of the clamped Laplace release (mean over x) for each scale b."""
    b = np.atleast_1d(np.asarray(b, dtype=float))
    bb = b[:, None]
    if value_range is None:
        return np.broadcast_to(1 - np.exp(-r / bb), (b.size, x.size)).mean(axis=1)
    low, high = value_range
    tail = 0.5 * np.exp(-r / bb)
    inside = (x >= low) & (x <= high)
    sides = (x + r < high).astype(float) + (x - r > low)
    p_in = 1 - tail * sides
    # outside the range: released from the nearest end c; missing means landing beyond x ± r on the far side
    c = np.clip(x, low, high)
    gap = np.abs(x - c)
    far = np.where(x < low, high - c, c - low)  # room on the side away from x
    beyond = r - gap  # how far past the end the release may go and still be within r
    p_out = np.where(beyond < 0, 0.0, np.where(beyond >= far, 1.0, 1 - 0.5 * np.exp(-np.maximum(beyond, 0) / bb)))
    return np.where(inside, p_in, p_out).mean(axis=1)


def _closed_stat(s: _Setup, budget) -> np.ndarray:
    """The target's statistic (MAE, or the share within ±error) at per-event budgets ``budget`` (array)."""
    e = np.atleast_1d(np.asarray(budget, dtype=float))
    x = s.x[s.cells]
    t = s.target
    if s.mechanism == "laplace":
        b = s.delta / e
        if t.probability is None:
            return _laplace_mae(x, b, s.value_range)
        return _laplace_within(x, b, t.error, s.value_range)
    if s.mechanism == "planar_laplace":
        b = s.delta / e
        if t.probability is None:
            return 2 * b
        return 1 - (1 + t.error / b) * np.exp(-t.error / b)
    return 100 * expit(-e)  # randomized response: % wrong reports


def _solve_closed(s: _Setup, c: float) -> tuple[float | None, bool, float]:
    """(ε, any_epsilon, predicted) of a fixed per-event budget ε/c; ε None when no ε meets the target."""
    t = s.target
    lo_e, hi_e = EPSILON_MIN / c, EPSILON_MAX / c

    def excess(e):  # ≤ 0: met
        stat = float(_closed_stat(s, e)[0])
        return stat - t.error if t.probability is None else t.probability - stat

    if s.mechanism == "laplace" and s.value_range is None and t.probability is None:
        eps = s.delta * c / t.error  # E|Lap(Δ/ε_t)| = Δ/ε_t (§2.1.1): ε = Δ·c/x
        return (eps, False, t.error) if eps <= EPSILON_MAX else (None, False, float(_closed_stat(s, hi_e)[0]))
    if s.mechanism == "randomized_response":
        p = t.error / 100
        if p >= 0.5:
            return EPSILON_MIN, True, float(_closed_stat(s, lo_e)[0])
        eps = c * math.log((1 - p) / p)  # flip probability 1/(e^{ε_t} + 1) = p
        return (eps, False, t.error) if eps <= EPSILON_MAX else (None, False, float(_closed_stat(s, hi_e)[0]))
    if excess(lo_e) <= 0:
        return EPSILON_MIN, True, float(_closed_stat(s, lo_e)[0])
    if excess(hi_e) > 0:
        return None, False, float(_closed_stat(s, hi_e)[0])
    root = brentq(lambda u: excess(math.exp(u)), math.log(lo_e), math.log(hi_e), xtol=1e-12, rtol=1e-12)
    e = math.exp(root)
    return e * c, False, float(_closed_stat(s, e)[0])


# ----------------------------------------------------------------------------- searches (common random numbers)
def _cell_stat(s: _Setup, released: np.ndarray) -> np.ndarray:
    """Per-row statistic of released values at the target's cells: MAE (metrics units) or the share within ±r."""
    x = s.x[s.cells]
    if s.mechanism == "planar_laplace":
        err = np.hypot(released[..., 0] - x[:, 0], released[..., 1] - x[:, 1])
    elif s.mechanism == "randomized_response":
        return 100.0 * (released != x).mean(axis=-1)
    else:
        err = np.abs(released - x)
    if s.target.probability is None:
        return err.mean(axis=-1)
    return (err <= s.target.error).mean(axis=-1)


def _skip_sources(mask: np.ndarray) -> np.ndarray:
    """Index of the release each timestamp shows under Skip: the last regular t' ≤ t, or −1 (the default)."""
    n = mask.size
    idx = np.where(~mask, np.arange(n), -1)
    return np.maximum.accumulate(idx)


def _skip_evaluator(s: _Setup, noise: np.ndarray):
    """Skip (§3.2: ε at regular events, the previous release republished at landmarks) at many ε at once."""
    from lmdk.mechanisms import perturb

    src = _skip_sources(s.mask)[s.cells]
    used, inverse = np.unique(src, return_inverse=True)
    fresh = used >= 0
    cols = used[fresh]
    x_used = s.xc[cols]
    noise_used = noise[:, cols]

    def evaluate(eps: np.ndarray) -> np.ndarray:
        out = np.empty((eps.size, noise.shape[0]))
        for i, e in enumerate(eps):  # one ε at a time keeps the memory at repetitions × |cells|
            vals = perturb(s.mechanism, x_used, np.asarray(e), noise_used, s.delta)
            if s.value_range is not None:
                vals = np.clip(vals, *s.value_range)
            if not fresh.all():
                default = np.broadcast_to(s.default, (noise.shape[0], 1) + s.default.shape).astype(vals.dtype)
                vals = np.concatenate([default, vals], axis=1)  # the −1 source is the first in ``used``
            out[i] = _cell_stat(s, vals[:, inverse])
        return out

    return evaluate


def _adaptive_evaluator(s: _Setup, noise: np.ndarray):
    """Adaptive (§3.2, Figure 4) at many ε at once: one vectorised run with ε per row and the same noise."""
    from lmdk.schemes import _adaptive

    reps = noise.shape[0]
    post = None
    if s.value_range is not None:
        low, high = s.value_range
        post = lambda noisy, budget: np.clip(noisy, low, high)  # noqa: E731 (the exports clamp into the range)

    def evaluate(eps: np.ndarray) -> np.ndarray:
        rows = eps.size * reps
        mask = np.broadcast_to(s.mask, (rows, s.mask.size))
        tiled = np.broadcast_to(noise, (eps.size,) + noise.shape).reshape((rows,) + noise.shape[1:])
        values, _, _ = _adaptive(s.xc, mask, np.repeat(eps, reps), s.mechanism, s.delta, tiled, s.default, post)
        return _cell_stat(s, values[:, s.cells]).reshape(eps.size, reps)

    return evaluate


def _release_evaluator(s: _Setup, scheme: str, seed: int, reps: int, dummies):
    """Any scheme of lmdk.schemes (baselines, dummies) through schemes.release with the same seed at every ε."""
    from lmdk.schemes import release

    def evaluate(eps: np.ndarray) -> np.ndarray:
        out = np.empty((eps.size, reps))
        for i, e in enumerate(eps):
            rel = release(s.x, s.mask, scheme, float(e), mechanism=s.mechanism, repetitions=reps,
                          rng=np.random.default_rng(seed), w=s.w, dummies=dummies, **s.options)
            out[i] = _cell_stat(s, rel.values[:, s.cells])
        return out

    return evaluate


def _excess(s: _Setup, mean: np.ndarray) -> np.ndarray:
    """≤ 0 where the target is met (per ε: the mean over the repetitions)."""
    return mean - s.target.error if s.target.probability is None else s.target.probability - mean


def _crossing(s: _Setup, eps: np.ndarray, stat: np.ndarray, k: int) -> tuple[float, float]:
    """(ε, stat) where the target is crossed between eps[k] (not met) and eps[k + 1] (met): interpolated in log ε,
    and in log MAE for MAE targets (a MAE falls like a power of ε)."""
    t = s.target
    if t.probability is None and stat[k] > 0 and stat[k + 1] > 0:
        a, b, goal = math.log(stat[k]), math.log(stat[k + 1]), math.log(t.error)
    else:
        a, b, goal = stat[k], stat[k + 1], (t.error if t.probability is None else t.probability)
    frac = (a - goal) / (a - b) if a != b else 1.0
    frac = min(max(frac, 0.0), 1.0)
    lo, hi = math.log(eps[k]), math.log(eps[k + 1])
    at = a + frac * (b - a)
    return math.exp(lo + frac * (hi - lo)), float(math.exp(at) if t.probability is None and a != stat[k] else at)


def _search(s: _Setup, evaluate, wide: tuple[float, float], first: tuple[float, float] | None = None,
            coarse: int = COARSE_POINTS, fine: int = FINE_POINTS) -> tuple[float | None, bool, float]:
    """(ε, any_epsilon, predicted): a log grid of ``coarse`` ε over ``first`` (default: ``wide``), extended over the
    rest of ``wide`` when the target lies beyond it, then ``fine`` points between the two that bracket the target
    (none: interpolate on the coarse grid). The answer is the last crossing: every larger ε of the grid meets it."""
    lo, hi = first or wide
    grid = np.geomspace(lo, hi, coarse)
    stats = evaluate(grid).mean(axis=-1)
    ex = _excess(s, stats)
    if ex[-1] > 0 and hi < wide[1]:  # not met at the top of the first grid: look higher
        more = np.geomspace(hi, wide[1], coarse)[1:]
        grid, stats = np.concatenate((grid, more)), np.concatenate((stats, evaluate(more).mean(axis=-1)))
        ex = _excess(s, stats)
    elif ex[0] <= 0 and lo > wide[0]:  # met at the bottom of the first grid: look lower
        less = np.geomspace(wide[0], lo, coarse)[:-1]
        grid, stats = np.concatenate((less, grid)), np.concatenate((evaluate(less).mean(axis=-1), stats))
        ex = _excess(s, stats)
    if ex[-1] > 0:
        best = int(np.argmin(ex))
        return None, False, float(stats[best])
    if ex[0] <= 0:
        return float(grid[0]), True, float(stats[0])
    j = int(np.flatnonzero(ex > 0).max())
    if fine > 2:
        inner = np.geomspace(grid[j], grid[j + 1], fine)[1:-1]
        grid = np.concatenate(([grid[j]], inner, [grid[j + 1]]))
        stats = np.concatenate(([stats[j]], evaluate(inner).mean(axis=-1), [stats[j + 1]]))
        ex = _excess(s, stats)
        j = int(np.flatnonzero(ex > 0).max())
    eps, predicted = _crossing(s, grid, stats, j)
    return eps, False, predicted


def _span(reference: float) -> tuple[float, float]:
    """The ε a search considers around ``reference``: ×/÷ SEARCH_SPAN within [EPSILON_MIN, EPSILON_MAX]."""
    return max(EPSILON_MIN, reference / SEARCH_SPAN), min(EPSILON_MAX, reference * SEARCH_SPAN)


def _reference(s: _Setup, c: float) -> float:
    """A first guess of ε for a per-event budget ε/c (the unclamped closed form), centre of the search grid."""
    t = s.target
    if s.mechanism == "randomized_response":
        p = min(t.error / 100, 0.49)
        return c * math.log((1 - p) / p)
    scale = t.error / 2 if s.mechanism == "planar_laplace" else t.error
    if t.probability is not None:
        scale = t.error / max(math.log(1 / (1 - t.probability)), 1e-3)
    return s.delta * c / scale


def _unit_noise(s: _Setup, reps: int, rng) -> np.ndarray:
    from lmdk.mechanisms import unit_noise

    return unit_noise(s.mechanism, (reps, s.mask.size), rng)


# ----------------------------------------------------------------------------- validation
def _validate(s: _Setup, scheme: str, epsilon: float, reps: int, rng, dummies) -> tuple:
    """The real sampler's release at ε: (MAE at the cells with CI, share within ±error with CI or None, Theorem 2)."""
    from lmdk import privacy
    from lmdk.schemes import release

    rel = release(s.x, s.mask, scheme, epsilon, mechanism=s.mechanism, repetitions=reps, rng=rng, w=s.w,
                  dummies=dummies, **s.options)
    released = rel.values[:, s.cells]
    mae_target = Target(error=s.target.error, at=s.target.at)
    per_rep = _cell_stat(_Setup(**{**s.__dict__, "target": mae_target}), released)
    mae = mean_ci95(per_rep)
    within = None
    if s.target.probability is not None:
        within = mean_ci95(_cell_stat(s, released))
    worst = float(np.max(privacy.landmark_loss(rel.budgets, rel.landmarks)))
    return mae, within, worst <= epsilon * (1 + 1e-9)


def plan(series, landmarks, target, *, mechanism: str = "laplace", relation=None, schemes=PLAN_SCHEMES, w=None,
         repetitions: int | None = None, search_repetitions: int | None = None, rng=None,
         tolerance: float = TOLERANCE, dummies=None) -> Plan:
    """The smallest ε per scheme that meets ``target`` on ``series`` with landmarks ``landmarks`` (see module doc).

    ``series``: (n,) values (laplace), (n,) 0/1 (randomized_response) or (n, 2) metres (planar_laplace).
    ``target``: a :class:`Target` or its dict; its error is in the unit of :data:`lmdk.metrics.UNITS` (the
    series' unit for values, metres, % wrong reports for contacts). ``relation``: a :class:`lmdk.relation.Relation`
    (or its dict) fixing Δ, the public range and the real sampler; None: the papers' Δ = 1, no range, textbook
    sampler. ``w``: the w-event window (default n). ``repetitions``: of the validation with the real sampler;
    ``search_repetitions``: of the common random numbers of a search. ``rng``: the only source of randomness.
    ``dummies``: a DummySpec (or dict) — every scheme is then searched through schemes.release with dummy landmarks.
    """
    from lmdk import schemes as registry

    known = getattr(registry, "ALL_SCHEMES", registry.SCHEMES)  # the six, then any registered baselines
    if mechanism not in UNITS:
        raise ParameterError(f"mechanism must be one of {tuple(UNITS)}, got {mechanism!r}")
    s = _setup(series, landmarks, target, mechanism, relation, w)
    names = (schemes,) if isinstance(schemes, str) else tuple(schemes)
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise ParameterError(f"schemes must be names from {known}, not {unknown or names!r}")
    cells = int(s.cells.sum())
    for label, value in (("repetitions", repetitions), ("search_repetitions", search_repetitions)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                                  or not 2 <= value <= 10_000):
            raise ParameterError(f"{label} must be an integer in 2..10,000 (a 95 % interval needs two), got {value!r}")
    if not isinstance(tolerance, (int, float)) or not 0 < tolerance < 1:
        raise ParameterError(f"tolerance must be a relative accuracy in (0, 1), e.g. 0.05, got {tolerance!r}")
    gen = as_generator(rng)
    streams = gen.spawn(2 * len(names))
    out, used = {}, 0
    for i, scheme in enumerate(names):
        search_rng, check_rng = streams[2 * i], streams[2 * i + 1]
        factor = ADAPTIVE_CELLS if scheme == "adaptive" else 1
        reps = repetitions or _automatic(cells, VALIDATION_REPETITIONS, factor)
        search_reps = search_repetitions or _automatic(cells, SEARCH_REPETITIONS, factor)
        if dummies is None and scheme in CLOSED_FORM:
            c = _share(scheme, s)
            epsilon, any_eps, predicted = _solve_closed(s, c)
            method, top = "closed form", EPSILON_MAX
        else:
            c = _share("uniform", s) if scheme == "adaptive" else 1.0
            if dummies is None and scheme == "skip":
                evaluate = _skip_evaluator(s, _unit_noise(s, search_reps, search_rng))
            elif dummies is None and scheme == "adaptive":
                evaluate = _adaptive_evaluator(s, _unit_noise(s, search_reps, search_rng))
            else:
                evaluate = _release_evaluator(s, scheme, int(search_rng.integers(2**63)), search_reps, dummies)
            wide = _span(_reference(s, c))
            if dummies is None and scheme == "adaptive":
                # Adaptive's regular budget lies between uniform's reservation ε/(|L|+1) and ε (§3.2), so its ε lies
                # near [event level's, uniform's]: the first grid spans that (×/÷ 2..4), the rest only if needed
                first = (max(wide[0], _reference(s, 1.0) / 2), min(wide[1], _reference(s, c) * 4))
                epsilon, any_eps, predicted = _search(s, evaluate, wide, first, ADAPTIVE_POINTS, 0)
            else:
                epsilon, any_eps, predicted = _search(s, evaluate, wide)
            method, top = "search", wide[1]
        out[scheme] = _answer(s, scheme, epsilon, any_eps, predicted, method, top, reps, check_rng, tolerance,
                              dummies)
        used = max(used, reps)
    return Plan(target=s.target, mechanism=mechanism, unit=_unit(mechanism), sensitivity=s.delta,
                value_range=s.value_range, sampler=s.options.get("sampler", "textbook"), tolerance=float(tolerance),
                repetitions=int(used), schemes=out,
                relation=(relation.to_dict() if hasattr(relation, "to_dict") else relation))


def _automatic(cells: int, bounds: tuple[int, int], factor: int = 1) -> int:
    """Repetitions for about factor × CELLS_PER_PASS measured cells, within ``bounds`` (the upper one × factor)."""
    return int(min(max(math.ceil(factor * CELLS_PER_PASS / cells), bounds[0]), factor * bounds[1]))


def _unit(mechanism: str) -> str:
    return {"laplace": "", "planar_laplace": "m", "randomized_response": "% wrong reports"}[mechanism]


def _answer(s, scheme, epsilon, any_eps, predicted, method, top, reps, rng, tolerance, dummies) -> SchemePlan:
    """Validate one answer with the real sampler and put it into words."""
    t = s.target
    feasible = epsilon is not None
    at = epsilon if feasible else top
    mae, within, satisfies = _validate(s, scheme, at, reps, rng, dummies)
    if not feasible:
        floor = mae[0] if t.probability is None else (within[0] if within else predicted)
        what = "error" if t.probability is None else "share within ±target"
        note = (f"cannot meet the target at any ε ≤ {top:.3g}: its {what} stays at {floor:.4g} even there"
                + (" — the approximation of the landmarks by the previous release is a floor no budget removes"
                   if scheme == "skip" else ""))
        within_tol = True
    elif any_eps:
        note = ("met at any ε: the public range caps the error of even the noisiest release" if method == "closed form"
                else f"met at every ε searched, from {at:.3g} up: the public range caps the error")
        within_tol = True
    else:
        achieved = mae[0] if t.probability is None else within[0]
        if t.probability is None:
            within_tol = abs(achieved - t.error) <= tolerance * t.error
        else:  # a share: its tolerance is absolute, tolerance × (1 − p) (the room left to miss)
            within_tol = abs(achieved - t.probability) <= max(tolerance * (1 - t.probability), 0.01)
        note = "closed form" if method == "closed form" else "search with common random numbers"
        if not within_tol:
            note += (f"; the validated error lies outside ±{100 * tolerance:g} % of the target (Monte-Carlo noise of "
                     "the search or the validation: more repetitions narrow it)")
    return SchemePlan(scheme=scheme, feasible=feasible, epsilon=float(epsilon) if feasible else None,
                      achieved_mae=float(mae[0]), ci95=(float(mae[1]), float(mae[2])), method=method,
                      predicted=float(predicted),
                      achieved_probability=None if within is None else float(within[0]),
                      probability_ci95=None if within is None else (float(within[1]), float(within[2])),
                      any_epsilon=bool(any_eps), within_tolerance=bool(within_tol), satisfies=bool(satisfies),
                      validated_at=float(at), repetitions=int(reps), note=note)


# ----------------------------------------------------------------------------- the relation's trade-off
def tradeoff(result: Plan, sensitivities) -> dict:
    """{Δ: {scheme: ε}}: the ε each scheme needs for the same target when the relation protects changes of up to Δ
    (same public range, so the same clamping) instead of ``result.sensitivity``.

    Exact for the planner's model: every mechanism's noise — and Adaptive's decisions, which compare changes with
    Δ/ε_t — depend on Δ/ε alone (Dwork & Roth 2014, Theorem 3.6), so the ε a target needs is proportional to Δ
    (infeasible stays infeasible). Randomized response has no Δ (one bit flips)."""
    if result.mechanism == "randomized_response":
        raise ParameterError("randomized response has no Δ to trade: one contact bit flips")
    out = {}
    for d in sensitivities:
        try:
            d = float(d)
        except (TypeError, ValueError):
            raise ParameterError(f"sensitivities must be numbers > 0, not {d!r}") from None
        if not math.isfinite(d) or d <= 0:
            raise ParameterError(f"sensitivities must be finite numbers > 0, not {d!r}")
        ratio = d / result.sensitivity
        row = {}
        for name, p in result.schemes.items():
            if not p.feasible:
                row[name] = None
            elif p.any_epsilon:
                row[name] = p.epsilon
            else:
                row[name] = p.epsilon * ratio
        out[d] = row
    return out
