"""The neighbouring relation: Δ per kind, validation naming the field, words, and the options every front end shares."""
from __future__ import annotations

import pytest

from lmdk import relation as rel
from lmdk.errors import ParameterError
from lmdk.exports.runconfig import RunConfig


def test_sensitivity_is_the_width_of_the_range_or_d_or_the_radius():
    assert rel.public_range(0, 25, "kWh").sensitivity == 25
    assert rel.up_to(2, 0, 25, "kWh").sensitivity == 2
    assert rel.radius(200).sensitivity == 200
    assert rel.FLIP.sensitivity == 1


@pytest.mark.parametrize("build, field", [
    (lambda: rel.public_range(5, 5), "low < high"),
    (lambda: rel.Relation("range", low=0), "both low and high"),
    (lambda: rel.up_to(0, 0, 25), "largest protected change"),
    (lambda: rel.radius(-3), "radius"),
    (lambda: rel.Relation("ball"), "relation kind"),
    (lambda: rel.Relation.from_dict({"kind": "range", "low": 0, "high": 1, "width": 3}), "unknown field"),
    (lambda: rel.public_range(0, float("nan")), "range high"),
])
def test_bad_relations_name_the_field(build, field):
    with pytest.raises(ParameterError, match=field):
        build()


def test_words_say_what_is_protected():
    assert rel.public_range(0, 25, "kWh").protects("hour") == ("any single hour's value, whatever it is between 0 "
                                                               "and 25 kWh")
    assert "up to 2 kWh" in rel.up_to(2, 0, 25, "kWh").protects("hour")
    assert "within 200 m" in rel.radius(200).protects("location")
    assert rel.public_range(0, 25, "kWh").label() == "range [0, 25] kWh (Δ = 25)"


def test_round_trip_and_kind_check():
    r = rel.up_to(2, 0, 25, "kWh")
    assert rel.Relation.from_dict(r.to_dict()) == r
    with pytest.raises(ParameterError, match="'radius'"):
        r.check_kind("trajectory")


def test_calibration_fixes_delta_sampler_and_range_together():
    C = rel.Calibration
    assert rel.public_range(0, 25).calibration("laplace") == C(25.0, "discrete", (0.0, 25.0))
    assert rel.up_to(2, 0, 25).calibration("laplace") == C(2.0, "discrete", (0.0, 25.0))
    assert rel.FLIP.calibration("randomized_response") == C(1.0, "snapping")
    assert rel.radius(200).calibration("planar_laplace") == C(200.0, "textbook")  # views
    assert rel.radius(200, bound=5e4).calibration("planar_laplace") == C(200.0, "snapping", None, 5e4)  # exports
    for mechanism in ("laplace", "planar_laplace"):  # the papers' figures: Δ = 1, textbook, no range
        assert rel.PAPERS_UNIT_CHANGE.calibration(mechanism) == C(1.0, "textbook")
    assert rel.PAPERS_UNIT is rel.PAPERS_UNIT_CHANGE
    with pytest.raises(ParameterError, match="does not fit values"):
        rel.radius(200).calibration("laplace")


def test_miscalibrated_keeps_the_claim_and_breaks_only_the_noise():
    claim = rel.public_range(0, 25, "kWh")
    broken = rel.miscalibrated(claim, noise_sensitivity=1)
    assert broken.miscalibrated and not claim.miscalibrated
    assert broken.sensitivity == 25 and broken.label() == claim.label()  # what it claims
    assert broken.calibration("laplace") == rel.Calibration(1.0, "discrete", (0.0, 25.0))  # what it draws with
    assert rel.Relation.from_dict(broken.to_dict()) == broken  # the dict keeps the broken calibration visible
    with pytest.raises(ParameterError, match="miscalibrated"):
        rel.refuse_miscalibrated(broken)
    with pytest.raises(ParameterError, match="noise_sensitivity"):
        rel.miscalibrated(claim, noise_sensitivity=0)


def test_radius_bound_and_papers_relation_round_trip_and_read_back_as_code():
    import lmdk

    for r in (rel.radius(200, bound=5e4), rel.PAPERS_UNIT_CHANGE, rel.public_range(0, 25, "kWh"),
              rel.up_to(2.5, -1, 25), rel.FLIP, rel.miscalibrated(rel.radius(3), noise_sensitivity=1)):
        assert rel.Relation.from_dict(r.to_dict()) == r
        assert eval(r.code(), {"lmdk": lmdk}) == r  # noqa: S307 (our own generated expression, read back)
    assert rel.public_range(0, 25, "kWh").code() == "lmdk.relation.public_range(0, 25, 'kWh')"
    assert rel.PAPERS_UNIT_CHANGE.check_kind("trajectory") is rel.PAPERS_UNIT_CHANGE  # fits every kind
    with pytest.raises(ParameterError, match="applies to a radius"):
        rel.Relation("range", low=0, high=1, bound=5)


def test_runconfig_carries_the_relation_and_old_configs_get_a_note():
    cfg = RunConfig(data="sample:hue", events=10, landmarks=(1,), schemes=("skip",), mechanism="laplace",
                    epsilon=1.0, relation=rel.public_range(0, 25, "kWh").to_dict())
    assert cfg.sensitivity == 25.0 and cfg.relation_note is None
    again = RunConfig.from_json(cfg.to_json())
    assert again == cfg and again.protects().calibration("laplace").sampler == "discrete"
    old = {k: v for k, v in cfg.to_dict().items() if k not in ("relation", "sensitivity")}
    legacy = RunConfig.from_dict(old)
    assert legacy.relation is None and legacy.protects() == rel.PAPERS_UNIT_CHANGE  # as it ran: Δ = 1, textbook
    assert "changes of up to 1 unit (Δ = 1" in legacy.relation_note
    with pytest.raises(ParameterError, match="differs from the relation"):
        RunConfig(**{**cfg.to_dict(), "sensitivity": 3.0})
