"""The exact discrete Laplace (lmdk.discrete_laplace): its law, its calibration, what an attacker sees, the schemes."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

import lmdk
from lmdk import discrete_laplace as dl
from lmdk import privacy, schemes
from lmdk.discrete_lockstep import LockstepNoise
from lmdk.errors import ParameterError

ALPHA = 1e-6  # false alarms are rare; every law test has a power check that a wrong law is rejected
N = 200_000


def _cdf(z, t, s=1):
    """P(Z ≤ z) for Lap_Z(t/s), q = e^(−s/t): q^(−z)/(1+q) below 0, 1 − q^(z+1)/(1+q) from 0."""
    q = np.exp(-s / t)
    z = np.asarray(z, dtype=float)
    return np.where(z < 0, q ** np.abs(z) / (1 + q), 1 - q ** (np.maximum(z, 0) + 1) / (1 + q))


def _chi2(z, t, s=1, bins=60):
    """χ² p-value of integer samples z against Lap_Z(t/s), on integer bins of about equal mass."""
    inner = np.unique(np.round(stats.laplace.ppf(np.linspace(0, 1, bins + 1)[1:-1], scale=t / s)))
    edges = np.concatenate(([-np.inf], inner, [np.inf]))  # bin i: edges[i] < z ≤ edges[i+1]
    probs = np.diff(np.concatenate(([0.0], _cdf(inner, t, s), [1.0])))
    observed = np.histogram(z, bins=np.concatenate(([-np.inf], inner + 0.5, [np.inf])))[0]
    keep = probs * len(z) >= 5
    expected = probs * len(z)
    extra = expected[~keep].sum()
    observed = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(expected[keep], extra)
    if extra == 0:
        observed, expected = observed[:-1], expected[:-1]
    assert len(edges) > 2
    return stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


@pytest.mark.parametrize(("t", "s"), [(1, 1), (3, 1), (10, 3), (2, 5), (1500, 1), (1537, 1024)])
def test_discrete_laplace_has_the_exact_pmf(t, s):
    z = dl.discrete_laplace(t, s, np.random.default_rng(t * 31 + s), size=N)
    assert z.dtype == np.int64
    assert _chi2(z, t, s) > ALPHA
    assert _chi2(z, t * 1.2, s) < ALPHA  # power: a 20 % wrong scale is rejected


def test_the_rare_paths_keep_the_law(monkeypatch):
    """More bits of the exponential (cells straddling a multiple of 1/t) and restarts at −0 are exact too: with a
    2-bit first draw most samples refine; at t = 2^40 every sample does (the default 32 bits never suffice)."""
    monkeypatch.setattr(dl, "FRACTION_BITS", 2)
    for t, s in ((3, 1), (10, 3), (1, 1)):
        z = dl.discrete_laplace(t, s, np.random.default_rng(t), size=N // 2)
        assert _chi2(z, t, s) > ALPHA and _chi2(z, t * 1.2, s) < ALPHA
    gen = np.random.default_rng(8)  # a lockstep row's restart: the same sampler one draw at a time
    z = np.array([dl.scalar_laplace(5, 2, gen) for _ in range(20_000)])
    assert _chi2(z, 5, 2) > ALPHA and _chi2(z, 6, 2) < ALPHA
    monkeypatch.setattr(dl, "FRACTION_BITS", 32)
    t = 10**8  # 2 % of the cells straddle: their next digits come from the two numbers drawn per unfinished entry
    z = dl.discrete_laplace(t, 1, np.random.default_rng(9), size=N // 2)
    assert _chi2(z, t, bins=20) > ALPHA and _chi2(z, t * 1.2, bins=20) < ALPHA
    t = 2**40
    z = dl.discrete_laplace(t, 1, np.random.default_rng(7), size=20_000)
    assert _chi2(z, t, bins=20) > ALPHA and _chi2(z, t * 1.2, bins=20) < ALPHA


def test_lockstep_noise_has_the_same_law_per_row():
    """Adaptive's step-by-step draws (parts drawn ahead, the floor at each step's t) follow Lap_Z(t) per row."""
    scales = np.repeat([1, 3, 1500, 7], [2, 4, 10, 6])
    steps = 12_000
    noise = LockstepNoise.from_generator(np.random.default_rng(3), len(scales), steps)
    z = np.array([noise.step(j, scales) for j in range(steps)])
    for t in np.unique(scales):
        sample = z[:, scales == t].ravel()
        assert _chi2(sample, t) > ALPHA and _chi2(sample, t * 1.2) < ALPHA, t
    half = np.array([noise.step(j, scales[:2] * 2, np.array([1, 3])) for j in range(2000)])  # a subset of rows
    assert half.shape == (2000, 2)


def test_lockstep_rows_depend_on_their_own_generator_only():
    lengths = np.array([30, 50, 10])
    gens = [np.random.default_rng(s) for s in (5, 6, 7)]
    batch = LockstepNoise.from_generators(gens, lengths, 50)
    steps = [batch.step(j, np.array([1, 2, 3])) for j in range(50)]
    for r, seed in enumerate((5, 6, 7)):
        one = LockstepNoise.from_generator(np.random.default_rng(seed), 1, lengths[r])
        alone = [one.step(j, np.array([r + 1]))[0] for j in range(lengths[r])]
        assert [s[r] for s in steps[:lengths[r]]] == alone


def test_one_in_k_is_exact_and_rejects_the_uneven_tail():
    """Bernoulli(1/K) from 32-bit numbers h: h ≥ K·⌊2^32/K⌋ is rejected (the next number is used), then h < ⌊2^32/K⌋:
    exactly 1/K. A crafted stream takes the rejection path; a long one has the right frequency for every K."""
    from lmdk import discrete_laplace_kernel as kernel

    q = 2**32 // 3
    stream = np.array([2**32 - 1, q - 1, q], dtype=np.uint32)  # 2^32 − 1 ≥ 3q: rejected
    assert kernel._one_in(3, stream, 0) == (True, 2)
    assert kernel._one_in(3, stream, 2) == (False, 3)
    assert kernel._one_in(3, stream[:1], 0)[1] == -1  # the stream ended: the caller extends it
    halves = np.random.default_rng(1).bit_generator.random_raw(N).view(np.uint32)
    for k in (1, 2, 3, 7, 63, 64, 100):
        hits, pos = 0, 0
        for _ in range(20_000):
            hit, pos = kernel._one_in(k, halves, pos)
            hits += hit
        p = stats.binomtest(hits, 20_000, 1 / k).pvalue
        assert p > ALPHA, k
    assert stats.binomtest(sum(kernel._one_in(3, halves, i)[0] for i in range(20_000)), 20_000, 0.4).pvalue < ALPHA


def test_the_exponential_is_read_off_exact_thresholds_and_ties_go_further():
    """A = ⌊64·E⌋ from one 64-bit number U: the thresholds are ⌊2^64·e^(−a/64)⌋; U equal to one is a tie, resolved
    by further words against the further digits of e^(−a/64) (a 1 with probability their fraction); U below T_L
    draws A again and adds L (memorylessness)."""
    from lmdk import discrete_laplace_kernel as kernel

    for a in (1, 64, 700, kernel.LIMIT):
        assert abs(int(kernel.THRESHOLDS[a]) / 2**64 - np.exp(-a / 64)) < 1e-15
        assert kernel.exp_digits(a, 2) >> 64 == int(kernel.THRESHOLDS[a])

    def halves(*words):
        return np.array(words, dtype=np.uint64).view(np.uint32)

    for a in (1, 5, 300):
        t_a = int(kernel.THRESHOLDS[a])
        assert kernel._steps(halves(t_a - 1), 0) == (a, 0, 2)
        assert kernel._steps(halves(t_a), 0) == (a - 1, a, 2)
        assert kernel._steps(halves(t_a + 1), 0) == (a - 1, 0, 2)
    assert kernel._steps(halves(0, 2**64 - 1), 0) == (kernel.LIMIT, 0, 4)
    assert kernel._steps(halves(0), 0)[2] == -1  # the stream ended: the caller extends it
    gen = np.random.default_rng(2)
    p = (kernel.exp_digits(3, 2) & (2**64 - 1)) / 2**64
    hits = sum(dl._tie(3, gen) for _ in range(20_000))
    assert stats.binomtest(hits, 20_000, p).pvalue > ALPHA
    assert stats.binomtest(hits, 20_000, p + 0.03).pvalue < ALPHA


def test_a_tie_resolves_to_its_two_neighbours_in_law():
    """The Python end of a tie: A stays or moves up by one with the probability of the threshold's further digits;
    a tie at the last threshold adds a fresh ⌊64·E⌋ after L."""
    from lmdk import discrete_laplace_kernel as kernel

    gen = np.random.default_rng(12)
    a = np.array([dl._resolved(2, 3, gen) for _ in range(4000)])
    p = (kernel.exp_digits(3, 2) & (2**64 - 1)) / 2**64
    assert set(a.tolist()) <= {2, 3} and stats.binomtest(int((a == 3).sum()), 4000, p).pvalue > ALPHA
    tail = [dl._resolved(kernel.LIMIT - 1, kernel.LIMIT, np.random.default_rng(s)) for s in range(40)]
    assert min(tail) >= kernel.LIMIT - 1


def test_a_short_stream_gives_the_same_samples_as_a_long_one(monkeypatch):
    """When the drawn-ahead numbers run out inside a sample, the sample is redrawn from the same numbers and more:
    the result does not depend on how many were drawn ahead (so the law cannot depend on it either)."""
    t = np.full(3000, 1500)
    long = dl.discrete_laplace(t, 1, np.random.default_rng(9))
    monkeypatch.setattr(dl, "HALVES_PER_SAMPLE", 1)
    assert np.array_equal(dl.discrete_laplace(t, 1, np.random.default_rng(9)), long)


@pytest.mark.parametrize(("num", "den"), [(0, 1), (1, 3), (1, 1), (7, 3), (5, 1), (999, 1000)])
def test_bernoulli_exp_frequencies(num, den):
    draws = dl.bernoulli_exp(np.full(N, num), den, np.random.default_rng(num + 17 * den))
    assert draws.dtype == bool
    p = np.exp(-num / den)
    if num == 0:
        assert draws.all()
        return
    hits = int(draws.sum())
    assert stats.binomtest(hits, N, p).pvalue > ALPHA
    assert stats.binomtest(hits, N, np.exp(-num / den * 1.05)).pvalue < ALPHA  # power: 5 % off in γ


def test_bernoulli_exp_validates_and_broadcasts():
    out = dl.bernoulli_exp(np.array([[0], [3]]), np.array([1, 2, 4]), 0)
    assert out.shape == (2, 3) and out[0].all()
    with pytest.raises(ParameterError):
        dl.bernoulli_exp(-1, 1)
    with pytest.raises(ParameterError):
        dl.bernoulli_exp(1, 0)
    with pytest.raises(ParameterError):
        dl.discrete_laplace(0)
    with pytest.raises(ParameterError):
        dl.discrete_laplace(1.5)


def test_same_seed_same_numbers():
    a = dl.discrete_laplace([5, 1000, 3], 1, np.random.default_rng(9), size=(4, 3))
    b = dl.discrete_laplace([5, 1000, 3], 1, np.random.default_rng(9), size=(4, 3))
    assert a.shape == (4, 3) and np.array_equal(a, b)
    x = np.linspace(-3, 30, 50)
    assert np.array_equal(dl.release_values(x, 0.5, 25, (0, 25), 4), dl.release_values(x, 0.5, 25, (0, 25), 4))
    assert not np.array_equal(dl.release_values(x, 0.5, 25, (0, 25), 4), dl.release_values(x, 0.5, 25, (0, 25), 5))


def test_one_value_and_broadcast_budgets_release_as_their_cells_do():
    """release_values of one value is a 0-d release with the first draw of a one-cell release (it raised "return
    arrays must be of ArrayType" before); budgets of shape (2, 1) against 3 values give the cells of (2, 3) budgets."""
    one = dl.release_values(3.0, 1.0, 1.0, (0, 10), np.random.default_rng(1))
    assert one.shape == () and one == dl.release_values([3.0], 1.0, 1.0, (0, 10), np.random.default_rng(1))[0]
    x, eps = np.array([3.0, 4.0, 9.5]), np.array([[1.0], [2.0]])
    broadcast = dl.release_values(x, eps, 1.0, (0, 10), np.random.default_rng(2))
    full = dl.release_values(np.tile(x, (2, 1)), np.repeat(eps, 3, axis=1), 1.0, (0, 10), np.random.default_rng(2))
    assert broadcast.shape == (2, 3) and np.array_equal(broadcast, full)


def test_outputs_are_multiples_of_the_grid_inside_the_range():
    rng = np.random.default_rng(2)
    x = rng.uniform(-10, 40, (3, 400))
    eps = np.array([[0.01], [1.0], [40.0]])  # per-row budgets broadcasting against x
    out = dl.release_values(x, eps, 25.0, (0.0, 25.0), rng)
    g = dl.calibrate(eps, 25.0, (0.0, 25.0)).grid
    assert out.shape == x.shape
    assert np.all((out >= 0) & (out <= 25))
    assert np.all(out / g == np.round(out / g))
    assert np.all(g <= np.minimum(25.0, 25.0 / eps) / 2**dl.GRID_BITS)
    odd = dl.release_values(np.full(2000, 1.3), 2.0, 0.7, (-1.1, 2.9), rng)  # range ends off the grid
    g2 = dl.calibrate(2.0, 0.7, (-1.1, 2.9)).grid
    assert np.all((odd >= -1.1) & (odd <= 2.9)) and np.all(odd / g2 == np.round(odd / g2))


@settings(max_examples=300, deadline=None)
@given(eps=st.floats(1e-9, 1e4), delta=st.floats(1e-6, 1e6), low=st.floats(-1e6, 1e6),
       width=st.floats(1e-3, 1e6))
@example(eps=1.0, delta=2048.0, low=5e-324, width=2048.0)  # low/g underflows to 0: the grid's end must stay ≥ low
@example(eps=1.0, delta=2048.0, low=-2048.0, width=2048.0 - 5e-324)
def test_calibration_guarantees_epsilon_exactly(eps, delta, low, width):
    high = low + width
    if not high > low:
        return
    try:
        cal = dl.calibrate(eps, delta, (low, high))
    except ParameterError:  # refused only where the integers would not fit: t > 2^52 or the range > 2^61 steps
        k = int(dl.grid_exponent(min(delta, width, delta / eps)))
        assert 2048 / eps > 2**51 or max(abs(low), abs(high)) / 2.0**k > 2**60
        return
    steps, t, k = int(cal.steps), int(cal.scale), int(cal.exponent)
    assert Fraction(steps, t) <= Fraction(eps)  # Δ_int/t ≤ ε in exact arithmetic
    assert float(cal.epsilon) <= eps
    used = Fraction(cal.sensitivity)
    assert used >= min(Fraction(delta), Fraction(high) - Fraction(low))  # clamped changes are ≤ Δ used
    assert Fraction(steps) > used / Fraction(2) ** k  # Δ_int = ⌊Δ/g⌋ + 1 > Δ/g: the rounding argument
    assert t <= Fraction(steps) / Fraction(eps) * (1 + Fraction(1, 2**30)) + 1  # no needless extra noise
    assert float(cal.low) * 2.0**k >= low and float(cal.high) * 2.0**k <= high


def _clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval of a binomial proportion at level 1 − alpha."""
    lower = stats.beta.ppf(alpha / 2, k, n - k + 1) if k > 0 else 0.0
    upper = stats.beta.ppf(1 - alpha / 2, k + 1, n - k) if k < n else 1.0
    return float(lower), float(upper)


def _loss_lower_bound(a: np.ndarray, b: np.ndarray, low: float, high: float, alpha: float = 1e-3,
                      bins: int = 10) -> float:
    """A lower confidence bound on max over output bins of |ln P(a ∈ bin)/P(b ∈ bin)| (Bonferroni over bins and
    both directions): if the release were ε-DP the bound exceeds ε with probability ≤ alpha."""
    edges = np.linspace(low, high, bins + 1)
    edges[-1] = np.nextafter(high, np.inf)
    ca, cb = np.histogram(a, edges)[0], np.histogram(b, edges)[0]
    level = alpha / (2 * bins)
    best = 0.0
    for ka, kb in zip(ca.tolist(), cb.tolist(), strict=True):
        a_lo, a_hi = _clopper_pearson(ka, len(a), level)
        b_lo, b_hi = _clopper_pearson(kb, len(b), level)
        if a_lo > 0:
            best = max(best, np.log(a_lo / b_hi))
        if b_lo > 0:
            best = max(best, np.log(b_lo / a_hi))
    return best


def test_attacker_cannot_tell_the_range_ends_apart_beyond_epsilon():
    """One event at the range's low end vs its high end, 20,000 releases each at ε = 1 with Δ = high − low: the
    empirical privacy loss is at most ε (its lower confidence bound). The same test flags a broken calibration
    (Δ = 1 on the 25-unit range) with a bound far above ε."""
    low, high, eps, reps = 0.0, 25.0, 1.0, 20_000
    rng = np.random.default_rng(11)
    at_low = dl.release_values(np.full(reps, low), eps, high - low, (low, high), rng)
    at_high = dl.release_values(np.full(reps, high), eps, high - low, (low, high), rng)
    assert _loss_lower_bound(at_low, at_high, low, high) <= eps
    broken_low = dl.release_values(np.full(reps, low), eps, 1.0, (low, high), rng)
    broken_high = dl.release_values(np.full(reps, high), eps, 1.0, (low, high), rng)
    assert _loss_lower_bound(broken_low, broken_high, low, high) > 5 * eps


RANGE = (0.0, 25.0)


def _series(n: int = 200, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = np.clip(rng.gamma(2.0, 3.0, n), *RANGE)
    landmarks = np.flatnonzero(rng.random(n) < 0.05)
    return x, landmarks


@pytest.mark.parametrize("scheme", schemes.SCHEMES)
def test_every_scheme_releases_on_the_grid_inside_the_range(scheme):
    x, L = _series()
    w = 10 if scheme == "w-event" else None
    rel = schemes.release(x, L, scheme, 1.0, protects=lmdk.relation.public_range(*RANGE), repetitions=20, rng=1, w=w)
    again = schemes.release(x, L, scheme, 1.0, protects=lmdk.relation.public_range(*RANGE), repetitions=20, rng=1, w=w)
    assert np.array_equal(rel.values, again.values)  # seed determinism
    values = rel.values
    assert np.all((values >= 0) & (values <= 25))
    published = rel.published
    g = dl.calibrate(rel.budgets[published], 25.0, RANGE).grid
    assert np.all(values[published] / g == np.round(values[published] / g))
    if scheme != "event":
        assert privacy.satisfies_landmark_privacy(rel.budgets, L, 1.0)


def _mae(rel, x) -> np.ndarray:
    return np.abs(rel.values - x).mean(axis=1)


@pytest.mark.parametrize("scheme", schemes.SCHEMES)
def test_discrete_mae_equals_textbook_mae_at_the_same_sensitivity(scheme):
    """Away from the range's ends (range ±10^7, Δ = 25) the discrete release costs what the textbook one costs:
    same MAE within 5 standard errors plus the grid's 1/1024."""
    x, L = _series(seed=3)
    w = 10 if scheme == "w-event" else None
    common = dict(repetitions=400, w=w)
    discrete = _mae(schemes.release(x, L, scheme, 1.0, protects=lmdk.relation.up_to(25.0, -1e7, 1e7), rng=5,
                                    **common), x)
    textbook = _mae(schemes.release(x, L, scheme, 1.0, protects=lmdk.relation.Relation("papers", d=25.0), rng=6,
                                    **common), x)
    error = np.sqrt(discrete.var() / len(discrete) + textbook.var() / len(textbook))
    assert abs(discrete.mean() - textbook.mean()) <= 5 * error + textbook.mean() / 512


@pytest.mark.parametrize("scheme", ["event", "uniform", "skip"])
def test_discrete_mae_with_clamping_equals_clamped_textbook(scheme):
    """Inside the public range (0, 25) with Δ = 25 the noise is clamped; clamping the textbook release the same
    way gives the same MAE (within statistical error)."""
    x, L = _series(seed=4)
    discrete = _mae(schemes.release(x, L, scheme, 1.0, protects=lmdk.relation.public_range(*RANGE), rng=7,
                                    repetitions=400), x)
    textbook = schemes.release(x, L, scheme, 1.0, protects=lmdk.relation.Relation("papers", d=25.0), rng=8,
                               repetitions=400)
    clamped = np.abs(np.clip(textbook.values, *RANGE) - x).mean(axis=1)
    error = np.sqrt(discrete.var() / len(discrete) + clamped.var() / len(clamped))
    assert abs(discrete.mean() - clamped.mean()) <= 5 * error + clamped.mean() / 512


def test_discrete_sampler_options_are_checked():
    x, L = _series()
    Calibration = lmdk.relation.Calibration  # the engine's checks: a relation never builds these
    with pytest.raises(ParameterError, match="value_range is required"):
        schemes.release_engine(x, L, "uniform", 1.0, Calibration(1.0, "discrete"))
    with pytest.raises(ParameterError, match="value_range"):
        schemes.release_engine(x, L, "uniform", 1.0, Calibration(1.0, "discrete", (5, 5)))
    with pytest.raises(ParameterError, match="sampler='snapping'"):
        schemes.release_engine(np.zeros((5, 2)), [], "uniform", 1.0, Calibration(1.0, "discrete", RANGE),
                               mechanism="planar_laplace")
    with pytest.raises(ParameterError, match="sampler must be"):
        schemes.release_engine(x, L, "uniform", 1.0, Calibration(1.0, "exact"))
    with pytest.raises(ParameterError, match="protects="):
        schemes.release(x, L, "uniform", 1.0, sampler="exact")
    bits = (x > 10).astype(float)
    rr = schemes.release_engine(bits, L, "adaptive", 1.0, Calibration(1.0, "discrete"), mechanism="randomized_response",
                                rng=3)
    snap = schemes.release(bits, L, "adaptive", 1.0, protects=lmdk.relation.FLIP, mechanism="randomized_response",
                           rng=3)
    assert np.array_equal(rr.values, snap.values)  # randomized response: the same full-precision flip


def test_repeated_budget_rows_are_calibrated_once_with_the_same_draws():
    """release_common.discrete_cells calibrates one row when every repetition has the same budgets (unpublished
    cells may hold 0, as skip's): the values are those of calibrating every published cell."""
    from lmdk import release_common

    row = np.where(np.arange(200) % 10 == 0, 0.0, np.where(np.arange(200) % 7 == 0, 0.05, 0.2))
    budgets = np.tile(row, (30, 1))
    published = budgets > 0
    x = np.random.default_rng(4).uniform(0, 10, 200)
    fast = release_common.discrete_cells(x, budgets, published, 10.0, (0.0, 10.0), np.random.default_rng(5))
    xs = np.broadcast_to(x, budgets.shape)
    cal = dl.calibrate_unchecked(budgets[published], 10.0, 0.0, 10.0)
    slow = np.array(xs)
    slow[published] = dl.on_grid(xs[published], cal, dl.discrete_laplace(cal.scale, 1, np.random.default_rng(5)))
    assert np.array_equal(fast, slow)


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64,
                                           np.random.MT19937])
def test_refinement_words_are_the_draws_of_integers(bit_generator):
    """dl._words (the refinements' 64-bit numbers) gives what gen.integers(0, 2**64, uint64) gives and leaves the
    Generator where it leaves it, interleaved with the 32-bit draws that share PCG64's buffered half."""
    a, b = np.random.Generator(bit_generator(11)), np.random.Generator(bit_generator(11))
    for count in (1, 2, 1, 3, 2):
        assert int(a.integers(0, 2**32)) == int(b.integers(0, 2**32))
        assert dl._words(a, count) == b.integers(0, 2**64, size=count, dtype=np.uint64).tolist()
    assert a.integers(0, 2**63, size=4).tolist() == b.integers(0, 2**63, size=4).tolist()


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64,
                                           np.random.MT19937])
def test_the_kernels_32_bit_stream_is_uniform_for_every_bit_generator(bit_generator):
    """dl._stream's numbers are uniform on {0..2^32−1} whatever bit generator drives the Generator: every one of the
    32 bits is set half the time (MT19937's raw words are 32-bit: read as 64-bit, every other number was 0, and
    the noise it drove was not the discrete Laplace), and the exact sampler's draws then keep their law."""
    gen = np.random.Generator(bit_generator(12))
    numbers = dl._stream(gen, 40_000)
    bits = (numbers[:, None] >> np.arange(32, dtype=np.uint32)) & 1
    share = bits.mean(axis=0)
    assert np.all(np.abs(share - 0.5) < 0.02), share  # 40,000 draws: 0.02 is 8 standard deviations
    z = dl.discrete_laplace(3, 1, np.random.Generator(bit_generator(13)), size=20_000)
    law = np.exp(-np.abs(np.arange(-40, 41)) / 3)
    counts = np.array([(z == k).sum() for k in range(-40, 41)])
    assert stats.chisquare(counts, law / law.sum() * counts.sum()).pvalue > 1e-6


def _numpy_calibration(eps, delta, low, high):
    """The calibration's formulas step by step in numpy (module docstring, step 2): the compiled kernel's reference."""
    delta = min(delta, float(np.nextafter(high - low, np.inf)))
    k = dl.grid_exponent(np.minimum(delta, delta / eps))
    steps = np.floor(np.ldexp(delta, -k)).astype(np.int64) + 1
    t = np.ceil(steps / eps * (1.0 + 2.0**-40))
    with np.errstate(over="ignore"):
        lo, hi = np.ceil(np.ldexp(low, -k)), np.floor(np.ldexp(high, -k))
    lo += np.ldexp(lo, k) < low
    hi -= np.ldexp(hi, k) > high
    return k, steps, t, lo, hi


def test_runs_of_one_budget_are_calibrated_as_every_budget_is():
    """calibrate_cells calibrates a run of equal budgets once (a scheme's row, dummies' per-row budgets: issue 34);
    every cell still gets the formulas' numbers, whatever the runs, and a refused budget inside a run is refused."""
    rng = np.random.default_rng(34)
    for _ in range(200):
        distinct = np.exp(rng.uniform(-9, 4, size=int(rng.integers(1, 6))))
        eps = np.repeat(rng.choice(distinct, size=int(rng.integers(1, 30))), rng.integers(1, 9, size=1))
        eps = eps[rng.permutation(eps.size)] if rng.random() < 0.3 else eps
        delta, low, high = float(np.exp(rng.uniform(-3, 3))), 0.0, float(np.exp(rng.uniform(0, 8)))
        k, steps, t, lo, hi = _numpy_calibration(eps, delta, low, high)
        cal = dl.calibrate_unchecked(eps, delta, low, high)
        for got, want in ((cal.exponent, k), (cal.steps, steps), (cal.scale, t), (cal.low, lo), (cal.high, hi)):
            assert np.array_equal(got, want.astype(np.int64))
    with pytest.raises(ParameterError, match="too small"):
        dl.calibrate_unchecked(np.array([1.0, 1.0, 1e-300, 1e-300, 1.0]), 1.0, 0.0, 25.0)


def test_the_compiled_calibration_is_the_formulas_exactly():
    """calibrate_cells (issue 34: a dozen numpy passes per Adaptive step cost 10 % of a view) gives bit for bit what
    the formulas give, over budgets, sensitivities and ranges spanning many orders of magnitude (subnormal bounds
    included), and refuses exactly where they leave the 2^52 scale or the 2^61 grid indices."""
    rng = np.random.default_rng(2026)
    for _ in range(400):
        eps = np.exp(rng.uniform(-12, 6, size=(int(rng.integers(1, 40)),)))
        delta = float(np.exp(rng.uniform(-20, 20)))
        low = float(rng.choice([0.0, -1e-300, 1e-310, -5.0, rng.uniform(-1e6, 1e6)]))
        high = low + float(np.exp(rng.uniform(-30, 30)))
        k, steps, t, lo, hi = _numpy_calibration(eps, delta, low, high)
        if np.any(t > dl.MAX_SCALE) or np.any(np.abs(lo) > dl.MAX_STEPS) or np.any(np.abs(hi) > dl.MAX_STEPS):
            with pytest.raises(ParameterError):
                dl.calibrate_unchecked(eps, delta, low, high)
            continue
        cal = dl.calibrate_unchecked(eps, delta, low, high)
        for got, want in ((cal.exponent, k), (cal.steps, steps), (cal.scale, t), (cal.low, lo), (cal.high, hi)):
            assert got.dtype == np.int64 and np.array_equal(got, want.astype(np.int64))
    square = dl.calibrate_unchecked(np.array([[0.5, 1.0], [2.0, 3.0]]), 1.0, 0.0, 25.0)
    assert square.scale.shape == (2, 2) and dl.calibrate_unchecked(np.array(0.7), 1.0, 0.0, 25.0).scale.shape == ()


def _on_grid_case(k: np.ndarray, magnitude: float, jump: int, rng) -> None:
    """on_grid against the ldexp formula on one set of grids 2^k (x up to ``magnitude`` grid steps, |z| < ``jump``)."""
    x = np.ldexp(rng.uniform(-magnitude, magnitude, k.size), k)
    low, high = -(2**45) + rng.integers(0, 9, k.size), 2**45 - rng.integers(0, 9, k.size)
    cal = dl.Calibration(k, np.ones(k.size, dtype=np.int64), np.ones(k.size, dtype=np.int64), low, high, 1.0)
    z = rng.integers(-jump, jump, size=(7, k.size))
    want = np.ldexp(np.clip(np.rint(np.ldexp(x, -k)).astype(np.int64) + z, low, high).astype(np.float64), k)
    got = dl.on_grid(x, cal, z)
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)), int(k.min())


def test_on_grid_is_ldexp_of_the_clamped_grid_steps_bit_for_bit():
    """on_grid multiplies by 2^−k and 2^k (issue 34: ldexp was most of its cost) and falls back to ldexp where one of
    them is not a normal double: both give ldexp(clamp(round(ldexp(x, −k)) + z), k) exactly, for grids from 2^−1100
    to 2^1023, on either side of the boundaries ±1022."""
    rng = np.random.default_rng(34)
    for exponent in (-1100, -1080, -1074, -1060, -1024, -1023, -1022, -600, -40, -20, 0, 30, 970):
        _on_grid_case(np.full(50, exponent, dtype=np.int64) + rng.integers(0, 3, 50), 2.0**40, 2**46, rng)
    for exponent in (1020, 1021, 1022, 1023):  # the largest grids: values of a few steps, below 2^1024
        _on_grid_case(np.full(50, exponent, dtype=np.int64), 0.4, 1, rng)
