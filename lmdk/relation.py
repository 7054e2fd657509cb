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
- ``aggregate``: one user's contributions to a statistic over many users (:mod:`lmdk.aggregate`) change: their
  reading in a bin moves anywhere in the public range [low, high] of one user's reading, or is absent — a user
  without a reading in a bin contributes 0 — so one contribution lies in [min(0, low), max(0, high)] (a count: 0
  to K rows per bin for contacts, 0 or 1 for a user inside a region). Δ = max(0, high) − min(0, low) for a sum
  (K for a count of contacts, 1 of a region), and that ÷ N for a mean, where N (the group's number of users,
  counted from the input's user ids) is public under this relation; the statistic lies in
  [N·min(0, low), N·max(0, high)] (a mean in [min(0, low), max(0, high)]), the range the exact sampler clamps to,
  so no true statistic is clamped (:func:`aggregate_sensitivity`, :func:`aggregate_statistic_range`: the one
  place Δ and the range are computed, for the release, the ledger, the app and the planner). With groups
  (``groups`` > 1) the relation is one group's: groups are disjoint sets of users, so their releases compose in
  parallel. Under a landmark scheme the release protects one user's readings at every landmark and any one other
  bin together (Theorem 2 on the aggregate stream: each timestamp's data set D_t holds the users' readings, §2
  Definition 2, §3.1).
- ``papers``: the papers' simplification for their figures (:data:`PAPERS_UNIT_CHANGE`): a change of up to d = 1
  unit, no public range, the textbook floating-point sampler. Only the papers' figures and the tests that
  reproduce them use it, always explicitly.

A relation fixes Δ, the sampler and the public range together: :meth:`Relation.calibration` is what the release
engine consumes, so no caller can pass a Δ that disagrees with the range it claims. :func:`miscalibrated` is the one
documented route to a broken calibration (for the audit's power tests); exports refuse it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from lmdk.errors import ParameterError

KINDS = ("range", "up_to", "radius", "flip", "papers", "aggregate")
KIND_FOR_SERIES = {"values": ("range", "up_to", "aggregate"), "trajectory": ("radius",), "contacts": ("flip",)}
AGGREGATE_STATISTICS = ("sum", "mean", "count")
AGGREGATE_FIELDS = ("statistic", "users", "max_per_user", "groups", "who", "counted")
COUNTED = ("contacts", "region")


def _finite(value, name: str) -> float:
    """A finite float, else a ParameterError naming ``name``."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(out):
        raise ParameterError(f"{name} must be a finite number, not {value!r}")
    return out


def aggregate_sensitivity(statistic: str, users: int, low: float, high: float) -> float:
    """Δ of one user's contributions to a bin of an aggregate: max(0, high) − min(0, low) (÷ N for a mean)."""
    if statistic == "count":  # a count's low is 0 and high is K (contacts) or 1 (region): Δ = high
        return float(high) - float(low)
    width = max(0.0, float(high)) - min(0.0, float(low))
    return width / float(users) if statistic == "mean" else width


def aggregate_statistic_range(statistic: str, users: int, low: float, high: float) -> tuple[float, float]:
    """The public range of one bin's statistic: [N·min(0, low), N·max(0, high)] (a mean's without the N)."""
    lo, hi = min(0.0, float(low)), max(0.0, float(high))
    if statistic == "mean":
        return lo, hi
    return float(users) * lo, float(users) * hi


def _literal(value: float | None) -> str:
    """A number as Python source that reads back exactly: 25 for 25.0, repr otherwise."""
    if value is not None and float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


@dataclass(frozen=True)
class Calibration:
    """What the release engine draws with: Δ, the sampler, the public range values are clamped to, and the snapping
    box (metres) — all fixed by one :class:`Relation` (``Relation.calibration``), never passed one by one."""

    sensitivity: float
    sampler: str  # "textbook" | "discrete" | "snapping"
    value_range: tuple[float, float] | None = None
    bound: float | None = None

    def options(self) -> dict:
        """The engine's keyword arguments (``sensitivity``, ``sampler``, ``value_range``, ``bound``)."""
        return {"sensitivity": self.sensitivity, "sampler": self.sampler, "value_range": self.value_range,
                "bound": self.bound}


@dataclass(frozen=True)
class Relation:
    """Which change of one event ε protects: a public range, a change of up to d, a radius, or a flip."""

    kind: str
    low: float | None = None
    high: float | None = None
    d: float | None = None
    unit: str = ""
    bound: float | None = None  # radius: the public box ±bound metres of the export-safe snapping sampler
    noise_sensitivity: float | None = None  # set only by miscalibrated(): the Δ the noise is (wrongly) calibrated for
    # aggregate only: the statistic, N (public), K (contact rows per user and bin), the number of groups, whose data
    statistic: str | None = None
    users: int | None = None
    max_per_user: int | None = None
    groups: int | None = None
    who: str | None = None
    counted: str | None = None  # a count's rows: "contacts" (K per user and bin) or "region" (users inside it)

    def __post_init__(self) -> None:
        """Validate the fields each kind needs; messages name the field and the fix."""
        if self.kind not in KINDS:
            raise ParameterError(f"relation kind must be one of {KINDS}, not {self.kind!r}")
        self._check_aggregate()
        if self.kind in ("range", "up_to", "aggregate") or self.low is not None or self.high is not None:
            if self.low is None or self.high is None:
                raise ParameterError("a public range needs both low and high (from the device or the domain, e.g. "
                                     "0 and the meter's rating — never from the data)")
            low, high = _finite(self.low, "range low"), _finite(self.high, "range high")
            if not low < high:
                raise ParameterError(f"the public range needs low < high, got [{low:g}, {high:g}]")
            object.__setattr__(self, "low", low)
            object.__setattr__(self, "high", high)
        if self.kind in ("up_to", "radius", "papers"):
            what = "radius (metres)" if self.kind == "radius" else "d (the largest protected change)"
            if self.d is None:
                raise ParameterError(f"{what} is missing: give a number > 0")
            d = _finite(self.d, what)
            if d <= 0:
                raise ParameterError(f"{what} must be > 0, not {self.d!r}")
            object.__setattr__(self, "d", d)
        elif self.d is not None:
            raise ParameterError(f"d applies to the 'up_to' and 'radius' relations, not to {self.kind!r}")
        if self.kind == "papers" and self.low is not None:
            raise ParameterError("the papers' unit change has no public range; for a range use public_range or up_to")
        if not isinstance(self.unit, str):
            raise ParameterError(f"unit must be text, not {self.unit!r}")
        if self.bound is not None:
            if self.kind != "radius":
                raise ParameterError(f"bound (the public box in metres) applies to a radius, not to {self.kind!r}")
            bound = _finite(self.bound, "bound (metres)")
            if bound <= 0:
                raise ParameterError(f"bound (the public box in metres) must be > 0, not {self.bound!r}")
            object.__setattr__(self, "bound", bound)
        if self.noise_sensitivity is not None:
            noise = _finite(self.noise_sensitivity, "noise_sensitivity")
            if noise <= 0:
                raise ParameterError(f"noise_sensitivity must be > 0, not {self.noise_sensitivity!r}")
            object.__setattr__(self, "noise_sensitivity", noise)

    def _check_aggregate(self) -> None:
        """An aggregate needs its statistic and N; other kinds must not carry the aggregate fields."""
        given = [name for name in AGGREGATE_FIELDS if getattr(self, name) is not None]
        if self.kind != "aggregate":
            if given:
                raise ParameterError(f"{', '.join(given)} apply to the 'aggregate' relation, not to {self.kind!r}")
            return
        if self.statistic not in AGGREGATE_STATISTICS:
            raise ParameterError(f"an aggregate relation needs statistic = one of {AGGREGATE_STATISTICS}, not "
                                 f"{self.statistic!r}")
        for name, default in (("users", None), ("max_per_user", 1), ("groups", 1)):
            value = getattr(self, name, None)
            value = default if value is None else value
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                what = {"users": "users (N, the public number of users in the statistic)",
                        "max_per_user": "max_per_user (K, contact rows per user and bin)",
                        "groups": "groups (the number of disjoint groups released)"}[name]
                raise ParameterError(f"{what} must be a whole number ≥ 1, not {getattr(self, name)!r}")
            object.__setattr__(self, name, value)
        if self.statistic == "count":
            counted = "contacts" if self.counted is None else self.counted
            if counted not in COUNTED:
                raise ParameterError(f"counted must be one of {COUNTED}, not {self.counted!r}")
            object.__setattr__(self, "counted", counted)
        elif self.counted is not None:
            raise ParameterError(f"counted applies to a count, not to a {self.statistic}")
        if self.who is None:
            object.__setattr__(self, "who", "user")
        elif not isinstance(self.who, str) or not self.who.strip():
            raise ParameterError(f"who (whose readings: 'household', 'person') must be a word, not {self.who!r}")

    @property
    def sensitivity(self) -> float:
        """Δ: how far the protected change can move one event's value (metres for a radius)."""
        if self.kind == "aggregate":
            return aggregate_sensitivity(str(self.statistic), int(self.users or 1), self._number("low"),
                                         self._number("high"))
        if self.kind == "range":
            return self._number("high") - self._number("low")
        if self.kind in ("up_to", "radius", "papers"):
            return self._number("d")
        return 1.0

    def _number(self, name: str) -> float:
        """A numeric field the kind requires (``__post_init__`` checked it is set)."""
        value = getattr(self, name)
        if value is None:
            raise ParameterError(f"the {self.kind!r} relation has no {name}")
        return float(value)

    @property
    def miscalibrated(self) -> bool:
        """True for :func:`miscalibrated`'s deliberately broken calibration (exports refuse it)."""
        return self.noise_sensitivity is not None

    def calibration(self, mechanism: str) -> Calibration:
        """Δ, sampler, public range and snapping box of a release of ``mechanism`` under this relation.

        Values (laplace): the exact discrete Laplace (:mod:`lmdk.discrete_laplace`) on the public range with
        Δ = sensitivity; contacts (randomized_response): the flip from full-precision uniforms; locations
        (planar_laplace): Δ = the radius, with the snapping sampler inside ``bound`` when the relation has one,
        else the textbook planar Laplace (views). The papers' unit change: Δ = d, the textbook sampler, no range.
        A miscalibrated relation keeps all of that but calibrates the noise for Δ = ``noise_sensitivity``.
        """
        delta = self.noise_sensitivity if self.noise_sensitivity is not None else self.sensitivity
        if self.kind == "papers":
            return Calibration(1.0 if mechanism == "randomized_response" else delta, "textbook")
        if mechanism == "laplace":
            if self.value_range is None:
                raise ParameterError(f"the {self.kind!r} relation does not fit values (laplace): give what ε protects "
                                     "as lmdk.relation.public_range(low, high) or up_to(d, low, high)")
            return Calibration(delta, "discrete", self.value_range)
        if mechanism == "randomized_response":
            return Calibration(self.noise_sensitivity or 1.0, "snapping")
        if mechanism == "planar_laplace":
            return Calibration(delta, "snapping" if self.bound is not None else "textbook", None, self.bound)
        raise ParameterError(f"mechanism must be 'laplace', 'randomized_response' or 'planar_laplace', "
                             f"not {mechanism!r}")

    @property
    def value_range(self) -> tuple[float, float] | None:
        """The public range values are clamped to, or None (locations, contacts). An aggregate's is the
        statistic's own range (:func:`aggregate_statistic_range`)."""
        if self.low is None:
            return None
        low, high = self._number("low"), self._number("high")
        if self.kind == "aggregate":
            return aggregate_statistic_range(str(self.statistic), int(self.users or 1), low, high)
        return low, high

    def _aggregate_words(self, event: str) -> tuple[str, str]:
        """(whose readings, what changes) of an aggregate, e.g. ("any one household", "each anywhere between 0
        and 25 kWh")."""
        who = f"any one {self.who}"
        if self.counted == "region":
            change = "whether they are counted (inside the region or not)"
        elif self.statistic == "count":
            change = f"each anywhere between 0 and {self._number('high'):g} contact rows"
        else:
            change = f"each anywhere between {self.low:g} and {self._amount(self._number('high'))}"
            if not self._number("low") <= 0 <= self._number("high"):
                change += " or absent (counted as 0)"
        return who, change

    def aggregate_protects(self, event: str, epsilon: float, landmarks: int | None) -> str:
        """The aggregate's statement in words: "any one household's readings at every landmark hour and any one
        other hour, each anywhere between 0 and 25 kWh, at ε = 1" (``landmarks`` 0 or None: one hour)."""
        who, change = self._aggregate_words(event)
        what = "contact rows" if self.counted == "contacts" else "presence" if self.counted else "readings"
        if landmarks:
            return (f"{who}'s {what} at every landmark {event} ({landmarks:,}) and any one other {event}, {change}, "
                    f"at ε = {epsilon:g}")
        return f"{who}'s {what} at any single {event}, {change}, at ε = {epsilon:g}"

    def aggregate_said(self) -> tuple[str, ...]:
        """What an aggregate treats as public or fixes by construction (the statement lists it)."""
        n = f"{self.users:,}"
        out = []
        if self.statistic in ("sum", "mean"):
            low, high = self._number("low"), self._number("high")
            lo, hi = min(0.0, low), max(0.0, high)
            what = ("the sum over" if self.statistic == "sum" else f"the sum divided by N = {n}, the number of") + \
                f" {self.who}s"
            out.append(f"the statistic is {what} of each one's reading clamped to the public range [{low:g}, "
                       f"{high:g}]; a {self.who} without a reading in a bin contributes 0, so one {self.who}'s "
                       f"contribution lies in [{lo:g}, {hi:g}] (Δ = {self.sensitivity:g})")
            out.append(f"N = {n}, the number of {self.who}s counted from the input's user ids, is public under this "
                       "relation")
        elif self.counted == "region":
            out.append(f"the statistic counts the {self.who}s inside a public region per bin (N = {n})")
        else:
            out.append(f"the statistic counts contact rows per bin, each {self.who} contributing at most "
                       f"{self.max_per_user} (K, public; a row belongs to both people, extra rows are dropped)")
        if (self.groups or 1) > 1:
            out.append(f"per group ({self.groups} groups): group membership is treated as public; each {self.who} is "
                       "in exactly one group, so the groups' releases compose in parallel (one ε for all of them)")
        return tuple(out)

    def _amount(self, value: float) -> str:
        return f"{value:g} {self.unit}".strip()

    def protects(self, event: str = "event") -> str:
        """What is protected, in plain words: "any single hour's reading, whatever its value between 0 and 25 kWh"."""
        if self.kind == "aggregate":
            who, change = self._aggregate_words(event)
            what = "contact rows" if self.counted == "contacts" else "presence" if self.counted else "reading"
            return f"{who}'s {what} at any single {event} of the {self.statistic} over {self.users:,}, {change}"
        if self.kind == "range":
            return (f"any single {event}'s value, whatever it is between {self.low:g} and "
                    f"{self._amount(self._number('high'))}")
        if self.kind == "up_to":
            return (f"a change of up to {self._amount(self._number('d'))} in any single {event}'s value (larger "
                    f"changes are protected less: ε grows with the change)")
        if self.kind == "radius":
            return f"any single {event}'s location, moved anywhere within {self.d:g} m"
        if self.kind == "papers":
            return (f"a change of up to {self._amount(self._number('d'))} in any single {event}'s value (the papers' "
                    "simplification: no public range, larger changes are protected less)")
        return f"whether any single {event} was a contact (one bit flipped)"

    def label(self) -> str:
        """A short label for tables and file metadata: "range [0, 25] kWh (Δ = 25)"."""
        if self.kind == "aggregate":
            low, high = self.value_range or (0.0, 0.0)
            one = (f"0 to {self._number('high'):g} rows per bin" if self.statistic == "count"
                   else f"reading in [{self.low:g}, {self._amount(self._number('high'))}]")
            return (f"one {self.who} of {self.users:,} in a {self.statistic}: {one} (Δ = {self.sensitivity:g}; "
                    f"the {self.statistic} in [{low:g}, {high:g}])")
        if self.kind == "range":
            return f"range [{self.low:g}, {self.high:g}] {self.unit}".rstrip() + f" (Δ = {self.sensitivity:g})"
        if self.kind == "up_to":
            return f"changes up to {self._amount(self._number('d'))} (Δ = {self.d:g})"
        if self.kind == "radius":
            return f"radius {self.d:g} m (Δ = {self.d:g} m)"
        if self.kind == "papers":
            return f"the papers' unit change (Δ = {self.d:g}, no public range)"
        return "one contact bit flipped (Δ = 1)"

    def code(self) -> str:
        """The Python expression that builds this relation (generated scripts print it after ``protects=``)."""
        if self == PAPERS_UNIT_CHANGE:
            return "lmdk.relation.PAPERS_UNIT_CHANGE"
        if self == FLIP:
            return "lmdk.relation.FLIP"
        unit = f", {self.unit!r}" if self.unit else ""
        low, high, d = _literal(self.low), _literal(self.high), _literal(self.d)
        if self.noise_sensitivity is None and self.kind == "range":
            return f"lmdk.relation.public_range({low}, {high}{unit})"
        if self.noise_sensitivity is None and self.kind == "up_to":
            return f"lmdk.relation.up_to({d}, {low}, {high}{unit})"
        if self.noise_sensitivity is None and self.kind == "radius" and self.unit == "m":
            return f"lmdk.relation.radius({d}" + (f", bound={_literal(self.bound)})" if self.bound else ")")
        return f"lmdk.relation.Relation.from_dict({self.to_dict()!r})"

    def to_dict(self) -> dict:
        """JSON-ready fields (None fields left out)."""
        out = {"kind": self.kind}
        for name in ("low", "high", "d", "bound", "noise_sensitivity", *AGGREGATE_FIELDS):
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
        unknown = sorted(set(data) - {"kind", "low", "high", "d", "unit", "bound", "noise_sensitivity",
                                      *AGGREGATE_FIELDS})
        if unknown:
            raise ParameterError(f"relation: unknown field(s) {unknown}; allowed: kind, low, high, d, unit, bound, "
                                 f"noise_sensitivity, {', '.join(AGGREGATE_FIELDS)}")
        if "kind" not in data:
            raise ParameterError(f"relation needs a kind, one of {KINDS}")
        return cls(**data)

    def check_kind(self, series_kind: str) -> Relation:
        """Itself, if it fits a series of ``series_kind``; else a ParameterError naming the fitting kinds."""
        fitting = KIND_FOR_SERIES.get(series_kind, ())
        if self.kind not in fitting and self.kind != "papers":
            raise ParameterError(f"the {self.kind!r} relation does not fit a {series_kind} series; use "
                                 f"{' or '.join(repr(k) for k in fitting)}")
        return self


PAPERS_UNIT_CHANGE = Relation("papers", d=1.0)
"""The papers' figures: a change of up to 1 unit (Δ = 1, "for simplicity"), no public range, the textbook sampler.
Only the papers' figures and experiments (and the tests that reproduce them) use it, always explicitly."""
PAPERS_UNIT = PAPERS_UNIT_CHANGE
"""Alias of :data:`PAPERS_UNIT_CHANGE`."""


def public_range(low, high, unit: str = "") -> Relation:
    """Protect any value of one event in [low, high] (Δ = high − low): the default for values."""
    return Relation("range", low=low, high=high, unit=unit)


def up_to(d, low, high, unit: str = "") -> Relation:
    """Protect changes of one event's value of up to d units (Δ = d); values clamped to [low, high]."""
    return Relation("up_to", low=low, high=high, d=d, unit=unit)


def radius(r, bound=None) -> Relation:
    """Protect one location moved anywhere within r metres (planar Laplace, Δ = r). ``bound``: the public box ±B
    metres around the origin of an export (the snapping sampler); without it the textbook planar Laplace (views)."""
    return Relation("radius", d=r, unit="m", bound=bound)


def aggregate(statistic: str, *, users: int, low=None, high=None, unit: str = "", max_per_user: int = 1,
              groups: int = 1, who: str = "user", counted: str | None = None) -> Relation:
    """Protect one user's contributions to an aggregate (:mod:`lmdk.aggregate`): a ``sum`` or ``mean`` over
    ``users`` (N, public) of readings in the public range [low, high] (Δ = high − low; a mean's Δ is that ÷ N), or
    a ``count`` — of contact rows, each user at most ``max_per_user`` (K) per bin (Δ = K, the default), or of users
    inside a public region (``counted="region"``, Δ = 1). ``groups``: how many disjoint groups are released
    (parallel composition: the statement says so). ``who``: whose readings ("household", "pupil")."""
    if statistic not in AGGREGATE_STATISTICS:
        raise ParameterError(f"statistic must be one of {', '.join(AGGREGATE_STATISTICS)}, not {statistic!r}")
    if statistic == "count":
        if low is not None or high is not None:
            raise ParameterError("a count's range is fixed by K (0 to max_per_user rows per user and bin); leave "
                                 "low and high out")
        counted = counted or "contacts"
        low, high = 0, (1 if counted == "region" else max_per_user)
    elif low is None or high is None:
        raise ParameterError(f"a {statistic} needs the public range of one user's reading (low and high, e.g. 0 "
                             "and the meter's rating — never from the data)")
    return Relation("aggregate", low=low, high=high, unit=unit, statistic=statistic, users=users,
                    max_per_user=max_per_user, groups=groups, who=who, counted=counted)


FLIP = Relation("flip")
"""One contact bit flipped (randomized response)."""


def flip() -> Relation:
    """Protect one contact bit flipped (randomized response): :data:`FLIP`."""
    return FLIP


def miscalibrated(protects, *, noise_sensitivity) -> Relation:
    """A deliberately broken calibration — the one documented route to it, for the audit's power tests: the claim
    stays ``protects`` (its range, words and sampler), the noise is calibrated for Δ = ``noise_sensitivity``.
    Exports (CLI, downloads, populations) refuse it."""
    return replace(Relation.from_dict(protects), noise_sensitivity=noise_sensitivity)


def refuse_miscalibrated(protects, where: str = "an export") -> None:
    """Raise a ParameterError when ``protects`` is :func:`miscalibrated`: a release to hand out must be calibrated."""
    if protects is not None and Relation.from_dict(protects).miscalibrated:
        raise ParameterError(f"{where} refuses a miscalibrated relation (lmdk.relation.miscalibrated: noise for "
                             "another Δ than the claim); give what ε protects, e.g. "
                             "protects=lmdk.relation.public_range(0, 25, 'kWh')")


def legacy_papers(sensitivity: float = 1.0) -> Relation:
    """What a configuration from before the relation was explicit ran with: Δ = sensitivity, no range, textbook
    sampler (:data:`PAPERS_UNIT_CHANGE` for Δ = 1)."""
    return PAPERS_UNIT_CHANGE if float(sensitivity) == 1.0 else Relation("papers", d=float(sensitivity))


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

