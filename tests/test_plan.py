"""lmdk.plan: the smallest ε per scheme for a target error, checked against schemes.release with the real sampler."""
from __future__ import annotations

import math

import numpy as np
import pytest

import lmdk
from lmdk import plan, relation, schemes
from lmdk.errors import ParameterError
from lmdk.exports.runconfig import RunConfig
from lmdk.plan.model import _laplace_mae, _laplace_within
from lmdk.plan.search import _skip_sources

RANGE = relation.public_range(0, 25, "kWh")
TARGET = 0.5
CHECK_REPETITIONS = 200  # the independent check: many repetitions, a seed the planner never used


@pytest.fixture(scope="module")
def hue():
    series = lmdk.sample("hue")
    return series.values, lmdk.landmarks.parse_rule("percentile:20").indices(series)


@pytest.fixture(scope="module")
def hue_plan(hue):
    x, L = hue
    return plan.plan(x, L, plan.Target(TARGET), protects=RANGE, w=24, rng=0)


def check_mae(x, L, scheme, epsilon, *, protected=RANGE, at="all", w=24, mechanism="laplace", seed=12345):
    """MAE of many releases with the real sampler (the exports' options) at the planned ε, at the target's events."""
    rel = schemes.release(x, L, scheme, epsilon, protects=protected, mechanism=mechanism,
                          repetitions=CHECK_REPETITIONS, rng=seed, w=w)
    mask = np.zeros(len(x), bool)
    mask[L] = True
    cells = {"all": np.ones(len(x), bool), "landmarks": mask, "regular": ~mask}[at]
    return float(np.abs(rel.values[:, cells] - np.asarray(x)[cells]).mean())


@pytest.mark.parametrize("scheme", plan.PLAN_SCHEMES)
def test_planned_epsilon_fed_back_into_release_meets_the_target_within_the_stated_tolerance(hue, hue_plan, scheme):
    x, L = hue
    answer = hue_plan.schemes[scheme]
    assert answer.feasible and not answer.any_epsilon
    mae = check_mae(x, L, scheme, answer.epsilon)
    assert abs(mae - TARGET) <= hue_plan.tolerance * TARGET, (scheme, answer.epsilon, mae)
    # the plan's own validation (the real sampler, its repetitions) says the same, with an interval around it
    low, high = answer.ci95
    assert low <= answer.achieved_mae <= high and high - low < 0.2 * TARGET
    assert abs(answer.achieved_mae - TARGET) <= hue_plan.tolerance * TARGET
    assert answer.within_tolerance


@pytest.mark.parametrize("at", ["landmarks", "regular"])
@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive"])
def test_a_target_at_landmarks_or_regular_events_is_met_there(hue, scheme, at):
    x, L = hue
    answer = plan.plan(x, L, plan.Target(TARGET, at=at), protects=RANGE, schemes=[scheme], rng=1).schemes[scheme]
    mae = check_mae(x, L, scheme, answer.epsilon, at=at)
    assert abs(mae - TARGET) <= plan.TOLERANCE * TARGET, (scheme, at, answer.epsilon, mae)


@pytest.mark.parametrize("scheme", plan.CLOSED_FORM)
def test_halving_the_target_doubles_epsilon_for_a_fixed_budget_scheme_without_clamping(hue, scheme):
    x, L = hue
    papers = relation.PAPERS_UNIT_CHANGE
    one = plan.plan(x, L, plan.Target(0.4), protects=papers, schemes=[scheme], w=24, rng=0).schemes[scheme]
    half = plan.plan(x, L, plan.Target(0.2), protects=papers, schemes=[scheme], w=24, rng=0).schemes[scheme]
    assert half.epsilon == pytest.approx(2 * one.epsilon, rel=1e-12)
    c = {"event": 1, "user": len(x), "w-event": 24, "uniform": len(L) + 1}[scheme]
    assert one.epsilon == pytest.approx(1.0 * c / 0.4, rel=1e-12)  # Δ·c/x with the papers' Δ = 1 (E|Lap(b)| = b)


def test_the_clamped_closed_form_is_the_simulated_error_of_the_clamped_laplace(hue):
    x, _ = hue
    rng = np.random.default_rng(3)
    for b in (0.2, 2.0, 20.0, 200.0):
        noisy = np.clip(x + rng.laplace(0, b, size=(400, len(x))), 0, 25)
        simulated = np.abs(noisy - x).mean()
        assert _laplace_mae(x, b, (0, 25))[0] == pytest.approx(simulated, rel=0.01)
        r = 0.5
        share = (np.abs(noisy - x) <= r).mean()
        assert _laplace_within(x, b, r, (0, 25))[0] == pytest.approx(share, abs=0.005)
    outside = np.array([-3.0, 30.0, 12.0])
    noisy = np.clip(np.clip(outside, 0, 25) + rng.laplace(0, 4.0, size=(200_000, 3)), 0, 25)
    assert _laplace_mae(outside, 4.0, (0, 25))[0] == pytest.approx(np.abs(noisy - outside).mean(), rel=0.01)
    assert _laplace_within(outside, 4.0, 5.0, (0, 25))[0] == pytest.approx(
        (np.abs(noisy - outside) <= 5.0).mean(), abs=0.005)


def test_an_infeasible_target_is_reported_as_such_with_its_floor(hue):
    x, L = hue
    mask = np.zeros(len(x), bool)
    mask[L] = True
    src = _skip_sources(mask)[mask]  # Skip's landmarks show the previous regular release
    floor = np.abs(np.where(src >= 0, x[np.maximum(src, 0)], 0.0) - x[mask]).mean()
    result = plan.plan(x, L, plan.Target(floor / 2, at="landmarks"), protects=RANGE, schemes=["skip", "uniform"],
                       rng=0)
    skip = result.schemes["skip"]
    assert not skip.feasible and skip.epsilon is None
    assert skip.achieved_mae == pytest.approx(floor, rel=0.01)  # the lowest error it reaches (ε → ∞: the floor)
    assert "any ε" in skip.note and "floor" in skip.note
    assert result.schemes["uniform"].feasible
    assert result.to_json()["skip"] == {"epsilon": None, "achieved_mae": skip.achieved_mae,
                                        "ci95": [skip.ci95[0], skip.ci95[1]], "feasible": False}


def test_a_target_above_the_range_cap_is_met_at_any_epsilon(hue):
    x, L = hue
    result = plan.plan(x, L, plan.Target(13.0), protects=RANGE, schemes=["event", "skip"], rng=0)
    for name, answer in result.schemes.items():
        assert answer.feasible and answer.any_epsilon, name
        assert answer.achieved_mae <= 13.0
    assert result.schemes["event"].epsilon == plan.EPSILON_MIN


def test_json_interface_has_exactly_the_four_keys(hue_plan):
    out = hue_plan.to_json()
    assert list(out) == list(plan.PLAN_SCHEMES)
    for entry in out.values():
        assert list(entry) == ["epsilon", "achieved_mae", "ci95", "feasible"]
        assert isinstance(entry["epsilon"], float) and entry["feasible"] is True
        assert entry["ci95"][0] <= entry["achieved_mae"] <= entry["ci95"][1]


def test_theorem_2_verdicts_come_with_the_answers(hue_plan, hue):
    _, L = hue
    verdicts = {s: p.satisfies for s, p in hue_plan.schemes.items()}
    assert verdicts == {"event": False, "user": True, "w-event": len(L) + 1 <= 24, "uniform": True, "skip": True,
                        "adaptive": True}


def test_within_probability_target(hue):
    x, L = hue
    target = plan.Target(0.5, probability=0.9)
    result = plan.plan(x, L, target, protects=RANGE, schemes=["event", "skip"], rng=2)
    for name, answer in result.schemes.items():
        rel = schemes.release(x, L, name, answer.epsilon, protects=RANGE, repetitions=CHECK_REPETITIONS, rng=99)
        share = (np.abs(rel.values - x) <= 0.5).mean()
        assert share == pytest.approx(0.9, abs=0.1 * 0.1), (name, answer.epsilon, share)
        assert answer.achieved_probability == pytest.approx(0.9, abs=0.01)
    # unclamped Laplace: P(|Lap(b)| ≤ r) = 1 − e^{−r/b} ⇒ ε = Δ·ln(1/(1 − p))/r
    free = plan.plan(x, L, target, protects=relation.PAPERS_UNIT_CHANGE, schemes=["event"], rng=0).schemes["event"]
    assert free.epsilon == pytest.approx(math.log(10) / 0.5, rel=1e-9)


def test_randomized_response_closed_form_is_the_flip_probability():
    bits = (np.arange(500) % 7 == 0).astype(float)
    L = np.flatnonzero(bits)
    result = plan.plan(bits, L, plan.Target(10.0), mechanism="randomized_response", protects=relation.FLIP,
                       schemes=["event", "uniform", "skip"], rng=0)
    assert result.unit == "% wrong reports"
    assert result.schemes["event"].epsilon == pytest.approx(math.log(9), rel=1e-12)  # 1/(e^ε + 1) = 0.1
    assert result.schemes["uniform"].epsilon == pytest.approx((len(L) + 1) * math.log(9), rel=1e-12)
    for name in ("event", "uniform"):
        assert abs(result.schemes[name].achieved_mae - 10.0) <= 0.05 * 10.0
    # Skip republishes the previous (0) report at every contact (1): 1/7 of the reports stay wrong at any ε (§4.2.1)
    assert not result.schemes["skip"].feasible
    assert result.schemes["skip"].achieved_mae == pytest.approx(100 * len(L) / len(bits), abs=0.5)
    assert plan.plan(bits, L, plan.Target(60.0), protects=relation.FLIP, mechanism="randomized_response",
                     schemes=["event"], rng=0).schemes["event"].any_epsilon


def test_planar_laplace_closed_form_and_search():
    rng = np.random.default_rng(0)
    xy = np.cumsum(rng.normal(0, 30, size=(400, 2)), axis=0)
    L = np.arange(0, 400, 10)
    result = plan.plan(xy, L, plan.Target(100.0), mechanism="planar_laplace", protects=relation.radius(200),
                       schemes=["event", "adaptive"], rng=0)
    assert result.schemes["event"].epsilon == pytest.approx(2 * 200 / 100.0, rel=1e-9)  # E r = 2Δ/ε
    assert abs(result.schemes["event"].achieved_mae - 100.0) <= 0.05 * 100
    assert result.schemes["adaptive"].feasible


def test_tradeoff_scales_epsilon_with_the_protected_change(hue):
    x, L = hue
    names = ["event", "uniform", "skip"]
    whole = plan.plan(x, L, plan.Target(TARGET), protects=RANGE, w=24, schemes=names, rng=0)
    table = plan.tradeoff(whole, [25.0, 2.0])
    assert table[25.0]["uniform"] == pytest.approx(whole.schemes["uniform"].epsilon)
    direct = plan.plan(x, L, plan.Target(TARGET), protects=relation.up_to(2, 0, 25, "kWh"), w=24, schemes=names,
                       rng=0)
    for name in names:  # the noise depends on Δ/ε alone (closed form and the same search noise): exactly ∝ Δ
        assert table[2.0][name] == pytest.approx(direct.schemes[name].epsilon, rel=1e-9), name
    skip_mae = check_mae(x, L, "skip", table[2.0]["skip"], protected=relation.up_to(2, 0, 25))
    assert abs(skip_mae - TARGET) <= 0.05 * TARGET
    with pytest.raises(ParameterError, match="sensitivities"):
        plan.tradeoff(whole, [0])


def test_same_rng_same_plan(hue):
    x, L = hue
    a = plan.plan(x, L, plan.Target(TARGET), protects=RANGE, schemes=["skip", "adaptive"], rng=5)
    b = plan.plan(x, L, plan.Target(TARGET), protects=RANGE, schemes=["skip", "adaptive"], rng=5)
    assert a.to_json() == b.to_json()


@pytest.mark.parametrize("kwargs, field", [
    (dict(error=0), "target error"), (dict(error=float("nan")), "target error"), (dict(error="x"), "target error"),
    (dict(error=1, at="somewhere"), "'at'"), (dict(error=1, probability=1.0), "probability"),
    (dict(error=1, probability=0), "probability"),
])
def test_bad_targets_name_the_field(kwargs, field):
    with pytest.raises(ParameterError, match=field):
        plan.Target(**kwargs)


def test_bad_inputs_name_the_field_and_the_fix(hue):
    x, L = hue
    with pytest.raises(ParameterError, match="no such events"):
        plan.plan(x, [], plan.Target(1.0, at="landmarks"), protects=RANGE)
    with pytest.raises(ParameterError, match="schemes"):
        plan.plan(x, L, plan.Target(1.0), protects=RANGE, schemes=["nope"])
    with pytest.raises(ParameterError, match="repetitions"):
        plan.plan(x, L, plan.Target(1.0), protects=RANGE, repetitions=1)
    with pytest.raises(ParameterError, match="contact bits"):
        plan.plan(np.zeros(20), [1], plan.Target(1.0, probability=0.5), protects=relation.FLIP,
                  mechanism="randomized_response")
    with pytest.raises(ParameterError, match="needs protects="):
        plan.plan(x, L, plan.Target(1.0))
    with pytest.raises(ParameterError, match="protects="):
        plan.plan(x, L, plan.Target(1.0), relation=RANGE)
    with pytest.raises(ParameterError, match="unknown field"):
        plan.Target.from_dict({"error": 1, "where": "all"})


def test_runconfig_carries_the_target_and_old_configs_load_without_it(hue):
    _, L = hue
    base = dict(data="sample:hue", events=1000, landmarks=tuple(int(i) for i in L), schemes=("adaptive",),
                mechanism="laplace", epsilon=1.0)
    cfg = RunConfig(**base, target={"error": 0.5, "at": "landmarks"})
    again = RunConfig.from_json(cfg.to_json())
    assert again.target == {"error": 0.5, "at": "landmarks"} and again == cfg
    old = cfg.to_dict()
    del old["target"]
    assert RunConfig.from_dict(old).target is None
    with pytest.raises(ParameterError, match="target"):
        RunConfig(**base, target={"error": -1})
