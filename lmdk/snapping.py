"""Floating-point-safe noise for releases that leave the app (exports): Mironov's snapping mechanism.

The textbook sampler ``x + λ·ln(U)`` with floating-point U leaks x through the low bits of the output
(Mironov, "On significance of the least significant bits for differential privacy", CCS 2012). The
snapping mechanism (ibid., §5.2) closes that channel:

    f̃(x) = clamp_B( ⌊ clamp_B(x) ⊕ S ⊗ λ ⊗ ln(U*) ⌉_Λ )

with U* uniform over the doubles in (0, 1) at full precision (``uniform_doubles``), S a fair sign,
Λ the smallest power of two ≥ λ and ⌊·⌉_Λ rounding to the nearest multiple of Λ. For a query of
sensitivity Δ, λ = Δ/ε and a public bound B with λ < B < 2^46·λ it is ε′-DP with
ε′ = ε + 2^−49·B·ε/Δ (Theorem 1 there, rescaled by Δ): ``snapping_epsilon`` states the exact figure.
Every output is a multiple of Λ inside [−B, B], so its low bits carry nothing.

Planar Laplace (locations, metres): the same construction per coordinate — clamp to the box [−B, B]²
around the series' origin, full-precision radius and angle, round each coordinate to Λ ≥ 1/ε.
Mironov's theorem is one-dimensional; the two-dimensional bound is not proven here, only that the
output grid hides the low bits.
"""
from __future__ import annotations

import numpy as np

from lmdk.errors import ParameterError
from lmdk.rng import as_generator

MANTISSA_BITS = 52
SAMPLERS = ("snapping", "textbook")


def fresh_generator() -> np.random.Generator:
    """A generator for exported releases: randomgen's AESCounter (AES-128 in counter mode, a cryptographically
    secure bit generator) under numpy's Generator, keyed directly (``key=``, not ``seed=``) with 128 bits of
    ``os.urandom`` that are never recorded — its output cannot be predicted or regenerated from earlier draws."""
    from lmdk.rng import secure_generator

    return secure_generator()


def uniform_doubles(shape, rng=None) -> np.ndarray:
    """U*: uniform on (0, 1) with every double at its true probability (not only multiples of 2^−53).

    A double in [2^−e, 2^−e+1) has exponent e with probability 2^−e (geometric) and a uniform mantissa.
    """
    gen = as_generator(rng)
    exponent = gen.geometric(0.5, size=shape)
    mantissa = gen.integers(0, 2**MANTISSA_BITS, size=shape, dtype=np.uint64)
    return np.ldexp(1.0 + mantissa.astype(np.float64) / 2.0**MANTISSA_BITS, -exponent)


def unit_noise(mechanism: str, shape: tuple, rng=None) -> np.ndarray:
    """Like ``lmdk.mechanisms.unit_noise`` but from full-precision uniforms (laplace: S·ln U*)."""
    from lmdk.mechanisms import planar_radius

    gen = as_generator(rng)
    if mechanism == "laplace":
        sign = np.where(gen.integers(0, 2, size=shape, dtype=np.int8) == 1, 1.0, -1.0)
        return sign * np.log(uniform_doubles(shape, gen))
    if mechanism == "randomized_response":
        return uniform_doubles(shape, gen)
    if mechanism == "planar_laplace":
        theta = 2.0 * np.pi * uniform_doubles(shape, gen)
        return np.stack((planar_radius(1.0 - uniform_doubles(shape, gen), 1.0), theta), axis=-1)
    raise ParameterError(f"mechanism must be laplace, randomized_response or planar_laplace, not {mechanism!r}")


def grid(scale) -> np.ndarray:
    """Λ: the smallest power of two ≥ the noise scale, exactly (Mironov's condition Λ ≥ λ).

    Read off the binary exponent (``frexp``: λ = m·2^e with m in [0.5, 1)), not ``log2`` in floating point, which
    rounds a scale a few ulps above a power of two down onto it and so gives Λ < λ.
    """
    scale = np.asarray(scale, dtype=np.float64)
    mantissa, exponent = np.frexp(scale)
    exact = np.ldexp(1.0, np.where(mantissa == 0.5, exponent - 1, exponent))
    ordinary = np.isfinite(scale) & (scale > 0)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0, inf and NaN keep log2's answers (0, inf, NaN)
        return np.where(ordinary, exact, np.exp2(np.ceil(np.log2(np.where(ordinary, 1.0, scale)))))


def snap(values: np.ndarray, scale, bound: float, lam=None) -> np.ndarray:
    """Round to the nearest multiple of Λ = grid(scale) and clamp to [−bound, bound] (per coordinate).

    ``lam``: Λ computed by the caller (``grid`` of the same scales, e.g. once per row of a population batch
    whose row shares one scale); ``scale`` is then ignored.
    """
    lam = grid(scale) if lam is None else np.asarray(lam)
    if values.ndim == lam.ndim + 1:  # (…, 2) coordinates share their timestamp's grid
        lam = lam[..., None]
    return np.clip(np.round(values / lam) * lam, -bound, bound) + 0.0  # + 0.0 turns −0.0 into 0.0


def validate_bound(bound) -> float:
    """A public bound B > 0 of the values (metres from the origin for locations); never derive it from the data."""
    try:
        b = float(bound)
    except (TypeError, ValueError):
        raise ParameterError(f"bound must be a number > 0 (a public limit of the values), not {bound!r}") from None
    if not np.isfinite(b) or b <= 0:
        raise ParameterError(f"bound must be a finite number > 0 (a public limit of the values), not {bound!r}")
    return b


def snapping_epsilon(epsilon: float, bound: float, sensitivity: float = 1.0) -> float:
    """ε′ the snapping mechanism guarantees for nominal ε: ε + 2^−49·B·ε/Δ (Mironov 2012, Theorem 1)."""
    return float(epsilon) * (1.0 + 2.0**-49 * float(bound) / float(sensitivity))
