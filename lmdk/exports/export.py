"""Export one release as CSV: timestamp, released value(s), budget ε_t, published and landmark flags.

The original values are left out unless asked for (``original=``): the export is meant to be
shareable, and the originals are exactly what the release protects.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError
from lmdk.release_common import sampler_for  # noqa: F401 (re-exported: the sampler of an export)

if TYPE_CHECKING:  # annotations only
    from lmdk.exports.statement import Guarantee
    from lmdk.relation import Relation
    from lmdk.release_common import Release
    from lmdk.selection.export import LandmarkSource


def _columns(prefix: str, array: np.ndarray, names) -> dict[str, np.ndarray]:
    """One column for (n,) data, ``prefix_<name>`` columns for (n, k) data."""
    if array.ndim == 1:
        return {prefix: array}
    k = array.shape[1]
    labels = list(names) if names is not None else [str(i + 1) for i in range(k)]
    if len(labels) != k:
        raise ParameterError(f"names: {len(labels)} names for {k} columns of {prefix} values")
    return {f"{prefix}_{label}": array[:, i] for i, label in enumerate(labels)}


def _flag(indices, n: int, name: str) -> np.ndarray:
    """A 0/1 column from landmark/dummy indices or a boolean mask."""
    arr = np.asarray(indices)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ParameterError(f"{name}: a boolean mask needs length {n}, got shape {arr.shape}")
        return arr.astype(np.int8)
    idx = arr.reshape(-1)
    if idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= n):
        raise ParameterError(f"{name} must be event positions in 0..{n - 1}")
    flag = np.zeros(n, dtype=np.int8)
    flag[idx.astype(np.int64)] = 1
    return flag


def iso_times(times, zone: str | None = None) -> np.ndarray:
    """ISO 8601 text of ``times`` ('2012-06-01T01:00:00-07:00'): zone-aware times with their own offset, naive
    times placed in ``zone`` first when it is given (else written without an offset: their zone is not known)."""
    index = pd.DatetimeIndex(times)
    if index.tz is None and zone is not None:
        index = index.tz_localize(zone, ambiguous="infer", nonexistent="shift_forward")
    return np.asarray([t.isoformat() for t in index], dtype=object)


def release_frame(timestamps, released, budgets, published, landmarks, *, original=None,
                  dummies=None, names=None) -> pd.DataFrame:
    """The table behind ``export_release`` (one row per timestamp)."""
    times = pd.DatetimeIndex(timestamps) if not isinstance(timestamps, pd.DatetimeIndex) else timestamps
    n = len(times)
    rel = np.asarray(released, dtype=np.float64)
    if rel.ndim not in (1, 2) or rel.shape[0] != n:
        raise ParameterError(f"released must have shape (n,) or (n, k) with n={n} timestamps, got {rel.shape}"
                             " (pass one repetition, e.g. release.values[0])")
    eps = np.asarray(budgets, dtype=np.float64).reshape(-1)
    pub = np.asarray(published).reshape(-1)
    if eps.shape != (n,) or pub.shape != (n,):
        raise ParameterError(f"budgets and published need one entry per timestamp (n={n}), got "
                             f"{eps.shape} and {pub.shape}")
    columns: dict[str, np.ndarray] = {"timestamp": iso_times(times)}
    if original is not None:
        orig = np.asarray(original, dtype=np.float64)
        if orig.shape != rel.shape:
            raise ParameterError(f"original must have the shape of released {rel.shape}, got {orig.shape}")
        columns.update(_columns("original", orig, names))
    columns.update(_columns("released", rel, names))
    columns["budget"] = eps
    columns["published"] = pub.astype(bool).astype(np.int8)
    columns["landmark"] = _flag(landmarks, n, "landmarks")
    if dummies is not None:
        columns["dummy"] = _flag(dummies, n, "dummies")
    return pd.DataFrame(columns)


def export_release(timestamps, released, budgets, published, landmarks, *, original=None,
                   dummies=None, names=None, seed: int | None = None) -> str:
    """CSV text of one release: timestamp, [original], released, budget, published, landmark, [dummy]; drawn from
    a demonstration ``seed``, its first line says so (:func:`lmdk.exports.files.demonstration_note`).

    ``released`` is one repetition, (n,) or (n, k); ``names`` labels the k columns (e.g. ("x", "y")
    → released_x, released_y). Flags are 0/1; ``dummy`` marks dummy landmarks (§3.4) when given.
    Floats are written in their shortest round-trip form (read them back bit-identically with
    ``pandas.read_csv(..., float_precision="round_trip")``).
    """
    from lmdk.exports.files import demonstration_note, table_text

    frame = release_frame(timestamps, released, budgets, published, landmarks, original=original,
                          dummies=dummies, names=names)
    return table_text(frame, None if seed is None else demonstration_note(seed))  # shortest round-trip floats


PRIVATE_COLUMNS = ("budget", "published", "landmark")
"""Columns that reveal the landmark set L (budgets and approximations differ at landmarks)."""


def released_frame(series, release, landmarks, mechanism: str, origin=None, *, repetition: int = 0,
                   private_columns: bool = True) -> pd.DataFrame:
    """One repetition of a ``lmdk.schemes.Release`` of ``series`` as the released-series table (app, CLI, API).

    Planar-Laplace releases (local metres around ``origin``) are converted back to lat/lon columns.
    ``private_columns=False`` leaves out budget, published and landmark (``PRIVATE_COLUMNS``): they reveal L.
    """
    from lmdk.mechanisms import metres_to_latlon

    values = np.asarray(release.values)[repetition]
    names = None
    if mechanism == "planar_laplace":
        lat, lon = metres_to_latlon(values, origin)
        values, names = np.column_stack([lat, lon]), ("lat", "lon")
    budgets = np.atleast_2d(np.asarray(release.budgets))
    published = np.atleast_2d(np.asarray(release.published))
    frame = release_frame(series.timestamps, values, budgets[min(repetition, len(budgets) - 1)],
                          published[min(repetition, len(published) - 1)], landmarks, names=names)
    return frame if private_columns else frame.drop(columns=list(PRIVATE_COLUMNS))


def export_note(bound: float | None, epsilon: float, sensitivity: float, private_columns: bool,
                guarantee=None, landmark_kind: str | None = None) -> str:
    """The metadata of an exported release: how its noise was drawn, what it leaves out, and (``guarantee``, a
    :class:`lmdk.exports.statement.Guarantee`) what it protects — one ``# `` line each."""
    if guarantee is None:  # population exports of a locations/contacts fleet still describe their sampler alone
        from lmdk.snapping import snapping_epsilon

        sampler = ("snapping sampler (Mironov 2012), public bound ±" + f"{bound:g}, guaranteed ε′ = "
                   f"{snapping_epsilon(epsilon, bound, sensitivity)!r} for nominal ε = {epsilon:g}"
                   if bound is not None else "full-precision randomized response")
    else:
        sampler = f"nominal ε = {epsilon:g}, sensitivity Δ = {sensitivity:g}"
    flags = ("INCLUDES the landmark/budget/published flags, which reveal the landmark set"
             if private_columns else "no landmark, budget or published flags (they would reveal the landmark set)")
    head = (f"# lmdk export: noise from fresh OS entropy, not recorded (this release cannot be regenerated); "
            f"{sampler}; {flags}; each export is a new release and spends ε again; "
            + _LANDMARK_NOTES.get(landmark_kind or "", "landmark privacy takes the landmark set as given by the "
                                                        "policy: a set chosen from these values is not covered by ε"))
    if guarantee is None:
        return head
    return "\n".join([head, *("# " + line for line in guarantee.lines())])


_LANDMARK_NOTES = {
    "declared": "landmarks declared in advance (they do not read the values)",
    "private": "landmarks selected privately from these values (their ε_sel is part of the stated ε)",
    "unprotected": "landmarks computed from these values (--allow-data-landmarks): see NOT PROTECTED below",
}


@dataclass(frozen=True)
class ExportedRelease:
    """One release that leaves the app: its table, its metadata lines, the Release behind it (for accounting)
    and the signed statement of what it protects."""

    frame: pd.DataFrame
    note: str
    release: Release
    guarantee: Guarantee
    relation: Relation
    sampler: str = ""
    landmark_source: LandmarkSource | None = None  # how the landmark set was obtained (declared, private, …)
    clamped: int = 0  # values outside the public range, clamped to it before the noise
    landmark_clock: str | None = None  # the clock a calendar rule was read on (lmdk.declared.calendar.clock_name)

    @property
    def landmark_epsilon(self) -> float:
        """ε_sel of a private landmark selection (0 otherwise): spent on top of the release's ε (ledger, caps)."""
        return 0.0 if self.landmark_source is None else float(self.landmark_source.selection_epsilon)

    def csv(self) -> str:
        """The file: the metadata lines, then the table (read it with ``pandas.read_csv(comment="#")``); no cell a
        spreadsheet would run as a formula (:func:`lmdk.exports.cells.csv_text`)."""
        from lmdk.exports.cells import csv_text

        return csv_text(self.frame, self.note)


def export_relation(series, protects=None, bound: float | None = None):
    """The neighbouring relation of an export: the given one (checked against the series' kind; a radius gets the
    public box ``bound`` unless it has one), FLIP for contacts, or — for values given only the legacy public bound
    B — the public range [−B, B]. Refuses a miscalibrated relation and the papers' unit change (no public range)."""
    from dataclasses import replace

    from lmdk import relation as rel

    if series.kind == "contacts":
        rel.refuse_miscalibrated(protects)
        return rel.FLIP
    if protects is not None:
        protected = rel.Relation.from_dict(protects).check_kind(series.kind)
        rel.refuse_miscalibrated(protected)
        if protected.kind == "papers":
            raise ParameterError("an export refuses the papers' unit change (Δ = 1 without a public range: it protects "
                                 "nothing a reading can be); give protects=lmdk.relation.public_range(low, high)")
        if protected.kind == "radius" and protected.bound is None and bound is not None:
            protected = replace(protected, bound=bound)
        return protected
    if series.kind == "values" and bound is not None:
        return rel.public_range(-bound, bound, series.units or "")
    if series.kind == "values":
        raise ParameterError("an export needs the public range of one value (e.g. 0 to the meter's rating in kWh): "
                             "give --range LOW HIGH (e.g. --range 0 25; in Python protects=lmdk.relation."
                             "public_range(0, 25)); it says what is protected and calibrates the noise; it must not "
                             "be derived from the data")
    raise ParameterError("an export of locations needs the protected radius in metres (e.g. 200: any location moved "
                         "within 200 m is protected) and a public bound of the box around the series' centre: give "
                         "--radius R --bound B (e.g. --radius 200 --bound 50000)")


def _check_snapping(rel, sensitivity: float, bound: float) -> None:
    """Mironov's condition λ = Δ/ε < B for every published budget, else a refusal naming what works."""
    budgets = np.asarray(rel.budgets)[np.asarray(rel.published, dtype=bool)]
    if budgets.size == 0:
        return
    smallest = float(budgets.min())
    if sensitivity / smallest >= bound:
        raise ParameterError("the snapping sampler's proof needs the noise scale "
                             f"Δ/ε_t = {sensitivity / smallest:.4g} m "
                             f"below the public bound B = {bound:g} m at every timestamp; use a bound above "
                             f"{sensitivity / smallest:.4g} m, a smaller radius, or a larger ε")


def export_scheme_release(series, landmarks, scheme: str, epsilon: float, *, protects=None, w=None,
                          bound: float | None = None, private_columns: bool = False, dummies=None,
                          rng=None, event: str = "event", landmark_epsilon: float | None = None,
                          allow_data_landmarks: bool = False, data_derived: bool = False, tz: str | None = None,
                          **removed) -> ExportedRelease:
    """One exported release: fresh entropy (unless ``rng`` is given, for tests) and a floating-point-safe sampler.

    ``protects``: what ε protects (:class:`lmdk.relation.Relation` or its dict) — values need a public range,
    locations a radius with its public box (``lmdk.relation.radius(r, bound=B)``, metres around the series'
    centre, for the snapping sampler; or ``bound=B`` here); contacts always flip one bit. For values without a
    relation, ``bound`` is the legacy public range [−B, B]. Values use the exact discrete Laplace
    (:mod:`lmdk.discrete_laplace`) with Δ = the relation's sensitivity. A miscalibrated relation is refused.

    ``landmarks``: positions given in advance (declared; ``data_derived=True`` when a detector chose them from these
    values), a rule (text or LandmarkRule) or a :class:`lmdk.selection.export.LandmarkSource`. A rule that reads the
    values is selected privately at ``landmark_epsilon`` (the statement's ε is then ε_sel + ``epsilon``), exported
    with the statement saying first what is not protected (``allow_data_landmarks``), or refused
    (:class:`lmdk.errors.PolicyRefused`); see :mod:`lmdk.selection.export`. ``tz``: the zone a calendar rule's
    windows are read in.
    """
    from lmdk import privacy, schemes
    from lmdk.data.mechanism_input import release_input
    from lmdk.declared.calendar import rule_clock
    from lmdk.exports.statement import guarantee
    from lmdk.selection.export import export_landmarks
    from lmdk.snapping import fresh_generator

    schemes.refuse_removed("export_scheme_release", removed)
    protected = export_relation(series, protects, bound)
    source = export_landmarks(series, landmarks, landmark_epsilon=landmark_epsilon,
                              allow_data_landmarks=allow_data_landmarks, relation=protected, rng=rng,
                              data_derived=data_derived, tz=tz)
    landmarks_given, landmarks = landmarks, source.indices
    x, mechanism, origin = release_input(series, landmarks)
    sampler = sampler_for(mechanism)
    if mechanism == "planar_laplace":
        bound = protected.bound
        if bound is None:
            raise ParameterError("an export of locations needs a public bound B (metres around the series' centre, "
                                 "e.g. the city's radius): protects=lmdk.relation.radius(r, bound=B); it must not be "
                                 "derived from the data")
    rel = schemes.release_engine(x, landmarks, scheme, epsilon, protected.calibration(mechanism), mechanism=mechanism,
                                 repetitions=1, rng=rng if rng is not None else fresh_generator(), w=w, dummies=dummies,
                                 protects=protected)
    if mechanism == "planar_laplace" and bound is not None:  # None was refused above
        _check_snapping(rel, protected.sensitivity, bound)
    worst = float(np.max(privacy.landmark_loss(np.atleast_2d(rel.budgets), landmarks))) if len(landmarks) else 0.0
    statement = guarantee(protected, scheme, epsilon, landmarks=len(landmarks), sampler=sampler, event=event,
                          w=rel.w, satisfies=worst + float(rel.selection_epsilon or 0) <= epsilon * (1 + 1e-9),
                          dummies=dummies is not None, selection_epsilon=float(rel.selection_epsilon or 0),
                          landmark_set=source)
    frame = released_frame(series, rel, landmarks, mechanism, origin, private_columns=private_columns)
    note = export_note(bound if mechanism == "planar_laplace" else None, epsilon, protected.sensitivity,
                       private_columns, statement, landmark_kind=source.kind)
    clamped = clamped_count(x, protected.value_range) if mechanism == "laplace" else 0
    if clamped:
        note += "\n# " + clamped_words(clamped, len(x), protected.value_range)
    clock = rule_clock(landmarks_given, series, tz)  # a rule read here (not a set marked elsewhere, e.g. bins)
    if clock is not None:
        note += f"\n# The landmark rule {source.rule!r} was read on {clock}."
    return ExportedRelease(frame, note, rel, statement, protected, sampler, source, clamped, clock)


def clamped_count(values, value_range) -> int:
    """How many finite values lie outside ``value_range`` (they are clamped to it before the noise)."""
    if value_range is None:
        return 0
    x = np.asarray(values, dtype=float)
    return int(np.count_nonzero(np.isfinite(x) & ((x < value_range[0]) | (x > value_range[1]))))


def clamped_words(clamped: int, n: int, value_range) -> str:
    """"Clamped: 12 of 8,760 values lay outside the public range [0, 25] …"."""
    return (f"Clamped: {clamped:,} of {n:,} values lay outside the public range [{value_range[0]:g}, "
            f"{value_range[1]:g}] and were clamped to it before the noise (the release describes the clamped "
            "values; widen the range from the device's specification if they are real)")
