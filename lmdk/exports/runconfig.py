"""``RunConfig``: everything needed to reproduce a run, serialised to JSON and validated on load.

Reproducibility contract: scheme ``s`` of a config is released with the generator
``numpy.random.default_rng([seed, SCHEMES.index(s)])`` (see ``scheme_rng``), so a config loaded
from JSON and re-run with ``RunConfig.release`` gives bit-identical output to the original run.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import MISSING, asdict, dataclass, field, fields

import numpy as np

from lmdk.errors import ParameterError
from lmdk.version import __version__

SCHEME_NAMES = ("event", "user", "w-event", "uniform", "skip", "adaptive",
                "bd", "ba", "fast", "pegasus")  # = lmdk.schemes.ALL_SCHEMES (the six, then the baselines)
MECHANISM_NAMES = ("laplace", "randomized_response", "planar_laplace")  # = lmdk.mechanisms.MECHANISMS
DUMMY_FIELDS = ("method", "share", "utility")  # = lmdk.dummies.selection.DummySpec fields
MAX_REPETITIONS = 100_000
MAX_EVENTS = 10_000_000
_DATA = re.compile(r"^(sample:(hue|taxi|contacts)(:seed=\d{1,9})?|sha256:[0-9a-f]{64})$")


def scheme_rng(seed: int, scheme: str) -> np.random.Generator:
    """The generator a run uses for ``scheme`` (independent streams per scheme, same seed)."""
    return np.random.default_rng([int(seed), SCHEME_NAMES.index(scheme)])


def _is_int(value) -> bool:
    """A real integer (not a bool, not a float)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_number(value) -> bool:
    """A real finite number (not a bool)."""
    return (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
            and math.isfinite(float(value)))


LANDMARK_ORIGINS = (None, "declared", "data", "viewed")
DATA_DERIVED_ORIGINS = ("data", "viewed")
"""Origins whose positions depend on the values being released: a detector read them ("data") or a person marked them
while the chart showed them ("viewed", issue 53); a config without the field is read as "viewed"."""
CONFIRM_DECLARED = "--declared-landmarks"


@dataclass(frozen=True)
class RunConfig:
    """One reproducible run: data reference, landmarks, scheme(s), mechanism and privacy parameters.

    ``data``: "sample:<name>" (optionally ":seed=<k>" for the synthetic samples) or
    "sha256:<hex>" (``Series.source_hash`` of an upload); ``events``: n; ``s``: Laplacian-smoothing
    strength of the correlation (None: not used); ``dummies``: ``lmdk.dummies.selection.DummySpec`` fields.
    ``relation``: what ε protects (:class:`lmdk.relation.Relation` as a dict); its Δ is ``sensitivity``, and runs
    use the exports' sampler. A config saved before the relation was explicit has none: it protects changes of
    up to ``sensitivity`` units (the papers' Δ = 1) with the textbook sampler, as it did (see ``relation_note``).
    ``landmark_origin``: whether the positions were declared in advance ("declared": a calendar rule, a file, marks
    made without the values in view), found by a detector that read these values ("data") or marked while the chart
    showed them ("viewed") — an export of the latter two is refused unless released anyway with its warning
    (lmdk.selection.export). A config without the field (None) is read as "viewed" (``origin``): nothing says the
    positions were chosen without looking at the values; ``lmdk release --config … --declared-landmarks`` confirms
    they were declared, and the statement records it (:func:`config_landmarks`).
    ``view``: the run's events are not the first ``events`` of ``data`` but, after an optional hourly/daily
    aggregation (``aggregate``, ``how``), the ``events`` from position ``start`` on (``view_of``); ``data`` still
    names the whole sample or file, so the same file is recognised by its hash.
    """

    data: str
    events: int
    landmarks: tuple[int, ...]
    schemes: tuple[str, ...]
    mechanism: str
    epsilon: float
    w: int | None = None
    s: float | None = None
    dummies: dict | None = None
    repetitions: int = 1
    seed: int = 0
    sensitivity: float = 1.0
    version: str = field(default=__version__)
    mapping: dict | None = None  # the import mapping of an uploaded file (lmdk.data.mapping.ImportSpec fields)
    relation: dict | None = None  # the neighbouring relation (lmdk.relation.Relation fields); None: a legacy config
    target: dict | None = None  # the error one can accept (lmdk.plan.Target fields: error, at[, probability]) or None
    view: dict | None = None  # which events of ``data`` (lmdk.data.resample): {"start", "aggregate", "how"} or None
    landmark_origin: str | None = None  # "declared", "data" (a detector: issue 33), "viewed" (marked on the values'
    # chart: issue 53); None: unknown, read as "viewed"

    def __post_init__(self) -> None:
        """Validate every field; each message names the field and the allowed range."""
        if not isinstance(self.data, str) or not _DATA.match(self.data):
            raise ParameterError(f"data must be 'sample:hue|taxi|contacts' or 'sha256:<64 hex digits>', "
                                 f"not {self.data!r}")
        if not _is_int(self.events) or not 1 <= self.events <= MAX_EVENTS:
            raise ParameterError(f"events (n) must be an integer in 1..{MAX_EVENTS:,}, not {self.events!r}")
        object.__setattr__(self, "landmarks", self._landmarks(self.landmarks))
        schemes = (self.schemes,) if isinstance(self.schemes, str) else tuple(self.schemes)
        if not schemes or any(s not in SCHEME_NAMES for s in schemes) or len(set(schemes)) != len(schemes):
            raise ParameterError(f"schemes must be distinct names from {SCHEME_NAMES}, not {self.schemes!r}")
        object.__setattr__(self, "schemes", schemes)
        if self.mechanism not in MECHANISM_NAMES:
            raise ParameterError(f"mechanism must be one of {MECHANISM_NAMES}, not {self.mechanism!r}")
        if not _is_number(self.epsilon) or self.epsilon <= 0:
            raise ParameterError(f"epsilon must be a finite number > 0, not {self.epsilon!r}")
        if self.w is not None and (not _is_int(self.w) or not 1 <= self.w <= self.events):
            raise ParameterError(f"w (window) must be an integer in 1..events={self.events} or null, not {self.w!r}")
        if self.s is not None and (not _is_number(self.s) or self.s <= 0):
            raise ParameterError(f"s (correlation smoothing strength) must be a number > 0 or null, not {self.s!r}")
        object.__setattr__(self, "dummies", self.dummy_options(self.dummies))
        if not _is_int(self.repetitions) or not 1 <= self.repetitions <= MAX_REPETITIONS:
            raise ParameterError(f"repetitions must be an integer in 1..{MAX_REPETITIONS:,}, not {self.repetitions!r}")
        if not _is_int(self.seed) or not 0 <= self.seed < 2**63:
            raise ParameterError(f"seed must be an integer in 0..2^63−1, not {self.seed!r}")
        if not _is_number(self.sensitivity) or self.sensitivity <= 0:
            raise ParameterError(f"sensitivity must be a finite number > 0, not {self.sensitivity!r}")
        if not isinstance(self.version, str) or not self.version:
            raise ParameterError(f"version must be the lmdk version string, not {self.version!r}")
        if self.relation is not None:
            from lmdk.relation import Relation

            protected = Relation.from_dict(self.relation)
            if abs(protected.sensitivity - float(self.sensitivity)) > 1e-12 * max(1.0, protected.sensitivity):
                if self.sensitivity != 1.0:
                    raise ParameterError(f"sensitivity {self.sensitivity!r} differs from the relation's Δ = "
                                         f"{protected.sensitivity:g}; leave sensitivity out or make them equal")
                object.__setattr__(self, "sensitivity", protected.sensitivity)
            object.__setattr__(self, "relation", protected.to_dict())
        if self.target is not None:
            from lmdk.plan import Target

            object.__setattr__(self, "target", Target.from_dict(self.target).to_dict())
        object.__setattr__(self, "view", self._view(self.view))
        if self.landmark_origin not in LANDMARK_ORIGINS:
            raise ParameterError(f"landmark_origin must be 'declared' (given in advance: a calendar rule, a file, "
                                 f"marks made without the values in view), 'data' (found by a detector that read "
                                 f"the values), 'viewed' (marked while the chart showed the values) or null, not "
                                 f"{self.landmark_origin!r}")
        if self.mapping is not None:
            from lmdk.data.mapping import ImportSpec

            try:
                object.__setattr__(self, "mapping", ImportSpec.from_dict(self.mapping).to_dict())
            except (ValueError, TypeError) as exc:
                raise ParameterError(f"mapping (the import mapping): {exc}") from None

    def _landmarks(self, value) -> tuple[int, ...]:
        """Sorted unique landmark positions in 0..events−1."""
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise ParameterError(f"landmarks must be a list of event positions, not {value!r}")
        items = list(value)
        bad = next((v for v in items if not _is_int(v)), None)
        if bad is not None:
            raise ParameterError(f"landmarks must hold whole-number positions; found {bad!r}")
        out = sorted(set(int(v) for v in items))
        if out and (out[0] < 0 or out[-1] >= self.events):
            raise ParameterError(f"landmarks must lie in 0..events−1 = 0..{self.events - 1}; "
                                 f"found {out[0] if out[0] < 0 else out[-1]}")
        return tuple(out)

    @staticmethod
    def _view(value) -> dict | None:
        """The window/aggregation of the data: start ≥ 0, aggregate hourly|daily|None, how sum|mean|last|None."""
        if value is None:
            return None
        names = ("start", "aggregate", "how")
        if not isinstance(value, dict) or set(value) - set(names):
            raise ParameterError(f"view must be an object with fields {names} or null, not {value!r}")
        start, period, how = value.get("start", 0), value.get("aggregate"), value.get("how")
        if not _is_int(start) or not 0 <= start < MAX_EVENTS:
            raise ParameterError(f"view.start must be an event position ≥ 0, not {start!r}")
        if period not in (None, "hourly", "daily"):
            raise ParameterError(f"view.aggregate must be 'hourly', 'daily' or null, not {period!r}")
        if how not in (None, "sum", "mean", "last") or (how is not None and period is None):
            raise ParameterError(f"view.how must be 'sum', 'mean' or 'last' with an aggregate (or null), not {how!r}")
        if start == 0 and period is None:
            return None  # the first ``events`` events: no view
        return {"start": int(start), "aggregate": period, "how": how}

    def view_of(self, whole):
        """This config's events of the whole series ``whole`` (the sample or file ``data`` names): aggregated
        if the view says so, then ``events`` events from ``start`` (the first ``events`` without a view)."""
        from lmdk.data import resample

        view = self.view or {"start": 0, "aggregate": None, "how": None}
        series = resample.aggregate(whole, view["aggregate"], view["how"]) if view["aggregate"] else whole
        if view["start"] + self.events > len(series):
            after = " after aggregation" if view["aggregate"] else ""
            raise ParameterError(f"the data has {len(series):,} events{after}"
                                 f"; the config needs {self.events:,} from position {view['start']:,}")
        return resample.window(series, view["start"], self.events)

    @staticmethod
    def dummy_options(value) -> dict | None:
        """Dummy-landmark options: a dict of DummySpec fields, validated by DummySpec itself."""
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ParameterError(f"dummies must be an object with fields {DUMMY_FIELDS} or null, not {value!r}")
        unknown = sorted(set(value) - set(DUMMY_FIELDS))
        if unknown:
            raise ParameterError(f"dummies: unknown field(s) {unknown}; allowed: {DUMMY_FIELDS}")
        from lmdk.dummies.selection import DummySpec  # lazy: the dummies module is optional for plain runs

        spec = DummySpec(**value)
        return {name: getattr(spec, name) for name in DUMMY_FIELDS}

    @property
    def origin(self) -> str:
        """How the positions were obtained: the field, or "viewed" for a config that does not say (issue 53)."""
        return self.landmark_origin or "viewed"

    @property
    def data_derived(self) -> bool:
        """Whether the positions may depend on the values being released (a detector, or marks made on their chart,
        or a config that does not say)."""
        return self.origin in DATA_DERIVED_ORIGINS

    # -- JSON ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """Plain JSON-ready dict."""
        out = asdict(self)
        if out["landmark_origin"] is None:  # configs that never said keep their JSON (and the scripts' digests)
            del out["landmark_origin"]
        out["landmarks"] = list(self.landmarks)
        out["schemes"] = list(self.schemes)
        return out

    def to_json(self) -> str:
        """JSON text (stable key order)."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    @classmethod
    def from_dict(cls, data: dict) -> RunConfig:
        """Build from a dict; unknown and missing fields are rejected by name."""
        if not isinstance(data, dict):
            raise ParameterError("a run configuration must be a JSON object {…}")
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ParameterError(f"unknown field(s) {unknown} in the run configuration; allowed: {names}")
        required = [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING]
        missing = [name for name in required if name not in data]
        if missing:
            raise ParameterError(f"missing field(s) {missing} in the run configuration")
        return cls(**data)

    @classmethod
    def from_json(cls, text: str | bytes) -> RunConfig:
        """Parse and validate JSON text (never evaluates anything)."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as exc:
            raise ParameterError(f"the run configuration is not valid JSON: {exc}") from None
        except RecursionError:
            raise ParameterError("the run configuration is nested too deeply to be a RunConfig; save it again "
                                 "from the app") from None
        return cls.from_dict(data)

    # -- the neighbouring relation --------------------------------------------------------
    def protected(self):
        """The relation a run uses: the config's, or for a legacy config changes of up to ``sensitivity`` units."""
        from lmdk import relation

        if self.relation is not None:
            return relation.Relation.from_dict(self.relation)
        if self.mechanism == "randomized_response":
            return relation.FLIP
        return relation.legacy(self.sensitivity)

    @property
    def relation_note(self) -> str | None:
        """For a config saved before the relation was explicit: which default it gets, in words; else None."""
        if self.relation is not None or self.mechanism == "randomized_response":
            return None
        unit = "metres" if self.mechanism == "planar_laplace" else ("unit" if self.sensitivity == 1 else "units")
        return (f"this configuration was saved before the protected change was explicit: it protects changes of up "
                f"to {self.sensitivity:g} {unit} (Δ = {self.sensitivity:g}, the papers' simplification) with the "
                "textbook sampler; set a public range (or radius) to protect any value")

    # -- running ------------------------------------------------------------------------
    def check_series(self, series) -> None:
        """Raise unless ``series`` is the data this config refers to (content hash and length)."""
        if len(series) != self.events:
            raise ParameterError(f"the series has {len(series)} events but the config says events={self.events}")
        if self.data.startswith("sha256:") and series.source_hash != self.data[len("sha256:"):]:
            raise ParameterError("the series' content hash differs from the config's data hash; "
                                 "load the same file the config was made with")

    def sample_series(self):
        """The bundled sample a "sample:…" config refers to (uploads must be loaded by the caller)."""
        if not self.data.startswith("sample:"):
            raise ParameterError("this config refers to an uploaded file (data='sha256:…'); load that file "
                                 "with lmdk.data.load_series and check it with check_series")
        from lmdk.data.samples import sample  # lazy: samples reads the bundled assets

        _, name, *rest = self.data.split(":")
        seed = int(rest[0].split("=")[1]) if rest else 0
        if self.view is not None:
            return self.view_of(sample(name, n=None, seed=seed))
        return sample(name, n=self.events, seed=seed)

    def release(self, x) -> dict:
        """Re-run every scheme on the mechanism input ``x``: {scheme: lmdk.schemes.Release}."""
        from lmdk import schemes

        x = np.asarray(x)
        if x.shape[0] != self.events:
            raise ParameterError(f"x has {x.shape[0]} events but the config says events={self.events}")
        return {
            scheme: schemes.release(
                x, np.asarray(self.landmarks, dtype=np.int64), scheme, self.epsilon, protects=self.protects(),
                mechanism=self.mechanism, repetitions=self.repetitions, rng=scheme_rng(self.seed, scheme),
                w=self.w, dummies=self.dummies)
            for scheme in self.schemes
        }

    def protects(self):
        """What the run's releases protect (``protects=`` of ``lmdk.release``): the config's relation, or for a legacy
        config the papers' change of up to ``sensitivity`` units with the textbook sampler, as it ran when saved."""
        from lmdk import relation

        if self.relation is None:
            return relation.legacy_papers(self.sensitivity)
        return relation.Relation.from_dict(self.relation)


ORIGIN_WORDS = {"data": "found by a detector that read these values",
                "viewed": "marked while the chart showed these values",
                None: "saved without saying how they were marked (landmark_origin), so they are read as marked "
                      "while the chart showed these values"}


def origin_message(cfg: RunConfig, path: str = "runconfig.json") -> str:
    """Why the export of ``cfg``'s data-derived positions is refused, and how to confirm declared ones."""
    from lmdk.selection.export import ALTERNATIVES

    said = ORIGIN_WORDS.get(cfg.landmark_origin, ORIGIN_WORDS[None])
    confirm = (f"if they were declared in advance (chosen without looking at these values), confirm it with `lmdk "
               f"release --config {path} {CONFIRM_DECLARED}` (the statement records the confirmation); otherwise "
               if cfg.landmark_origin != "data" else "")
    return (f"refused: the RunConfig's {len(cfg.landmarks):,} landmark positions were {said}, so ε no longer "
            f"protects the values that chose them; {confirm}{ALTERNATIVES}")


def config_landmarks(cfg: RunConfig, *, declared_landmarks: bool = False, allow_data_landmarks: bool = False,
                     path: str = "runconfig.json"):
    """The :class:`lmdk.selection.export.LandmarkSource` of an export of ``cfg``'s positions: declared as the config
    says or as confirmed (``declared_landmarks``: the person says the positions were chosen without the values; the
    statement's rule records it), data-derived and unprotected when ``allow_data_landmarks``, else refused
    (:class:`lmdk.errors.PolicyRefused` naming how to confirm). A detector's set ("data") cannot be confirmed."""
    from lmdk.errors import PolicyRefused
    from lmdk.selection.export import declared, unprotected

    if declared_landmarks and cfg.landmark_origin == "data":
        raise ParameterError(f"{CONFIRM_DECLARED}: the RunConfig says a detector read these values to find its "
                             "landmarks, so they were not declared; declare them (calendar:… windows, a file of "
                             "times) or pass --allow-data-landmarks (the statement then says what is not protected)")
    if not cfg.data_derived:
        return declared(cfg.landmarks)
    if declared_landmarks:
        return declared(cfg.landmarks, f"the RunConfig's positions, confirmed declared with {CONFIRM_DECLARED}")
    if allow_data_landmarks:
        return unprotected(cfg.landmarks, ORIGIN_WORDS.get(cfg.landmark_origin, ORIGIN_WORDS[None]))
    raise PolicyRefused(origin_message(cfg, path))


def sample_reference(name: str, seed: int = 0) -> str:
    """The ``data`` string of a bundled sample (the seed matters for the synthetic ones only)."""
    return f"sample:{name}" if name == "hue" or seed == 0 else f"sample:{name}:seed={int(seed)}"
