"""RunConfig: JSON round trip, validation by field name, bit-identical re-runs."""
from __future__ import annotations

import json

import numpy as np
import pytest

import lmdk
from lmdk import __version__, schemes
from lmdk.data import sample
from lmdk.errors import ParameterError
from lmdk.exports import RunConfig
from lmdk.exports.runconfig import MECHANISM_NAMES, SCHEME_NAMES, sample_reference, scheme_rng
from lmdk.landmarks import by_fraction


def hue_config(**overrides) -> RunConfig:
    """A valid config over the HUE sample with 20 % landmarks."""
    hue = sample("hue")
    fields = dict(data="sample:hue", events=len(hue), landmarks=tuple(by_fraction(hue, 0.2).tolist()),
                  schemes=("uniform", "adaptive", "skip"), mechanism="laplace", epsilon=1.0, w=None, s=0.1,
                  dummies=None, repetitions=5, seed=42)
    fields.update(overrides)
    return RunConfig(**fields)


def test_names_agree_with_the_core_modules():
    from lmdk.mechanisms import MECHANISMS

    assert SCHEME_NAMES == schemes.ALL_SCHEMES and MECHANISM_NAMES == MECHANISMS


def test_json_round_trip_is_lossless():
    config = hue_config(dummies={"method": "partitioned", "share": 0.01, "utility": "position"}, w=24)
    text = config.to_json()
    again = RunConfig.from_json(text)
    assert again == config and again.to_json() == text
    assert json.loads(text)["version"] == __version__


def test_reloaded_config_reruns_bit_identically():
    hue = sample("hue")
    config = hue_config(dummies={"method": "partitioned", "share": 0.01, "utility": "position"})
    first = config.release(hue.values)
    reloaded = RunConfig.from_json(config.to_json())
    reloaded.check_series(sample("hue"))
    second = reloaded.release(sample("hue").values)
    assert list(first) == list(second) == ["uniform", "adaptive", "skip"]
    for scheme in first:
        for field in ("values", "budgets", "published", "landmarks"):
            a, b = getattr(first[scheme], field), getattr(second[scheme], field)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_rerun_matches_a_direct_call_with_the_documented_generator():
    taxi = sample("taxi")
    xy, _ = taxi.xy()
    config = RunConfig(data=sample_reference("taxi"), events=len(taxi), landmarks=(1, 5, 9), schemes=("w-event",),
                       mechanism="planar_laplace", epsilon=0.5, w=10, repetitions=3, seed=7)
    direct = schemes.release(xy, [1, 5, 9], "w-event", 0.5,
                             protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="planar_laplace", repetitions=3,
                             rng=np.random.default_rng([7, SCHEME_NAMES.index("w-event")]), w=10)
    rerun = RunConfig.from_json(config.to_json()).release(xy)["w-event"]
    assert rerun.values.tobytes() == direct.values.tobytes()
    assert scheme_rng(7, "w-event").random() == np.random.default_rng([7, 2]).random()


def test_a_different_seed_changes_the_output():
    hue = sample("hue")
    a = hue_config(seed=1).release(hue.values)["uniform"].values
    b = hue_config(seed=2).release(hue.values)["uniform"].values
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("field,value,word", [
    ("data", "file.csv", "data"),
    ("data", "sha256:xyz", "data"),
    ("events", 0, "events"),
    ("events", True, "events"),
    ("landmarks", [1000], "landmarks"),
    ("landmarks", [-1], "landmarks"),
    ("landmarks", [1.5], "landmarks"),
    ("landmarks", "1,2", "landmarks"),
    ("schemes", ("uniform", "magic"), "schemes"),
    ("schemes", (), "schemes"),
    ("schemes", ("skip", "skip"), "schemes"),
    ("mechanism", "gaussian", "mechanism"),
    ("epsilon", 0, "epsilon"),
    ("epsilon", float("inf"), "epsilon"),
    ("epsilon", "1", "epsilon"),
    ("w", 0, "w"),
    ("w", 1001, "w"),
    ("s", -0.1, "s"),
    ("dummies", {"share": 2.0}, "share"),
    ("dummies", {"colour": "red"}, "dummies"),
    ("dummies", [0.01], "dummies"),
    ("repetitions", 0, "repetitions"),
    ("repetitions", 10**9, "repetitions"),
    ("seed", -1, "seed"),
    ("seed", 1.5, "seed"),
    ("sensitivity", 0, "sensitivity"),
    ("version", "", "version"),
    ("landmark_origin", "guessed", "landmark_origin"),
])
def test_out_of_range_values_are_rejected_by_field(field, value, word):
    with pytest.raises(ParameterError, match=word):
        hue_config(**{field: value})
    payload = json.loads(hue_config().to_json())
    payload[field] = value if not isinstance(value, tuple) else list(value)
    if value != float("inf"):
        with pytest.raises(ParameterError, match=word):
            RunConfig.from_json(json.dumps(payload))


def test_unknown_and_missing_fields_and_bad_json():
    payload = json.loads(hue_config().to_json())
    with pytest.raises(ParameterError, match="unknown field.*'colour'"):
        RunConfig.from_dict({**payload, "colour": "red"})
    del payload["epsilon"]
    with pytest.raises(ParameterError, match="missing field.*'epsilon'"):
        RunConfig.from_dict(payload)
    with pytest.raises(ParameterError, match="not valid JSON"):
        RunConfig.from_json("{not json")
    with pytest.raises(ParameterError, match="JSON object"):
        RunConfig.from_json("[1, 2]")
    with pytest.raises(ParameterError, match="not valid JSON"):
        RunConfig.from_json('{"epsilon": NaN}'.replace("NaN", "nan"))


def test_check_series_catches_other_data():
    config = hue_config()
    with pytest.raises(ParameterError, match="events"):
        config.check_series(sample("hue", n=999))
    upload = sample("hue", n=1000)
    hashed = hue_config(data="sha256:" + "0" * 64)
    with pytest.raises(ParameterError, match="hash"):
        hashed.check_series(upload)
    hue_config(data="sha256:" + upload.source_hash).check_series(upload)
    assert sample_reference("taxi", 3) == "sample:taxi:seed=3"
    taxi = hue_config(data=sample_reference("taxi", 3)).sample_series()
    assert taxi.frame.equals(sample("taxi", seed=3).frame)
    assert hue_config().sample_series().frame.equals(sample("hue").frame)
    with pytest.raises(ParameterError, match="load_series"):
        hashed.sample_series()


# ----------------------------------------------------------------------------- view: a window / aggregation of the data


def _hue_view(**view) -> RunConfig:
    return RunConfig(data="sample:hue", events=300, landmarks=(0, 5), schemes=("uniform",), mechanism="laplace",
                     epsilon=1.0, view=view)


def test_a_view_names_its_window_and_aggregation_of_the_whole_data():
    from lmdk.data import resample, sample

    cfg = _hue_view(start=40, aggregate="daily", how="sum")
    whole = sample("hue", n=None)
    expected = resample.window(resample.aggregate(whole, "daily", "sum"), 40, 300)
    got = cfg.sample_series()
    assert got.source_hash == expected.source_hash and len(got) == 300
    cfg.check_series(got)
    assert RunConfig.from_json(cfg.to_json()) == cfg  # round trip
    window = _hue_view(start=1_000)
    assert np.array_equal(window.sample_series().values, whole.values[1_000:1_300])


def test_no_view_is_the_first_events_and_a_trivial_view_is_none():
    from lmdk.data import sample

    assert _hue_view(start=0).view is None
    trivial = RunConfig.from_dict({**_hue_view().to_dict(), "view": {"start": 0, "aggregate": None, "how": None}})
    assert trivial.view is None and trivial.sample_series().source_hash == sample("hue", n=300).source_hash


@pytest.mark.parametrize("view, field", [({"start": -1}, "view.start"), ({"start": 1.5}, "view.start"),
                                         ({"aggregate": "weekly"}, "view.aggregate"),
                                         ({"how": "sum"}, "view.how"), ({"stop": 3}, "view must be"),
                                         ({"aggregate": "daily", "how": "max"}, "view.how")])
def test_a_bad_view_names_the_field(view, field):
    with pytest.raises(ParameterError, match=field):
        _hue_view(**view)


def test_a_view_beyond_the_data_is_refused_with_the_numbers():
    from lmdk.data import sample

    with pytest.raises(ParameterError, match="needs 300 from position"):
        _hue_view(start=10**6).view_of(sample("hue", n=None))


def test_landmark_origin_round_trips_and_an_unsaid_origin_keeps_the_old_json():
    cfg = hue_config(landmark_origin="data")
    assert RunConfig.from_json(cfg.to_json()) == cfg and json.loads(cfg.to_json())["landmark_origin"] == "data"
    assert "landmark_origin" not in json.loads(hue_config().to_json())  # older configs' JSON and digests unchanged


def test_a_config_without_landmark_origin_is_read_as_marked_while_viewing_and_refused_naming_the_confirmation():
    """Issue 53: nothing says an old config's positions were chosen without looking at the values."""
    from lmdk.errors import PolicyRefused
    from lmdk.exports.runconfig import config_landmarks

    old = RunConfig.from_dict({k: v for k, v in hue_config().to_dict().items() if k != "landmark_origin"})
    assert old.origin == "viewed" and old.data_derived
    assert hue_config(landmark_origin="viewed").data_derived and not hue_config(landmark_origin="declared").data_derived
    with pytest.raises(PolicyRefused, match=r"lmdk release --config old\.json --declared-landmarks"):
        config_landmarks(old, path="old.json")
    confirmed = config_landmarks(old, declared_landmarks=True)
    assert confirmed.kind == "declared" and "--declared-landmarks" in confirmed.rule
    assert list(confirmed.indices) == list(old.landmarks)
    said = config_landmarks(hue_config(landmark_origin="viewed"), allow_data_landmarks=True)
    assert said.kind == "unprotected" and "chart" in said.rule
    assert config_landmarks(hue_config(landmark_origin="declared")).kind == "declared"
    with pytest.raises(ParameterError, match="detector"):  # a detector's set cannot be confirmed as declared
        config_landmarks(hue_config(landmark_origin="data"), declared_landmarks=True)
    assert json.loads(hue_config(landmark_origin="viewed").to_json())["landmark_origin"] == "viewed"
