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

Every answer is then **validated once with the real sampler** (``protects=``: the relation's calibration, the
exports' exact discrete Laplace on the public range) at the planned ε, ``repetitions`` times: ``achieved_mae`` and its
95 % interval (:func:`lmdk.metrics.mean_ci95`) are those measured numbers, never the model's. ``tolerance`` is the
stated accuracy: a feasible answer's validated error is expected within ±tolerance·x of the target x (the search
step, < 1 %, plus the Monte-Carlo error of both runs; ``within_tolerance`` says whether it was).

A scheme that cannot meet the target at any ε says so (``feasible=False``, ``epsilon=None``) and reports the
lowest error it reaches instead: Skip's approximation error at the landmarks is a floor no budget removes.

Because every mechanism's noise depends on Δ/ε alone (Dwork & Roth 2014, Theorem 3.6), the ε a target needs is
proportional to Δ for a fixed public range: :func:`tradeoff` turns one plan into the cost of protecting changes
of up to d instead of the whole range.

Modules: :mod:`~lmdk.plan.target` (the target and the answers), :mod:`~lmdk.plan.model` (the inputs and the closed
forms), :mod:`~lmdk.plan.search` (the searches with common random numbers), :mod:`~lmdk.plan.run` (``plan``, the
validation and ``tradeoff``).
"""
from __future__ import annotations

from lmdk.plan.run import plan, tradeoff
from lmdk.plan.target import (
    ADAPTIVE_CELLS,
    ADAPTIVE_POINTS,
    AT,
    CELLS_PER_PASS,
    CLOSED_FORM,
    COARSE_POINTS,
    EPSILON_MAX,
    EPSILON_MIN,
    FINE_POINTS,
    PLAN_SCHEMES,
    SEARCH_REPETITIONS,
    SEARCH_SPAN,
    TOLERANCE,
    VALIDATION_REPETITIONS,
    Plan,
    SchemePlan,
    Target,
)

__all__ = [
    "ADAPTIVE_CELLS", "ADAPTIVE_POINTS", "AT", "CELLS_PER_PASS", "CLOSED_FORM", "COARSE_POINTS", "EPSILON_MAX",
    "EPSILON_MIN", "FINE_POINTS", "PLAN_SCHEMES", "Plan", "SEARCH_REPETITIONS", "SEARCH_SPAN", "SchemePlan",
    "TOLERANCE", "Target", "VALIDATION_REPETITIONS", "plan", "tradeoff",
]
