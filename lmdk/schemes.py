"""Budget schemes for landmark privacy (paper §3.2) and the user/event/w-event baselines (§2.2).

Every scheme works on a (repetitions, n) landmark mask, so each repetition may use its own
landmark set L′ (dummy landmarks, §3.4). A scheme never calls a mechanism with ε = 0: where it
spends nothing it republishes the most recent release, or — before any release exists — a public
default that does not depend on the data (0 for laplace/randomized_response, the local origin
(0, 0) for planar_laplace, or ``default=`` if given). Caveat for locations: the origin chosen by
``latlon_to_metres(..., origin=None)`` is the data's mean point, so (0, 0) is then data-dependent;
when that matters, project around a public origin (e.g. the city centre) or pass ``default=``.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from lmdk.errors import ParameterError
from lmdk.mechanisms import perturb, unit_noise, validate_sensitivity
from lmdk.privacy import landmark_mask
from lmdk.release_common import (  # noqa: F401 — re-exported: callers import these names from here
    PROTECTS_FIX,
    REMOVED_OPTIONS,
    Release,
    default_value,
    discrete_cells,
    discrete_range,
    discrete_step,
    lockstep_cells,
    prepare_series,
    protects_relation,
    refuse_removed,
    repetition_count,
    series_landmarks,
    total_epsilon,
    window_length,
)
from lmdk.rng import as_generator

SCHEMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")
"""The landmark paper's schemes (§2.2, §3.2): what the app compares by default and the population runs."""
BASELINE_SCHEMES = ("bd", "ba", "fast", "pegasus")
"""The state of the art beside them (lmdk.baselines: w-event BD/BA, FAST, PeGaSus); not landmark-aware, values only,
one series at a time — ``release`` dispatches to ``lmdk.baselines.release_baseline``."""
ALL_SCHEMES = SCHEMES + BASELINE_SCHEMES
LANDMARK_SCHEMES = ("uniform", "skip", "adaptive")
"""The schemes that read L (§3.2): the ones dummy landmarks can hide (§3.4, Figure 7) and the lessons compare."""
DATA_INDEPENDENT = ("event", "user", "w-event", "uniform", "skip")
"""Schemes whose budgets are fixed by n, L, ε and w alone (``allocate``): every repetition spends the same."""

ADAPTIVE_THRESHOLD = 1.0
"""Adaptive: the data trend counts as evolving when |o_t − o_prev| > θ·(scale_t + scale_prev)."""
ADAPTIVE_MAX_INTERVAL = 16
"""Adaptive: longest sampling interval (timestamps between two noisy publications)."""


def check_scheme(scheme: str) -> str:
    """Validate a scheme name."""
    if scheme in BASELINE_SCHEMES:
        raise ParameterError(f"{scheme!r} (lmdk.baselines) runs through schemes.release on one series only: it is "
                             "data-dependent (no allocate) and not part of population releases")
    if scheme not in SCHEMES:
        raise ParameterError(f"scheme must be one of {ALL_SCHEMES}, got {scheme!r}")
    return scheme


def allocate_mask(scheme: str, mask: np.ndarray, eps: float, w: int, lengths=None) -> np.ndarray:
    """Budgets of shape mask.shape for a (reps, n) landmark mask; adaptive gets its initial reservation.

    ``lengths``: (reps, 1) true series lengths of a padded batch (lmdk.population); default n for every row.
    """
    n = mask.shape[-1] if lengths is None else lengths
    if scheme == "event":
        return np.full(mask.shape, eps)
    if scheme == "user":
        return np.broadcast_to(eps / n, mask.shape).copy()
    if scheme == "w-event":
        return np.full(mask.shape, eps / w)
    if scheme == "skip":  # §3.2 Skip: ε at regular events, nothing at landmarks
        return np.where(mask, 0.0, eps)
    count = mask.sum(axis=-1, keepdims=True)
    # §3.2 Uniform: ε/(|L|+1); the +1 is the share of the current regular event, so with L = T
    # (no regular event) it is ε/|L| = user level, as §4.2.1 states for 100 % landmarks.
    per_release = eps / (count + (count < n))
    return np.broadcast_to(per_release, mask.shape).copy()


def allocate(scheme: str, n: int, landmarks, epsilon, *, w=None) -> np.ndarray:
    """Per-timestamp budgets of a data-independent scheme (§3.2); for "adaptive" its initial reservation.

    event ε; user ε/n; w-event ε/w (w defaults to n); uniform ε/(|L|+1) (ε/|L| when L = T: no
    regular event needs the +1 share); skip ε at regular timestamps and 0 at landmarks; adaptive
    the same reservation as uniform. ``landmarks`` is indices or a boolean mask; a (reps, n) mask
    gives (reps, n) budgets. ``w`` is ignored by every scheme but w-event, which satisfies
    (ε, L)-landmark privacy only when |L| + 1 ≤ w (|L| ≤ w when L = T).
    """
    mask = landmark_mask(landmarks, n)
    return allocate_mask(check_scheme(scheme), mask, total_epsilon(epsilon), window_length(w, n, scheme))


def _perturb_step(mechanism: str, x_t, budget: np.ndarray, noise_t: np.ndarray, sensitivity: float):
    """One timestamp of every repetition: (noisy release, perturbation scale, change vs. ``last`` helper).

    The scale is the typical size of the noise at budget ε: E|noise| = Δf/ε (laplace), E r = 2/ε
    (planar_laplace), the flip probability 1/(e^ε+1) (randomized_response).
    """
    if mechanism == "laplace":
        scale = sensitivity / budget
        return x_t + noise_t * scale, scale
    noisy = perturb(mechanism, x_t, budget, noise_t, sensitivity)
    scale = 2.0 * sensitivity / budget if mechanism == "planar_laplace" else expit(-budget)
    return noisy, scale


def _change(noisy: np.ndarray, last: np.ndarray) -> np.ndarray:
    """Distance between two releases per repetition (Euclidean metres for (reps, 2), |a − b| otherwise)."""
    d = noisy - last
    return np.hypot(d[:, 0], d[:, 1]) if d.ndim == 2 else np.abs(d)


def forward_fill(noisy: np.ndarray, published: np.ndarray, default: np.ndarray) -> np.ndarray:
    """Replace unpublished entries by the most recent published one (or the default before any)."""
    reps, n = published.shape
    idx = np.where(published, np.arange(n), -1)
    np.maximum.accumulate(idx, axis=1, out=idx)
    rows = np.arange(reps)[:, None]
    filled = noisy[rows, np.maximum(idx, 0)]
    before_first = idx < 0
    if noisy.ndim == 3:
        before_first = before_first[..., None]
    return np.where(before_first, default, filled)


_FAST_FORWARD = True  # tests switch it off to compare with the plain step-by-step loop
_SCALAR_ROWS = 8  # Adaptive with at most this many rows does the budget bookkeeping of a stretch in Python floats


def _bookkeeping(pool, level, inv_left, mask, frees):
    """Adaptive's budget bookkeeping over a stretch of steps at which no row publishes (arrays (steps, rows)):
    per step and row the budget (the landmark share pool·1/left at a landmark, else the level R) and, where an
    approximated landmark frees its share, pool −= share and R += share. The same IEEE operations as the
    vectorised step (share·1.0 = share; rows that free nothing add 0.0), in Python floats: a few rows over
    thousands of steps cost microseconds per step instead of a dozen small numpy calls.
    Returns (pool, level, budgets (steps, rows))."""
    pool_r, level_r = pool.tolist(), level.tolist()
    out = []
    for inv, lm, fr in zip(inv_left.tolist(), mask.tolist(), frees.tolist(), strict=True):
        row = level_r[:]
        for r, is_lm in enumerate(lm):
            if is_lm or fr[r]:
                share = pool_r[r] * inv[r]
                if is_lm:
                    row[r] = share
                if fr[r]:
                    pool_r[r] -= share
                    level_r[r] += share
        out.append(row)
    return np.asarray(pool_r), np.asarray(level_r), np.asarray(out, dtype=np.float64).reshape(len(out), len(level_r))


def _adaptive_plan(mask, regular, size, eps):
    """Adaptive's budget bookkeeping before its first step (§3.2), per (step, row): 1/(landmarks left, t included),
    the landmark mask, where approximating a landmark frees its share into R (a regular event follows); per row
    R = ε/(|L|+1) (0 without regular events) and the pool ε − R the landmarks may spend. Both loops start here."""
    lm_count = mask.sum(axis=1)
    regular_after = (regular.sum(axis=1, keepdims=True) - np.cumsum(regular, axis=1)) > 0
    inv_left = np.ascontiguousarray((1.0 / np.maximum(lm_count[:, None] - np.cumsum(mask, axis=1) + mask, 1)).T)
    mask_t = np.ascontiguousarray(mask.T)
    frees_t = np.ascontiguousarray((mask & regular_after).T)
    level = np.where(lm_count < size, eps / (lm_count + 1.0), 0.0)
    return inv_left, mask_t, frees_t, level, eps - level


def run_adaptive(x, mask, eps, mechanism, sensitivity, noise, default, post=None, lengths=None, draw=None):
    """Adaptive scheme (§3.2, Figure 4), vectorised over repetitions, one step per timestamp.

    ``x`` is one series ((n,) or (n, 2)) shared by every repetition, or one series per row ((reps, n) or
    (reps, n, 2): lmdk.population runs users in lockstep); ``lengths`` (reps,) marks timestamps ≥ lengths[r]
    of row r as padding (neither landmark nor regular; their outputs are meaningless). ``draw(t, x_t, budget, pub)``
    (laplace only; ``noise`` is then None): the noisy values of step t at the step's budgets, needed only where
    ``pub`` (the exact discrete Laplace, whose integer scale depends on the budget, is drawn only there; steps at
    which no row publishes and that are no row's landmark are filled without calling it);
    ``post(noisy, budget)``: applied after either.

    Budget management: every release is reserved ε/(|L|+1). A landmark that is published spends the
    current landmark share = (ε − R − spent_L)/(landmarks left); a landmark that is approximated
    frees its share, which is added to R, the budget of every later regular publication (if regular
    events remain; otherwise the share stays with the remaining landmarks). Hence at the end
    spent_L + max_t∉L ε_t ≤ ε, i.e. Theorem 2 holds with the actual budgets (R starts at 0 when a
    repetition has no regular events).
    Processing: publish with noise when the sampling countdown reaches 0, else republish the last
    release (post-processing, Theorem 1). Analysis (no budget): after a publication compare the
    change |o_t − o_prev| with θ·(scale_t + scale_prev), the perturbation scales of the two
    releases (Δf/ε for laplace, see _perturb_step; θ = ADAPTIVE_THRESHOLD); evolving → sample every
    timestamp again (interval 1), stable → interval + 1 up to ADAPTIVE_MAX_INTERVAL. The first
    publication counts as stable. θ = 1 and 16 were tuned on HUE (benchmarks/hue_mae_table.py):
    larger θ approximates more but propagates noisy releases longer, and MAE grew.
    """
    reps, n = mask.shape
    regular = ~mask
    size = n
    if lengths is not None:
        size = np.asarray(lengths)
        regular &= np.arange(n) < size[:, None]
    per_row = x.ndim == np.ndim(default) + 2
    x_t = np.ascontiguousarray(np.moveaxis(x, 1, 0)) if per_row else x
    inv_left, mask_t, frees_t, level, pool = _adaptive_plan(mask, regular, size, eps)  # R and ε − R − spent_L
    if noise is None and draw is None:
        raise ParameterError("Adaptive needs pre-drawn unit noise or a draw hook (sampler='discrete'), got neither")
    # with a draw hook no pre-drawn noise is read: a (n, 0) stand-in
    noise_t = np.empty((n, 0)) if noise is None else np.ascontiguousarray(np.moveaxis(noise, 1, 0))
    next_pub = np.zeros(reps, dtype=np.int64)
    interval = np.ones(reps, dtype=np.int64)
    last = np.broadcast_to(default, (reps,) + np.shape(default)).copy()
    last_scale = np.full(reps, np.inf)
    values = np.empty((n,) + last.shape, dtype=last.dtype)
    budgets = np.empty((n, reps))
    published = np.empty((n, reps), dtype=bool)
    wide = last.ndim == 2
    pub_wide = np.empty(last.shape, dtype=bool)
    laplace = mechanism == "laplace" and draw is None
    any_landmark = np.asarray(mask_t.any(axis=1))
    grown = np.empty(reps, dtype=np.int64)
    # np.copyto(..., where=) instead of np.where: ~2× faster on (reps,) arrays, this loop is the hot path.
    # At a timestamp that is no repetition's landmark, share, pool and level are untouched (their updates
    # add 0), so that bookkeeping is skipped there: same numbers, about half the work.
    # Fast-forward: from a timestamp that no repetition publishes at and that is no repetition's landmark up to
    # the next publication or landmark, every step only repeats the last release at the level R (no noise is
    # looked at, ``draw`` is not needed, nothing else changes) — filled as one slice: the same numbers, and a
    # long series whose Adaptive samples rarely costs its publications and landmarks, not its length.
    landmark_steps = np.flatnonzero(any_landmark)
    is_landmark_step: list[bool] = any_landmark.tolist()
    following = np.append(landmark_steps, n)[np.searchsorted(landmark_steps, np.arange(n))].tolist()  # ≥ t
    soonest = 0  # next_pub.min(): recomputed only after a publication changed next_pub
    t = 0
    while t < n:
        if _FAST_FORWARD and soonest > t:  # nobody publishes at t
            if not is_landmark_step[t]:
                stop = min(soonest, following[t])  # the next publication or landmark step
                values[t:stop], budgets[t:stop], published[t:stop] = last, level, False
                t = stop
                continue
            if reps <= _SCALAR_ROWS:  # up to the next publication: the bookkeeping in Python floats, row by row
                stop = soonest
                pool, level, budgets[t:stop] = _bookkeeping(pool, level, inv_left[t:stop], mask_t[t:stop],
                                                            frees_t[t:stop])
                values[t:stop], published[t:stop] = last, False
                t = stop
                continue
            lm, frees = mask_t[t], frees_t[t]  # a landmark step without publication: its bookkeeping only
            share = pool * inv_left[t]
            budget = level.copy()
            np.copyto(budget, share, where=lm)
            values[t], budgets[t], published[t] = last, budget, False
            freed = share * frees  # = the update below with pub all False
            pool -= freed
            level += freed
            t += 1
            continue
        pub = next_pub == t
        if any_landmark[t]:
            lm, frees = mask_t[t], frees_t[t]
            share = pool * inv_left[t]
            budget = level.copy()
            np.copyto(budget, share, where=lm)
        else:
            budget = level
        if laplace:
            scale = sensitivity / budget
            noisy = x_t[t] + noise_t[t] * scale
        elif draw is not None:  # sampler="discrete": drawn now, at this step's budgets
            scale = sensitivity / budget
            noisy = draw(t, x_t[t], budget, pub)
        else:
            noisy, scale = _perturb_step(mechanism, x_t[t], budget, noise_t[t], sensitivity)
        if post is not None:  # exports: snap to the noise's grid before anything looks at the value
            noisy = post(noisy, budget)
        threshold = scale + last_scale
        if ADAPTIVE_THRESHOLD != 1.0:
            threshold *= ADAPTIVE_THRESHOLD
        evolving = _change(noisy, last) > threshold
        if wide:
            pub_wide[:] = pub[:, None]
            np.copyto(last, noisy, where=pub_wide)
        else:
            np.copyto(last, noisy, where=pub)
        values[t], budgets[t], published[t] = last, budget, pub
        if any_landmark[t]:
            pool -= share * (frees ^ ((lm ^ frees) & pub))  # published landmark spends; approximated one → R
            level += share * (frees > pub)
        np.copyto(last_scale, scale, where=pub)
        np.add(interval, 1, out=grown)
        np.minimum(grown, ADAPTIVE_MAX_INTERVAL, out=grown)
        np.copyto(grown, 1, where=evolving)
        np.copyto(interval, grown, where=pub)
        np.copyto(next_pub, interval + t, where=pub)
        soonest = int(next_pub.min())
        t += 1
    np.multiply(budgets, published, out=budgets)
    return np.moveaxis(values, 0, 1), budgets.T.copy(), published.T.copy()


_COMPILED_ADAPTIVE = True  # tests switch it off to compare the compiled loop with the Python one


def _adaptive_discrete(x, mask, eps, delta, value_range, default, noise):
    """``run_adaptive`` with sampler="discrete" (laplace values, one clamped series for every row) in the compiled step
    loop (lmdk.adaptive_kernel): the same numbers, bit for bit; the samples that need their row's Generator (more
    bits of F, a restart) are finished here (``LockstepNoise.finish``) and the loop resumes at their step."""
    from lmdk import adaptive_kernel as kernel
    from lmdk import discrete_laplace as dl

    reps, n = mask.shape
    inv_left, mask_t, frees_t, level, pool = _adaptive_plan(mask, ~mask, n, eps)
    last = np.broadcast_to(np.asarray(default, dtype=np.float64), (reps,)).copy()
    last_scale = np.full(reps, np.inf)
    interval, next_pub = np.ones(reps, dtype=np.int64), np.zeros(reps, dtype=np.int64)
    fixed, fixed_flag = np.zeros(reps, dtype=np.int64), np.zeros(reps, dtype=bool)
    need, need_t, need_x = np.zeros(reps, dtype=bool), np.zeros(reps, dtype=np.int64), np.zeros(reps, dtype=np.int64)
    need_sure, budget = np.zeros(reps, dtype=bool), np.empty(reps)
    values, budgets, published = np.empty((n, reps)), np.empty((n, reps)), np.empty((n, reps), dtype=bool)
    v, f, b = noise.parts()
    low, high = value_range
    cal_delta = min(delta, float(np.nextafter(high - low, np.inf)))  # as lmdk.discrete_laplace.calibrate_unchecked
    x = np.ascontiguousarray(x, dtype=np.float64)
    any_landmark = np.ascontiguousarray(mask_t.any(axis=1))
    start = 0
    while True:
        status, t = kernel.adaptive_steps(x, mask_t, frees_t, inv_left, any_landmark, v, f, b, float(delta), cal_delta,
                                          float(low), float(high), dl.GRID_BITS, dl.FRACTION_BITS,
                                          float(ADAPTIVE_THRESHOLD), ADAPTIVE_MAX_INTERVAL, start, level, pool, last,
                                          last_scale, interval, next_pub, fixed, fixed_flag, need, need_t, need_x,
                                          need_sure, budget, values, budgets, published)
        if status == kernel.DONE:
            break
        if status == kernel.OUT_OF_RANGE:
            dl.calibrate_unchecked(np.where(budget > 0, budget, 1.0), delta, low, high)  # raises its ParameterError
            raise RuntimeError(f"the compiled Adaptive loop and the calibration disagree at step {t}")
        for r in np.flatnonzero(need).tolist():
            fixed[r] = noise.finish(t, r, int(need_t[r]), int(need_x[r]), bool(need_sure[r]))
            fixed_flag[r] = True
        need[:] = False
        start = t
    np.multiply(budgets, published, out=budgets)
    return np.moveaxis(values, 0, 1), budgets.T.copy(), published.T.copy()


def dummy_landmarks(n, mask, eps, dummies, reps, gen):
    """Run the dummy-landmark hook (§3.4) and check what it returns: (L′ mask, ε_publish, ε_select)."""
    if mask.ndim != 1:
        raise ParameterError("dummies need one landmark set L (indices or an (n,) mask), not a per-repetition mask")
    from lmdk.dummies.selection import DummySpec, landmark_sets_for_release  # lazy: optional module

    if isinstance(dummies, dict):
        dummies = DummySpec(**dummies)
    chosen, eps_pub, eps_sel = landmark_sets_for_release(n, np.flatnonzero(mask), eps, dummies, reps, gen)
    chosen = np.asarray(chosen)
    if chosen.dtype != bool or chosen.shape != (reps, n) or np.any(mask & ~chosen):
        raise RuntimeError("landmark_sets_for_release must return a (repetitions, n) bool mask containing L")
    if not (eps_pub > 0 and eps_sel >= 0 and eps_pub + eps_sel <= eps * (1 + 1e-12)):
        raise RuntimeError("landmark_sets_for_release must split ε into publishing > 0 and selection ≥ 0")
    return chosen, float(eps_pub), float(eps_sel)


def resolve_landmarks(series, landmarks):
    """(series as the engine takes it, landmarks): a rule string (``lmdk.landmarks.parse_rule``) or LandmarkRule
    resolved on ``series`` (an lmdk Series, or plain values for value rules); an lmdk Series becomes its mechanism
    input (:func:`lmdk.release_common.series_landmarks`)."""
    if isinstance(landmarks, str):
        from lmdk.landmarks import parse_rule

        landmarks = parse_rule(landmarks)
    return series_landmarks(series, landmarks)


def release(
    series,
    landmarks,
    scheme: str,
    epsilon,
    *,
    protects=None,
    mechanism: str = "laplace",
    repetitions: int = 1,
    rng=None,
    w=None,
    dummies=None,
    default=None,
    discrete_noise=None,
    **removed,
) -> Release:
    """Run ``scheme`` with ``mechanism`` ``repetitions`` times at once (repetitions are axis 0).

    ``protects``: what ε protects — a :class:`lmdk.relation.Relation` (or its dict), e.g.
    ``lmdk.relation.public_range(0, 25, "kWh")``; required. It fixes Δ, the sampler and the public range together
    (:meth:`lmdk.relation.Relation.calibration`): values use the exact discrete Laplace on the public range,
    contacts the full-precision flip, locations the planar Laplace with Δ = the radius (snapping inside the radius'
    ``bound``). The papers' figures pass ``lmdk.relation.PAPERS_UNIT_CHANGE`` (Δ = 1, textbook sampler, no range).
    ``series``: (n,) values (laplace), (n,) 0/1 (randomized_response) or (n, 2) metres (planar_laplace), or an lmdk
    Series (its mechanism input). ``landmarks``: indices, an (n,) mask, a (repetitions, n) mask, or a rule — a rule
    string as the CLI takes it ("percentile:20", "below:10", …; ``lmdk.landmarks.parse_rule``) or a
    ``lmdk.landmarks.LandmarkRule`` — resolved on ``series``. ``dummies``: a ``lmdk.dummies.selection.DummySpec``
    (or a dict of its fields); then L′ per repetition and the remaining ε come from
    ``lmdk.dummies.selection.landmark_sets_for_release``. ``default``: the public value released before any noisy
    release (see the module docstring). ``scheme`` may also be one of BASELINE_SCHEMES ("bd", "ba" with ``w``,
    "fast", "pegasus"): the published state of the art, run by ``lmdk.baselines.release_baseline`` (values only;
    the landmarks are recorded, not used). The old keywords sensitivity=, sampler=, bound=, value_range= raise a
    ParameterError naming ``protects=``. ``discrete_noise``: the exact discrete Laplace's budget-free parts drawn
    ahead by :func:`draw_noise` from the Generator ``rng`` would be (then ``rng`` is not used): the same release as
    with that ``rng``, at a fraction of the cost when one seed is released at many ε (a demonstration's view).
    """
    refuse_removed("release", removed)
    relation = protects_relation("release", protects)
    series, landmarks = resolve_landmarks(series, landmarks)
    return release_engine(series, landmarks, scheme, epsilon, relation.calibration(mechanism), mechanism=mechanism,
                    repetitions=repetitions, rng=rng, w=w, dummies=dummies, default=default, protects=relation,
                    discrete_noise=discrete_noise)


def draw_noise(rng, repetitions: int, n: int):
    """The exact discrete Laplace's parts that :func:`release` draws first from ``rng`` for ``repetitions`` × ``n``
    events (every landmark scheme, sampler "discrete"): none depends on the budgets, so one draw serves a seed's
    releases at every ε (``release(..., discrete_noise=draw_noise(rng, …))`` equals ``release(..., rng=rng)``)."""
    from lmdk.discrete_lockstep import LockstepNoise

    return LockstepNoise.from_generator(as_generator(rng), repetition_count(repetitions), int(n))


def _given_noise(noise, discrete, shape: tuple[int, int]):
    """``discrete_noise`` checked against the release (the exact sampler on a public range, the repetitions × events
    drawn for), its rows' Generators back at their start."""
    if discrete is None:
        raise ParameterError("discrete_noise applies to values released with the exact discrete Laplace (a relation "
                             "with a public range); leave it out for other relations and mechanisms")
    if getattr(noise, "shape", None) != shape:
        raise ParameterError(f"discrete_noise was drawn for {getattr(noise, 'shape', None)} repetitions × events, the "
                             f"release has {shape}; draw it with draw_noise(rng, repetitions, n)")
    return noise.fresh()


def release_engine(series, landmarks, scheme: str, epsilon, calibration, *, mechanism: str = "laplace",
             repetitions: int = 1, rng=None, w=None, dummies=None, default=None, protects=None,
             discrete_noise=None) -> Release:
    """The release engine: ``release`` with the relation's :class:`lmdk.relation.Calibration` (Δ, sampler — "textbook",
    "discrete" (the exact discrete Laplace on a 2^k grid inside the public ``value_range``; lmdk.discrete_laplace;
    randomized_response keeps its full-precision flip) or "snapping" (Mironov's snapping inside the public ``bound``
    B on |values|, metres from the origin for locations; lmdk.snapping) — public range and bound). Internal: lmdk's
    front ends reach it through a Relation, so the options cannot disagree."""
    sensitivity, sampler = calibration.sensitivity, calibration.sampler
    bound, value_range = calibration.bound, calibration.value_range
    if scheme in BASELINE_SCHEMES:  # issue 29: w-event BD/BA, FAST, PeGaSus — not landmark-aware
        from lmdk.baselines import baseline_engine

        return baseline_engine(series, landmarks, scheme, epsilon, calibration, mechanism=mechanism,
                                 repetitions=repetitions, rng=rng, w=w, dummies=dummies, default=default,
                                 protects=protects)
    scheme = check_scheme(scheme)
    x = prepare_series(series, mechanism)
    n = x.shape[0]
    eps = total_epsilon(epsilon)
    delta = validate_sensitivity(sensitivity)
    if mechanism == "randomized_response" and delta != 1.0:
        raise ParameterError("sensitivity does not apply to randomized response (one bit flips); leave it at 1.0")
    reps = repetition_count(repetitions)
    window = window_length(w, n, scheme)
    base = default_value(default, x, mechanism)
    gen = as_generator(rng)
    mask = landmark_mask(landmarks, n)
    eps_pub, eps_sel = eps, 0.0
    if dummies is not None and discrete_noise is not None:
        raise ParameterError("discrete_noise cannot be combined with dummies: the dummy selection draws from rng first")
    if dummies is not None:
        mask, eps_pub, eps_sel = dummy_landmarks(n, mask, eps, dummies, reps, gen)
    elif mask.ndim == 2 and mask.shape[0] not in (1, reps):
        raise ParameterError(f"landmarks mask has {mask.shape[0]} rows but repetitions={reps}")
    mask = np.broadcast_to(mask, (reps, n))
    post = draw = discrete = lockstep = None
    if sampler == "discrete":
        discrete = discrete_range(value_range, mechanism)
    if discrete_noise is not None:
        lockstep = _given_noise(discrete_noise, discrete, (reps, n))
    if sampler == "discrete" and discrete is not None:
        x = np.clip(x, *discrete)
        base = np.clip(base, *discrete)  # the public value before any release lies in the public range too
        noise = None
        if lockstep is None:
            from lmdk.discrete_lockstep import LockstepNoise

            lockstep = LockstepNoise.from_generator(gen, reps, n)  # parts first; only the floors see the budgets
    elif sampler in ("snapping", "discrete"):
        from lmdk import snapping

        noise = snapping.unit_noise(mechanism, (reps, n), gen)
        if sampler == "snapping" and mechanism != "randomized_response":
            b = snapping.validate_bound(bound)
            x = np.clip(x, -b, b)
            per_coordinate = delta  # laplace: Δ/ε; planar: Δ/ε per coordinate (Δ = the protected radius)
            def post(noisy, budget):
                return snapping.snap(noisy, per_coordinate / budget, b)
    elif sampler == "textbook":
        noise = unit_noise(mechanism, (reps, n), gen)
    else:
        raise ParameterError(f"sampler must be 'textbook', 'discrete' or 'snapping', not {sampler!r}")
    if scheme == "adaptive":
        if discrete is not None and _COMPILED_ADAPTIVE:  # laplace values: the compiled loop, the same numbers
            values, budgets, published = _adaptive_discrete(x, mask, eps_pub, delta, discrete, base, lockstep)
        else:
            if discrete is not None:
                draw = discrete_step(lockstep, delta, discrete)
            values, budgets, published = run_adaptive(x, mask, eps_pub, mechanism, delta, noise, base, post, draw=draw)
    else:
        budgets = allocate_mask(scheme, mask, eps_pub, window)
        published = budgets > 0
        safe = np.where(published, budgets, 1.0)
        if noise is not None:
            values = perturb(mechanism, x, safe, noise, delta)
        else:  # the discrete sampler draws at the budgets
            values = lockstep_cells(x, budgets, published, delta, discrete, lockstep)
        if post is not None:
            values = post(values, safe)
        if not published.all():
            values = forward_fill(values, published, base)
    arrays = {"values": values, "budgets": budgets, "published": published, "landmarks": np.array(mask)}
    for arr in arrays.values():
        arr.flags.writeable = False
    return Release(
        **arrays, scheme=scheme, mechanism=mechanism, epsilon=eps, selection_epsilon=eps_sel,
        publishing_epsilon=eps_pub, sensitivity=delta, w=window if scheme == "w-event" else None, protects=protects,
    )
