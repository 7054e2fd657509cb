"""Lockstep release of a batch of users == lmdk.schemes.release per user, byte for byte."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import lmdk
from lmdk import schemes
from lmdk.data import series as ds
from lmdk.landmarks import parse_rule
from lmdk.population import marks, seeding
from lmdk.population.batch import release_batch, valid_mask
from lmdk.relation import Calibration

USERS, WIDTH = 6, 40


def _batch(mechanism: str, rng):
    """A ragged padded batch: x, landmark mask, lengths."""
    lengths = rng.integers(3, WIDTH + 1, USERS)
    lengths[0] = WIDTH
    valid = valid_mask(lengths, WIDTH)
    x = rng.normal(0.0, 3.0, (USERS, WIDTH, 2) if mechanism == "planar_laplace" else (USERS, WIDTH))
    mask = (rng.random((USERS, WIDTH)) < 0.3) & valid
    mask[1] = valid[1]  # one user whose every event is a landmark
    mask[2] = False  # one without landmarks
    if mechanism == "randomized_response":
        x = mask.astype(float)
    x[~valid] = 0.0
    return x, mask, lengths


def _same(a, b) -> bool:
    """Equal dtype, shape and bytes."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _calibration(options: dict) -> Calibration:
    """The release engine's calibration of release_batch's keyword options."""
    return Calibration(options.get("sensitivity", 1.0), options.get("sampler", "textbook"), options.get("value_range"),
                       options.get("bound"))


@pytest.mark.parametrize("mechanism", ["laplace", "planar_laplace", "randomized_response"])
@pytest.mark.parametrize("sampler", ["textbook", "snapping", "discrete"])
@pytest.mark.parametrize("scheme", schemes.SCHEMES)
def test_lockstep_equals_per_user_release(mechanism, sampler, scheme):
    rng = np.random.default_rng(zlib.crc32(f"{mechanism}/{sampler}/{scheme}".encode()))
    x, mask, lengths = _batch(mechanism, rng)
    w = 3 if scheme == "w-event" else None
    options = {"sampler": sampler, "bound": 6.0}
    if sampler == "discrete":  # the exact discrete Laplace: a public range instead of a bound
        options = {"sampler": sampler, "value_range": (-6.0, 6.0)}
        if mechanism == "laplace":
            options["sensitivity"] = 12.0
        if mechanism == "planar_laplace":  # values only: both refuse, naming the sampler to use
            with pytest.raises(ValueError, match="snapping"):
                release_batch(x, mask, lengths, scheme, 0.7, mechanism=mechanism, w=w, **options,
                              generators=seeding.generators(11, scheme, range(USERS)))
            with pytest.raises(ValueError, match="snapping"):
                schemes.release_engine(x[0], mask[0], scheme, 0.7, _calibration(options), mechanism=mechanism, w=w)
            return
    rel = release_batch(x, mask, lengths, scheme, 0.7, mechanism=mechanism, w=w, **options,
                        generators=seeding.generators(11, scheme, range(USERS)))
    for r, gen in enumerate(seeding.generators(11, scheme, range(USERS))):
        n = lengths[r]
        one = schemes.release_engine(x[r, :n], mask[r, :n], scheme, 0.7, _calibration(options), mechanism=mechanism,
                                     rng=gen, w=w)  # the engine: every sampler, as the population's batch takes them
        for field in ("values", "budgets", "published", "landmarks"):
            assert _same(getattr(rel, field)[r, :n], getattr(one, field)[0]), (r, field)


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_lockstep_discrete_with_rare_paths_equals_per_user_release(scheme, monkeypatch):
    """The discrete sampler's rare paths (more bits of the exponential, restarts at −0) also stay per user: with
    a 2-bit first draw and a tiny range (integer scale t = 1..2) they happen at most steps."""
    from lmdk import discrete_laplace

    monkeypatch.setattr(discrete_laplace, "FRACTION_BITS", 2)
    monkeypatch.setattr(discrete_laplace, "GRID_BITS", -2)
    rng = np.random.default_rng(17)
    x, mask, lengths = _batch("laplace", rng)
    options = {"sampler": "discrete", "value_range": (-6.0, 6.0), "sensitivity": 12.0}
    rel = release_batch(x, mask, lengths, scheme, 5.0, **options, generators=seeding.generators(4, scheme,
                                                                                                 range(USERS)))
    for r, gen in enumerate(seeding.generators(4, scheme, range(USERS))):
        n = lengths[r]
        one = schemes.release_engine(x[r, :n], mask[r, :n], scheme, 5.0, _calibration(options), rng=gen)
        assert _same(rel.values[r, :n], one.values[0]), r


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_lockstep_with_dummy_landmarks(scheme):
    rng = np.random.default_rng(5)
    x, mask, lengths = _batch("laplace", rng)
    dummies = {"method": "random", "share": 0.1}
    rel = release_batch(x, mask, lengths, scheme, 1.0, dummies=dummies,
                        generators=seeding.generators(2, scheme, range(USERS)))
    assert rel.selection_epsilon == pytest.approx(0.1)
    for r, gen in enumerate(seeding.generators(2, scheme, range(USERS))):
        n = lengths[r]
        one = schemes.release(x[r, :n], mask[r, :n], scheme, 1.0,
                              protects=lmdk.relation.PAPERS_UNIT_CHANGE, rng=gen, dummies=dummies)
        assert _same(rel.values[r, :n], one.values[0]) and _same(rel.landmarks[r, :n], one.landmarks[0])


def test_padding_is_inert():
    rng = np.random.default_rng(9)
    x, mask, lengths = _batch("laplace", rng)
    rel = release_batch(x, mask, lengths, "adaptive", 1.0, generators=seeding.generators(1, "adaptive", range(USERS)))
    pad = ~valid_mask(lengths, WIDTH)
    assert not rel.published[pad].any() and not rel.budgets[pad].any() and not rel.landmarks[pad].any()


@pytest.mark.parametrize("text", ["percentile:20", "percentile:35:above", "below:0", "above:1.5", "none", "share:10"])
def test_batch_landmarks_equal_the_rule_per_user(text):
    rng = np.random.default_rng(3)
    x, _, lengths = _batch("laplace", rng)
    x = np.round(x)  # ties: broken by position, as by_percentile does
    rule = parse_rule(text)
    valid = valid_mask(lengths, WIDTH)
    mask = marks.values_mask(rule, x, valid, lengths)
    series = [ds.from_values(x[r, :n]) for r, n in enumerate(lengths)]
    expected = marks.per_user_mask(rule, series, WIDTH)
    if mask is None:
        assert text.startswith("share")
        return
    assert np.array_equal(mask, expected)


def test_one_generator_per_user_is_required():
    rng = np.random.default_rng(0)
    x, mask, lengths = _batch("laplace", rng)
    with pytest.raises(ValueError, match="one Generator per user"):
        release_batch(x, mask, lengths, "uniform", 1.0, generators=seeding.generators(0, "uniform", range(2)))
    with pytest.raises(ValueError, match="shortest series"):
        release_batch(x, mask, lengths, "w-event", 1.0, w=WIDTH, generators=seeding.generators(0, "w-event",
                                                                                                 range(USERS)))


@pytest.mark.parametrize("text", ["percentile:20", "percentile:50:above", "percentile:0", "percentile:100"])
def test_equal_length_percentiles_with_ties_equal_the_rule(text):
    rng = np.random.default_rng(8)
    x = rng.integers(0, 4, (USERS, WIDTH)).astype(float)  # many ties
    lengths = np.full(USERS, WIDTH)
    rule = parse_rule(text)
    mask = marks.values_mask(rule, x, valid_mask(lengths, WIDTH), lengths)
    expected = marks.per_user_mask(rule, [ds.from_values(row) for row in x], WIDTH)
    assert np.array_equal(mask, expected)


@pytest.mark.parametrize("epsilon", [0.05, 2.0, 50.0])
def test_the_user_level_yardstick_is_the_clamped_error_the_release_makes(epsilon):
    """With a public range the exports clamp, so user level's error is at most the range's width (12.5 kWh on
    0–25 kWh at tiny ε), never Δn/ε (25,000 at ε = 1, n = 1,000): the summary's yardstick must be what a
    user-level release of the same values actually measures."""
    from lmdk.population.summary import batch_summary

    rng = np.random.default_rng(5)
    users, n = 400, 50
    x = np.clip(rng.gamma(2.0, 4.0, (users, n)), 0, 30)  # some readings above the range's top
    lengths = np.full(users, n)
    mask = np.zeros((users, n), dtype=bool)
    rel = release_batch(x, mask, lengths, "user", epsilon, sensitivity=25.0, sampler="discrete",
                        value_range=(0.0, 25.0), generators=seeding.generators(3, "user", list(range(users))))
    summary = batch_summary(list(range(users)), x, mask, rel)
    measured, predicted = summary["mae"].mean(), summary["user_level_mae"].mean()
    spread = summary["mae"].std() / np.sqrt(users)
    assert predicted <= 25.0 + 5.0 and abs(measured - predicted) < 4 * spread + 0.002 * predicted
