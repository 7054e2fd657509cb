"""The neighbouring relation: which change of one event ε protects, and its sensitivity Δ.

Differential privacy compares two series that differ in one event (paper §2.1, Definition 1, and the
event-level neighbours of §2.1.2): what "differ" means is a policy choice that must be public and fixed
before the data is seen. The papers calibrate every figure with Δ = 1 "for simplicity"; a release of a
meter whose readings lie anywhere in 0–25 kWh protects a reading only if its noise is calibrated to
Δ = 25 (Dwork & Roth 2014, Definition 3.1 and Theorem 3.6: Laplace(Δ/ε) is ε-DP for ℓ₁-sensitivity Δ).

Kinds (``Relation.kind``):

- ``range``: one event's value changes to any other value in the public range [low, high]
  (Δ = high − low; values are clamped to the range first). The default for values.
- ``up_to``: one event's value changes by at most d units (Δ = d); values are still clamped to the
  public range. Weaker: a reading that differs by more than d is not protected at ε.
- ``radius``: one location moves anywhere within r metres (planar Laplace with ε/r per metre:
  geo-indistinguishability, Andrés et al. 2013, gives ε for two points at most r apart).
- ``flip``: one contact bit flips (randomized response; Δ = 1 by definition).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from lmdk.errors import ParameterError

KINDS = ("range", "up_to", "radius", "flip")
KIND_FOR_SERIES = {"values": ("range", "up_to"), "trajectory": ("radius",), "contacts": ("flip",)}


def _finite(value, name: str) -> float:
    """A finite float, else a ParameterError naming ``name``."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(out):
        raise ParameterError(f"{name} must be a finite number, not {value!r}")
    return out


@dataclass(frozen=True)
class Relation:
    """Which change of one event ε protects: a public range, a change of up to d, a radius, or a flip."""

    kind: str
    low: float | None = None
    high: float | None = None
    d: float | None = None
    unit: str = ""

    def __post_init__(self) -> None:
        """Validate the fields each kind needs; messages name the field and the fix."""
        if self.kind not in KINDS:
            raise ParameterError(f"relation kind must be one of {KINDS}, not {self.kind!r}")
        if self.kind in ("range", "up_to") or self.low is not None or self.high is not None:
            if self.low is None or self.high is None:
                raise ParameterError("a public range needs both low and high (from the device or the domain, e.g. "
                                     "0 and the meter's rating — never from the data)")
            low, high = _finite(self.low, "range low"), _finite(self.high, "range high")
            if not low < high:
                raise ParameterError(f"the public range needs low < high, got [{low:g}, {high:g}]")
            object.__setattr__(self, "low", low)
            object.__setattr__(self, "high", high)
        if self.kind in ("up_to", "radius"):
            what = "d (the largest protected change)" if self.kind == "up_to" else "radius (metres)"
            if self.d is None:
                raise ParameterError(f"{what} is missing: give a number > 0")
            d = _finite(self.d, what)
            if d <= 0:
                raise ParameterError(f"{what} must be > 0, not {self.d!r}")
            object.__setattr__(self, "d", d)
        elif self.d is not None:
            raise ParameterError(f"d applies to the 'up_to' and 'radius' relations, not to {self.kind!r}")
        if not isinstance(self.unit, str):
            raise ParameterError(f"unit must be text, not {self.unit!r}")

    @property
    def sensitivity(self) -> float:
        """Δ: how far the protected change can move one event's value (metres for a radius)."""
        if self.kind == "range":
            low, high = self._range()
            return high - low
        if self.kind in ("up_to", "radius"):
            return self._d()
        return 1.0

    @property
    def value_range(self) -> tuple[float, float] | None:
        """The public range values are clamped to, or None (locations, contacts)."""
        return self._range() if self.low is not None else None

    def _range(self) -> tuple[float, float]:
        """(low, high), which ``__post_init__`` guarantees for a relation with a public range."""
        if self.low is None or self.high is None:
            raise ParameterError(f"the {self.kind!r} relation has no public range (low, high)")
        return self.low, self.high

    def _d(self) -> float:
        """d, which ``__post_init__`` guarantees for the 'up_to' and 'radius' relations."""
        if self.d is None:
            raise ParameterError(f"the {self.kind!r} relation has no d (the largest protected change)")
        return self.d

    def _amount(self, value: float) -> str:
        return f"{value:g} {self.unit}".strip()

    def protects(self, event: str = "event") -> str:
        """What is protected, in plain words: "any single hour's reading, whatever its value between 0 and 25 kWh"."""
        if self.kind == "range":
            return (f"any single {event}'s value, whatever it is between {self.low:g} and "
                    f"{self._amount(self._range()[1])}")
        if self.kind == "up_to":
            return (f"a change of up to {self._amount(self._d())} in any single {event}'s value (larger changes are "
                    f"protected less: ε grows with the change)")
        if self.kind == "radius":
            return f"any single {event}'s location, moved anywhere within {self.d:g} m"
        return f"whether any single {event} was a contact (one bit flipped)"

    def label(self) -> str:
        """A short label for tables and file metadata: "range [0, 25] kWh (Δ = 25)"."""
        if self.kind == "range":
            return f"range [{self.low:g}, {self.high:g}] {self.unit}".rstrip() + f" (Δ = {self.sensitivity:g})"
        if self.kind == "up_to":
            return f"changes up to {self._amount(self._d())} (Δ = {self.d:g})"
        if self.kind == "radius":
            return f"radius {self.d:g} m (Δ = {self.d:g} m)"
        return "one contact bit flipped (Δ = 1)"

    def to_dict(self) -> dict:
        """JSON-ready fields (None fields left out)."""
        out = {"kind": self.kind}
        for name in ("low", "high", "d"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.unit:
            out["unit"] = self.unit
        return out

    @classmethod
    def from_dict(cls, data) -> Relation:
        """Build from ``to_dict`` output; unknown fields are named."""
        if isinstance(data, Relation):
            return data
        if not isinstance(data, dict):
            raise ParameterError(f"relation must be an object like {{'kind': 'range', 'low': 0, 'high': 25}}, "
                                 f"not {data!r}")
        unknown = sorted(set(data) - {"kind", "low", "high", "d", "unit"})
        if unknown:
            raise ParameterError(f"relation: unknown field(s) {unknown}; allowed: kind, low, high, d, unit")
        if "kind" not in data:
            raise ParameterError(f"relation needs a kind, one of {KINDS}")
        return cls(**data)

    def check_kind(self, series_kind: str) -> Relation:
        """Itself, if it fits a series of ``series_kind``; else a ParameterError naming the fitting kinds."""
        fitting = KIND_FOR_SERIES.get(series_kind, ())
        if self.kind not in fitting:
            raise ParameterError(f"the {self.kind!r} relation does not fit a {series_kind} series; use "
                                 f"{' or '.join(repr(k) for k in fitting)}")
        return self


PAPERS_UNIT = Relation("up_to", low=-1e12, high=1e12, d=1.0)
"""The papers' figures: a change of up to 1 unit (Δ = 1, "for simplicity"), values effectively unclamped."""


def public_range(low, high, unit: str = "") -> Relation:
    """Protect any value of one event in [low, high] (Δ = high − low): the default for values."""
    return Relation("range", low=low, high=high, unit=unit)


def up_to(d, low, high, unit: str = "") -> Relation:
    """Protect changes of one event's value of up to d units (Δ = d); values clamped to [low, high]."""
    return Relation("up_to", low=low, high=high, d=d, unit=unit)


def radius(r) -> Relation:
    """Protect one location moved anywhere within r metres."""
    return Relation("radius", d=r, unit="m")


FLIP = Relation("flip")
"""One contact bit flipped (randomized response)."""


def legacy(sensitivity: float = 1.0) -> Relation:
    """What a configuration from before the relation was explicit protected: changes of up to Δ = sensitivity."""
    return Relation("up_to", low=-1e12, high=1e12, d=float(sensitivity))


def from_options(kind: str | None, *, low=None, high=None, d=None, radius_m=None, unit: str = "",
                 series_kind: str = "values") -> Relation | None:
    """The relation a front end's options describe (CLI flags, policy JSON, app controls), or None if unset."""
    if series_kind == "contacts":
        return FLIP
    if series_kind == "trajectory":
        return radius(radius_m) if radius_m is not None else None
    if low is None and high is None and d is None:
        return None
    if low is None or high is None:
        raise ParameterError("give the public range of one value (low and high, e.g. --range 0 25): it bounds "
                             "what the release protects and clamps the values")
    if (kind or ("up_to" if d is not None else "range")) == "up_to":
        return up_to(d, low, high, unit)
    return public_range(low, high, unit)


def release_options(protected: Relation | None, mechanism: str) -> dict:
    """``lmdk.schemes.release`` options a relation fixes — Δ, sampler and public range — shared by the app's views,
    RunConfigs, generated scripts and exports, so a preview is calibrated exactly as the release handed out.

    Values: the exact discrete Laplace (:mod:`lmdk.discrete_laplace`) on the public range with Δ = sensitivity;
    contacts: randomized response from full-precision uniforms; locations: planar Laplace with Δ = the radius
    (exports add the snapping box, which needs a public bound). Without a relation (a legacy configuration, the
    papers' figures): Δ = 1 and the textbook sampler.
    """
    if protected is None:
        return {"sensitivity": 1.0}
    if mechanism == "laplace":
        return {"sensitivity": protected.sensitivity, "sampler": "discrete", "value_range": protected.value_range}
    if mechanism == "randomized_response":
        return {"sensitivity": 1.0, "sampler": "snapping"}
    return {"sensitivity": protected.sensitivity}
