"""Which landmark set an export may use, and what its statement then says (issue 33).

Theorem 2 of the landmark paper (§3.1) protects one event's value at ε for a landmark set L fixed before the data
is seen. A rule that reads the values (locations, contacts) being released — ``below``, ``above``,
``percentile``, ``share``, ``stay``, ``contacts`` (:data:`lmdk.landmarks.DATA_DEPENDENT_KINDS`) — makes L a
function of the data: two neighbours that differ in one value on either side of the rule's threshold get
different landmark sets, and the scheme's budget, repeat and grid at that event tell them apart (Skip on
[20, a, 20] under ``below:10``: a measured loss of 8.4 at a stated ε = 1). So every exporting front end (``lmdk
release``, ``lmdk population``, :func:`lmdk.exports.export.export_scheme_release`, the app's downloads) asks
:func:`export_landmarks` for the landmark set, and gets one of three kinds, which the statement names:

- **declared** (:data:`DECLARED`): ``calendar:`` windows, a file of times or positions given in advance, ``none``
  — they do not read the values; Theorem 2 holds as stated, at the release's ε.
- **privately selected** (:data:`PRIVATE`): a data-derived rule run by :func:`lmdk.selection.private.select` at
  its own budget ε_sel (``--landmark-epsilon``, ``landmark_epsilon=``). The statement's ε for one event's value is
  the total ε_sel + ε (proof in :mod:`lmdk.selection.private`: adaptive sequential composition of the selection
  and the release given the selected set), and Theorem 2 is restated for a landmark set that is itself an output
  (ε + (|S| + 1)·ε_sel for the selected landmarks together with one more event: a group of k changed values costs
  the selection k·ε_sel, :func:`lmdk.selection.private.group_epsilon`). The ledger, the planner and a cap count
  ε_sel + ε.
- **data-derived, unprotected** (:data:`UNPROTECTED`): the rule applied to the values as they stand — only when
  asked for (``--allow-data-landmarks``, ``allow_data_landmarks=True``); the statement then says *first* that the
  value of any event whose landmark status could change is not protected at ε, and no longer claims the
  value-level ε.

Without either choice a data-derived rule is **refused** (:class:`lmdk.errors.PolicyRefused`, exit code 3 on the
command line) with one line naming the declared alternatives.

Why both paths rather than one: private selection (path a) keeps a guarantee that holds for every value and is
what the app's and CLI's defaults use when a rule reads the data; refusal (path b) is the safe answer when no
selection budget was given, since silently spending one would change the ε the user asked for. A set chosen
privately cannot be made from a rule that reads several events (stay points) or contacts, so those are refused
even with ``--landmark-epsilon`` (declare them, or export with ``--allow-data-landmarks``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError, PolicyRefused

DECLARED, PRIVATE, UNPROTECTED = "declared", "private", "unprotected"
KINDS = (DECLARED, PRIVATE, UNPROTECTED)
ALTERNATIVES = ("declare the landmarks instead — calendar:… windows (e.g. calendar:mon-fri@18:00-22:00) or a file of "
                "times (file:landmarks.csv) —, select them privately with --landmark-epsilon E (values: below, above, "
                "percentile, share), or pass --allow-data-landmarks (the statement then says what is not protected)")


def refusal(rule: str) -> str:
    """The one-line error of an export whose landmark rule reads the values it releases."""
    return (f"refused: the landmark rule {rule!r} is computed from the values being released, so one value moved "
            f"across its threshold changes the landmark set and ε no longer protects it; {ALTERNATIVES}")


@dataclass(frozen=True)
class LandmarkSource:
    """The landmark set an export uses and how it was obtained: ``kind`` one of :data:`KINDS`; ``rule`` its text
    (None for positions given as such); ``selection_epsilon`` ε_sel of a private selection (0 otherwise);
    ``per_series``: the rule of a population, which gives each user's series its own set (no ``indices`` here)."""

    kind: str
    indices: np.ndarray
    rule: str | None = None
    selection_epsilon: float = 0.0
    threshold_epsilon: float = 0.0
    response_epsilon: float = 0.0
    per_series: bool = False

    def total_epsilon(self, epsilon: float) -> float:
        """The ε one event's value gets from the selection and the release together (ε_sel + ε)."""
        return float(epsilon) + float(self.selection_epsilon)

    def landmark_level_epsilon(self, epsilon: float) -> float:
        """ε of the selected landmarks together with one more event (Theorem 2 for a selected set; declared: ε)."""
        from lmdk.selection.private import group_epsilon

        if self.kind != PRIVATE:
            return float(epsilon)
        return group_epsilon(epsilon, self.selection_epsilon, len(self.indices) + 1)

    def to_dict(self) -> dict:
        """JSON-ready (summaries, the ledger): ``landmarks`` the set's size, or null with ``per_user`` true when each
        user's series has its own set."""
        return {"kind": self.kind, "rule": self.rule, "selection_epsilon": self.selection_epsilon,
                "landmarks": None if self.per_series else int(len(self.indices)), "per_user": self.per_series}


def file_refusal(path: str, origin: str) -> str:
    """Why an export of a ``file:`` rule whose positions were marked on the values is refused, and the ways out."""
    from lmdk.declared.origin import FILE_ORIGINS

    return (f"refused: the landmark file {path!r} holds positions {FILE_ORIGINS[origin]}, so ε no longer protects "
            "the values that chose them; if they were declared in advance (chosen without looking at these values), "
            "confirm it: a RunConfig with `lmdk release --config FILE --declared-landmarks` (the statement records "
            "the confirmation), a landmark file by saving it with \"landmark_origin\": \"declared\"; otherwise "
            "declare the landmarks instead (calendar:… windows, a file of times: times:…) or pass "
            "--allow-data-landmarks (the statement then says what is not protected)")


def file_viewed(rule, allow_data_landmarks: bool = False) -> str | None:
    """For a ``file:`` rule whose file says its positions may depend on the values (marked while viewing them, a
    detector's, or a RunConfig / app landmark file that does not say: :func:`lmdk.landmarks.file_origin`): the words
    of how (the export is then unprotected) when ``allow_data_landmarks``, else :class:`lmdk.errors.PolicyRefused`;
    None for every other rule (declared as it stands)."""
    from lmdk.declared.origin import FILE_ORIGINS, file_origin

    if rule.kind != "file" or rule.path is None:
        return None
    origin = file_origin(rule.path)
    if origin == "declared":
        return None
    if not allow_data_landmarks:
        raise PolicyRefused(file_refusal(rule.path, origin))
    return FILE_ORIGINS[origin]


def declared(indices, rule: str | None = None) -> LandmarkSource:
    """A declared landmark set (positions or times given in advance, a calendar rule, none)."""
    return LandmarkSource(DECLARED, np.asarray(indices, dtype=np.int64).reshape(-1), rule)


def unprotected(indices, rule: str | None = None) -> LandmarkSource:
    """A landmark set computed from the released values and exported anyway (--allow-data-landmarks)."""
    return LandmarkSource(UNPROTECTED, np.asarray(indices, dtype=np.int64).reshape(-1), rule)


def source_of(landmarks, rule: str | None = None, *, data_derived: bool = False) -> LandmarkSource:
    """``landmarks`` as a LandmarkSource: one already, or positions (declared unless ``data_derived``)."""
    if isinstance(landmarks, LandmarkSource):
        return landmarks
    return (unprotected if data_derived else declared)(landmarks, rule)


def _range(relation, value_range) -> tuple[float, float]:
    """The public range the selection clamps to: given, else the relation's; refused without one."""
    if value_range is not None:
        return float(value_range[0]), float(value_range[1])
    found = getattr(relation, "value_range", None) if relation is not None else None
    if found is None:
        raise ParameterError("a private landmark selection needs the public range of one value (--range LOW HIGH, "
                             "protects=lmdk.relation.public_range(low, high)); it must not come from the data")
    return found


def rule_source(rule, *, landmark_epsilon: float | None = None, allow_data_landmarks: bool = False,
                kind: str = "values") -> LandmarkSource:
    """How an export of many series (a population) under ``rule`` gets its landmark sets, before any data is read:
    the same choice as :func:`export_landmarks` (declared, private at ``landmark_epsilon``, unprotected when
    allowed, else :class:`lmdk.errors.PolicyRefused`), with no indices (each user has their own)."""
    from lmdk.landmarks import LandmarkRule, parse_rule
    from lmdk.mechanisms import validate_epsilon
    from lmdk.selection.private import SELECTABLE

    parsed = rule if isinstance(rule, LandmarkRule) else parse_rule(rule)
    text = rule.strip() if isinstance(rule, str) else parsed.kind
    empty = np.zeros(0, dtype=np.int64)
    if not parsed.data_dependent:
        if landmark_epsilon is not None:
            raise ParameterError(f"landmark_epsilon: the landmark rule {text!r} is declared (it does not read the "
                                 "values), so there is nothing to select privately; leave it out")
        viewed = file_viewed(parsed, allow_data_landmarks)  # positions marked on the values: not declared
        if viewed is not None:
            return LandmarkSource(UNPROTECTED, empty, f"{text}: {viewed}", per_series=True)
        return LandmarkSource(DECLARED, empty, text, per_series=True)
    if landmark_epsilon is not None:
        if parsed.kind not in SELECTABLE or kind != "values":
            raise PolicyRefused(f"refused: the landmark rule {text!r} cannot be selected privately (only value rules "
                                f"{', '.join(SELECTABLE)}); declare the landmarks (calendar:…, a file of times) or "
                                "pass --allow-data-landmarks (the statement then says what is not protected)")
        eps = float(validate_epsilon(landmark_epsilon, "landmark_epsilon"))
        q = eps / 2.0 if parsed.kind in ("percentile", "share") else 0.0
        return LandmarkSource(PRIVATE, empty, text, eps, q, eps - q, per_series=True)
    if allow_data_landmarks:
        return LandmarkSource(UNPROTECTED, empty, text, per_series=True)
    raise PolicyRefused(refusal(text))


def export_landmarks(series, landmarks, *, landmark_epsilon: float | None = None,
                     allow_data_landmarks: bool = False, relation=None, value_range=None, rng=None,
                     data_derived: bool = False, tz: str | None = None) -> LandmarkSource:
    """The landmark set of an export of ``series`` (see the module docstring).

    ``tz``: the zone whose wall clock a calendar rule reads (naive times: their zone).
    ``landmarks``: a rule (text or :class:`lmdk.landmarks.LandmarkRule`), positions (declared unless
    ``data_derived=True``, as the app's detector sets are) or a :class:`LandmarkSource`. A data-derived rule is
    selected privately at ``landmark_epsilon`` (on the values clamped to ``value_range`` or the ``relation``'s
    public range; randomness from ``rng``, fresh entropy when None), or applied as it stands when
    ``allow_data_landmarks``, or refused (:class:`lmdk.errors.PolicyRefused`).
    """
    from lmdk.landmarks import LandmarkRule, parse_rule

    if isinstance(landmarks, LandmarkSource):
        return landmarks
    if not isinstance(landmarks, (str, LandmarkRule)):
        positions = np.asarray(landmarks)
        if positions.dtype == bool:
            positions = np.flatnonzero(positions)
        if landmark_epsilon is not None:
            raise ParameterError("landmark_epsilon (--landmark-epsilon): landmarks given as positions cannot be "
                                 "selected privately; give the rule (e.g. --landmarks below:10) instead")
        if data_derived and not allow_data_landmarks:
            raise PolicyRefused(refusal("chosen from the data"))
        return source_of(positions, data_derived=data_derived)
    rule = parse_rule(landmarks) if isinstance(landmarks, str) else landmarks
    text = landmarks.strip() if isinstance(landmarks, str) else rule.kind
    if not rule.data_dependent:
        if landmark_epsilon is not None:
            raise ParameterError(f"--landmark-epsilon: the landmark rule {text!r} is declared (it does not read the "
                                 "values), so there is nothing to select privately; leave it out")
        viewed = file_viewed(rule, allow_data_landmarks)  # positions marked on the values: not declared
        if viewed is not None:
            return unprotected(rule.indices(series, tz), f"{text}: {viewed}")
        return declared(rule.indices(series, tz), text)
    if landmark_epsilon is not None:
        from lmdk.selection.private import SELECTABLE, select
        from lmdk.snapping import fresh_generator

        if rule.kind not in SELECTABLE or getattr(series, "kind", "values") != "values":
            raise PolicyRefused(f"refused: the landmark rule {text!r} cannot be selected privately (it reads "
                                f"{'several events' if rule.kind == 'stay' else 'locations or contacts'}); "
                                + ALTERNATIVES.split(", select them privately")[0]
                                + ", or pass --allow-data-landmarks (the statement then says what is not protected)")
        chosen = select(series, rule, landmark_epsilon, _range(relation, value_range),
                        rng if rng is not None else fresh_generator())
        return LandmarkSource(PRIVATE, chosen.indices, text, chosen.epsilon, chosen.threshold_epsilon,
                              chosen.response_epsilon)
    if allow_data_landmarks:
        return unprotected(rule.indices(series), text)
    raise PolicyRefused(refusal(text))
