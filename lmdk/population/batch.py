"""Release a batch of users in lockstep on a (users, n) array — every scheme, Adaptive included.

Row r is user r's series, padded after ``lengths[r]`` events (padding is never a landmark and its outputs
are meaningless). Each user's randomness is drawn from that user's own Generator in the order
``lmdk.schemes.release`` draws it (dummy-landmark selection, then the unit noise — for the discrete sampler the
noise at the budgets, each user's cells from its own Generator), and every later step is
elementwise along the users axis, so row r is byte-identical to
``lmdk.schemes.release(x[r, :lengths[r]], L_r, ..., repetitions=1, rng=generators[r])``. Adaptive's loop over
t runs once per batch (``lmdk.schemes.run_adaptive`` with one series per row), not once per user.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk import schemes
from lmdk.errors import ParameterError
from lmdk.mechanisms import MECHANISMS, unit_noise, validate_sensitivity

PAD_NOISE = 0.5  # unit noise at padded cells (finite, valid for every mechanism)


@dataclass(frozen=True)
class BatchRelease:
    """One scheme's release of a batch of users; arrays are (users, n[, 2]) with padding after ``lengths``."""

    values: np.ndarray  # released values (metres for planar_laplace)
    budgets: np.ndarray  # ε_t spent (0 where approximated, and on padding)
    published: np.ndarray  # fresh noise drawn (False on padding)
    landmarks: np.ndarray  # landmark mask used (L′ with dummies)
    lengths: np.ndarray  # (users,) events per user
    scheme: str
    mechanism: str
    epsilon: float
    publishing_epsilon: float
    selection_epsilon: float
    sensitivity: float
    value_range: tuple[float, float] | None = None  # the public range values were clamped to (discrete/snapping)


def valid_mask(lengths: np.ndarray, n: int) -> np.ndarray:
    """(users, n) True on each user's real events, False on padding."""
    return np.arange(n) < np.asarray(lengths)[:, None]


def _check_batch(x: np.ndarray, landmarks: np.ndarray, lengths, mechanism: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate shapes and values of a padded batch; returns (x ready for the mechanism, lengths)."""
    if mechanism not in MECHANISMS:
        raise ParameterError(f"mechanism must be one of {MECHANISMS}, got {mechanism!r}")
    wide = mechanism == "planar_laplace"
    if x.ndim != (3 if wide else 2) or (wide and x.shape[2] != 2) or x.shape[1] == 0:
        raise ParameterError(f"x must be (users, n{', 2' if wide else ''}) for {mechanism}, got {x.shape}")
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.shape != (x.shape[0],) or lengths.min(initial=1) < 1 or lengths.max(initial=0) > x.shape[1]:
        raise ParameterError(f"lengths must give 1..{x.shape[1]} events for each of the {x.shape[0]} users")
    if landmarks.shape != x.shape[:2] or landmarks.dtype != bool:
        raise ParameterError(f"landmarks must be a boolean (users, n) mask of shape {x.shape[:2]}")
    if not np.all(np.isfinite(x)):
        raise ParameterError("x contains NaN or infinity; drop those events first (padding must be finite)")
    if mechanism == "randomized_response":
        if not np.all((x == 0) | (x == 1)):
            raise ParameterError("x for randomized_response must contain only 0/1 values")
        return x.astype(np.int64), lengths
    return x, lengths


def _window(w, lengths: np.ndarray, scheme: str):
    """The w-event window: w itself (≤ every user's n), or each user's n (user level) when w is None."""
    if scheme != "w-event":
        return 1
    if w is None:
        return lengths[:, None]
    shortest = int(lengths.min())
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or not 1 <= w <= shortest:
        raise ParameterError(f"w (w-event window length) must be an integer in 1..n for every user; the shortest "
                             f"series has n={shortest}, got w={w!r}")
    return int(w)


def _draw(mechanism: str, sampler: str, lengths: np.ndarray, n: int, mask: np.ndarray, epsilon: float,
          dummies, generators) -> tuple[np.ndarray | None, np.ndarray, float, float]:
    """Per user, in ``schemes.release``'s order: dummy landmarks, then unit noise → (noise, mask, ε_pub, ε_sel).

    The discrete sampler for values draws its noise later, at the budgets (``_discrete_cells``,
    ``LockstepNoise``): noise is then None."""
    from lmdk import snapping

    draw = None if sampler == "discrete" and mechanism == "laplace" else (
        snapping.unit_noise if sampler in ("snapping", "discrete") else unit_noise)
    users = len(lengths)
    noise = None if draw is None else np.full((users, n, 2) if mechanism == "planar_laplace" else (users, n),
                                              PAD_NOISE)
    eps_pub, eps_sel = epsilon, 0.0
    if dummies is not None:
        mask = mask.copy()
    for r, (size, gen) in enumerate(zip(lengths.tolist(), generators, strict=True)):
        if dummies is not None:
            chosen, eps_pub, eps_sel = schemes.dummy_landmarks(size, mask[r, :size], epsilon, dummies, 1, gen)
            mask[r, :size] = chosen[0]
        if draw is not None and noise is not None:  # both or neither
            noise[r, :size] = draw(mechanism, (1, size), gen)[0]
    return noise, mask, eps_pub, eps_sel


def _discrete_cells(x, budgets, published, valid, lengths, sensitivity: float, value_range, generators) -> np.ndarray:
    """``schemes.lockstep_cells`` per user, all users at once: each user's noise parts drawn from that user's
    Generator (``LockstepNoise.from_generators``), as ``schemes.release`` draws one user's."""
    from lmdk.discrete_lockstep import LockstepNoise

    n = x.shape[1]
    noise = LockstepNoise.from_generators(generators, lengths, n)
    return schemes.lockstep_cells(x, np.where(valid, budgets, 1.0), published & valid, sensitivity, value_range,
                                  noise, rows_apart=True)


def _snap_shared(values, safe, budgets, published, per_coordinate: float, bound: float) -> np.ndarray:
    """``snapping.snap(values, per_coordinate / safe, bound)`` with Λ computed once per row: a data-independent
    scheme gives every published cell of a row the same budget (and unpublished cells 1.0), so Λ takes at
    most two values per row — the same numbers as the cell-by-cell grid, without its log2/exp2 per cell."""
    from lmdk import snapping

    row = budgets.max(axis=1, keepdims=True)
    if not np.all((budgets == row) | ~published):  # not row-shared: cell by cell
        return snapping.snap(values, per_coordinate / safe, bound)
    lam = snapping.grid(per_coordinate / row)
    if not published.all():
        lam = np.where(published, lam, snapping.grid(per_coordinate / np.ones(1)))
    return snapping.snap(values, None, bound, lam=lam)


def release_batch(x, landmarks, lengths, scheme: str, epsilon, *, mechanism: str = "laplace", generators,
                  w=None, sensitivity: float = 1.0, dummies=None, sampler: str = "textbook",
                  bound: float | None = None, value_range: tuple[float, float] | None = None) -> BatchRelease:
    """Run ``scheme`` once for every user of a padded batch at once (users are axis 0); see the module docstring."""
    scheme = schemes.check_scheme(scheme)
    eps = schemes.total_epsilon(epsilon)
    delta = validate_sensitivity(sensitivity)
    if mechanism == "randomized_response" and delta != 1.0:
        raise ParameterError("sensitivity does not apply to randomized response (one bit flips); leave it at 1.0")
    if sampler not in ("textbook", "snapping", "discrete"):
        raise ParameterError(f"sampler must be 'textbook', 'discrete' or 'snapping', not {sampler!r}")
    discrete = schemes.discrete_range(value_range, mechanism) if sampler == "discrete" else None
    x, lengths = _check_batch(np.asarray(x), np.asarray(landmarks), lengths, mechanism)
    users, n = x.shape[:2]
    generators = list(generators)
    if len(generators) != users:
        raise ParameterError(f"need one Generator per user: {users} users, {len(generators)} generators")
    valid = valid_mask(lengths, n)
    mask = np.asarray(landmarks) & valid
    window = _window(w, lengths, scheme)
    base = schemes.default_value(None, x[0, :1], mechanism)
    noise, mask, eps_pub, eps_sel = _draw(mechanism, sampler, lengths, n, mask, eps, dummies, generators)
    post = draw = None
    clamp = discrete  # the public range the values are clamped to, if any (BatchRelease.value_range)
    if discrete is not None:
        x = np.clip(x, *discrete)
        base = np.clip(base, *discrete)  # as schemes.release: the public default lies in the public range
        if scheme == "adaptive":
            from lmdk.discrete_lockstep import LockstepNoise

            draw = schemes.discrete_step(LockstepNoise.from_generators(generators, lengths, n), delta, discrete)
    if sampler == "snapping" and mechanism != "randomized_response":
        from lmdk import snapping

        b = snapping.validate_bound(bound)
        x = np.clip(x, -b, b)
        clamp = (-b, b) if mechanism == "laplace" else None
        per_coordinate = delta  # planar: Δ/ε per coordinate (Δ = the protected radius), as schemes.release
        def post(noisy, budget):
            return snapping.snap(noisy, per_coordinate / budget, b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # padded cells only
        if scheme == "adaptive":
            values, budgets, published = schemes.run_adaptive(x, mask, eps_pub, mechanism, delta, noise, base, post,
                                                           lengths=lengths, draw=draw)
        else:
            budgets = schemes.allocate_mask(scheme, mask, eps_pub, window, lengths=lengths[:, None])
            published = budgets > 0
            safe = np.where(published, budgets, 1.0)
            if noise is not None:
                values = schemes.perturb(mechanism, x, safe, noise, delta)
            else:  # the discrete sampler draws at the budgets
                values = _discrete_cells(x, budgets, published, valid, lengths, delta, discrete, generators)
            if post is not None:
                values = _snap_shared(values, safe, budgets, published, per_coordinate, b)
            if not published.all():
                values = schemes.forward_fill(values, published, base)
    budgets = np.where(valid, budgets, 0.0)
    published = published & valid
    return BatchRelease(values=values, budgets=budgets, published=published, landmarks=mask, lengths=lengths,
                        scheme=scheme, mechanism=mechanism, epsilon=eps, publishing_epsilon=eps_pub,
                        selection_epsilon=eps_sel, sensitivity=delta, value_range=clamp)
