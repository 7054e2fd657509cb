"""The aggregate relation (issue 36): one user's contributions to a statistic over many users."""
from __future__ import annotations

import numpy as np
import pytest

from lmdk import relation
from lmdk.errors import ParameterError
from lmdk.exports.statement import guarantee


def test_sum_delta_is_the_range_width_and_the_sum_lies_in_n_times_the_range():
    rel = relation.aggregate("sum", users=1000, low=0, high=25, unit="kWh", who="household")
    assert rel.sensitivity == 25.0
    assert rel.value_range == (0.0, 25_000.0)
    cal = rel.calibration("laplace")
    assert (cal.sensitivity, cal.sampler, cal.value_range) == (25.0, "discrete", (0.0, 25_000.0))
    assert rel.check_kind("values") is rel


def test_mean_divides_delta_by_the_public_n_and_count_uses_k():
    mean = relation.aggregate("mean", users=400, low=0, high=20)
    assert mean.sensitivity == pytest.approx(0.05) and mean.value_range == (0.0, 20.0)
    count = relation.aggregate("count", users=242, max_per_user=3)
    assert count.sensitivity == 3.0 and count.value_range == (0.0, 726.0)


def test_round_trips_through_its_dict_and_code():
    rel = relation.aggregate("sum", users=50, low=0, high=25, unit="kWh", groups=4)
    assert relation.Relation.from_dict(rel.to_dict()) == rel
    assert eval(rel.code(), {"lmdk": __import__("lmdk")}) == rel


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"statistic": "median", "users": 5, "low": 0, "high": 1}, "statistic"),
    ({"statistic": "sum", "users": 0, "low": 0, "high": 1}, "users"),
    ({"statistic": "sum", "users": 5}, "range"),
    ({"statistic": "count", "users": 5, "low": 0, "high": 2}, "K"),
    ({"statistic": "count", "users": 5, "max_per_user": 0}, "max_per_user"),
])
def test_bad_fields_are_named(kwargs, field):
    statistic = kwargs.pop("statistic")
    with pytest.raises(ParameterError, match=field):
        relation.aggregate(statistic, **kwargs)


def test_other_kinds_refuse_the_aggregate_fields():
    with pytest.raises(ParameterError, match="users"):
        relation.Relation("range", low=0, high=1, users=3)


def test_the_statement_names_one_households_readings_at_every_landmark_and_what_is_public():
    rel = relation.aggregate("mean", users=2000, low=0, high=25, unit="kWh", who="household", groups=3)
    text = guarantee(rel, "skip", 1.0, landmarks=156, sampler="discrete", event="hour").text()
    assert ("any one household's readings at every landmark hour (156) and any one other hour, each anywhere "
            "between 0 and 25 kWh, at ε = 1") in text
    assert "N = 2,000, the number of households counted from the input's user ids, is public under this relation" \
        in text
    assert "compose in parallel" in text and "membership is treated as public" in text


def test_release_of_an_aggregate_series_clamps_to_the_sums_range():
    from lmdk import schemes

    rel = relation.aggregate("sum", users=10, low=0, high=5)
    x = np.full(48, 80.0)
    out = schemes.release(x, [3, 4, 5], "uniform", 1.0, protects=rel, rng=np.random.default_rng(0))
    assert np.all((out.values >= 0) & (out.values <= 50))


def test_the_audit_of_an_aggregate_changes_one_users_reading_and_stays_within_the_claim():
    import pandas as pd

    from lmdk.audit import audit
    from lmdk.data import from_values

    rng = np.random.default_rng(3)
    x = from_values(200 * rng.gamma(2, 0.5, 24 * 14), timestamps=pd.date_range("2024-01-01", periods=24 * 14,
                                                                                  freq="1h"))
    rel = relation.aggregate("sum", users=200, low=0, high=25, unit="kWh")
    result = audit(x, [9, 10, 11, 177, 178, 179], "uniform", 1.0, protects=rel, trials=400,
                   position_trials=50).to_dict()
    assert not result["exceeds_claim"]
    assert result["epsilon_upper"] is None or result["epsilon_upper"] >= result["epsilon_lower"]
