"""Releasing an aggregate (:mod:`lmdk.aggregate.build`) under a landmark-privacy scheme: every group's series
exported as any series is (:func:`lmdk.exports.export.export_scheme_release`: fresh OS entropy, the exact discrete
Laplace on the statistic's own range), with the relation of :func:`lmdk.relation.aggregate`.

One :class:`AggregateRelease` holds the released table, its statement, the JSON summary and the lines said about
it, so the file, the JSON and what is printed come from one object.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError

if TYPE_CHECKING:
    from lmdk.aggregate.build import Aggregate
    from lmdk.exports.export import ExportedRelease
    from lmdk.landmarks import LandmarkRule

DUMMY_SHARE = 0.01
"""The share of ε that selects dummy landmarks privately (§3.4)."""


@dataclass(frozen=True)
class AggregateOptions:
    """The public parameters of an aggregate release (the flags of ``lmdk aggregate``)."""

    statistic: str  # sum | mean | count
    landmarks: str  # the landmark rule as written
    scheme: str
    epsilon: float
    value_range: tuple[float, float] | None = None  # the public range of one user's reading (sum, mean)
    bin: str = "1h"
    by: str | None = None  # the group column
    max_per_user: int = 1  # K: contact rows one person adds per bin at most
    w: int | None = None
    tz: str | None = None
    units: str | None = None  # None: "contacts" for a contact count, else none
    who: str = "user"
    dummies: str | None = None  # the dummy-landmark method
    time_range: tuple[str, str] | None = None  # the public (START, END) of the released bins; None: read from data
    drop_rows_without_user: bool = False  # drop (and count) rows without a user id instead of refusing them
    seed: int | None = None  # a demonstration's seed (reproducible noise, marked inside every output); None: OS entropy

    def check(self) -> None:
        """Refuse a sum or mean without its public range, or a count with one."""
        if self.statistic in ("sum", "mean") and self.value_range is None:
            raise ParameterError(f"--statistic {self.statistic} needs --range LOW HIGH: the public range of one "
                                 "user's reading (from the device, e.g. 0 25 for a 25 kWh meter — never from the "
                                 "data)")
        if self.statistic == "count" and self.value_range is not None:
            raise ParameterError("--range does not apply to a count: one user moves a bin's count by at most "
                                 "--max-per-user K (contacts) or 1 (users inside --region)")

    def dummy_spec(self) -> dict | None:
        """The dummy landmarks' settings (1 % of ε, position utility), or None without dummies."""
        if self.dummies is None:
            return None
        return {"method": self.dummies, "share": DUMMY_SHARE, "utility": "position"}


@dataclass(frozen=True)
class GroupRelease:
    """One group's export: its released rows, its summary and the exported release."""

    frame: pd.DataFrame
    summary: dict
    exported: ExportedRelease
    typed: pd.DataFrame | None = None  # the same rows with typed (zone-aware when known) timestamps, for Parquet


@dataclass(frozen=True)
class AggregateRelease:
    """Every group's release of an aggregate: the table, its statement, the JSON and the lines said about it."""

    options: AggregateOptions
    rule: LandmarkRule
    units: str
    groups: dict[str, GroupRelease]
    time_range: tuple[str, str] | None = None  # the released bins' start and end when public; None: from the data

    @property
    def declared(self) -> bool:
        """Whether the landmark rule is declared (fixed before the data is seen)."""
        return not self.rule.data_dependent

    @property
    def satisfied(self) -> bool:
        """Whether every group's release satisfies Theorem 2."""
        return all(g.summary["theorem2"]["satisfied"] for g in self.groups.values())

    def frame(self, typed: bool = False) -> pd.DataFrame:
        """The released table: timestamp, group (with ``by``) and released; ``typed``: timestamps as datetimes
        (zone-aware when the input's times carried a zone), as Parquet stores them, instead of text."""
        return pd.concat([g.typed if typed and g.typed is not None else g.frame for g in self.groups.values()],
                         ignore_index=True)

    def table_for(self, out: str | None) -> pd.DataFrame:
        """The table to write to ``out``: typed timestamps for Parquet (.parquet, .pq), text for CSV."""
        return self.frame(typed=out is not None and out.lower().endswith((".parquet", ".pq")))

    def note(self) -> str:
        """The statement written above the table (Parquet: in its metadata)."""
        first = next(iter(self.groups.values())).exported
        said = data_landmarks_line(self.options.landmarks) if not self.declared else declared_line(self.rule)
        clock = next(iter(self.groups.values())).summary["landmark_clock"]
        lines = first.note.split("\n")
        at = 1  # the time span's line comes first after the header and a data-derived set's NOT PROTECTED lines
        while at < len(lines) and lines[at].startswith("# NOT PROTECTED"):
            at += 1
        note = "\n".join(lines[:at] + ["# " + time_range_line(self.time_range)] + lines[at:])
        note += "\n# " + said + f" The rule was read on {clock}."
        if self.options.by is not None:
            note += (f"\n# Groups: {len(self.groups)} (by {self.options.by!r}); each group's lines above speak for "
                     "one group of its N")
        if self.options.seed is not None:  # a demonstration says so inside every file it writes
            from lmdk.exports.files import demonstration_note

            note = note.replace("noise from fresh OS entropy, not recorded (this release cannot be regenerated)",
                                f"noise drawn from the demonstration seed {self.options.seed} (reproducible)")
            note = demonstration_note(self.options.seed) + "\n" + note
        return note

    def summaries(self) -> dict[str, dict]:
        """Every group's summary, the guarantee saying what a data-derived landmark set leaves unprotected."""
        if self.declared:
            return {group: g.summary for group, g in self.groups.items()}
        line = data_landmarks_line(self.options.landmarks)
        return {group: {**g.summary, "guarantee": g.summary["guarantee"] + " " + line}
                for group, g in self.groups.items()}

    def warnings(self) -> list[str]:
        """What the release warns about (a declared rule that marks no bin, the clock it was read on), once each."""
        out: list[str] = []
        for g in self.groups.values():
            out += [w for w in g.summary["warnings"] if w not in out]
        return out

    def to_json(self) -> dict:
        """The JSON summary (officer's eyes only: it holds the true statistic's error)."""
        summaries = self.summaries()
        out = summaries[next(iter(summaries))] if self.options.by is None else {"groups": summaries}
        if self.options.seed is not None:
            from lmdk.exports.files import demonstration_note

            out = {"demonstration_only": demonstration_note(self.options.seed).removeprefix("# "), **out}
        return out

    def lines(self) -> list[str]:
        """One line per group: users, bins, |L|, the error and the Theorem 2 verdict."""
        o = self.options
        out = []
        for group, g in self.groups.items():
            s = g.summary
            rel = "—" if s["relative_mae"] is None else f"{100 * s['relative_mae']:.3g} %"
            out.append(("" if o.by is None else f"{group}: ") + f"{o.statistic} over {s['n_users']:,} users, "
                       f"{s['n_events']:,} bins, |L| = {s['landmarks']:,}, {o.scheme} at ε = {o.epsilon:g}: "
                       f"MAE {s['mae']:.4g} {self.units}".rstrip() + f" (relative {rel}); Theorem 2 "
                       + ("satisfied" if s["theorem2"]["satisfied"] else "VIOLATED")
                       + (f"; dropped_rows {s['dropped_rows']:,} (no user id)" if s["dropped_rows"] else ""))
        return out


def release_aggregate(agg: Aggregate, options: AggregateOptions, rule: LandmarkRule) -> AggregateRelease:
    """Export every group of ``agg`` (in sorted order) under ``options`` with the landmarks of ``rule``."""
    units = options.units if options.units is not None else ("contacts" if agg.kind == "contacts" else "")
    event = bin_word(options.bin)
    groups = {group: release_group(agg, group, options, rule, units, event, i)
              for i, group in enumerate(sorted(agg.series))}
    return AggregateRelease(options, rule, units, groups, agg.time_range)


def release_group(agg: Aggregate, group: str, options: AggregateOptions, rule: LandmarkRule, units: str,
                  event: str, stream: int = 0) -> GroupRelease:
    """Export one group's statistic: its released rows, its summary and the exported release (``options.seed``: a
    demonstration, group number ``stream`` drawing from its own stream of the seed)."""
    from lmdk import privacy, relation
    from lmdk.aggregate.landmarks import bin_landmarks
    from lmdk.data.bins import bin_offset
    from lmdk.exports.export import export_scheme_release, iso_times
    from lmdk.selection.export import source_of

    o = options
    series = agg.to_series(group, units=units, tz=o.tz)
    marked = bin_landmarks(rule, series, agg.bin, o.tz, agg.zoned)
    L = marked.indices
    low, high = o.value_range if o.statistic != "count" and o.value_range is not None else (None, None)
    protects = relation.aggregate(o.statistic, users=agg.users[group], low=low, high=high, unit=units,
                                  max_per_user=o.max_per_user if agg.kind == "contacts" else 1,
                                  groups=len(agg.series), who=o.who,
                                  counted=None if o.statistic != "count" else
                                  "contacts" if agg.kind == "contacts" else "region")
    data_derived = rule.data_dependent  # said in the statement: declared, or data-derived and unprotected
    source = source_of(L, o.landmarks.strip(), data_derived=data_derived)  # the statement names the rule
    dummies = o.dummy_spec()
    exported = export_scheme_release(series, source, o.scheme, o.epsilon, protects=protects, w=o.w,
                                     event=event, data_derived=data_derived, allow_data_landmarks=data_derived,
                                     dummies=dummies,
                                     rng=None if o.seed is None else np.random.default_rng([o.seed, stream]))
    released = exported.frame["released"].to_numpy(dtype=float)
    truth = series.values
    budgets = np.atleast_2d(exported.release.budgets)
    worst = float(np.max(privacy.landmark_loss(budgets, L))) if budgets.size else 0.0
    mae = float(np.mean(np.abs(released - truth)))
    scale = float(np.mean(np.abs(truth)))
    statistic_range = protects.value_range or (0.0, 0.0)
    from lmdk.exports.swamped import swamped

    swamp = swamped(released, protects.value_range, exported.release.budgets, protects.sensitivity)
    summary = {
        "statistic": o.statistic, "scheme": o.scheme, "epsilon": o.epsilon, "n_users": agg.users[group],
        "n_events": len(series), "landmarks": int(len(L)), "landmark_kind": "data" if rule.data_dependent
        else "declared", "sensitivity": protects.sensitivity,
        "range": [_plain(statistic_range[0]), _plain(statistic_range[1])],
        "theorem2": {"satisfied": bool(worst <= o.epsilon * (1 + 1e-9)), "worst_sum": worst},
        "mae": mae, "relative_mae": mae / scale if scale > 0 else None,
        "guarantee": exported.guarantee.text(),
        "landmark_clock": marked.clock, "dropped_rows": agg.dropped_rows,
        "users_without_readings": agg.users_without_readings,
        "time_range": {"start": agg.time_range[0], "end": agg.time_range[1], "public": True}
        if agg.time_range is not None else {"start": str(series.timestamps[0]),
                                            "end": str(series.timestamps[-1] + bin_offset(agg.bin)),
                                            "public": False},
        "outside_rows": agg.outside_rows, "clamped_share": swamp.clamped_share,
        "warnings": list(marked.warnings) + ([swamp.warning] if swamp.warning else []),
    }
    if dummies is not None:  # the landmarks hidden among dummies chosen privately with 1 % of ε (§3.4)
        summary["dummies"] = {"method": o.dummies, "share": dummies["share"]}
    stamps = series.timestamps
    if stamps.tz is None:  # naive bins are UTC instants (zone-aware input, or naive times read in UTC without --tz)
        stamps = stamps.tz_localize("UTC")
    frame = pd.DataFrame({"timestamp": iso_times(stamps), "released": released})  # ISO 8601 with the offset
    typed = pd.DataFrame({"timestamp": stamps, "released": released})
    if o.by is not None:
        frame.insert(1, "group", group)
        typed.insert(1, "group", group)
    return GroupRelease(frame, summary, exported, typed)


def _plain(value: float) -> int | float:
    """25000 for 25000.0 (JSON as the issue spells it), the float otherwise."""
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def time_range_line(time_range: tuple[str, str] | None) -> str:
    """The statement's line on the released time span: public (given in advance) or read from the data."""
    if time_range is not None:
        return (f"Time range: public, given in advance (--time-range): the bins from {time_range[0]} to "
                f"{time_range[1]} (end exclusive), every one released; readings outside were dropped.")
    return ("Not protected: the time range was read from the data: the first and last bins are those of the "
            "earliest and latest reading of any one user, so they are published; give --time-range START END to "
            "fix it in advance.")


def data_landmarks_line(text: str) -> str:
    """The statement's line on a landmark set computed from the data: what it leaves unprotected."""
    return (f"Not protected: the landmark set came from the data ({text.strip()}): a change of one user's readings "
            "can change which bins are landmarks, which (ε, L)-landmark privacy takes as fixed in advance; "
            "declare the landmarks (calendar:…) to be covered.")


def declared_line(rule: LandmarkRule) -> str:
    """The statement's line on declared landmarks: Theorem 2 applies as stated."""
    return (f"Landmarks: declared ({rule.kind}), fixed before the data is seen: the landmark set does not depend on "
            "any user's readings, so Theorem 2 applies as stated.")


def bin_word(bin_text: str) -> str:
    """What one bin is called in the statement: "hour", "minute", "30-minute bin", "daily bin", "monthly bin"."""
    from lmdk.data.bins import parse_bin

    return parse_bin(bin_text or "1h").noun()
