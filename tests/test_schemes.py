"""Tests of lmdk.schemes: allocations (§3.2, Fig. 3), Theorem 2 per scheme, noise laws, Adaptive, dummies hook."""
from __future__ import annotations

import sys
import types
from dataclasses import FrozenInstanceError, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import lmdk
from lmdk import schemes
from lmdk.errors import ParameterError
from lmdk.privacy import landmark_loss, satisfies_landmark_privacy

ALPHA = 1e-4
FIG3_L = [0, 2, 4, 7]  # o1, o3, o5, o8 of Figure 3 (0-based), n = 8
MECH = ("laplace", "randomized_response", "planar_laplace")


def _series(mechanism: str, n: int, rng) -> np.ndarray:
    gen = np.random.default_rng(rng)
    if mechanism == "laplace":
        return gen.normal(1.0, 2.0, n)
    if mechanism == "randomized_response":
        return gen.integers(0, 2, n)
    return np.cumsum(gen.normal(0, 300, (n, 2)), axis=0)


# --- allocate ------------------------------------------------------------------------------------

def test_allocate_matches_figure3_and_baselines():
    assert np.allclose(schemes.allocate("uniform", 8, FIG3_L, 1.0), 0.2)
    assert np.allclose(schemes.allocate("skip", 8, FIG3_L, 1.0), [0, 1, 0, 1, 0, 1, 1, 0])
    assert np.allclose(schemes.allocate("event", 8, FIG3_L, 2.0), 2.0)
    assert np.allclose(schemes.allocate("user", 8, FIG3_L, 2.0), 0.25)
    assert np.allclose(schemes.allocate("w-event", 8, FIG3_L, 2.0, w=4), 0.5)
    assert np.allclose(schemes.allocate("w-event", 8, FIG3_L, 2.0), 0.25)  # default w = n
    assert np.allclose(schemes.allocate("adaptive", 8, FIG3_L, 1.0), 0.2)
    per_rep = schemes.allocate("uniform", 4, np.array([[True, False, False, False], [True, True, True, False]]), 1.0)
    assert np.allclose(per_rep, [[0.5] * 4, [0.25] * 4])
    assert np.allclose(schemes.allocate("uniform", 5, np.arange(5), 1.0), 0.2)  # L = T: user level (§4.2.1)
    assert np.allclose(schemes.allocate("uniform", 5, [], 1.0), 1.0)  # L = ∅: event level


def test_allocate_validation():
    with pytest.raises(ParameterError, match="scheme"):
        schemes.allocate("landmark", 8, FIG3_L, 1.0)
    with pytest.raises(ParameterError, match="w "):
        schemes.allocate("w-event", 8, FIG3_L, 1.0, w=9)
    assert np.allclose(schemes.allocate("uniform", 8, FIG3_L, 1.0, w=9), 0.2)  # w only matters to w-event
    with pytest.raises(ParameterError, match="epsilon"):
        schemes.allocate("uniform", 8, FIG3_L, 0.0)
    with pytest.raises(ParameterError, match="landmarks"):
        schemes.allocate("uniform", 8, [8], 1.0)


# --- Theorem 2 for every scheme --------------------------------------------------------------------

@st.composite
def cases(draw):
    n = draw(st.integers(1, 60))
    lm = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)))
    eps = draw(st.floats(0.01, 10))
    mechanism = draw(st.sampled_from(MECH))
    seed = draw(st.integers(0, 2**32 - 1))
    return n, lm, eps, mechanism, seed


@given(cases(), st.sampled_from([s for s in schemes.SCHEMES if s != "event"]))
def test_every_scheme_but_event_satisfies_theorem2(case, scheme):
    n, lm, eps, mechanism, seed = case
    rel = schemes.release(_series(mechanism, n, seed), lm, scheme, eps,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism=mechanism, repetitions=3, rng=seed)
    assert satisfies_landmark_privacy(rel.budgets, lm, eps)
    assert satisfies_landmark_privacy(rel.budgets, rel.landmarks, eps)
    assert np.all(rel.published == (rel.budgets > 0))


@given(st.integers(1, 50), st.integers(1, 4), st.sampled_from(MECH), st.integers(0, 2**32 - 1),
       st.sampled_from([s for s in schemes.SCHEMES if s != "event"]))
def test_theorem2_holds_per_repetition_with_own_landmark_sets(n, reps, mechanism, seed, scheme):
    gen = np.random.default_rng(seed)
    mask = gen.random((reps, n)) < gen.random((reps, 1))  # each repetition its own L′ and density
    series = _series(mechanism, n, seed)
    rel = schemes.release(series, mask, scheme, 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism=mechanism, repetitions=reps, rng=gen)
    assert np.array_equal(rel.landmarks, mask)
    assert satisfies_landmark_privacy(rel.budgets, mask, 1.0)


@given(cases())
def test_event_level_fails_once_landmarks_exist(case):
    n, lm, eps, mechanism, seed = case
    rel = schemes.release(_series(mechanism, n, seed), lm, "event", eps,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism=mechanism, rng=seed)
    violated = len(lm) > 0 and not (n == 1)  # n = 1, L = T: the single event is all there is
    assert satisfies_landmark_privacy(rel.budgets, lm, eps) is not violated


@given(st.integers(2, 40), st.data())
def test_w_event_satisfies_theorem2_iff_window_covers_landmarks(n, data):
    lm = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n)))
    w = data.draw(st.integers(1, n))
    budgets = schemes.allocate("w-event", n, lm, 1.0, w=w)
    needed = len(lm) + (1 if len(lm) < n else 0)
    assert satisfies_landmark_privacy(budgets, lm, 1.0) == (needed <= w)


@given(st.integers(2, 80), st.floats(0, 1), st.floats(0.05, 5), st.integers(0, 2**32 - 1))
def test_adaptive_on_random_data_spends_at_most_epsilon(n, fraction, eps, seed):
    gen = np.random.default_rng(seed)
    series = gen.standard_cauchy(n) * gen.uniform(0.1, 100)  # heavy-tailed: forces many trend changes
    lm = np.flatnonzero(gen.random(n) < fraction)
    rel = schemes.release(series, lm, "adaptive", eps,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=5, rng=gen)
    loss = landmark_loss(rel.budgets, lm)
    assert loss.max() <= eps * (1 + 1e-9)
    if 0 < len(lm) < n:  # the reservation is used up at the end of the series
        assert np.all(rel.budgets[:, lm].sum(axis=1) + rel.budgets[:, ~np.isin(np.arange(n), lm)].max(axis=1)
                      <= eps * (1 + 1e-9))


# --- what is released ---------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", schemes.SCHEMES)
def test_published_noise_is_laplace_with_the_spent_budget(scheme):
    n, reps, delta = 200, 150, 2.0
    x = np.linspace(0, 5, n)
    lm = np.arange(0, n, 3)
    rel = schemes.release(x, lm, scheme, 1.0,
                          protects=lmdk.relation.Relation("papers", d=delta), repetitions=reps, rng=4)
    z = ((rel.values - x) * rel.budgets / delta)[rel.published]
    assert z.size > 5_000
    assert stats.kstest(z, stats.laplace().cdf).pvalue > ALPHA
    assert stats.kstest(z, stats.laplace(scale=1.3).cdf).pvalue < ALPHA  # power: 30 % wrong scale


@pytest.mark.parametrize("scheme", ["uniform", "adaptive"])
def test_planar_and_rr_noise_follow_the_spent_budget(scheme):
    n, reps = 200, 100
    traj = _series("planar_laplace", n, 1)
    rel = schemes.release(traj, np.arange(0, n, 4), scheme, 0.01,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="planar_laplace", repetitions=reps,
                          rng=2)
    assert rel.values.shape == (reps, n, 2)
    r = (np.hypot(*(rel.values - traj).transpose(2, 0, 1)) * rel.budgets)[rel.published]
    assert stats.kstest(r, stats.gamma(2).cdf).pvalue > ALPHA
    assert stats.kstest(r, stats.gamma(2, scale=1.3).cdf).pvalue < ALPHA
    bits = _series("randomized_response", n, 3)
    rel = schemes.release(bits, np.arange(0, n, 4), scheme, 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="randomized_response",
                          repetitions=reps, rng=5)
    flipped = (rel.values != bits)[rel.published]
    expected = (1 / (1 + np.exp(rel.budgets)))[rel.published].sum()
    assert abs(flipped.sum() - expected) < 5 * np.sqrt(expected)


def test_skip_republishes_like_figure3b_and_starts_from_the_public_default():
    x = np.arange(8.0) * 10
    rel = schemes.release(x, FIG3_L, "skip", 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=4, rng=0, default=-1.0)
    v = rel.values
    assert np.all(v[:, 0] == -1.0)  # o0: nothing released yet
    assert np.all(v[:, 2] == v[:, 1]) and np.all(v[:, 4] == v[:, 3]) and np.all(v[:, 7] == v[:, 6])
    assert np.array_equal(rel.published[0], [False, True, False, True, False, True, True, False])
    traj = schemes.release(_series("planar_laplace", 8, 0), FIG3_L, "skip", 0.1,
                           protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="planar_laplace", rng=0)
    assert np.all(traj.values[0, 0] == 0.0) and np.all(traj.values[0, 2] == traj.values[0, 1])


def test_adaptive_approximates_stable_data_and_samples_evolving_data():
    n = 400
    flat = schemes.release(np.zeros(n), [], "adaptive", 50.0,
                           protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=20, rng=1)
    assert flat.published.mean() < 0.3  # stable: the sampling interval grows
    jumps = np.where(np.arange(n) % 2 == 0, 0.0, 1e4)
    moving = schemes.release(jumps, [], "adaptive", 50.0,
                             protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=20, rng=1)
    assert moving.published.mean() > 0.9  # evolving: it keeps sampling every timestamp
    approx = ~flat.published[:, 1:]
    assert np.all(flat.values[:, 1:][approx] == flat.values[:, :-1][approx])  # republishes the last release


def test_adaptive_redistributes_budget_of_approximated_landmarks_to_later_regular_events():
    n = 300
    lm = np.arange(0, n, 2)
    rel = schemes.release(np.zeros(n), lm, "adaptive", 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=10, rng=3)
    reserve = 1.0 / (len(lm) + 1)
    regular_budgets = rel.budgets[:, 1::2]
    assert np.all(rel.budgets[rel.published] >= reserve * (1 - 1e-12))
    assert regular_budgets[:, -20:].max() > 10 * reserve
    assert np.allclose(rel.budgets[:, lm][rel.published[:, lm]], reserve)


def test_adaptive_with_only_landmarks_gives_them_user_level_share():
    rel = schemes.release(np.zeros(30), np.arange(30), "adaptive", 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=3, rng=0)
    assert satisfies_landmark_privacy(rel.budgets, np.arange(30), 1.0)
    assert rel.budgets[rel.published].min() >= 1 / 30 * (1 - 1e-12)


def test_release_shapes_determinism_and_immutability():
    x = _series("laplace", 50, 0)
    a = schemes.release(x, [1, 5], "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=7, rng=11)
    b = schemes.release(x, [1, 5], "uniform", 1.0,
                        protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=7, rng=np.random.default_rng(11))
    assert a.values.shape == a.budgets.shape == a.published.shape == a.landmarks.shape == (7, 50)
    assert np.array_equal(a.values, b.values) and a.repetitions == 7 and a.n == 50
    assert a.selection_epsilon == 0.0 and a.publishing_epsilon == 1.0 and a.scheme == "uniform"
    with pytest.raises(ValueError):
        a.values[0, 0] = 1.0
    with pytest.raises(FrozenInstanceError):
        a.scheme = "user"
    assert schemes.release(x, [], "w-event", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, w=5).w == 5


def test_per_repetition_landmark_masks():
    mask = np.zeros((2, 10), dtype=bool)
    mask[0, :5] = True
    rel = schemes.release(np.zeros(10), mask, "uniform", 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=2, rng=0)
    assert np.allclose(rel.budgets[0], 1 / 6) and np.allclose(rel.budgets[1], 1.0)
    with pytest.raises(ParameterError, match="repetitions"):
        schemes.release(np.zeros(10), mask, "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=3)


def test_release_validation():
    x = np.zeros(5)
    with pytest.raises(ParameterError, match="mechanism"):
        schemes.release(x, [], "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="gauss")
    with pytest.raises(ParameterError, match="series"):
        schemes.release(np.zeros((5, 2)), [], "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE)
    with pytest.raises(ParameterError, match="series"):
        schemes.release([0, 2], [], "uniform", 1.0,
                        protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="randomized_response")
    with pytest.raises(ParameterError, match="series"):
        schemes.release([0.0, np.nan], [], "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE)
    with pytest.raises(ParameterError, match="sensitivity"):
        schemes.release([0, 1, 0], [], "uniform", 1.0, protects=lmdk.relation.miscalibrated(
            lmdk.relation.FLIP, noise_sensitivity=2.0), mechanism="randomized_response")

    with pytest.raises(ParameterError, match="repetitions"):
        schemes.release(x, [], "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=0)
    with pytest.raises(ParameterError, match="default"):
        schemes.release(x, [0], "skip", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, default=[1.0, 2.0])
    with pytest.raises(ParameterError, match="epsilon"):
        schemes.release(x, [0], "skip", np.nan, protects=lmdk.relation.PAPERS_UNIT_CHANGE)


# --- utility on the bundled HUE sample (§4.2.1, Fig. 7b) -----------------------------------------

def test_planar_sensitivity_is_the_protected_radius():
    """Δ = r metres: ε/r per metre, so the same draws land r times as far."""
    xy = np.zeros((50, 2))
    one = schemes.release(xy, [], "event", 1.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, mechanism="planar_laplace", rng=3, repetitions=4)
    wide = schemes.release(xy, [], "event", 1.0,
                           protects=lmdk.relation.radius(200.0), mechanism="planar_laplace", rng=3, repetitions=4)
    assert np.allclose(np.asarray(wide.values), 200.0 * np.asarray(one.values))


def test_hue_mae_ordering_at_epsilon_one():
    csv = Path(__file__).resolve().parents[1] / "assets" / "hue_residential_1.csv"
    kwh = pd.read_csv(csv)["energy_kWh"].to_numpy()[:1000]
    for threshold in (0.54, 0.68, 0.88, 1.12):
        lm = kwh < threshold
        mae = {s: np.abs(schemes.release(kwh, lm, s, 1.0,
                                         protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=20,
                                         rng=7).values - kwh).mean()
               for s in ("event", "user", "uniform", "adaptive")}
        assert mae["event"] <= mae["uniform"] <= mae["user"]
        assert mae["adaptive"] < 0.8 * mae["uniform"]


# --- dummy landmarks hook --------------------------------------------------------------------------

@dataclass(frozen=True)
class FakeSpec:
    method: str = "fake"
    share: float = 0.1
    utility: str = "position"


def _install_fake_dummies(monkeypatch, calls):
    def landmark_sets_for_release(n, landmarks, epsilon, spec, repetitions, rng):
        calls.append((n, np.array(landmarks), epsilon, spec, repetitions))
        mask = np.zeros((repetitions, n), dtype=bool)
        mask[:, landmarks] = True
        extra = rng.integers(0, n, repetitions)  # one random dummy per repetition
        mask[np.arange(repetitions), extra] = True
        return mask, (1 - spec.share) * epsilon, spec.share * epsilon

    fake = types.ModuleType("lmdk.dummies.selection")
    fake.DummySpec = FakeSpec
    fake.landmark_sets_for_release = landmark_sets_for_release
    monkeypatch.setitem(sys.modules, "lmdk.dummies.selection", fake)


def test_dummies_hook_runs_the_scheme_on_l_prime(monkeypatch):
    calls = []
    _install_fake_dummies(monkeypatch, calls)
    n, lm = 40, [3, 10, 11]
    rel = schemes.release(np.zeros(n), lm, "uniform", 2.0,
                          protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=6, rng=1, dummies=FakeSpec())
    assert calls and np.array_equal(calls[0][1], lm) and calls[0][2] == 2.0 and calls[0][4] == 6
    assert rel.selection_epsilon == pytest.approx(0.2) and rel.publishing_epsilon == pytest.approx(1.8)
    assert np.all(rel.landmarks[:, lm])
    for r in range(6):
        assert np.allclose(rel.budgets[r], 1.8 / (rel.landmarks[r].sum() + 1))
    assert satisfies_landmark_privacy(rel.budgets, rel.landmarks, 1.8)
    assert satisfies_landmark_privacy(rel.budgets, lm, 2.0 - rel.selection_epsilon)
    again = schemes.release(np.zeros(n), lm, "adaptive", 2.0,
                            protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=6, rng=1, dummies={"share": 0.1})
    assert satisfies_landmark_privacy(again.budgets, again.landmarks, again.publishing_epsilon)


def test_dummies_hook_output_is_checked(monkeypatch):
    def bad(n, landmarks, epsilon, spec, repetitions, rng):
        return np.zeros((repetitions, n), dtype=bool), epsilon, 0.0  # drops the real landmarks

    fake = types.ModuleType("lmdk.dummies.selection")
    fake.DummySpec = FakeSpec
    fake.landmark_sets_for_release = bad
    monkeypatch.setitem(sys.modules, "lmdk.dummies.selection", fake)
    with pytest.raises(RuntimeError, match="containing L"):
        schemes.release(np.zeros(5), [1], "uniform", 1.0, protects=lmdk.relation.PAPERS_UNIT_CHANGE, dummies=FakeSpec())
    with pytest.raises(ParameterError, match="dummies"):
        schemes.release(np.zeros(5), np.ones((2, 5), dtype=bool), "uniform", 1.0,
                        protects=lmdk.relation.PAPERS_UNIT_CHANGE, repetitions=2, dummies=FakeSpec())
