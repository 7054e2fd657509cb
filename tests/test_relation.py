"""The neighbouring relation: Δ per kind, validation naming the field, words, and the options every front end shares."""
from __future__ import annotations

import pytest

from lmdk import relation as rel
from lmdk.data.runconfig import RunConfig
from lmdk.errors import ParameterError


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


def test_release_options_use_the_exports_sampler():
    assert rel.release_options(rel.public_range(0, 25), "laplace") == {
        "sensitivity": 25.0, "sampler": "discrete", "value_range": (0.0, 25.0)}
    assert rel.release_options(rel.FLIP, "randomized_response") == {"sensitivity": 1.0, "sampler": "snapping"}
    assert rel.release_options(rel.radius(200), "planar_laplace") == {"sensitivity": 200.0}
    assert rel.release_options(None, "laplace") == {"sensitivity": 1.0}  # the papers' Δ = 1, textbook sampler


def test_runconfig_carries_the_relation_and_old_configs_get_a_note():
    cfg = RunConfig(data="sample:hue", events=10, landmarks=(1,), schemes=("skip",), mechanism="laplace",
                    epsilon=1.0, relation=rel.public_range(0, 25, "kWh").to_dict())
    assert cfg.sensitivity == 25.0 and cfg.relation_note is None
    again = RunConfig.from_json(cfg.to_json())
    assert again == cfg and again.relation_options()["sampler"] == "discrete"
    old = {k: v for k, v in cfg.to_dict().items() if k not in ("relation", "sensitivity")}
    legacy = RunConfig.from_dict(old)
    assert legacy.relation is None and legacy.relation_options() == {"sensitivity": 1.0}
    assert "changes of up to 1 unit (Δ = 1" in legacy.relation_note
    with pytest.raises(ParameterError, match="differs from the relation"):
        RunConfig(**{**cfg.to_dict(), "sensitivity": 3.0})
