"""The adversary lab's core: broken mechanisms are caught far above ε, correct ones stay at or below it, Skip's
landmark positions are readable from repeats and dummy landmarks hide them, and the value and correlation attacks
stay within their bounds."""
from __future__ import annotations

import numpy as np
import pytest

import lmdk
from lmdk import relation
from lmdk.audit import audit
from lmdk.errors import ParameterError

RANGE = relation.public_range(0, 25, "kWh")


@pytest.fixture(scope="module")
def hue():
    series = lmdk.sample("hue", n=400)
    return series, lmdk.landmarks.parse_rule("percentile:20").indices(series)


BROKEN_DELTA = relation.miscalibrated(RANGE, noise_sensitivity=1.0)  # the papers' Δ = 1 on 25 kWh
HALF_SCALE = relation.miscalibrated(RANGE, noise_sensitivity=12.5)  # noise at half the scale


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive"])
def test_delta_one_on_a_25_unit_range_is_flagged_far_above_epsilon(hue, scheme):
    series, L = hue
    result = audit(series, L, scheme, 1.0, protects=BROKEN_DELTA, trials=2000, seed=1,
                   dummy_methods=())
    assert result.exceeds and result.epsilon_lower > 3.5  # true loss 25; 2,000 trials show 3.7–5.4 (seeds 1–6)


def test_half_the_noise_is_flagged_above_epsilon(hue):
    series, L = hue
    result = audit(series, L, "skip", 1.0, protects=HALF_SCALE, trials=2000, seed=1,
                   dummy_methods=())
    assert result.exceeds and result.pairs["regular"].estimate.lower > 1.3  # true loss 2
    value = result.values["regular"]
    assert value.ci[0] > value.bound  # the value guess beats what ε = 1 allows


@pytest.mark.parametrize("scheme", ["uniform", "skip", "adaptive", "user"])
def test_a_correct_scheme_stays_at_or_below_epsilon(hue, scheme):
    series, L = hue
    result = audit(series, L, scheme, 1.0, protects=RANGE, trials=2000, seed=2, dummy_methods=())
    assert not result.exceeds
    for pair in result.pairs.values():
        assert pair.estimate.lower <= 1.0
    for guess in result.values.values():
        assert guess.ci[0] <= guess.bound


def test_event_level_violates_the_theorem_2_neighbour(hue):
    series, L = hue
    result = audit(series, L, "event", 1.0, protects=RANGE, trials=1000, seed=3, dummy_methods=())
    assert result.worst.name == "theorem2" and result.epsilon_lower > 3.0
    assert result.pairs["regular"].estimate.lower <= 1.0


def test_skip_gives_its_landmarks_away_and_dummies_hide_them(hue):
    series, L = hue
    result = audit(series, L, "skip", 1.0, protects=RANGE, trials=200, seed=4)
    plain = result.positions["none"]
    assert plain.auc >= 0.8 and plain.precision_at_k > 2 * plain.chance
    assert isinstance(result.positions["optimal"], str) and "not run" in result.positions["optimal"]
    for method in ("heuristic", "partitioned", "random"):
        hidden = result.positions[method]
        assert hidden.auc < plain.auc - 0.05, method
        assert hidden.precision_at_k < plain.precision_at_k
        assert hidden.marked > len(L)


def test_uniform_hides_positions(hue):
    series, L = hue
    result = audit(series, L, "uniform", 1.0, protects=RANGE, trials=200, seed=5, dummy_methods=())
    assert abs(result.positions["none"].auc - 0.5) < 0.05


def test_same_seed_same_audit(hue):
    series, L = hue
    first = audit(series, L, "adaptive", 1.0, protects=RANGE, trials=300, seed=6, s=0.1, dummy_methods=("random",))
    again = audit(series, L, "adaptive", 1.0, protects=RANGE, trials=300, seed=6, s=0.1, dummy_methods=("random",))
    other = audit(series, L, "adaptive", 1.0, protects=RANGE, trials=300, seed=7, s=0.1, dummy_methods=("random",))
    assert first.to_dict() == again.to_dict()
    assert first.to_dict() != other.to_dict()


def test_correlation_leaks_skips_landmarks_within_the_tpl_bound(hue):
    series, L = hue
    result = audit(series, L, "skip", 1.0, protects=RANGE, trials=1000, seed=8, s=0.01, dummy_methods=())
    c = result.correlation
    assert c.target in set(L.tolist())
    assert c.bound_plain[c.target] == pytest.approx(0.5)  # Skip spends nothing on a landmark …
    assert c.ci[0] > 0.6  # … yet its neighbours' releases give it away under strong correlation
    assert c.ci[0] <= c.bound[c.target]  # and TPL bounds it
    assert np.all(c.success - 0.05 <= c.bound)


def test_histogram_prior(hue):
    series, L = hue
    result = audit(series, L, "uniform", 5.0, protects=RANGE, trials=500, seed=9, prior="histogram",
                   dummy_methods=())
    guess = result.values["landmark"]
    assert guess.prior == "histogram" and guess.chance <= guess.success + 0.05
    assert guess.ci[0] <= guess.bound < 1


def test_json_has_the_issues_keys(hue):
    series, L = hue
    out = audit(series, L, "skip", 1.0, protects=RANGE, trials=200, seed=10, dummy_methods=("random",)).to_dict()
    for key in ("epsilon_claimed", "epsilon_lower", "epsilon_upper", "landmark_inference", "value_inference"):
        assert key in out
    assert {"auc", "precision_at_k", "chance"} <= set(out["landmark_inference"])
    assert {"success", "bound"} <= set(out["value_inference"])
    assert out["landmark_inference"]["chance"] == pytest.approx(len(L) / len(series))
    import json

    json.dumps(out)  # plain JSON (no numpy scalars, no infinities)


def test_locations_and_contacts_are_audited():
    taxi = lmdk.sample("taxi", n=120)
    L = np.arange(0, 120, 12)
    moved = audit(taxi, L, "skip", 1.0, protects=relation.radius(200), trials=300, seed=11, dummy_methods=(), s=0.1)
    assert not moved.exceeds and moved.values["landmark"].prior == "range"
    contacts = lmdk.sample("contacts", n=150)
    bits = audit(contacts, np.arange(0, 150, 10), "uniform", 2.0, protects=relation.FLIP, trials=300, seed=12,
                 dummy_methods=())
    assert not bits.exceeds


def test_bad_input_names_the_field(hue):
    series, L = hue
    with pytest.raises(ParameterError, match="needs protects="):
        audit(series, L, "skip", 1.0, trials=200)
    with pytest.raises(ParameterError, match="public_range"):
        audit(series, L, "skip", 1.0, protects=relation.radius(200), trials=200)
    with pytest.raises(ParameterError, match="protects="):
        audit(series, L, "skip", 1.0, relation=RANGE, trials=200)
    with pytest.raises(ParameterError, match="protects="):
        audit(series, L, "skip", 1.0, protects=RANGE, options={"sensitivity": 1.0}, trials=200)
    with pytest.raises(ParameterError, match="trials"):
        audit(series, L, "skip", 1.0, protects=RANGE, trials=5)
    with pytest.raises(ParameterError, match="prior"):
        audit(series, L, "skip", 1.0, protects=RANGE, trials=200, prior="uniform")
    with pytest.raises(ParameterError, match="strength"):
        audit(series, L, "skip", 1.0, protects=RANGE, trials=200, s=-1)


def test_dummies_draw_an_independent_selection_per_trial(hue):
    """'random' draws its addition order once per schemes.release call; the audit's trials must not share it."""
    from lmdk.audit.run import dummy_masks

    series, L = hue
    masks, eps_pub = dummy_masks(len(series), L, 1.0, {"method": "random"}, 50, np.random.default_rng(0))
    assert masks.shape == (50, len(series)) and eps_pub == pytest.approx(0.99)
    assert masks[:, L].all()
    first_dummy = [int(np.flatnonzero(m & ~np.isin(np.arange(len(series)), L))[0]) for m in masks if (m.sum() > len(L))]
    assert len(set(first_dummy)) > 5  # independent orders, not one shared order
    for method in ("random", "partitioned"):
        result = audit(series, L, "skip", 1.0, protects=RANGE, trials=300, seed=0, dummies={"method": method},
                       dummy_methods=())
        assert not result.exceeds, method
