"""Users who declare their own landmarks cost what one shared rule costs (the Population page's default): their
calendar masks are read from every timestamp at once, and users whose policies differ only in their declared rule
run in one lockstep batch — with exactly the outputs each user gets under its own rule alone."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from lmdk import relation
from lmdk.declared.calendar import clock_fields
from lmdk.landmarks import parse_rule
from lmdk.population import Policy, marks, process
from lmdk.population.api import release
from lmdk.population.fleet import synthetic_fleet
from lmdk.population.input import OFFSET_COLUMN, frame_source
from lmdk.present.population import compare_schemes, declared_policies

RANGE = relation.public_range(0.0, 25.0, "kWh")
SCHEMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")


def _base(scheme: str = "uniform", landmarks: str = "none") -> Policy:
    return Policy(landmarks=landmarks, scheme=scheme, epsilon=1.0, w=5, seed=3, relation=RANGE.to_dict())


def test_users_of_many_declared_rules_run_in_one_lockstep_batch_not_one_per_rule(monkeypatch):
    """Before: one batch (and one pass over the rows) per distinct rule, ~54 on the page; now one per chunk."""
    fleet = synthetic_fleet(30, 96, (0.05, 0.6), rng=2)
    assert len(set(fleet.rules)) > 5
    calls = []
    real = process.release_batch
    monkeypatch.setattr(process, "release_batch", lambda x, *a, **k: calls.append(len(x)) or real(x, *a, **k))
    release(frame_source(fleet.table), _base(landmarks="calendar:daily@01:00-06:00"))
    shared, calls[:] = list(calls), []
    release(frame_source(fleet.table), _base(), assignment=declared_policies(fleet.declared(), _base()))
    assert calls == shared and sum(calls) == 30 and len(calls) < 3  # the batches one shared rule runs (per chunk)


def test_declared_calendar_rules_never_build_a_series_per_user(monkeypatch):
    """The masks come from the timestamps of every user at once (no Series, no content hash per user)."""
    fleet = synthetic_fleet(12, 72, (0.1, 0.5), rng=4)
    monkeypatch.setattr(process, "_series_of", lambda *a, **k: pytest.fail("a Series built per user"))
    out = release(frame_source(fleet.table), _base(), assignment=declared_policies(fleet.declared(), _base()))
    np.testing.assert_allclose(out.summary["landmark_share"], fleet.shares)
    shared = release(frame_source(fleet.table), _base(landmarks="calendar:mon-fri@22:00-06:00"))
    assert (shared.summary["landmarks"] > 0).all()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_each_user_releases_exactly_what_its_own_rule_alone_gives(scheme):
    """The same landmarks and the same released numbers for the same seed: each user released in the shared batch
    equals that user released alone under its declared rule as the one policy."""
    fleet = synthetic_fleet(16, 120, (0.05, 0.6), rng=7)
    source = frame_source(fleet.table)
    together = release(source, _base(scheme), assignment=declared_policies(fleet.declared(), _base(scheme))).summary
    assert together["landmark_rule"].tolist() == list(fleet.rules)
    for user, rule in enumerate(fleet.rules):
        alone = release(frame_source(fleet.table[fleet.table["user"] == user]), _base(scheme, rule)).summary
        row = together[together["user"] == user][list(alone.columns)].reset_index(drop=True)
        pd.testing.assert_frame_equal(row, alone)


def test_the_pages_comparison_is_unchanged_by_batching_rules_together(monkeypatch):
    """compare_schemes with each user's rule gives the frame it gave when every rule ran as a batch of its own."""
    fleet = synthetic_fleet(20, 96, (0.05, 0.6), rng=5)
    source, rules = frame_source(fleet.table), fleet.declared()
    batched = compare_schemes(source, _base(), SCHEMES, rules=rules)
    monkeypatch.setattr(process, "lockstep_groups", lambda jobs: [[i] for i in range(len(jobs))])  # one per rule
    pd.testing.assert_frame_equal(batched, compare_schemes(source, _base(), SCHEMES, rules=rules))


def test_variants_that_differ_in_more_than_a_declared_rule_stay_apart():
    """Another ε, or a rule that reads the values, is a batch of its own."""
    jobs = [process.Job("values", "laplace", rule, "skip", eps, None, None, 1, 1.0, "discrete", None, None, True, "")
            for rule, eps in (("calendar:daily@01:00-02:00", 1.0), ("calendar:sun@09:00-12:00", 1.0), ("none", 1.0),
                              ("calendar:daily@01:00-02:00", 2.0), ("below:3", 1.0), ("percentile:10", 1.0))]
    assert process.lockstep_groups(jobs) == [[0, 1, 2], [3], [4], [5]]
    written = [replace(job, released="/out", note=f"read {job.rule}") for job in jobs[:2]]
    assert process.lockstep_groups(written) == [[0], [1]]  # written files carry each rule's own note


def _frame(tz: str | None, offsets: bool) -> pd.DataFrame:
    """Three users over a DST change (and before 1970 for one), zone-aware or naive, some offsets carried."""
    parts = []
    for user, start in enumerate(("2024-03-30 20:00", "2024-10-26 21:30", "1969-12-31 18:00")):
        times = pd.date_range(start, periods=40, freq="45min", tz=tz)
        part = pd.DataFrame({"user": user, "timestamp": times, "value": np.arange(40.0)})
        if offsets and user != 1:
            part[OFFSET_COLUMN] = np.where(np.arange(40) % 3 == 0, np.nan, 3600.0 * (1 + (np.arange(40) > 20)))
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _series(frame: pd.DataFrame, user: int):
    """One user's Series as the population reads it: its times, and the UTC offsets its readings carried."""
    from lmdk.data import series as ds

    rows = frame[frame["user"] == user]
    times = pd.DatetimeIndex(rows["timestamp"])
    series = ds.from_values(rows["value"].to_numpy(), times)
    if OFFSET_COLUMN in rows.columns and times.tz is not None and rows[OFFSET_COLUMN].notna().any():
        known = rows[OFFSET_COLUMN].notna().to_numpy()
        points = ds.offset_points(ds.epoch_ns(times)[known], rows[OFFSET_COLUMN].to_numpy()[known].astype(np.int64))
        series = replace(series, utc_offsets=points)
    return series


@pytest.mark.parametrize(("zone", "offsets", "tz"), [(None, False, None), ("Europe/Berlin", False, None),
                                                     ("UTC", True, None), ("Europe/Berlin", True, "America/New_York"),
                                                     (None, False, "Asia/Kolkata")])
def test_batch_masks_equal_each_users_series_mask(zone, offsets, tz):
    """The batch's wall clock and masks equal ``rule.indices`` of each user's own Series, whatever the clock (the
    zone's, the offsets each reading carried, another zone's), across DST changes and before 1970."""
    frame = _frame(zone, offsets)
    rules = [parse_rule(r) for r in ("calendar:daily@01:00-06:00", "calendar:sat,sun@22:30-02:15+2024-10-27",
                                     "calendar:thu@23:00-24:00+daily@00:00-00:45", "none")]
    lengths = np.array([40, 40, 40])
    carried = frame[OFFSET_COLUMN].to_numpy() if OFFSET_COLUMN in frame.columns else None
    wall = marks.batch_wall_clock(pd.DatetimeIndex(frame["timestamp"]), lengths, carried, tz)
    for chosen in (rules[:3], rules[::-1][:3], [rules[0], rules[3], rules[0]]):
        mask = marks.declared_mask(chosen, wall, lengths, 40)
        for user, rule in enumerate(chosen):
            np.testing.assert_array_equal(np.flatnonzero(mask[user]), rule.indices(_series(frame, user), tz))


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_clock_fields_are_the_calendar_fields_pandas_reads(unit):
    """Weekday, second of the day and day from integer ticks, before 1970 and outside the nanosecond range."""
    ticks = np.random.default_rng(1).integers(-9 * 10**15, 9 * 10**15, size=20_000)
    index = pd.DatetimeIndex(np.r_[ticks, -1, 0].astype(f"datetime64[{unit}]"))
    if unit == "s":
        index = index.append(pd.DatetimeIndex(np.array(["2500-03-01T13:45:07", "1500-01-01T23:59:59"],
                                                       dtype="datetime64[s]")))
    weekday, second, day = clock_fields(index)
    np.testing.assert_array_equal(weekday, index.weekday.to_numpy())
    np.testing.assert_array_equal(second, (index.hour * 3600 + index.minute * 60 + index.second).to_numpy())
    np.testing.assert_array_equal(day, index.to_numpy().astype("datetime64[D]"))
