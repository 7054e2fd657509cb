"""A bad population policy is refused with a message naming the field and the fix."""
from __future__ import annotations

import json

import pytest
from population_support import fleet

from lmdk.errors import ParameterError
from lmdk.population import Policy, load_policy, release

GOOD = {"landmarks": "percentile:20", "scheme": "adaptive", "epsilon": 1.0}


def test_a_good_policy_round_trips(tmp_path):
    path = tmp_path / "policy.json"
    policy = Policy.from_dict({**GOOD, "w": 24, "seed": 3, "dummies": {"method": "random"}})
    path.write_text(policy.to_json())
    assert load_policy(path) == policy
    assert policy.dummies == {"method": "random", "share": 0.01, "utility": "position"}


@pytest.mark.parametrize("change, message", [
    ({"scheme": "uniformly"}, "scheme must be one of"),
    ({"epsilon": 0}, "epsilon must be a finite number > 0"),
    ({"epsilon": "1"}, "epsilon must be a finite number > 0"),
    ({"landmarks": "percentil:20"}, "unknown landmark rule"),
    ({"landmarks": [1, 2]}, "landmarks must be a landmark rule"),
    ({"mechanism": "gauss"}, "mechanism must be one of"),
    ({"w": 0}, "w .window of the w-event scheme. must be a whole number"),
    ({"seed": -1}, "seed must be a whole number"),
    ({"dummies": {"method": "best"}}, "method"),
    ({"mapping": {"delimiter": "x"}}, "mapping .the import mapping.: import mapping: delimiter"),
    ({"schemes": ["adaptive"]}, "one scheme per policy"),
    ({"data": "sample:hue", "events": 10}, "RunConfig of one series"),
])
def test_bad_fields_are_named(change, message):
    with pytest.raises(ParameterError, match=message):
        Policy.from_dict({**GOOD, **change})


def test_missing_fields_invalid_json_and_unreadable_files(tmp_path):
    with pytest.raises(ParameterError, match=r"missing field\(s\) \['epsilon'\]"):
        Policy.from_dict({"landmarks": "none", "scheme": "user"})
    with pytest.raises(ParameterError, match="not valid JSON"):
        Policy.from_json("{landmarks: none}")
    with pytest.raises(ParameterError, match="must be a JSON object"):
        Policy.from_json(json.dumps([GOOD]))
    with pytest.raises(ParameterError, match="cannot be read"):
        load_policy(tmp_path / "absent.json")


def test_mechanism_must_fit_the_data_and_exports_need_a_bound():
    with pytest.raises(ParameterError, match="does not apply to values series"):
        release(fleet(users=2, n=10), {**GOOD, "mechanism": "planar_laplace", "seed": 1})
    with pytest.raises(ParameterError, match="needs what ε protects: protects=.*'relation' in the policy"):
        release(fleet(users=2, n=10), GOOD)
