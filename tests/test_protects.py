"""``protects=``: every public entry point that draws noise names what ε protects (issue 32).

The relation fixes Δ, the sampler and the public range together; the old keywords are refused with the fix; a rule
string resolves the landmarks on the series; the papers' relation keeps their textbook Δ = 1 draws; a miscalibrated
relation is accepted where it is audited and refused wherever a release leaves the library."""
from __future__ import annotations

import numpy as np
import pytest

import lmdk
from lmdk import baselines, relation, schemes
from lmdk.errors import ParameterError
from lmdk.exports import export
from lmdk.landmarks import parse_rule
from lmdk.mechanisms import unit_noise
from lmdk.population.fleet import synthetic_fleet

RANGE = relation.public_range(0, 25, "kWh")


@pytest.fixture(scope="module")
def hue():
    return lmdk.sample("hue", n=200)


def test_a_release_without_protects_names_the_argument_and_the_one_line_fix():
    with pytest.raises(ParameterError) as caught:
        lmdk.release(np.zeros(5), [], "uniform", 1.0)
    message = str(caught.value)
    assert "needs protects=" in message and "lmdk.relation.public_range(0, 25" in message
    assert "protects=lmdk.relation.PAPERS_UNIT_CHANGE" in message


@pytest.mark.parametrize("old", [{"sensitivity": 25.0}, {"sampler": "discrete"}, {"bound": 50.0},
                                 {"value_range": (0, 25)}, {"relation": RANGE}])
def test_each_old_keyword_is_a_parameter_error_naming_protects(old):
    for call in (lmdk.release, baselines.release_baseline):
        with pytest.raises(ParameterError, match=f"{next(iter(old))}=.*protects="):
            call(np.zeros(5), [], "uniform" if call is lmdk.release else "bd", 1.0, protects=RANGE, **old)
    with pytest.raises(TypeError, match="unexpected keyword"):  # anything else: Python's own error
        lmdk.release(np.zeros(5), [], "uniform", 1.0, protects=RANGE, repetition=2)


def test_a_rule_resolves_the_landmarks_on_the_series(hue):
    want = parse_rule("percentile:20").indices(hue)
    for landmarks in ("percentile:20", parse_rule("percentile:20")):
        for series in (hue, hue.values):  # an lmdk Series, or plain values for a value rule
            got = lmdk.release(series, landmarks, "skip", 1.0, protects=RANGE, rng=3)
            direct = lmdk.release(hue.values, want, "skip", 1.0, protects=RANGE, rng=3)
            assert np.array_equal(got.landmarks[0], np.isin(np.arange(len(hue)), want))
            assert np.array_equal(got.values, direct.values)
    with pytest.raises(ParameterError, match="needs a trajectory series"):
        lmdk.release(hue.values, "stay:30min", "skip", 1.0, protects=RANGE)


def test_the_papers_relation_gives_the_textbook_delta_one_draws(hue):
    """PAPERS_UNIT_CHANGE: x + Lap(1/ε_t) from the seed's unit Laplace draws, no clamping — the figures' numbers."""
    x = hue.values
    L = np.arange(0, len(x), 9)
    rel = lmdk.release(x, L, "uniform", 1.0, protects=relation.PAPERS_UNIT_CHANGE, repetitions=3, rng=11)
    budget = 1.0 / (len(L) + 1)
    want = x + unit_noise("laplace", (3, len(x)), np.random.default_rng(11)) * (1.0 / budget)
    assert np.array_equal(rel.values, want)
    assert rel.sensitivity == 1.0 and rel.protects is relation.PAPERS_UNIT_CHANGE
    assert rel.values.min() < 0  # no public range: nothing is clamped


def test_a_release_records_what_it_protects_and_is_calibrated_by_it(hue):
    rel = lmdk.release(hue.values, [3, 9], "skip", 1.0, protects=RANGE.to_dict(), rng=0)
    assert rel.protects == RANGE and rel.sensitivity == 25.0
    assert np.all((rel.values >= 0) & (rel.values <= 25))  # the exact sampler clamps into the public range
    engine = schemes.release_engine(hue.values, [3, 9], "skip", 1.0, RANGE.calibration("laplace"), rng=0)
    assert np.array_equal(rel.values, engine.values)


def test_a_miscalibrated_relation_draws_for_its_noise_delta_and_keeps_its_claim(hue):
    broken = relation.miscalibrated(RANGE, noise_sensitivity=1.0)
    rel = lmdk.release(hue.values, [], "event", 1.0, protects=broken, repetitions=2, rng=4)
    honest_delta_one = schemes.release_engine(hue.values, [], "event", 1.0,
                                              relation.Calibration(1.0, "discrete", (0, 25)), repetitions=2, rng=4)
    assert np.array_equal(rel.values, honest_delta_one.values) and rel.protects.label() == RANGE.label()


def test_exports_refuse_a_miscalibrated_relation(hue, tmp_path):
    broken = relation.miscalibrated(RANGE, noise_sensitivity=1.0)
    with pytest.raises(ParameterError, match="miscalibrated"):
        export.export_scheme_release(hue, [3], "skip", 1.0, protects=broken)
    with pytest.raises(ParameterError, match="papers' unit change"):
        export.export_scheme_release(hue, [3], "skip", 1.0, protects=relation.PAPERS_UNIT_CHANGE)
    fleet = synthetic_fleet(3, 24, rng=0).table
    with pytest.raises(ParameterError, match="miscalibrated"):
        lmdk.population.release(fleet, {"landmarks": "percentile:20", "scheme": "skip", "epsilon": 1.0},
                                out=tmp_path / "out", protects=broken)
    assert not (tmp_path / "out" / "released").exists()
    config = tmp_path / "cfg.json"  # the CLI: a RunConfig whose relation is miscalibrated
    config.write_text(lmdk.RunConfig(data="sample:hue", events=200, landmarks=(3,), schemes=("skip",),
                                     mechanism="laplace", epsilon=1.0, relation=broken.to_dict(),
                                     landmark_origin="declared").to_json())
    code = lmdk.cli.main(["release", "sample:hue", "--config", str(config), "--out", str(tmp_path / "r.csv")])
    assert code != lmdk.cli.EXIT_OK and not (tmp_path / "r.csv").exists()


def test_population_release_takes_protects_or_the_policys_relation(tmp_path):
    fleet = synthetic_fleet(4, 48, rng=1).table
    policy = {"landmarks": "percentile:20", "scheme": "uniform", "epsilon": 1.0, "seed": 2}
    with pytest.raises(ParameterError, match="protects=.*'relation' in the policy"):
        lmdk.population.release(fleet, policy)
    with pytest.raises(ParameterError, match=r"bound= no longer exists.*radius\(r, bound=B\)"):
        lmdk.population.release(fleet, policy, bound=25.0)
    given = lmdk.population.release(fleet, policy, protects=RANGE)
    in_policy = lmdk.population.release(fleet, {**policy, "relation": RANGE.to_dict()})
    assert given.summary.equals(in_policy.summary) and given.aggregates["sensitivity"] == 25.0
    assert given.aggregates["sampler"] == "discrete"
    papers = lmdk.population.release(fleet, policy, protects=relation.PAPERS_UNIT_CHANGE)
    assert papers.aggregates["sampler"] == "textbook" and papers.aggregates["sensitivity"] == 1.0


def test_plan_and_audit_take_protects(hue):
    L = parse_rule("percentile:20").indices(hue)
    result = lmdk.plan.plan(hue.values, L, lmdk.plan.Target(2.0), protects=RANGE, schemes=["event"], rng=0)
    assert result.sensitivity == 25.0 and result.sampler == "discrete" and result.relation == RANGE.to_dict()
    with pytest.raises(ParameterError, match="relation=.*protects="):
        lmdk.plan.plan(hue.values, L, lmdk.plan.Target(2.0), relation=RANGE)
    audited = lmdk.audit.audit(hue, L, "uniform", 1.0, protects=RANGE, trials=100, dummy_methods=(),
                               position_trials=20)
    assert audited.relation == RANGE.to_dict()
    with pytest.raises(ParameterError, match="needs protects="):
        lmdk.audit.audit(hue, L, "uniform", 1.0, trials=100)
