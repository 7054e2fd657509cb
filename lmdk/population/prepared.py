"""``prepare``: one population policy made ready for a kind of series — what ε protects, the sampler, the export's
statement and landmark source, and the :class:`~lmdk.population.process.Job` every engine runs."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lmdk.errors import ParameterError
from lmdk.policies.policy import Policy
from lmdk.population.process import BATCH_CELLS, Job


def _note(policy: Policy, mechanism: str, bound: float | None, private: bool, statement=None) -> str:
    """The metadata lines of the released files (export note with its guarantee, or the demonstration warning)."""
    from lmdk.exports.export import export_note

    if policy.seed is not None:
        from lmdk.exports.files import demonstration_note

        return demonstration_note(policy.seed)
    return export_note(bound if mechanism == "planar_laplace" else None, policy.epsilon, policy.sensitivity,
                       private, statement, landmark_kind=getattr(landmark_source(policy, "values"), "kind", None)
                       if statement is not None else None)


def landmark_source(policy: Policy, kind: str):
    """How an export under ``policy`` gets each user's landmark set (declared, private at the policy's
    ``landmark_epsilon``, or unprotected when ``allow_data_landmarks``); a data-derived rule without either is
    refused (:class:`lmdk.errors.PolicyRefused`, exit code 3). See :mod:`lmdk.selection.export`."""
    from lmdk.selection.export import rule_source

    return rule_source(policy.landmarks, landmark_epsilon=policy.landmark_epsilon,
                       allow_data_landmarks=policy.allow_data_landmarks, kind=kind)


def population_guarantee(policy: Policy, kind: str, protected, mechanism: str):
    """The statement of a population export: the policy's guarantee for every user (their own landmark sets)."""
    from lmdk.exports.export import sampler_for
    from lmdk.exports.statement import guarantee

    return guarantee(protected, policy.scheme, policy.epsilon, landmarks=None, sampler=sampler_for(mechanism),
                     event={"values": "reading", "trajectory": "location", "contacts": "contact"}[kind], w=policy.w,
                     dummies=policy.dummies is not None, landmark_set=landmark_source(policy, kind))


def _relation(pol: Policy, kind: str, protects):
    """What ε protects for this population: ``protects=`` (checked against the kind), else the policy's relation
    (FLIP for contacts); neither → a ParameterError naming both."""
    from lmdk.relation import Relation

    if protects is not None:
        return Relation.from_dict(protects).check_kind(kind)
    protected = pol.protected(kind)
    if protected is None:
        raise ParameterError("a population release needs what ε protects: protects=lmdk.relation.public_range(low, "
                             "high) (values) or protects=lmdk.relation.radius(r, bound=B) (locations), or 'relation' "
                             "in the policy; the papers' figures: protects=lmdk.relation.PAPERS_UNIT_CHANGE")
    return protected


@dataclass(frozen=True)
class Prepared:
    """One policy made ready for a population's kind of series: its Job, and what the summary says about it."""

    policy: Policy  # with the relation it was run under
    job: Job
    mechanism: str
    protected: Any  # lmdk.relation.Relation
    statement: Any  # the export's guarantee (None for a demonstration)
    landmark_set: Any  # lmdk.selection.export.LandmarkSource without indices (None: not an export)
    sensitivity: float


def prepare(pol: Policy, kind: str, protects, private_columns: bool | None, staging: Path | None,
            batch_cells: int = BATCH_CELLS) -> Prepared:
    """Check ``pol`` for a ``kind`` of series and build its Job (relation, sampler, statement, landmark set)."""
    mechanism = pol.mechanism_for(kind)
    protected, statement = _relation(pol, kind, protects), None
    cal = protected.calibration(mechanism)
    bound = protected.bound
    if pol.seed is None:  # an export: fresh entropy and the exports' samplers
        from lmdk.relation import refuse_miscalibrated

        refuse_miscalibrated(protected, "a population export")
        if mechanism == "planar_laplace" and bound is None:
            raise ParameterError("a population export of locations needs the public box in metres around each "
                                 "user's mean point (e.g. the city's radius): protects=lmdk.relation.radius(r, "
                                 "bound=B), or --bound B")
    if protected.kind != "papers":  # the policy written beside the release names it (the box: in the note)
        pol = replace(pol, relation=replace(protected, bound=None).to_dict(), sensitivity=protected.sensitivity)
    source_of_landmarks = landmark_source(pol, kind) if pol.seed is None or pol.landmark_epsilon else None
    if pol.seed is None:
        statement = population_guarantee(pol, kind, protected, mechanism)
    sampler, value_range = cal.sampler, cal.value_range
    private = pol.seed is not None if private_columns is None else bool(private_columns)
    job = Job(kind=kind, mechanism=mechanism, rule=pol.landmarks, scheme=pol.scheme, epsilon=pol.epsilon,
              w=pol.w, dummies=pol.dummies, seed=pol.seed, sensitivity=cal.sensitivity, sampler=sampler,
              bound=cal.bound if sampler == "snapping" and mechanism != "randomized_response" else None,
              released=str(staging) if staging else None, private_columns=private,
              note=_note(pol, mechanism, bound, private, statement), batch_cells=batch_cells, value_range=value_range,
              landmark_epsilon=pol.landmark_epsilon)
    if pol.landmark_epsilon is not None and value_range is None:
        raise ParameterError("a private landmark selection needs the public range of one value (--range LOW HIGH or "
                             "'relation' in the policy); it must not come from the data")
    return Prepared(pol, job, mechanism, protected, statement, source_of_landmarks, cal.sensitivity)
