"""The state of the art beside the landmark schemes: what a practitioner would otherwise deploy (issue 29).

- ``bd``, ``ba``: w-event privacy, Budget Distribution and Budget Absorption (Kellaris et al., PVLDB 2014, Alg. 2–3;
  :mod:`lmdk.baselines.bd_ba`) — any w consecutive events together at ε.
- ``fast``: user level over the finite horizon, FAST (Fan & Xiong, TKDE 2014; :mod:`lmdk.baselines.fast`) — all
  events together at ε.
- ``pegasus``: event level, PeGaSus (Chen et al., CCS 2017; :mod:`lmdk.baselines.pegasus`) — each event at ε.

They run through :func:`lmdk.schemes.release` (``schemes.release(x, L, "ba", ε, w=…)``) or :func:`release_baseline`
and return the same :class:`lmdk.schemes.Release`: values, the ε each timestamp actually spends (BD/BA include their
dissimilarity test's ε/(2w)), and where fresh noise was published. They are **not landmark-aware**: the landmark set is
validated and kept in the Release (so Theorem 2's verdict can be computed from their budgets) but never changes what
they do. Values (laplace) only, with the textbook or the exact discrete sampler, as ``protects=`` (the same
neighbouring relation as the landmark schemes) calibrates them.
"""
from __future__ import annotations

import numpy as np

from lmdk.errors import ParameterError

BASELINES = ("bd", "ba", "fast", "pegasus")
LEVEL = {"bd": "w-event", "ba": "w-event", "fast": "user", "pegasus": "event"}
TITLES = {"bd": "BD (Kellaris et al. 2014)", "ba": "BA (Kellaris et al. 2014)", "fast": "FAST (Fan & Xiong 2014)",
          "pegasus": "PeGaSus (Chen et al. 2017)"}
PROTECTS = {  # what each protects, in words for the app and the exports' statement ({w}: the window)
    "bd": "any {w} consecutive events together at ε (w-event privacy; Budget Distribution)",
    "ba": "any {w} consecutive events together at ε (w-event privacy; Budget Absorption)",
    "fast": "all events of the series together at ε (user level over the whole series)",
    "pegasus": "each event on its own at ε (event level)",
}
NOT_LANDMARK_AWARE = ("it does not know the landmarks: it spends ε the same way whatever L is, so the landmarks "
                      "together are protected only as its level allows")


def protects(scheme: str, w: int | None = None) -> str:
    """The plain sentence of what ``scheme`` protects (its level), with the window ``w`` for BD/BA."""
    return PROTECTS[scheme].format(w=w if w is not None else "w")


def release_baseline(series, landmarks, scheme: str, epsilon, *, protects=None, mechanism: str = "laplace",
                     repetitions: int = 1, rng=None, w=None, dummies=None, default=None, samples: int | None = None,
                     **removed):
    """Run baseline ``scheme`` ("bd", "ba", "fast", "pegasus") ``repetitions`` times; a :class:`lmdk.schemes.Release`.

    Arguments as :func:`lmdk.schemes.release` (``protects=`` required: what ε protects fixes Δ, sampler and public
    range); ``landmarks`` are validated and recorded, never used (see the module docstring); a rule is a
    ``lmdk.landmarks.LandmarkRule`` (``parse_rule(text)``: the rule string itself goes through
    :func:`lmdk.schemes.release`, as the baselines sit below the rules' layer). ``w``: BD/BA's window
    (default: the whole series). ``samples``: FAST's M (default ⌈0.15·n⌉). ``default``: BD/BA's public value before
    their first release. Refuses locations and contact bits, dummy landmarks and the snapping sampler with a
    ParameterError saying why.
    """
    from lmdk import release_common as common

    common.refuse_removed("release_baseline", removed)
    relation = common.protects_relation("release_baseline", protects)
    series, landmarks = common.series_landmarks(series, landmarks)
    return baseline_engine(series, landmarks, scheme, epsilon, relation.calibration(mechanism), mechanism=mechanism,
                           repetitions=repetitions, rng=rng, w=w, dummies=dummies, default=default, samples=samples,
                           protects=relation)


def baseline_engine(series, landmarks, scheme: str, epsilon, calibration, *, mechanism: str = "laplace",
                    repetitions: int = 1, rng=None, w=None, dummies=None, default=None, samples: int | None = None,
                    protects=None):
    """The baselines' engine: ``release_baseline`` with the relation's :class:`lmdk.relation.Calibration`."""
    from lmdk import release_common as common
    from lmdk.baselines._noise import Noise
    from lmdk.privacy import landmark_mask
    from lmdk.rng import as_generator

    delta, value_range_ = check_calibration(scheme, mechanism, dummies, calibration)
    x = common.prepare_series(series, mechanism)
    n = x.shape[0]
    eps = common.total_epsilon(epsilon)
    reps = common.repetition_count(repetitions)
    window = None
    if scheme in ("bd", "ba"):
        window = common.window_length(w, n, "w-event")
    base = common.default_value(default, x, mechanism)
    mask = landmark_mask(landmarks, n)
    if mask.ndim == 2 and mask.shape[0] not in (1, reps):
        raise ParameterError(f"landmarks mask has {mask.shape[0]} rows but repetitions={reps}")
    mask = np.broadcast_to(mask, (reps, n))
    if value_range_ is not None:
        x = np.clip(x, *value_range_)
        base = np.clip(base, *value_range_)
    if scheme == "fast" and samples is not None and (isinstance(samples, bool) or
                                                     not isinstance(samples, (int, np.integer)) or
                                                     not 1 <= samples <= n):
        raise ParameterError(f"samples (FAST's M) must be an integer in 1..n={n}, got {samples!r}")
    noise = Noise(as_generator(rng), reps, n, delta, value_range_)
    values, budgets, published = run_algorithm(scheme, x, eps, window, noise, base, samples)
    arrays = {"values": values, "budgets": budgets, "published": published, "landmarks": np.array(mask)}
    for arr in arrays.values():
        arr.flags.writeable = False
    return common.Release(**arrays, scheme=scheme, mechanism=mechanism, epsilon=eps, selection_epsilon=0.0,
                           publishing_epsilon=eps, sensitivity=delta, w=window, protects=protects)


def check_calibration(scheme: str, mechanism: str, dummies, calibration) -> tuple[float, tuple[float, float] | None]:
    """(Δ, public range of the discrete sampler or None) of a baseline's release, or a ParameterError saying why not."""
    from lmdk import release_common as common
    from lmdk.mechanisms import validate_sensitivity

    if scheme not in BASELINES:
        raise ParameterError(f"baseline must be one of {BASELINES}, got {scheme!r}")
    if mechanism != "laplace":
        raise ParameterError(f"BD/BA/FAST/PeGaSus release values (laplace) only, not {mechanism!r}: their tests and "
                             "filters are defined for numeric streams; use a landmark scheme for locations and "
                             "contacts")
    if dummies is not None:
        raise ParameterError(f"{scheme} is not landmark-aware: dummy landmarks change nothing it does; leave "
                             "dummies out")
    sampler = calibration.sampler
    if sampler not in ("textbook", "discrete"):
        raise ParameterError(f"{scheme} draws with sampler 'textbook' or 'discrete' (exports of values: the exact "
                             f"discrete Laplace with value_range), not {sampler!r}")
    delta = validate_sensitivity(calibration.sensitivity)
    value_range = common.discrete_range(calibration.value_range, mechanism) if sampler == "discrete" else None
    return delta, value_range


def run_algorithm(scheme: str, x: np.ndarray, eps: float, window: int | None, noise, base, samples: int | None = None):
    """(values, budgets, published) of BD/BA/FAST/PeGaSus on ``x``: values (n,), or (n, reps) with one series per
    repetition (BD, BA and FAST only)."""
    if window is not None:  # BD and BA, the baselines with a window
        from lmdk.baselines.bd_ba import budget_absorption, budget_distribution

        run = budget_distribution if scheme == "bd" else budget_absorption
        return run(x, eps, window, noise, base)
    if scheme == "fast":
        from lmdk.baselines.fast import fast, max_samples

        return fast(x, eps, noise, samples=samples if samples is not None else max_samples(noise.n))
    from lmdk.baselines.pegasus import pegasus

    return pegasus(x, eps, noise)
