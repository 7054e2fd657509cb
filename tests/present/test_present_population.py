"""The Population page's core (lmdk.present.population): scheme comparison, flagged users, the headline, one
user's series."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lmdk import population
from lmdk.errors import DataError, ParameterError
from lmdk.population.fleet import QUIET, synthetic_fleet
from lmdk.population.input import frame_source
from lmdk.present.population import compare_schemes, flagged, headline, rule_statement, user_series
from lmdk.relation import PAPERS_UNIT_CHANGE, public_range


def small_fleet(users: int, n: int) -> pd.DataFrame:
    """A long table user,timestamp,value (hourly), some users shorter than others (as tests/population's fleet)."""
    rng = np.random.default_rng(0)
    frames = []
    for i in range(users):
        size = n - (int(rng.integers(0, n // 2)) if i % 3 else 0)
        frames.append(pd.DataFrame({"user": i, "timestamp": pd.date_range("2024-01-01", periods=size, freq="h"),
                                    "value": rng.gamma(2.0, 1.0, size)}))
    return pd.concat(frames, ignore_index=True)


def test_comparison_flags_violations_and_degenerate_users_with_a_reason():
    users = synthetic_fleet(30, 200, (0.05, 0.95), rng=0)
    table = compare_schemes(frame_source(users.table),
                            population.Policy(landmarks="none", scheme="uniform", epsilon=1.0, seed=0),
                            ("event", "uniform", "adaptive"), protects=PAPERS_UNIT_CHANGE, rules=users.declared())
    assert sorted(table["scheme"].unique()) == ["adaptive", "event", "uniform"] and len(table) == 90
    bad = flagged(table)
    assert (bad.loc[bad["scheme"] == "event", "reason"] == "violates Theorem 2").all()
    assert len(bad[bad["scheme"] == "event"]) == 30  # every user has landmarks
    heavy = bad[(bad["scheme"] == "uniform")]
    assert (heavy["reason"] == "no better than user level").all() and heavy["landmark_share"].min() > 0.3
    text = headline(table, ("event", "uniform", "adaptive"), 1.0, "kWh")
    assert "*adaptive*" in text.split("gives")[0] and "*event* does **not** protect" in text
    # the yardstick (issue 35): each user's error of guessing the middle of the public range, without the data
    from lmdk.present.headlines import Guess
    from lmdk.present.population import guess_errors

    fleet = synthetic_fleet(30, 200, (0.05, 0.95), rng=0).table
    guesses = guess_errors(frame_source(fleet), (0.0, 25.0))
    first = fleet[fleet["user"].astype(str) == guesses.index[0]]["value"]
    assert len(guesses) == 30 and guesses.iloc[0] == pytest.approx((first - 12.5).abs().mean())
    said = headline(table, ("event", "uniform", "adaptive"), 1.0, "kWh",
                    Guess(mae=float(guesses.median()), value=12.5, range_text="0–25 kWh"))
    assert "the middle of the public range 0–25 kWh" in said and said.count(". ") + 1 <= 2


def test_a_users_series_is_its_rows_and_an_unknown_user_is_named():
    table = small_fleet(4, 50)
    series = user_series(frame_source(table), 2)
    rows = table[table["user"] == 2]
    np.testing.assert_array_equal(series.frame["value"].to_numpy(), rows["value"].to_numpy())
    with pytest.raises(DataError, match="user '9'"):
        user_series(frame_source(table), "9")


def test_user_level_is_never_flagged_as_no_better_than_itself():
    users = synthetic_fleet(20, 100, rng=2)
    table = compare_schemes(frame_source(users.table),
                            population.Policy(landmarks="none", scheme="user", epsilon=1.0, seed=0), ("user",),
                            protects=PAPERS_UNIT_CHANGE, rules=users.declared())
    assert table["degenerate"].any() and flagged(table).empty


def test_the_synthetic_users_are_released_under_their_own_declared_quiet_hours():
    """Issue 53: the page released the synthetic users under below:0.1 (reads the values); under their own declared
    rules every user's landmarks are exactly its quiet hours, each user under its own calendar rule, declared."""
    users = synthetic_fleet(25, 240, (0.05, 0.6), rng=4)
    table = compare_schemes(frame_source(users.table),
                            population.Policy(landmarks="none", scheme="skip", epsilon=1.0, seed=0),
                            ("skip", "event"), protects=public_range(0, 25, "kWh"), rules=users.declared())
    skip = table[table["scheme"] == "skip"].set_index(table.loc[table["scheme"] == "skip", "user"].astype(str))
    quiet = (users.table["value"].to_numpy().reshape(25, 240) < QUIET).sum(axis=1)
    assert [int(skip.loc[str(u), "landmarks"]) for u in range(25)] == quiet.tolist() and quiet.min() > 0
    assert (skip["landmark_origin"] == "declared").all() and skip["theorem2_holds"].all()
    assert {skip.loc[str(u), "landmark_rule"] for u in range(25)} == set(users.rules)
    said = rule_statement("declared", "skip", 1.0, "values", public_range(0, 25, "kWh"), rules=users.declared())
    text = " ".join(said.lines())
    assert "NOT PROTECTED" not in text and "declared in advance (each user's own calendar rule)" in text
    with pytest.raises(ParameterError, match="reads the values"):
        compare_schemes(frame_source(users.table), population.Policy(landmarks="none", scheme="skip", epsilon=1.0,
                                                                     seed=0), ("skip",),
                        protects=public_range(0, 25, "kWh"), rules={"0": f"below:{QUIET:g}"})
