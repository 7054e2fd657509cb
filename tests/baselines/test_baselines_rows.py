"""lmdk.baselines.rows: the baselines with one series per repetition (the audit's correlated chains), and the
correlated attack of lmdk.audit on them (before, every baseline refused it: "not part of population releases")."""
from __future__ import annotations

import numpy as np
import pytest

import lmdk
from lmdk import relation
from lmdk.audit import audit
from lmdk.audit.rows import release_rows as audit_rows
from lmdk.baselines import baseline_engine
from lmdk.baselines.rows import ROW_BY_ROW, release_rows, row_generators
from lmdk.errors import ParameterError

RANGE = relation.public_range(0, 25, "kWh")
SAMPLERS = {"discrete": RANGE.calibration("laplace"),
            "textbook": relation.Calibration(25.0, "textbook"),  # the views' sampler (Δ = the range's width)
            "above-zero": relation.public_range(0.5, 30, "kWh").calibration("laplace")}  # BD/BA start at 0.5


def _series(n: int = 120) -> np.ndarray:
    return np.asarray(lmdk.sample("hue", n=n).values, dtype=float)


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("scheme", ["bd", "ba", "fast"])
def test_equal_rows_are_the_release_of_one_series_with_repetitions(scheme, sampler):
    x = _series()
    cal = SAMPLERS[sampler]
    values, budgets, published, delta = release_rows(np.tile(x, (7, 1)), scheme, 1.0, cal, rng=5, w=12)
    one = baseline_engine(x, [], scheme, 1.0, cal, repetitions=7, rng=5, w=12)
    np.testing.assert_array_equal(values, one.values)
    np.testing.assert_array_equal(budgets, one.budgets)
    np.testing.assert_array_equal(published, one.published)
    assert delta == one.sensitivity


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_row_by_row_baselines_release_each_row_from_its_own_generator(sampler):
    x = _series(60)
    rows = np.stack([x, x[::-1], np.clip(x + 3, 0, 25)])
    cal = SAMPLERS[sampler]
    values, budgets, published, _ = release_rows(rows, "pegasus", 1.0, cal, rng=np.random.default_rng(9))
    generators = row_generators(np.random.default_rng(9), 3)
    assert ROW_BY_ROW == ("pegasus",)
    for r, (row, gen) in enumerate(zip(rows, generators, strict=True)):
        one = baseline_engine(row, [], "pegasus", 1.0, cal, rng=gen)
        np.testing.assert_array_equal(values[r], one.values[0])
        np.testing.assert_array_equal(budgets[r], one.budgets[0])
        np.testing.assert_array_equal(published[r], one.published[0])


@pytest.mark.parametrize("scheme", ["bd", "ba", "fast", "pegasus"])
def test_each_row_releases_its_own_series(scheme):
    """At a huge ε the noise is negligible: every published value is its own row's value, not another row's (rows
    that read row 0's series, or one shared series, fail this)."""
    x = _series(80)
    rows = np.stack([x, 25 - x, np.full(80, 12.5), x])
    values, _, published, _ = release_rows(rows, scheme, 1e5, SAMPLERS["textbook"], rng=1, w=4)
    assert published.any(axis=1).all()
    if scheme in ("fast", "pegasus"):  # a Kalman posterior / a group's median: they follow their own row's values
        for own, other in ((0, 1), (1, 0), (2, 1)):
            assert np.abs(values[own] - rows[own]).mean() < 0.2 * np.abs(values[own] - rows[other]).mean()
    else:
        np.testing.assert_allclose(values[published], rows[published], atol=0.05)


def test_rows_refuse_what_the_baselines_refuse():
    x = np.tile(_series(30), (2, 1))
    with pytest.raises(ParameterError, match="not landmark-aware"):
        release_rows(x, "bd", 1.0, SAMPLERS["discrete"], rng=0, dummies={"method": "random"})
    with pytest.raises(ParameterError, match="values \\(laplace\\) only"):
        release_rows(x, "fast", 1.0, SAMPLERS["discrete"], rng=0, mechanism="randomized_response")
    with pytest.raises(ParameterError, match="one series per row"):
        release_rows(x[0], "ba", 1.0, SAMPLERS["discrete"], rng=0)


def test_the_audits_rows_send_the_baselines_to_their_rows():
    x = np.tile(_series(50), (4, 1))
    rel = audit_rows(x, [3, 9], "ba", 1.0, mechanism="laplace", rng=2, calibration=SAMPLERS["discrete"], w=6)
    values, budgets, _, _ = release_rows(x, "ba", 1.0, SAMPLERS["discrete"], rng=2, w=6)
    np.testing.assert_array_equal(rel.values, values)
    np.testing.assert_array_equal(rel.budgets, budgets)


@pytest.mark.parametrize("scheme", ["bd", "ba", "fast", "pegasus"])
def test_correlated_attack_on_a_baseline_runs_and_keeps_within_its_tpl_bound(scheme):
    result = audit(lmdk.sample("hue", n=60), [5, 20, 40], scheme, 1.0, protects=RANGE, w=12, trials=400, seed=3,
                   dummy_methods=(), s=0.1, position_trials=20)
    corr = result.correlation
    assert corr is not None and corr.trials == 400 and corr.success.shape == (60,)
    assert not corr.to_dict()["exceeds_tpl_bound"], corr.to_dict()
    assert np.all(corr.bound >= corr.bound_plain - 1e-12)  # correlation can only add to the loss (TPL ≥ ε_t)
