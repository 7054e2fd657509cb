"""``release``: one policy applied to every user of a population, with a summary per user and aggregates."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError
from lmdk.policies.policy import Policy, load_policy
from lmdk.population import engine
from lmdk.population.input import CHUNK_ROWS, open_source
from lmdk.population.prepared import Prepared, prepare
from lmdk.population.process import BATCH_CELLS
from lmdk.population.summary import aggregates

RELEASED, SUMMARY, AGGREGATES = "released", "summary.parquet", "aggregates.json"


@dataclass(frozen=True)
class PopulationRelease:
    """Per-user summary (one row per user, sorted by user), population aggregates and the released Parquet.

    ``released``: folder of the released long table partitioned by user (``user=<id>/part-0.parquet``), or
    None when nothing was written (no ``out``, or refused for a Theorem 2 violation). The summary holds |L|
    and the MAE against the original: it is for the officer's eyes, not for release.
    """

    summary: pd.DataFrame
    aggregates: dict
    released: Path | None
    policy: Policy
    refused: bool = False
    variants: tuple = ()  # per-user policies (lmdk.policies): the distinct Policy of each group of users


def _policy(policy) -> Policy:
    """A Policy from a Policy, a dict or a JSON file path."""
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, dict):
        return Policy.from_dict(policy)
    if isinstance(policy, (str, Path)):
        return load_policy(policy)
    raise ParameterError(f"policy must be a Policy, a dict or a JSON file path, not {type(policy).__name__}")


def _sorted(summary: pd.DataFrame) -> pd.DataFrame:
    """Summary rows in user order (numbers numerically, otherwise as text)."""
    users = summary["user"]
    numeric = pd.api.types.is_numeric_dtype(pd.Series(users.tolist()).infer_objects())
    order = np.argsort(users.to_numpy(np.int64) if numeric and len(users) else users.astype(str).to_numpy(),
                       kind="stable")
    out = summary.iloc[order].reset_index(drop=True)
    if numeric and len(out):
        out["user"] = out["user"].astype(np.int64)
    return out


def export_relation(policy: Policy, kind: str, bound: float | None):
    """What a front end's population export protects: the policy's relation (a radius gets the box ``bound``), FLIP
    for contacts, the legacy bound alone for values (the range [−B, B]) or a 1 m radius in the box B for locations
    (as before the relation was explicit). The CLI's ``--bound``; :func:`release` itself takes ``protects=``."""
    from dataclasses import replace as with_fields

    from lmdk import relation

    protected = policy.protected(kind)
    if protected is not None:
        return with_fields(protected, bound=bound) if protected.kind == "radius" and bound is not None else protected
    if bound is None:
        what = "--range LOW HIGH (or 'relation' in the policy)" if kind == "values" else "--radius R and --bound B"
        raise ParameterError(f"a population export needs what ε protects: {what}, from the device or the domain, "
                             "never from the data. A demonstration with --seed needs none")
    return relation.public_range(-bound, bound) if kind == "values" else relation.radius(1.0, bound=bound)


def release(table_or_path, policy, out=None, scheduler: str | None = None, workers: int | None = None, *,
            protects=None, private_columns: bool | None = None, allow_violation: bool = True,
            progress: Callable[[int, int], None] | None = None, on_total: Callable[[int], None] | None = None,
            rows: int = CHUNK_ROWS, batch_cells: int = BATCH_CELLS, processes: bool = True,
            assignment=None, withheld: dict | None = None, tz: str | None = None, **removed) -> PopulationRelease:
    """Release every user's series of ``table_or_path`` under ``policy``; see ``PopulationRelease``.

    ``table_or_path``: a long DataFrame, a Parquet/CSV long table, a multi-user file or a folder of per-user
    files (``lmdk.population.input``). ``policy``: a Policy, its dict or a JSON file. ``protects``: what ε protects
    (a :class:`lmdk.relation.Relation`), else the policy's ``relation``; one of them is required (contacts: FLIP).
    Its calibration draws every user's release. Without ``policy.seed`` the noise is fresh OS entropy, never
    recorded, drawn with the exports' samplers: the exact discrete Laplace on the public range for values, snapping
    inside the radius' public box (``lmdk.relation.radius(r, bound=B)``, metres around each user's mean point) for
    locations; a miscalibrated relation is refused. ``out``: a new (or empty) folder for ``released/`` (Parquet
    partitioned by user), ``summary.parquet`` and ``aggregates.json``, built under a temporary name beside it and
    renamed when complete (:func:`lmdk.exports.files.atomic_folder`); a refused run writes nothing. Engine:
    in-process unless ``scheduler`` (or ``LMDK_DASK_SCHEDULER``) names a Dask scheduler or ``workers`` asks for a
    LocalCluster.
    ``allow_violation=False``: when a user's release violates Theorem 2, nothing is released (``refused``).
    ``progress(users, events)`` is called as users finish. ``assignment``: per-user policies
    (:func:`lmdk.policies.assign`): each user under their own policy or withheld, ``policy`` then holding only the
    settings every row shares (see :mod:`lmdk.population.per_user`). ``withheld``: {user: reason} of users not to
    release (compared as text; e.g. a ledger's cap refused them): the summary lists them with the reason in its
    ``withheld`` column, beside the users a policy table withheld. ``tz``: the wall clock declared windows are read
    on, every user's and every policy row's (None: each reading's own — the UTC offset its time carried in the file,
    else the times' zone, else as they stand); the aggregates name it (``landmark_clock``).
    """
    if "bound" in removed:
        raise ParameterError("population.release: bound= no longer exists: the public box belongs to what ε protects, "
                             "protects=lmdk.relation.radius(r, bound=B) (locations) or "
                             "protects=lmdk.relation.public_range(low, high) (values)")
    from lmdk.schemes import refuse_removed

    refuse_removed("population.release", removed)
    pol = _policy(policy)
    source = open_source(table_or_path, pol.mapping)
    run = (pol, source, protects, private_columns, allow_violation, progress, on_total, rows, batch_cells, processes,
           assignment, withheld, scheduler, workers, tz)
    if out is None:
        return _release(None, *run)
    from lmdk.exports.files import atomic_folder

    with atomic_folder(out) as building:  # built under a temporary name beside --out, renamed when complete
        result = _release(building.path, *run)
        if result.refused:
            building.abandon()  # a refused run writes nothing computed from the data
    return replace(result, released=None if result.released is None else Path(out) / RELEASED)


def _release(folder: Path | None, pol: Policy, source, protects, private_columns, allow_violation, progress,
             on_total, rows, batch_cells, processes, assignment, withheld, scheduler, workers,
             tz=None) -> PopulationRelease:
    """:func:`release` into ``folder`` (the output folder under construction; None: write nothing)."""
    staging = folder / f".{RELEASED}-staging" if folder is not None else None
    if assignment is not None:  # the base only carries the settings every row shares
        from lmdk.policies.assign import selection_where_needed

        pol = selection_where_needed(pol)
    plan = prepare(pol, source.kind, protects, private_columns, staging, batch_cells)
    pol, job = plan.policy, plan.job
    variants: tuple[Prepared, ...] = ()
    if assignment is not None:  # per-user policies (lmdk.policies): one Job per distinct policy
        from lmdk.population.per_user import assigned_job

        job, variants = assigned_job(assignment, plan, source.kind, protects, private_columns, staging, batch_cells)
    if tz is not None:
        from lmdk.declared.calendar import check_zone

        check_zone(tz)
    job = replace(_clocked(job, tz), variants=tuple((_clocked(v, tz), c) for v, c in job.variants))
    if withheld:  # filtered before the per-user dispatch (lmdk.population.process.process_frame)
        job = replace(job, withheld=frozenset(map(str, withheld)))
    report = progress or (lambda users, events: None)
    address = engine.scheduler_address(scheduler)
    if address is None and workers is None:
        summary = engine.run_local(source, job, rows, report, str(folder) if folder else None, on_total)
    else:
        with engine.dask_client(address, workers, processes) as client:
            summary = engine.run_dask(source, job, rows, report, client, on_total)
    summary = _sorted(summary)
    released_summary = summary
    if withheld:  # users the ledger's cap refused: a row each, its reason in the one `withheld` column
        summary = with_withheld(summary, withheld)
    if assignment is None:
        totals = _totals(released_summary, plan, source)
        if withheld:
            reasons = summary["withheld"].dropna().value_counts()
            totals.update(withheld_users=int(reasons.sum()), withheld={str(k): int(v) for k, v in reasons.items()})
    else:
        from lmdk.population.per_user import describe, released_rows

        totals = describe(summary, _totals(released_rows(summary), plan, source), variants, assignment)
    totals["landmark_clock"] = population_clock(tz)
    refused = totals["violated"] > 0 and not allow_violation
    released = None
    if folder is not None and staging is not None and not refused:  # refused: the caller removes the folder
        released = folder / RELEASED
        staging.mkdir(exist_ok=True)
        staging.rename(released)
        _write_summary(folder, summary, totals, pol)
    return PopulationRelease(summary, totals, released, pol, refused, tuple(v.policy for v in variants))


def _clocked(job, tz: str | None):
    """``job`` reading declared windows on ``tz``'s wall clock (None: each reading's own); a calendar rule's
    statement says which clock it was read on."""
    note = job.note
    if str(job.rule).strip().lower().startswith("calendar:"):
        note += f"\n# The landmark rule {job.rule!r} was read on {population_clock(tz)}."
    return replace(job, tz=tz, note=note)


def population_clock(tz: str | None) -> str:
    """The clock a population's declared windows are read on, in words (the aggregates' ``landmark_clock``)."""
    if tz is not None:
        return f"the wall clock of {tz}"
    return ("each user's readings' own wall clock (the UTC offset each time carried in the file; times without one "
            "as they stand)")


def _totals(summary: pd.DataFrame, plan: Prepared, source) -> dict:
    """The aggregates of a run under one policy (``plan``)."""
    pol, protected, statement = plan.policy, plan.protected, plan.statement
    totals = aggregates(summary)
    totals.update(scheme=pol.scheme, epsilon=pol.epsilon, mechanism=plan.mechanism, landmark_rule=pol.landmarks,
                  kind=source.kind, sampler=plan.job.sampler, demonstration_seed=pol.seed, source=source.description,
                  sensitivity=plan.sensitivity, relation=protected.label() if protected.kind != "papers" else
                  "changes of up to 1 unit (Δ = 1, the papers' simplification)",
                  guarantee=statement.to_dict() if statement is not None else None,
                  landmark_set=plan.landmark_set.to_dict() if plan.landmark_set is not None else None,
                  epsilon_total=pol.epsilon + float(pol.landmark_epsilon or 0.0))
    return totals


def with_withheld(summary: pd.DataFrame, withheld: dict) -> pd.DataFrame:
    """The summary with a ``withheld`` column: None for a released user, the reason for one not released (a row
    of its own, its other columns empty); a column already there (a policy table's reasons) is kept."""
    out = summary if "withheld" in summary.columns else summary.assign(
        withheld=pd.Series([None] * len(summary), index=summary.index, dtype=object))
    rows = pd.DataFrame({"user": list(withheld), "withheld": [str(r) for r in withheld.values()]})
    return pd.concat([out, rows], ignore_index=True) if len(out) else rows.reindex(columns=out.columns)


def _write_summary(folder: Path, summary: pd.DataFrame, totals: dict, policy: Policy) -> None:
    """summary.parquet, aggregates.json and the policy next to the release."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = summary if summary["user"].map(type).nunique() <= 1 else summary.assign(user=summary["user"].astype(str))
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if policy.seed is not None:  # a demonstration says so inside each file it writes
        from lmdk.exports.files import demonstration_note

        note = demonstration_note(policy.seed)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"lmdk": note.encode()})
        totals = {"demonstration_only": note.removeprefix("# "), **totals}
    pq.write_table(table, folder / SUMMARY)
    (folder / AGGREGATES).write_text(json.dumps(totals, indent=2, default=str), encoding="utf-8")
    (folder / "policy.json").write_text(policy.to_json(), encoding="utf-8")


def with_scheme(policy: Policy, scheme: str) -> Policy:
    """The same policy with another scheme (compare schemes on one population)."""
    return replace(policy, scheme=scheme)
