"""Differential-privacy mechanisms (paper §2.1.1), vectorised over any leading axes.

Every mechanism takes ``epsilon`` as a scalar or an array that broadcasts against the data
(e.g. a (repetitions, n) budget matrix against an (n,) series) and draws its randomness only
from ``rng`` (a numpy Generator, an int seed or None, see :func:`lmdk.rng.as_generator`).

Budget convention: a mechanism always needs ε > 0 (finite). ε = 0 means "no release" and is
never passed to a mechanism — the budget schemes republish or publish a public default there
instead (see :mod:`lmdk.schemes`). ε ≤ 0, NaN/inf, or shapes that do not broadcast raise
:class:`lmdk.errors.ParameterError` naming the argument.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit, lambertw

from lmdk.errors import ParameterError
from lmdk.rng import as_generator

EARTH_RADIUS_M = 6_371_008.8
"""Mean Earth radius in metres (IUGG), used by the local projection and great-circle distances."""


def validate_epsilon(epsilon, name: str = "epsilon") -> np.ndarray:
    """Return ``epsilon`` as a float array after checking every element is finite and > 0."""
    try:
        eps = np.asarray(epsilon, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name} must be a positive number or an array of them, got {epsilon!r}") from exc
    if eps.size == 0:
        raise ParameterError(f"{name} is empty; pass a positive number such as 1.0")
    if not np.all(np.isfinite(eps)):
        raise ParameterError(f"{name} contains NaN or infinity; every privacy budget must be a finite number > 0")
    if np.any(eps <= 0):
        raise ParameterError(
            f"{name} must be > 0 everywhere (smallest given: {eps.min():g}); "
            "a timestamp without a release is republished by the scheme, not perturbed with ε = 0"
        )
    return eps


def validate_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    """Return ``sensitivity`` as a float after checking it is finite and > 0."""
    try:
        value = float(sensitivity)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name} must be a positive number, got {sensitivity!r}") from exc
    if not np.isfinite(value) or value <= 0:
        raise ParameterError(f"{name} must be a finite number > 0, got {sensitivity!r}")
    return value


def finite_array(values, name: str) -> np.ndarray:
    """Convert to a float array and reject NaN/inf with a message naming ``name``."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name} must be numeric, got {type(values).__name__}") from exc
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"{name} contains NaN or infinity; clean or drop those entries first")
    return arr


def broadcast_shape(data_shape: tuple, eps_shape: tuple, data_name: str) -> tuple:
    """Common shape of data and ε, or a ParameterError naming both arguments."""
    try:
        return np.broadcast_shapes(data_shape, eps_shape)
    except ValueError as exc:
        raise ParameterError(
            f"epsilon of shape {eps_shape} does not broadcast against {data_name} of shape {data_shape}; "
            "pass a scalar or an array whose trailing axes match"
        ) from exc


MECHANISMS = ("laplace", "randomized_response", "planar_laplace")


def unit_noise(mechanism: str, shape: tuple, rng=None) -> np.ndarray:
    """Draw the ε-free randomness of a mechanism once, so budgets can be applied later (schemes use this).

    laplace: Laplace(0, 1) of ``shape``; randomized_response: U[0, 1) of ``shape``; planar_laplace:
    (*shape, 2) holding the radius for ε = 1 (inverse CDF, Lambert W₋₁) and a uniform angle.
    """
    gen = as_generator(rng)
    if mechanism == "laplace":  # Laplace(0, 1) = E₁ − E₂ with E ~ Exp(1): ~2× faster than gen.laplace
        return gen.standard_exponential(shape) - gen.standard_exponential(shape)
    if mechanism == "randomized_response":
        return gen.random(shape)
    if mechanism == "planar_laplace":
        theta = gen.uniform(0.0, 2.0 * np.pi, size=shape)
        return np.stack((planar_radius(gen.random(shape), 1.0), theta), axis=-1)
    raise ParameterError(f"mechanism must be one of {MECHANISMS}, got {mechanism!r}")


def perturb(mechanism: str, values: np.ndarray, epsilon: np.ndarray, noise: np.ndarray, sensitivity: float = 1.0):
    """Apply pre-drawn :func:`unit_noise` with budgets ε (> 0, unchecked) to values; shapes broadcast.

    ``sensitivity`` Δ: the largest protected change (laplace: of a value; planar_laplace: the radius in metres
    within which a location is protected at ε, i.e. ε/Δ per metre); randomized response ignores it."""
    if mechanism == "laplace":  # values + Laplace(0, Δf/ε)
        return values + noise * (sensitivity / epsilon)
    if mechanism == "randomized_response":  # flip with probability 1/(e^ε + 1)
        flip = noise < expit(-epsilon)
        if values.dtype == bool:
            return values ^ flip
        return np.where(flip, 1 - values, values).astype(values.dtype, copy=False)
    radius = noise[..., 0] * (sensitivity / epsilon)  # planar Laplace: r scales as Δ/ε (Δ: the protected radius)
    offset = np.stack((radius * np.cos(noise[..., 1]), radius * np.sin(noise[..., 1])), axis=-1)
    return values + offset


def laplace(values, epsilon, sensitivity: float = 1.0, rng=None) -> np.ndarray:
    """Laplace mechanism (§2.1.1): values + Laplace(0, Δf/ε); output has the broadcast shape."""
    x = finite_array(values, "values")
    eps = validate_epsilon(epsilon)
    delta = validate_sensitivity(sensitivity)
    shape = broadcast_shape(x.shape, eps.shape, "values")
    return perturb("laplace", x, eps, unit_noise("laplace", shape, rng), delta)


def randomized_response(bits, epsilon, rng=None) -> np.ndarray:
    """Randomized response (§2.1.1, §4.1.2): keep each bit with probability e^ε/(e^ε+1), else flip."""
    b = np.asarray(bits)
    if b.dtype != bool:
        numeric = finite_array(b, "bits")
        if not np.all((numeric == 0) | (numeric == 1)):
            raise ParameterError("bits must contain only 0/1 (or False/True) values")
    eps = validate_epsilon(epsilon)
    shape = broadcast_shape(b.shape, eps.shape, "bits")
    return perturb("randomized_response", b, eps, unit_noise("randomized_response", shape, rng))


def planar_radius(p, epsilon) -> np.ndarray:
    """Inverse CDF of the planar-Laplace radius: r = −(W₋₁((p−1)/e) + 1)/ε for p ∈ [0, 1)."""
    z = (np.asarray(p, dtype=float) - 1.0) / np.e
    branch_point = z <= -1.0 / np.e  # scipy returns NaN exactly at −1/e, where W₋₁ = −1 (r = 0)
    w = np.where(branch_point, -1.0, lambertw(np.where(branch_point, -0.3, z), k=-1).real)
    return -(w + 1.0) / epsilon


def planar_laplace(xy, epsilon, rng=None) -> np.ndarray:
    """Planar Laplace (geo-indistinguishability, Andrés et al.): ε per metre, points (..., 2) in metres.

    Draws a uniform angle, then a uniform p mapped through the radius inverse CDF
    C_ε(r) = 1 − (1 + εr)e^{−εr} with the Lambert W₋₁ branch (so r ~ Gamma(2, 1/ε)).
    """
    pts = finite_array(xy, "xy")
    if pts.ndim < 1 or pts.shape[-1] != 2:
        raise ParameterError(f"xy must have shape (..., 2) (x, y in metres), got {pts.shape}")
    eps = validate_epsilon(epsilon)
    shape = broadcast_shape(pts.shape[:-1], eps.shape, "xy[..., 0]")
    return perturb("planar_laplace", pts, eps, unit_noise("planar_laplace", shape, rng))


def exponential(utilities, epsilon, sensitivity: float = 1.0, rng=None):
    """Exponential mechanism (§2.1.1): pick an option with probability ∝ exp(ε·u/(2Δu)).

    ``utilities`` has shape (k,) or (..., k) (options on the last axis); ε broadcasts against the
    leading axes. Returns ``(index, probabilities)``: an int for 1-D utilities (else an int array of
    the leading shape) and the selection probabilities, computed with log-sum-exp.
    """
    u = finite_array(utilities, "utilities")
    if u.ndim < 1 or u.shape[-1] == 0:
        raise ParameterError("utilities must contain at least one option (options on the last axis)")
    eps = validate_epsilon(epsilon)
    delta = validate_sensitivity(sensitivity)
    lead = broadcast_shape(u.shape[:-1], eps.shape, "utilities[..., 0]")
    logits = np.broadcast_to(eps, lead)[..., None] * u / (2.0 * delta)
    logits = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits)
    probs = weights / weights.sum(axis=-1, keepdims=True)
    draw = as_generator(rng).random(lead)
    index = np.minimum((np.cumsum(probs, axis=-1) <= draw[..., None]).sum(axis=-1), u.shape[-1] - 1)
    if u.ndim == 1 and eps.ndim == 0:
        return int(index), probs
    return index, probs


def _check_latlon(lat, lon) -> tuple[np.ndarray, np.ndarray]:
    """Validate latitude/longitude arrays of equal shape in degrees."""
    la = finite_array(lat, "lat")
    lo = finite_array(lon, "lon")
    if la.shape != lo.shape:
        raise ParameterError(f"lat and lon must have the same shape, got {la.shape} and {lo.shape}")
    if np.any(np.abs(la) > 90):
        raise ParameterError("lat must lie in [-90, 90] degrees")
    if np.any(np.abs(lo) > 180):
        raise ParameterError("lon must lie in [-180, 180] degrees")
    return la, lo


def _wrap_degrees(d: np.ndarray) -> np.ndarray:
    """Wrap longitude differences into [-180, 180)."""
    return (d + 180.0) % 360.0 - 180.0


def latlon_to_metres(lat, lon, origin=None) -> tuple[np.ndarray, tuple[float, float]]:
    """Project degrees to local east/north metres around ``origin`` (equirectangular; default: the mean point).

    Returns ``(xy, origin)`` with xy of shape (*lat.shape, 2) and origin = (lat0, lon0). Accuracy:
    north–south distances are exact up to the spherical-Earth model (≈ 0.5 % vs. the ellipsoid);
    east–west distances are off by a relative ≈ tan(lat0)·Δnorth/R: 0.13 % at 10 km north or south
    of the origin at 40° (Beijing), 0.27 % at 60°, growing linearly with the distance. Keep the area
    city-sized (≲ 50 km) and away from the poles (|lat0| ≤ 85° is enforced).
    """
    la, lo = _check_latlon(lat, lon)
    if origin is None:
        if la.size == 0:
            raise ParameterError("lat/lon are empty; pass at least one point or an explicit origin")
        ref = lo.flat[0]
        origin = (float(la.mean()), float(_wrap_degrees(ref + _wrap_degrees(lo - ref).mean())))
    lat0_a, lon0_a = _check_latlon(np.asarray(origin[0]), np.asarray(origin[1]))
    lat0, lon0 = float(lat0_a), float(lon0_a)
    if abs(lat0) > 85:
        raise ParameterError("origin latitude must lie within ±85° for the local projection")
    x = np.radians(_wrap_degrees(lo - lon0)) * EARTH_RADIUS_M * np.cos(np.radians(lat0))
    y = np.radians(la - lat0) * EARTH_RADIUS_M
    return np.stack((x, y), axis=-1), (lat0, lon0)


def metres_to_latlon(xy, origin) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`latlon_to_metres`: local metres (..., 2) around ``origin`` back to (lat, lon) degrees."""
    pts = finite_array(xy, "xy")
    if pts.ndim < 1 or pts.shape[-1] != 2:
        raise ParameterError(f"xy must have shape (..., 2), got {pts.shape}")
    lat0, lon0 = (float(v) for v in _check_latlon(np.asarray(origin[0]), np.asarray(origin[1])))
    if abs(lat0) > 85:
        raise ParameterError("origin latitude must lie within ±85° for the local projection")
    lat = np.clip(lat0 + np.degrees(pts[..., 1] / EARTH_RADIUS_M), -90.0, 90.0)
    lon = _wrap_degrees(lon0 + np.degrees(pts[..., 0] / (EARTH_RADIUS_M * np.cos(np.radians(lat0)))))
    return lat, lon


def great_circle_metres(lat1, lon1, lat2, lon2) -> np.ndarray:
    """Haversine distance in metres between points given in degrees (broadcasting)."""
    p1, q1 = np.radians(lat1), np.radians(lon1)
    p2, q2 = np.radians(lat2), np.radians(lon2)
    h = np.sin((p2 - p1) / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin((q2 - q1) / 2) ** 2
    return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))
