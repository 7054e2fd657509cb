"""lmdk.schemes.draw_noise and ``release(discrete_noise=…)``: the exact discrete Laplace's budget-free parts drawn
once give the release the Generator gives, at every ε, every landmark scheme, as often as they are used again."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmdk import discrete_laplace as dl
from lmdk import relation, schemes
from lmdk.discrete_lockstep import LockstepNoise
from lmdk.errors import ParameterError

METER = relation.public_range(0.0, 25.0, "kWh")


def series(n: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A meter-like series and every fourth event a landmark."""
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(8.0, 5.0, n), -2.0, 30.0), np.arange(0, n, 4)


@pytest.mark.parametrize("scheme", schemes.SCHEMES)
def test_parts_drawn_ahead_give_the_generators_release_at_every_epsilon(scheme):
    x, landmarks = series(120)
    noise = schemes.draw_noise(np.random.default_rng(11), 7, x.size)
    for eps in (0.05, 0.7, 3.0, 0.7):  # the same ε twice: a second use starts the rows' Generators again
        direct = schemes.release(x, landmarks, scheme, eps, protects=METER, repetitions=7,
                                 rng=np.random.default_rng(11), w=5)
        ahead = schemes.release(x, landmarks, scheme, eps, protects=METER, repetitions=7, w=5, discrete_noise=noise)
        np.testing.assert_array_equal(ahead.values, direct.values)
        np.testing.assert_array_equal(ahead.budgets, direct.budgets)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 6), steps=st.integers(1, 25), seed=st.integers(0, 2**32 - 1),
       per_cell=st.booleans(), share=st.floats(0.0, 1.0))
def test_cells_at_once_are_the_steps_one_after_another(rows, steps, seed, per_cell, share):
    """Where a floor is decided by the parts alone (no more bits of F, no restart), ``cells`` gives what ``step``
    gives; the rare cells are finished in batches per row (their law: the tests below)."""
    rng = np.random.default_rng(seed)
    scale = rng.choice([1, 2, 3, 1000, 2**40 + 7], size=(rows, steps) if per_cell else steps)
    published = rng.random((rows, steps)) < share
    noise = LockstepNoise.from_generator(np.random.default_rng(seed), rows, steps)
    got = noise.fresh().cells(scale, published)
    np.testing.assert_array_equal(got[~published], 0)
    stepped, one = np.zeros((rows, steps), dtype=np.int64), noise.fresh()
    full = np.broadcast_to(scale, (rows, steps)).astype(np.int64)
    v, f, b = (part.T for part in noise.parts())
    y, unsure = dl.floor_scaled(full, v, f)
    plain = published & ~unsure & ~((b == 1) & (y == 0))
    for j in range(steps):
        who = np.flatnonzero(published[:, j])
        if who.size:
            stepped[who, j] = one.step(j, full[who, j], who)
    np.testing.assert_array_equal(got[plain], stepped[plain])


@pytest.mark.parametrize("t", [1, 2])
def test_restarts_keep_the_discrete_laplace(t):
    """At t = 1..2 about a fifth of the cells restart (B = 1, Y = 0): χ² against Lap_Z(t); t·1.4 rejected."""
    from scipy import stats

    reps, n = 2_000, 20
    z = LockstepNoise.from_generator(np.random.default_rng(8), reps, n).cells(
        np.full(n, t), np.ones((reps, n), dtype=bool)).ravel()
    support = np.arange(-8, 9)

    def pvalue(scale: float) -> float:
        p = np.exp(-np.abs(np.arange(-400, 401)) / scale)
        p /= p.sum()
        inner = p[400 - 8:400 + 9]
        expected = np.append(inner, 1 - inner.sum()) * z.size
        observed = np.append([(z == k).sum() for k in support], (np.abs(z) > 8).sum())
        return stats.chisquare(observed, expected).pvalue

    assert pvalue(t) > 1e-6
    assert pvalue(t * 1.4) < 1e-6


def test_floors_that_need_more_bits_keep_the_law():
    """At t ≈ 3·10⁹ most floors need more bits of F than the parts hold: z/t against Laplace(1) (KS); a scale
    1.2× wrong rejected."""
    from scipy import stats

    t = 3_000_000_017
    z = LockstepNoise.from_generator(np.random.default_rng(9), 500, 40).cells(
        np.full(40, t), np.ones((500, 40), dtype=bool)).ravel() / t
    assert stats.kstest(z, stats.laplace.cdf).pvalue > 1e-6
    assert stats.kstest(z, stats.laplace(scale=1.2).cdf).pvalue < 1e-6


def test_packed_parts_give_the_same_noise_in_a_third_of_the_memory():
    noise = LockstepNoise.from_generator(np.random.default_rng(5), 30, 1000)
    packed = noise.pack()
    assert sum(a.nbytes for a in packed[:3]) * 2.4 < sum(a.nbytes for a in noise.parts())
    scale = np.full(1000, 3, dtype=np.int64)
    everywhere = np.ones((30, 1000), dtype=bool)
    np.testing.assert_array_equal(LockstepNoise.unpack(packed).cells(scale, everywhere),
                                  noise.fresh().cells(scale, everywhere))


def test_noise_that_does_not_fit_the_release_is_refused():
    x, landmarks = series(50)
    noise = schemes.draw_noise(np.random.default_rng(1), 4, 50)
    with pytest.raises(ParameterError, match="draw_noise"):
        schemes.release(x, landmarks, "uniform", 1.0, protects=METER, repetitions=5, discrete_noise=noise)
    with pytest.raises(ParameterError, match="public range"):
        schemes.release(x, landmarks, "uniform", 1.0, protects=relation.PAPERS_UNIT_CHANGE, repetitions=4,
                        discrete_noise=noise)
    with pytest.raises(ParameterError, match="dummies"):
        schemes.release(x, landmarks, "uniform", 1.0, protects=METER, repetitions=4, discrete_noise=noise,
                        dummies={})


def test_the_law_is_still_the_discrete_laplace():
    """A uniform release's noise at one column: χ² against Lap_Z(t), and a wrong scale (t + 40 %) rejected."""
    from scipy import stats

    reps, t = 40_000, 3
    noise = LockstepNoise.from_generator(np.random.default_rng(2), reps, 1)
    z = noise.cells(np.array([t]), np.ones((reps, 1), dtype=bool))[:, 0]
    support = np.arange(-12, 13)

    def pvalue(scale: float) -> float:
        p = np.exp(-np.abs(support) / scale)
        p /= np.exp(-np.abs(np.arange(-400, 401)) / scale).sum()
        expected = np.append(p, 1 - p.sum()) * reps
        observed = np.append([(z == k).sum() for k in support], (np.abs(z) > 12).sum())
        return stats.chisquare(observed, expected).pvalue

    assert pvalue(t) > 1e-6
    assert pvalue(t * 1.4) < 1e-6
