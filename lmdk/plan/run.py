"""``plan``: the smallest ε per scheme for a target, each answer validated with the real sampler; ``tradeoff``: the
same target under another Δ (see :mod:`lmdk.plan`)."""
from __future__ import annotations

import math

import numpy as np

from lmdk.errors import ParameterError
from lmdk.metrics import UNITS, mean_ci95
from lmdk.plan.model import Setup, setup, share, solve_closed
from lmdk.plan.search import (
    adaptive_evaluator,
    cell_stat,
    epsilon_span,
    reference_epsilon,
    release_evaluator,
    search_epsilon,
    search_noise,
    skip_evaluator,
)
from lmdk.plan.target import (
    ADAPTIVE_CELLS,
    ADAPTIVE_POINTS,
    CELLS_PER_PASS,
    CLOSED_FORM,
    EPSILON_MAX,
    PLAN_SCHEMES,
    SEARCH_REPETITIONS,
    TOLERANCE,
    VALIDATION_REPETITIONS,
    Plan,
    SchemePlan,
    Target,
)
from lmdk.rng import as_generator


def _validate(s: Setup, scheme: str, epsilon: float, reps: int, rng, dummies) -> tuple:
    """The real sampler's release at ε: (MAE at the cells with CI, share within ±error with CI or None, Theorem 2)."""
    from lmdk import privacy
    from lmdk.schemes import release

    rel = release(s.x, s.mask, scheme, epsilon, mechanism=s.mechanism, repetitions=reps, rng=rng, w=s.w,
                  dummies=dummies, protects=s.protects)
    released = rel.values[:, s.cells]
    mae_target = Target(error=s.target.error, at=s.target.at)
    per_rep = cell_stat(Setup(**{**s.__dict__, "target": mae_target}), released)
    mae = mean_ci95(per_rep)
    within = None
    if s.target.probability is not None:
        within = mean_ci95(cell_stat(s, released))
    worst = float(np.max(privacy.landmark_loss(rel.budgets, rel.landmarks)))
    return mae, within, worst <= epsilon * (1 + 1e-9)


def plan(series, landmarks, target, *, protects=None, mechanism: str = "laplace", schemes=PLAN_SCHEMES, w=None,
         repetitions: int | None = None, search_repetitions: int | None = None, rng=None,
         tolerance: float = TOLERANCE, dummies=None, landmark_epsilon: float | None = None, **removed) -> Plan:
    """The smallest ε per scheme that meets ``target`` on ``series`` with landmarks ``landmarks`` (see module doc).

    ``series``: (n,) values (laplace), (n,) 0/1 (randomized_response) or (n, 2) metres (planar_laplace).
    ``target``: a :class:`Target` or its dict; its error is in the unit of :data:`lmdk.metrics.UNITS` (the
    series' unit for values, metres, % wrong reports for contacts). ``protects``: what ε protects, a
    :class:`lmdk.relation.Relation` (or its dict) fixing Δ, the public range and the real sampler; required (the
    papers' Δ = 1, no range, textbook sampler: ``lmdk.relation.PAPERS_UNIT_CHANGE``). ``w``: the w-event window
    (default n). ``repetitions``: of the validation with the real sampler;
    ``search_repetitions``: of the common random numbers of a search. ``rng``: the only source of randomness.
    ``dummies``: a DummySpec (or dict) — every scheme is then searched through schemes.release with dummy landmarks.
    ``landmark_epsilon``: ε_sel of a private landmark selection (:mod:`lmdk.selection.export`); ``landmarks`` is then
    a data-derived rule, selected once privately from ``rng``, and every answer's total (``Plan.total_epsilon``,
    ``epsilon_total`` in the JSON) counts ε_sel on top of the scheme's ε, as the ledger and a cap will.
    """
    from lmdk import schemes as registry

    registry.refuse_removed("plan", removed)
    relation = registry.protects_relation("plan", protects)
    known = getattr(registry, "ALL_SCHEMES", registry.SCHEMES)  # the six, then any registered baselines
    if mechanism not in UNITS:
        raise ParameterError(f"mechanism must be one of {tuple(UNITS)}, got {mechanism!r}")
    gen = as_generator(rng)
    selection = 0.0
    if landmark_epsilon is not None:
        from lmdk.selection.export import export_landmarks

        source = export_landmarks(series, landmarks, landmark_epsilon=landmark_epsilon, relation=relation,
                                  rng=gen.spawn(1)[0])
        landmarks, selection = source.indices, source.selection_epsilon
    s = setup(series, landmarks, target, mechanism, relation, w)
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
    streams = gen.spawn(2 * len(names))
    out, used = {}, 0
    for i, scheme in enumerate(names):
        search_rng, check_rng = streams[2 * i], streams[2 * i + 1]
        factor = ADAPTIVE_CELLS if scheme == "adaptive" else 1
        reps = repetitions or _automatic(cells, VALIDATION_REPETITIONS, factor)
        search_reps = search_repetitions or _automatic(cells, SEARCH_REPETITIONS, factor)
        if dummies is None and scheme in CLOSED_FORM:
            c = share(scheme, s)
            epsilon, any_eps, predicted = solve_closed(s, c)
            method, top = "closed form", EPSILON_MAX
        else:
            c = share("uniform", s) if scheme == "adaptive" else 1.0
            if dummies is None and scheme == "skip":
                evaluate = skip_evaluator(s, search_noise(s, search_reps, search_rng))
            elif dummies is None and scheme == "adaptive":
                evaluate = adaptive_evaluator(s, search_noise(s, search_reps, search_rng))
            else:
                evaluate = release_evaluator(s, scheme, int(search_rng.integers(2**63)), search_reps, dummies)
            wide = epsilon_span(reference_epsilon(s, c))
            if dummies is None and scheme == "adaptive":
                # Adaptive's regular budget lies between uniform's reservation ε/(|L|+1) and ε (§3.2), so its ε lies
                # near [event level's, uniform's]: the first grid spans that (×/÷ 2..4), the rest only if needed
                first = (max(wide[0], reference_epsilon(s, 1.0) / 2), min(wide[1], reference_epsilon(s, c) * 4))
                epsilon, any_eps, predicted = search_epsilon(s, evaluate, wide, first, ADAPTIVE_POINTS, 0)
            else:
                epsilon, any_eps, predicted = search_epsilon(s, evaluate, wide)
            method, top = "search", wide[1]
        out[scheme] = _answer(s, scheme, epsilon, any_eps, predicted, method, top, reps, check_rng, tolerance,
                              dummies)
        used = max(used, reps)
    return Plan(target=s.target, mechanism=mechanism, unit=_unit(mechanism), sensitivity=s.delta,
                value_range=s.value_range, sampler=s.calibration.sampler, tolerance=float(tolerance),
                repetitions=int(used), schemes=out, relation=relation.to_dict(), landmark_epsilon=selection)


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
        row: dict[str, float | None] = {}
        for name, p in result.schemes.items():
            if not p.feasible:
                row[name] = None
            elif p.any_epsilon:
                row[name] = p.epsilon
            else:
                row[name] = p.epsilon * ratio
        out[d] = row
    return out
