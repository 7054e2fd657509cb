"""What an ε means (issue 56): the belief bound, the deployments' table as published, where an ε sits among them."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmdk.epsilon_meaning import DEPLOYMENTS, SOURCE, Deployment, belief_bound, meaning
from lmdk.errors import ParameterError


def test_the_bound_is_73_percent_at_epsilon_1_from_even_odds():
    assert belief_bound(1.0) == pytest.approx(math.e / (1 + math.e))
    assert round(100 * belief_bound(1.0), 1) == 73.1
    assert belief_bound(math.log(3)) == pytest.approx(0.75)  # randomized response with a coin: 3/4
    assert "at most 73 %" in meaning(1.0).bound


def test_the_bound_uses_the_prior_by_bayes_rule():
    p, eps = 0.1, 2.0
    assert belief_bound(eps, prior=p) == pytest.approx(p * math.exp(eps) / (p * math.exp(eps) + 1 - p))
    assert belief_bound(eps, prior=0.1) < belief_bound(eps, prior=0.5) < belief_bound(eps, prior=0.9)


def test_the_bound_grows_with_epsilon_and_stays_below_certainty_where_it_can():
    values = [belief_bound(e) for e in (0.01, 0.1, 0.5, 1, 2, 5, 10)]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert belief_bound(1000.0) == pytest.approx(1.0)  # no overflow at a huge ε
    assert "near certainty" in meaning(40.0).bound and "100 %" not in meaning(40.0).bound
    assert "99.97 %" in meaning(8.0).bound  # an "at most" is rounded up, never to 100 %


@given(eps=st.floats(min_value=1e-6, max_value=30.0), prior=st.floats(min_value=1e-3, max_value=0.999))
def test_the_bound_lies_between_the_prior_and_certainty(eps, prior):
    bound = belief_bound(eps, prior)
    assert prior < bound < 1


def test_the_table_is_the_issues_exactly():
    expected = [("Apple", "emoji suggestions", 4.0, "", "local model"),
                ("Apple", "Safari auto-play intent detection", 8.0, "", "local model"),
                ("Microsoft", "Assistive AI", 4.0, "< 10⁻⁷", "per user"),
                ("LinkedIn", "Audience Engagement API", 34.9, "7·10⁻⁹", "per month"),
                ("Israel", "live-births release (2014)", 9.98, "", "per birth")]
    assert [(d.organisation, d.what, d.epsilon, d.delta, d.unit) for d in DEPLOYMENTS] == expected
    assert all(isinstance(d, Deployment) for d in DEPLOYMENTS)
    with pytest.raises(AttributeError):
        DEPLOYMENTS[0].epsilon = 1.0  # type: ignore[misc]
    assert SOURCE.publisher == "OpenDP" and SOURCE.name == "Deployments Registry"
    assert SOURCE.url.startswith("https://registry.opendp.org/")


@pytest.mark.parametrize(("eps", "placement", "below", "equal", "above"), [
    (0.1, "below all", set(), set(), {"Apple emoji suggestions", "Microsoft Assistive AI"}),
    (4.0, "equal", set(), {"Apple emoji suggestions", "Microsoft Assistive AI"}, set()),
    (5.0, "between", {"Apple emoji suggestions", "Microsoft Assistive AI"}, set(),
     {"Apple Safari auto-play intent detection"}),
    (8.0, "equal", set(), {"Apple Safari auto-play intent detection"}, set()),
    (9.98, "equal", set(), {"Israel live-births release (2014)"}, set()),
    (20.0, "between", {"Israel live-births release (2014)"}, set(), {"LinkedIn Audience Engagement API"}),
    (40.0, "above all", {"LinkedIn Audience Engagement API"}, set(), set()),
])
def test_an_epsilon_is_placed_among_the_deployments_every_neighbour_named(eps, placement, below, equal, above):
    m = meaning(eps)
    assert m.placement == placement
    assert {d.label for d in m.below} == below and {d.label for d in m.equal} == equal
    assert {d.label for d in m.above} == above
    for name in below | equal | above:
        assert name in m.position
    others = {d.label for d in DEPLOYMENTS} - below - equal - above
    assert not any(name in m.position for name in others)
    assert "different" in m.note and "scale, not an equivalence" in m.note
    assert m.summary.startswith(m.bound) and m.position in m.summary


def test_the_placement_words_say_where():
    assert "below all" in meaning(0.1).position and "lowest is ε 4" in meaning(0.1).position
    assert "above all" in meaning(40).position and "highest is ε 34.9" in meaning(40).position
    assert meaning(5).position.startswith("between ε 4") and "and ε 8" in meaning(5).position
    assert "per user" in meaning(4).position and "δ < 10⁻⁷" in meaning(4).position


@pytest.mark.parametrize("bad", [0, 0.0, -1.0, float("nan"), float("inf"), float("-inf"), "one", None, True, [1.0]])
def test_a_bad_epsilon_is_refused_naming_the_field(bad):
    with pytest.raises(ParameterError, match="epsilon"):
        meaning(bad)
    with pytest.raises(ParameterError, match="epsilon"):
        belief_bound(bad)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, float("nan"), "half", None])
def test_a_bad_prior_is_refused_naming_the_field(bad):
    with pytest.raises(ParameterError, match="prior"):
        belief_bound(1.0, prior=bad)
