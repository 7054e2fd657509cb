"""``Policy``: one landmark-privacy policy for a whole population (a RunConfig without the data reference).

The landmark set is a *rule* applied to every user's series (``lmdk.landmarks.parse_rule``: ``percentile:20``,
``below:0.5``, ``stay:30min:200m``, ``contacts:watch.txt``, ``share:10`` …), not a list of positions: users'
series differ. JSON example::

    {"landmarks": "percentile:20", "scheme": "adaptive", "epsilon": 1.0}
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from lmdk.errors import ParameterError

SCHEME_NAMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")  # = lmdk.schemes.SCHEMES
MECHANISM_NAMES = ("laplace", "randomized_response", "planar_laplace")  # = lmdk.mechanisms.MECHANISMS
MECHANISM_FOR_KIND = {"values": "laplace", "trajectory": "planar_laplace", "contacts": "randomized_response"}
_RUNCONFIG_ONLY = ("data", "events", "schemes", "repetitions", "s", "version")


def _is_int(value) -> bool:
    """A real integer (not a bool, not a float)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    """A real finite number (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(float(value))


@dataclass(frozen=True)
class Policy:
    """Landmark rule, scheme, mechanism (None: by the kind of series), ε, w, dummies, seed, sensitivity, mapping.

    ``seed`` None: every user's noise comes from fresh OS entropy that is never recorded (a release to hand
    out, snapping sampler); an integer: a reproducible demonstration (anyone with the seed removes the noise).
    ``mapping``: an import mapping (``lmdk.data.ImportSpec`` fields) saying how to read the input's columns.
    ``relation``: the neighbouring relation, e.g. ``{"kind": "range", "low": 0, "high": 25, "unit": "kWh"}``;
    exports of values and locations need one (a policy without it is a demonstration of Δ = ``sensitivity``).
    """

    landmarks: str
    scheme: str
    epsilon: float
    mechanism: str | None = None
    w: int | None = None
    dummies: dict | None = None
    seed: int | None = None
    sensitivity: float = 1.0
    mapping: dict | None = None
    relation: dict | None = None  # what ε protects (lmdk.relation.Relation fields); its Δ is the sensitivity
    landmark_epsilon: float | None = None  # ε_sel: select a data-derived rule's landmarks privately (per user)
    allow_data_landmarks: bool = False  # export a data-derived rule's landmarks unprotected (the statement says so)

    def __post_init__(self) -> None:
        """Validate every field; each message names the field and what is allowed."""
        from lmdk.landmarks import parse_rule

        if self.landmark_epsilon is not None:
            from lmdk.mechanisms import validate_epsilon

            object.__setattr__(self, "landmark_epsilon", float(validate_epsilon(self.landmark_epsilon,
                                                                                "policy: landmark_epsilon")))
        if not isinstance(self.allow_data_landmarks, bool):
            raise ParameterError("policy: allow_data_landmarks must be true or false, not "
                                 f"{self.allow_data_landmarks!r}")
        if not isinstance(self.landmarks, str) or not self.landmarks.strip():
            raise ParameterError("policy: landmarks must be a landmark rule declared in advance, such as "
                                 "'calendar:daily@18:00-22:00' or 'none', "
                                 f"not {self.landmarks!r}")
        parse_rule(self.landmarks)
        if self.scheme not in SCHEME_NAMES:
            raise ParameterError(f"policy: scheme must be one of {SCHEME_NAMES}, not {self.scheme!r}")
        if self.mechanism is not None and self.mechanism not in MECHANISM_NAMES:
            raise ParameterError(f"policy: mechanism must be one of {MECHANISM_NAMES} or null, not {self.mechanism!r}")
        if not _is_number(self.epsilon) or self.epsilon <= 0:
            raise ParameterError(f"policy: epsilon must be a finite number > 0, not {self.epsilon!r}")
        object.__setattr__(self, "epsilon", float(self.epsilon))
        if self.w is not None and (not _is_int(self.w) or self.w < 1):
            raise ParameterError(f"policy: w (window of the w-event scheme) must be a whole number ≥ 1 or null, "
                                 f"not {self.w!r}")
        if self.seed is not None and (not _is_int(self.seed) or not 0 <= self.seed < 2**63):
            raise ParameterError(f"policy: seed must be a whole number in 0..2^63−1 or null (fresh entropy), "
                                 f"not {self.seed!r}")
        if not _is_number(self.sensitivity) or self.sensitivity <= 0:
            raise ParameterError(f"policy: sensitivity must be a finite number > 0, not {self.sensitivity!r}")
        if self.relation is not None:
            from lmdk.relation import Relation

            try:
                protected = Relation.from_dict(self.relation)
            except (ValueError, TypeError) as exc:
                raise ParameterError(f"policy: relation: {exc}") from None
            if self.sensitivity not in (1.0, protected.sensitivity):
                raise ParameterError(f"policy: sensitivity {self.sensitivity!r} differs from the relation's Δ = "
                                     f"{protected.sensitivity:g}; leave sensitivity out")
            object.__setattr__(self, "sensitivity", protected.sensitivity)
            object.__setattr__(self, "relation", protected.to_dict())
        if self.dummies is not None:
            from lmdk.exports.runconfig import RunConfig

            try:
                object.__setattr__(self, "dummies", RunConfig.dummy_options(self.dummies))
            except (ValueError, TypeError) as exc:
                raise ParameterError(f"policy: {exc}") from None
        if self.mapping is not None:
            from lmdk.data.mapping import ImportSpec

            try:
                object.__setattr__(self, "mapping", ImportSpec.from_dict(self.mapping).to_dict())
            except (ValueError, TypeError) as exc:
                raise ParameterError(f"policy: mapping (the import mapping): {exc}") from None

    def protected(self, kind: str):
        """The relation for a kind of series: the policy's (checked), FLIP for contacts, or None (not given)."""
        from lmdk import relation

        if kind == "contacts":
            return relation.FLIP
        if self.relation is None:
            return None
        return relation.Relation.from_dict(self.relation).check_kind(kind)

    @property
    def rule(self):
        """The parsed landmark rule (``lmdk.landmarks.LandmarkRule``)."""
        from lmdk.landmarks import parse_rule

        return parse_rule(self.landmarks)

    def mechanism_for(self, kind: str) -> str:
        """The mechanism for a kind of series; refuses one that does not apply to it."""
        default = MECHANISM_FOR_KIND[kind]
        if self.mechanism is not None and self.mechanism != default:
            raise ParameterError(f"policy: mechanism {self.mechanism!r} does not apply to {kind} series; use "
                                 f"{default!r} (or leave mechanism out)")
        return default

    def to_dict(self) -> dict:
        """Plain JSON-ready dict."""
        return asdict(self)

    def to_json(self) -> str:
        """JSON text."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    @classmethod
    def from_dict(cls, data) -> Policy:
        """Build from a dict; unknown and missing fields are rejected by name."""
        if not isinstance(data, dict):
            raise ParameterError("a population policy must be a JSON object {…}")
        names = [f.name for f in fields(cls)]
        if any(key in data for key in ("data", "events")):
            raise ParameterError("this is a RunConfig of one series (it has 'data'/'events'); a population policy "
                                 "has no data reference and a landmark rule instead of positions, e.g. "
                                 '{"landmarks": "percentile:20", "scheme": "adaptive", "epsilon": 1.0}')
        unknown = sorted(set(data) - set(names))
        if unknown:
            hint = " (one scheme per policy: 'scheme')" if "schemes" in unknown else ""
            raise ParameterError(f"policy: unknown field(s) {unknown}{hint}; allowed: {names}")
        missing = [name for name in ("landmarks", "scheme", "epsilon") if name not in data]
        if missing:
            raise ParameterError(f"policy: missing field(s) {missing}; e.g. "
                                 '{"landmarks": "percentile:20", "scheme": "adaptive", "epsilon": 1.0}')
        return cls(**data)

    @classmethod
    def from_json(cls, text: str | bytes) -> Policy:
        """Parse and validate JSON text."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as exc:
            raise ParameterError(f"the population policy is not valid JSON: {exc}") from None
        except RecursionError:
            raise ParameterError("the population policy is nested too deeply to be a policy") from None
        return cls.from_dict(data)


def load_policy(path: str | Path) -> Policy:
    """A policy from a JSON file, with a clear error when it cannot be read."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ParameterError(f"policy file {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    return Policy.from_json(raw)
