"""lmdk.aggregate.upload: a multi-user upload as one user's series or a statistic over users (or one group), with the
relation its release protects (issue 36: the Data page's choice)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmdk.aggregate.upload import UploadStatistic, choose, group_columns, statistics_for
from lmdk.data import mapping as mp
from lmdk.errors import DataError, ParameterError

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "realworld"


def meters(users: int = 12, hours: int = 48, seed: int = 0) -> pd.DataFrame:
    """A long table of hourly meter readings with a feeder column (half north, half south); one reading of 40 kWh
    lies outside the public range 0–25."""
    rng = np.random.default_rng(seed)
    times = pd.date_range("2024-03-01", periods=hours, freq="1h").strftime("%Y-%m-%d %H:%M")
    frame = pd.DataFrame({"meter": np.repeat([f"m{u}" for u in range(users)], hours),
                          "timestamp": np.tile(times, users), "kwh": rng.uniform(0, 3, users * hours).round(3),
                          "feeder": np.repeat(["north" if u < users // 2 else "south" for u in range(users)], hours)})
    frame.loc[0, "kwh"] = 40.0
    return frame


def detected(frame: pd.DataFrame, name: str = "meters.csv"):
    raw = frame.to_csv(index=False).encode()
    return raw, mp.detect_bytes(raw, name).spec


def test_the_total_is_the_clamped_sum_over_users_with_its_relation():
    frame = meters()
    raw, spec = detected(frame)
    chosen = choose(raw, "meters.csv", spec, UploadStatistic("sum", 0, 25), units="kWh")
    expected = frame.assign(kwh=frame["kwh"].clip(0, 25)).groupby("timestamp")["kwh"].sum().to_numpy()
    np.testing.assert_allclose(chosen.series.values, expected)
    assert chosen.users == 12 and chosen.relation.sensitivity == 25.0 and chosen.relation.value_range == (0, 300)
    assert any("1 readings lay outside the public range" in w for w in chosen.series.warnings)  # the clamp, counted
    assert "one user of 12 in a sum" in chosen.relation.label()


def test_one_groups_mean_divides_by_the_groups_users():
    frame = meters()
    raw, spec = detected(frame)
    assert group_columns(frame.columns, spec) == ["feeder"]
    chosen = choose(raw, "meters.csv", spec, UploadStatistic("mean", 0, 25, by="feeder", group="south"), units="kWh")
    south = frame[frame["feeder"] == "south"]
    np.testing.assert_allclose(chosen.series.values, south.groupby("timestamp")["kwh"].sum().to_numpy() / 6)
    assert chosen.users == 6 and chosen.groups == ("north", "south")
    assert chosen.relation.sensitivity == pytest.approx(25 / 6)
    assert "per group (2 groups)" in " ".join(chosen.relation.aggregate_said())  # parallel composition, said
    assert any("fewer than 10 users" in w for w in chosen.series.warnings)


def test_a_calendar_reads_the_uploads_zone():
    frame = meters(users=3, hours=24)
    raw, spec = detected(frame)
    from dataclasses import replace

    from lmdk.landmarks import parse_rule

    chosen = choose(raw, "m.csv", replace(spec, timezone="Europe/Berlin"), UploadStatistic("sum", 0, 25),
                    tz="Europe/Berlin")
    marked = chosen.series.timestamps[parse_rule("calendar:daily@09:00-10:00").indices(chosen.series)]
    assert list(pd.DatetimeIndex(marked).tz_convert("UTC").hour) == [8]  # 09:00 on the Berlin clock (CET), not UTC


@pytest.mark.skipif(not REALWORLD.is_dir(), reason="../shared/data/realworld is absent")
def test_contacts_count_with_k_per_person_and_bin():
    raw = school(3_000)
    spec = mp.detect_bytes(raw, "c.csv").spec
    assert statistics_for(spec.kind) == ("count",)
    one = choose(raw, "c.csv", spec, UploadStatistic("count", bin="5min"))
    two = choose(raw, "c.csv", spec, UploadStatistic("count", bin="5min", max_per_user=2))
    assert one.relation.sensitivity == 1 and two.relation.sensitivity == 2
    assert one.series.values.sum() < two.series.values.sum() <= 2 * 2_999  # K caps each person's rows per bin
    assert any("dropped" in w for w in one.series.warnings)


def school(lines: int) -> bytes:
    """The first ``lines`` lines of the SocioPatterns primary-school contacts (Time, id1, id2, c1, c2)."""
    with open(REALWORLD / "sociopatterns_primaryschool.csv", "rb") as handle:
        return b"".join(handle.readline() for _ in range(lines))


def test_bad_choices_name_the_field():
    frame = meters(users=4, hours=10)
    raw, spec = detected(frame)
    with pytest.raises(ParameterError, match="count does not apply to values"):
        choose(raw, "m.csv", spec, UploadStatistic("count"))
    with pytest.raises(ParameterError, match="public range"):
        choose(raw, "m.csv", spec, UploadStatistic("sum"))
    with pytest.raises(ParameterError, match="group 'east'"):
        choose(raw, "m.csv", spec, UploadStatistic("sum", 0, 25, by="feeder", group="east"))
    with pytest.raises(ParameterError, match="no such column"):
        choose(raw, "m.csv", spec, UploadStatistic("sum", 0, 25, by="district", group="x"))
    from dataclasses import replace

    with pytest.raises(DataError, match="user / device column"):
        choose(raw, "m.csv", replace(spec, entity_column=None), UploadStatistic("sum", 0, 25))


def test_the_upload_panel_uses_the_presence_delta_and_says_the_span_came_from_the_data():
    """Issue 53: the app's statistic has the same Δ as the command line (absent counts 0) and says the time range
    was read from the data."""
    frame = meters()
    raw, spec = detected(frame)
    chosen = choose(raw, "meters.csv", spec, UploadStatistic("mean", 1, 25), units="kWh")
    assert chosen.relation.sensitivity == pytest.approx(25 / 12) and chosen.relation.value_range == (0.0, 25.0)
    assert chosen.notes[0].startswith("Not protected: the time range was read from the data")
