"""The exact discrete Laplace mechanism on a 2^k grid: the Laplace mechanism of exported values.

What it protects. One event's value x under the neighbouring relation "the value changes by at most Δ"
(``sensitivity``; with the public range [low, high] of the values, any change inside the range when
Δ = high − low): :func:`release_values` is ε-differentially private for that change, at every ε, Δ and range,
with ε the budget the scheme accounts for (the guaranteed figure Δ_int/t of :class:`Calibration` is ≤ ε
exactly). Nothing here protects against a weak pseudo-random generator (numpy's PCG64 is not cryptographic;
exports draw from randomgen's AESCounter keyed from fresh OS entropy, :func:`lmdk.rng.secure_generator`) or a
public range chosen by looking at the data.

The mechanism, for a value x with budget ε:

1. clamp x to the public range [low, high] (a fixed, data-independent 1-Lipschitz map: clamped neighbours
   still differ by at most Δ, and by at most high − low, so Δ is replaced by min(Δ, high − low));
2. pick the grid g = 2^k, k = ⌊log₂ min(Δ, Δ/ε)⌋ − GRID_BITS (from public numbers only; g is at most
   1/1024 of the sensitivity and of the noise scale Δ/ε) and round: q = round(x/g), an integer;
3. add Z ~ Lap_Z(t), the discrete Laplace law P(Z = z) ∝ exp(−|z|/t) on the integers, with the integer scale
   t = ⌈Δ_int/ε⌉ (computed so that Δ_int/t ≤ ε holds for the real numbers, not only in floating point),
   Δ_int = ⌊Δ/g⌋ + 1;
4. clamp q + Z to the grid points inside [low, high] and output g·(q + Z): a multiple of g inside the range.

Proof, in plain words.
(a) Discrete Laplace with integer sensitivity (the geometric mechanism; Ghosh, Roughgarden & Sundararajan,
"Universally utility-maximizing privacy mechanisms", STOC 2009): for integers a, b with |a − b| ≤ Δ_int and
any integer y, P(a + Z = y) / P(b + Z = y) = exp((|y − b| − |y − a|)/t) ≤ exp(|a − b|/t) ≤ exp(Δ_int/t) ≤ e^ε.
(b) Rounding: x ↦ round(x/g) is monotone and moves x/g by at most 1/2 (x/g is exact: g is a power of two),
so two clamped values at most Δ apart land at most ⌊Δ/g⌋ + 1 = Δ_int grid steps apart; with (a), the integer
output q + Z is ε-DP for the relation. Step 1 is applied to the input and step 4 to the output alone, so the
first keeps neighbours neighbours and the second is post-processing (Dwork & Roth 2014, Proposition 2.1).
(c) Sampling: Z is drawn by Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy"
(NeurIPS 2020), Algorithm 2 for Lap_Z(t/s): X = t·V + U, Y = ⌊X/s⌋, a sign, a restart at "−0". Its V (the
Bernoulli(exp(−1)) successes before the first failure: P(V ≥ v) = e^(−v)) and U (P(U = u) ∝ e^(−u/t) on
{0..t−1}) are taken as V = ⌊E⌋ and U = ⌊t·F⌋ for one E ~ Exp(1) with fractional part F (P(⌊E⌋ ≥ v) = e^(−v);
P(⌊t·F⌋ = u) ∝ ∫ e^−f over [u/t, (u+1)/t) ∝ e^(−u/t); ⌊E⌋ and F are independent): the same law, and only the
final floor depends on t (so the schemes draw everything else ahead, :mod:`lmdk.discrete_lockstep`). E's first
digits come from uniform integers by exact comparisons (:mod:`lmdk.discrete_laplace_kernel`): ⌊64·E⌋ by
comparing a 64-bit word, a uniform real's first digits, with the integers ⌊2^64·e^(−a/64)⌋ (equality, of
probability 2^−64, compares further words with further digits), F's next 26 digits by Algorithm 1's exact
Bernoulli(exp(−γ)), and further digits of F when a floor needs them. Every draw is a uniform integer — a
64-bit word of the Generator's bit generator, reduced by exact rejection where needed, or ``Generator.integers``,
which does the same — and every decision an integer comparison: no floating-point number touches the
randomness, so Z has exactly the law of (a), and the output's low bits carry nothing (there are none beyond g).
How much randomness is drawn never depends on x.

Speed: each entry's sample is drawn by a compiled loop (numba) from consecutive raw words of its Generator, one
sample after another, about two 64-bit words each (:mod:`lmdk.discrete_laplace_kernel`): under 2× numpy's
textbook Laplace for the same count (``benchmarks/bench_sampler_ratio.py``). Only the rare ties and floors that
need more digits, and their restarts, run in Python afterwards. A population batch draws each row from its own
Generator. The schemes draw V, F and B of every cell ahead (none depends on t) and floor them at the budgets
(compiled), so one draw serves a seed's releases at every ε.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lmdk.errors import ParameterError
from lmdk.rng import as_generator

GRID_BITS = 10
"""The grid g is 2^−GRID_BITS..2^−(GRID_BITS+1) of min(Δ, Δ/ε): at most 1/1024 of the sensitivity and of the
noise scale (so rounding to it costs at most 1/1024 of the noise)."""
MAX_SCALE = 2**52
"""Largest integer noise scale t (budgets ε < Δ_int/2^52, about 10^−12, are refused)."""
MAX_STEPS = 2**61
"""Largest |grid index| of the range bounds (keeps q + Z inside int64)."""
FRACTION_BITS = 32
"""Resolution 2^−b at which the fractional part of the exponential is drawn ahead (b ≤ 32; see floor_scaled)."""
_MASK32 = np.uint64(2**32 - 1)


def _generator(rng) -> np.random.Generator:
    """``rng`` as a Generator (a Generator, a seed or None)."""
    return as_generator(rng)


def _positive_integers(value, name: str) -> np.ndarray:
    """An int64 array of integers in 1..MAX_SCALE, else a ParameterError naming ``name``."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)):
            raise ParameterError(f"{name} must be integers ≥ 1, got {value!r}")
    if np.any(arr < 1) or np.any(arr > MAX_SCALE):
        raise ParameterError(f"{name} must be integers in 1..2^52, got {value!r}")
    return arr.astype(np.int64, copy=False)


def bernoulli_exp(num, den, rng=None) -> np.ndarray:
    """Exact Bernoulli(exp(−num/den)) per entry for integer arrays num ≥ 0, den ≥ 1 (CKS 2020, Algorithm 1).

    γ = num/den ≤ 1: K ← 1; while Bernoulli(γ/K) — drawn as ``integers(0, den·K) < num`` — K ← K + 1; return
    K odd (P = Σ_k (−γ)^k/k! = e^−γ). γ > 1: ⌊γ⌋ times Bernoulli(exp(−1)) (stop at the first 0), then
    Bernoulli(exp(−(γ − ⌊γ⌋))). Returns a bool array of the broadcast shape; all entries advance together.
    """
    num_a = np.asarray(num)
    if num_a.dtype.kind not in "iu" or np.any(num_a < 0):
        raise ParameterError(f"num must be integers ≥ 0, got {num!r}")
    den_a = _positive_integers(den, "den")
    num_a, den_a = np.broadcast_arrays(num_a.astype(np.int64), den_a)
    shape = num_a.shape
    gen = _generator(rng)
    out = np.zeros(num_a.size, dtype=bool)
    idx = np.arange(num_a.size)
    den_v = den_a.reshape(-1).copy()
    whole = num_a.reshape(-1) // den_v  # Bernoulli(exp(−1)) trials left
    rem = num_a.reshape(-1) % den_v  # then Bernoulli(exp(−rem/den))
    k = np.ones(idx.size, dtype=np.int64)
    while idx.size:
        in_whole = whole > 0
        # Bernoulli(γ'/K) with γ' = 1 (whole part) or rem/den: integers(0, den·K) < (den or rem)
        a = gen.integers(0, den_v * k) < np.where(in_whole, den_v, rem)
        odd = (k & 1) == 1
        k = np.where(a, k + 1, 1)
        finished = ~a & ~(in_whole & odd)  # whole part failed (K even → 0), or the remainder decided
        out[idx[finished & ~in_whole]] = odd[finished & ~in_whole]
        whole = whole - (~a & in_whole & odd)
        keep = ~finished
        idx, den_v, whole, rem, k = idx[keep], den_v[keep], whole[keep], rem[keep], k[keep]
    return out.reshape(shape)


_ONE = np.ones(1, dtype=np.int64)
HALVES_PER_SAMPLE = 5
"""32-bit numbers drawn ahead per sample (about four are used on average; the stream is extended when it runs
out, see :mod:`lmdk.discrete_laplace_kernel`)."""


def _stream(gen: np.random.Generator, count: int) -> np.ndarray:
    """At least ``count`` uniform 32-bit numbers: raw 64-bit words of the Generator's bit generator (the words
    ``Generator.integers`` reduces), each read as two halves, low half first. MT19937's raw words are 32-bit (their
    high halves would all be 0): its 64-bit numbers come from ``Generator.integers``."""
    return raw64(gen, -(-count // 2)).view(np.uint32)


def _drive(kernel_fn, t: np.ndarray, s: np.ndarray, count: int, gen: np.random.Generator):
    """Run a kernel (``laplace_stream`` or ``parts_stream``) over ``count`` entries from consecutive numbers of
    ``gen``: one block drawn ahead, extended from where the unfinished sample started whenever it runs out (so
    no sample depends on the block's size). Returns (out, pending or ties, A, G, B)."""
    from lmdk import discrete_laplace_kernel as kernel

    out = np.empty(count, dtype=np.int64)
    pending = np.zeros(count, dtype=np.int64)
    a = np.empty(count, dtype=np.int64)
    g = np.empty(count, dtype=np.uint64)
    b = np.empty(count, dtype=np.int64)
    halves = _stream(gen, count * HALVES_PER_SAMPLE + 64)
    first = 0
    while True:
        status, stop, start = kernel_fn(t, s, first, count, halves, FRACTION_BITS, out, pending, a, g, b)
        if status == kernel.OK:
            return out, pending, a, g, b
        halves = np.concatenate((halves[start:], _stream(gen, (count - stop) * HALVES_PER_SAMPLE + 64)))
        first = stop


def _tie(a: int, gen: np.random.Generator) -> bool:
    """Whether u < e^(−a/64) when U = T_a (the kernel's tie): further 64-bit numbers of ``gen`` against the further
    binary digits of 2^64·e^(−a/64), one word at a time, until they differ (exact, Python integers)."""
    from lmdk.discrete_laplace_kernel import exp_digits

    words = 2
    while True:
        digit = exp_digits(a, words) & (2**64 - 1)
        w = int(gen.integers(0, 2**64, dtype=np.uint64))
        if w != digit:
            return w < digit
        words += 1


def _resolved(a: int, tie: int, gen: np.random.Generator) -> int:
    """A of a sample whose U tied with T_tie (tie > 0; A as the kernel returned it), else A itself."""
    from lmdk.discrete_laplace_kernel import LIMIT, STEPS

    if tie > 0 and _tie(tie, gen):
        a += 1
        if tie == LIMIT:  # A ≥ L: L plus a fresh ⌊64·E⌋ (memorylessness)
            v, f = _scalar_parts(32, gen)
            a += STEPS * v + (f >> 26)
    return a


def _fraction(a: np.ndarray, g: np.ndarray, bits: int) -> np.ndarray:
    """F_b: the first b digits of (A mod 64)·2^26 + G (the kernel's ``fraction``, vectorised)."""
    f32 = ((a.astype(np.uint64) & np.uint64(63)) << np.uint64(26)) | g
    return f32 >> np.uint64(32 - bits)


def _laplace_stream(t: np.ndarray, s: np.ndarray, count: int, gen: np.random.Generator) -> np.ndarray:
    """``count`` samples of Lap_Z(t/s) (t, s: int64, one per entry or one for all), every entry's sample from
    consecutive numbers of ``gen`` (the compiled kernel); the rare ties and floors that need more bits of F are
    finished afterwards from ``gen`` itself, in entry order."""
    from lmdk import discrete_laplace_kernel as kernel

    bits = FRACTION_BITS
    out, pending, a, g, b = _drive(kernel.laplace_stream, t, s, count, gen)
    entries = np.flatnonzero(pending)
    if not entries.size:
        return out
    # two 64-bit numbers per unfinished entry, drawn at once: its cell's next 32 binary digits (issue 34: at a small
    # budget, e.g. user-level at ε = 0.01, thousands of cells refine, and drawing them one Generator call at a time
    # was most of the release); the entries' fields as Python ints in one pass each
    words = raw64(gen, 2 * entries.size).tolist()
    ts = (t[entries] if t.size > 1 else np.broadcast_to(t, entries.shape)).tolist()
    ss = (s[entries] if s.size > 1 else np.broadcast_to(s, entries.shape)).tolist()
    fields = zip(entries.tolist(), ts, ss, pending[entries].tolist(), a[entries].tolist(), g[entries].tolist(),
                 b[entries].tolist(), strict=True)
    for j, (i, ti, si, tie, ai, gi, bi) in enumerate(fields):
        if tie > 0:
            ai = _resolved(ai, tie, gen)
        f = (((ai & 63) << 26) | gi) >> (32 - bits)  # _fraction of one entry, in Python ints
        y = (ti * (ai >> 6) + refined_floor_from(ti, f, bits, words[2 * j], words[2 * j + 1], gen)) // si
        if bi == 1 and y == 0:  # −0: a fresh sample
            out[i] = scalar_laplace(ti, si, gen)
        else:
            out[i] = -y if bi == 1 else y
    return out


def refined_floor_from(t: int, f: int, bits: int, first: int, second: int, gen: np.random.Generator) -> int:
    """``refined_floor`` whose first round of 32 more digits reads two given 64-bit numbers: U is the low half of
    ``first``, and Algorithm 1's first trial, Bernoulli(U/2^(bits+32)), is [C < U] with C the top bits + 32 bits of
    ``second`` (uniform on {0..2^(bits+32)−1}, bits ≤ 32). Almost always the trial fails (K = 1: U is accepted); when
    it succeeds, Algorithm 1 goes on from K = 2 with ``gen`` and, if it rejects U, the round starts again from
    ``gen`` (``refined_floor``), as its own loop would. Further rounds, if the cell still straddles, draw from
    ``gen``."""
    if not _straddles(t, f, bits):  # a tie's entry whose floor is decided
        return (t * f) >> bits
    den_bits = bits + 32
    u = first & 0xFFFFFFFF
    if second >> (64 - den_bits) < u and not _bernoulli_exp_odd(u, 1 << den_bits, gen, 2):
        return refined_floor(t, f, bits, gen)
    return refined_floor(t, (f << 32) | u, den_bits, gen)  # returns at once unless the new cell straddles too


def _straddles(t: int, f: int, bits: int) -> bool:
    """Whether the cell [f, f + 1)/2^bits of F holds a multiple of 1/t inside, so that ⌊t·F⌋ needs more bits."""
    return (t * f) >> bits != (t * f + t - 1) >> bits


def _bernoulli_exp_odd(u: int, den: int, gen: np.random.Generator, k: int = 1) -> bool:
    """Algorithm 1 for Bernoulli(exp(−u/den)) from trial K = ``k`` on (the trials before it succeeded): trials
    Bernoulli(u/(den·K)) for K = k, k + 1, … until one fails; True when that K is odd."""
    while _below(den * k, gen) < u:
        k += 1
    return bool(k & 1)


def parts_stream(count: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(V, F_b, B) of ``count`` samples from consecutive words of ``gen`` (none depends on the scale t)."""
    from lmdk import discrete_laplace_kernel as kernel

    _, ties, a, g, b = _drive(kernel.parts_stream, _ONE, _ONE, count, gen)
    for i in np.flatnonzero(ties).tolist():
        a[i] = _resolved(int(a[i]), int(ties[i]), gen)
    return a >> 6, _fraction(a, g, FRACTION_BITS), b.astype(np.int8)


def _below(m: int, gen: np.random.Generator) -> int:
    """A uniform integer in [0, m) for any m ≥ 1 (Python int), from 64-bit words with exact rejection."""
    if m <= 2**62:
        return int(gen.integers(0, m))
    words = -(-m.bit_length() // 64)
    span = 1 << (64 * words)
    limit = span - span % m
    while True:
        w = 0
        for word in _words(gen, words):
            w = (w << 64) | word
        if w < limit:
            return w % m


def raw64(gen: np.random.Generator, count: int) -> np.ndarray:
    """``count`` uniform 64-bit numbers as ``gen.integers(0, 2**64, size=count, dtype=np.uint64)`` draws them: the
    bit generator's raw words (the same numbers and state, a quarter of the call's cost: refinements draw thousands
    per ε change), except MT19937, whose raw words are 32-bit (their high halves would all be 0)."""
    if isinstance(gen.bit_generator, np.random.MT19937):
        return gen.integers(0, 2**64, size=count, dtype=np.uint64)
    return gen.bit_generator.random_raw(count)


def _words(gen: np.random.Generator, count: int) -> list[int]:
    """:func:`raw64` as Python ints (the refinements' arithmetic)."""
    return raw64(gen, count).tolist()


def refined_floor(t: int, f: int, bits: int, gen: np.random.Generator) -> int:
    """⌊t·F⌋ for F ∈ [f/2^bits, (f+1)/2^bits) with density ∝ e^−F: draw 32 more bits of F while the cell
    straddles a multiple of 1/t. Given the cell, the rest of 2^bits·F has density ∝ exp(−r/2^bits) on [0, 1),
    so its next 32 bits are Algorithm 2's U with t = 2^(bits+32) restricted to {0..2^32−1} (exact, Python ints)."""
    while _straddles(t, f, bits):
        den = 1 << (bits + 32)
        while True:  # U uniform on {0..2^32−1}, accepted with Bernoulli(exp(−U/den)) (Algorithm 1)
            u = int(gen.integers(0, 2**32))
            if _bernoulli_exp_odd(u, den, gen):
                break
        f, bits = (f << 32) | u, bits + 32
    return (t * f) >> bits


def floor_scaled(t: np.ndarray, v: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X, unsure): X = ⌊t·E⌋ = t·V + ⌊t·F⌋ for E = V + F (F_b = f), exact in uint64 arithmetic where the 2^−b
    cell of F lies between two multiples of 1/t (probability ≥ 1 − t/2^b); where ``unsure``, more bits of F decide
    (``LockstepNoise.finish``)."""
    bits = FRACTION_BITS
    tt = t.astype(np.uint64)
    ff = f.astype(np.uint64)
    low = (tt & _MASK32) * ff  # < 2^64: t_lo < 2^32, F_b < 2^32
    m = (tt >> np.uint64(32)) * ff * np.uint64(2 ** (32 - bits)) + (low >> np.uint64(bits))  # ⌊t·F_b/2^b⌋
    x = t * v + m.astype(np.int64)
    unsure = (low & np.uint64(2**bits - 1)) + tt > np.uint64(2**bits)  # t·F_b mod 2^b + t > 2^b
    return x, unsure


def _scalar_parts(bits: int, gen: np.random.Generator) -> tuple[int, int]:
    """(V, F_b) of one sample by Algorithm 1 with Python integers, one draw at a time: V the Bernoulli(exp(−1))
    successes before the first failure, F_b uniform on {0..2^b−1} accepted with Bernoulli(exp(−F_b/2^b))."""
    v = 0
    while True:  # Bernoulli(exp(−1)): Algorithm 1's K-loop from K = 2 (Bernoulli(1/1) always succeeds)
        k = 2
        while gen.integers(0, k) == 0:
            k += 1
        if not k & 1:
            break
        v += 1
    while True:
        f = int(gen.integers(0, 2**bits))
        k = 1
        while gen.integers(0, 2**bits * k) < f:
            k += 1
        if k & 1:
            return v, f


def scalar_laplace(t: int, s: int, gen: np.random.Generator) -> int:
    """One sample of :func:`discrete_laplace` with Python integers (a restart): the same law — V, F_b, B, the floor
    (refined if needed), the restart at −0 — one draw at a time."""
    bits = FRACTION_BITS
    while True:
        v, f = _scalar_parts(bits, gen)
        b = int(gen.integers(0, 2))
        y = (t * v + refined_floor(t, f, bits, gen)) // s
        if not (b == 1 and y == 0):
            return -y if b else y


def signed(y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(1 − 2B)·Y."""
    return np.where(b == 1, -y, y)


def discrete_laplace(t, s=1, rng=None, size=None) -> np.ndarray:
    """Exact samples of Lap_Z(t/s): P(Z = z) ∝ exp(−|z|·s/t) on the integers (CKS 2020, Algorithm 2).

    ``t``, ``s``: positive integer arrays broadcasting to the output (and to ``size`` if given); int64 out.
    Per entry, as Algorithm 2: X = t·V + U with V the Bernoulli(exp(−1)) successes before the first failure and U
    on {0..t−1} with P(U = u) ∝ e^(−u/t); Y = ⌊X/s⌋; a fair sign B; restart on B = 1, Y = 0; Z = (1 − 2B)·Y.
    One change, so that nothing but a final floor depends on t: U is ⌊t·F⌋ with F the fractional part of
    E ~ Exp(1), whose first 32 bits are Algorithm 2's U for t = 2^32 (P(⌊t·F⌋ = u) ∝ ∫ e^−f over
    [u/t, (u+1)/t) ∝ e^(−u/t), the same law); the rare cells that straddle a multiple of 1/t draw further bits.
    """
    t_a = _positive_integers(t, "t")
    s_a = _positive_integers(s, "s")
    shape = np.broadcast_shapes(t_a.shape, s_a.shape, () if size is None else tuple(np.atleast_1d(size)))
    count = int(np.prod(shape))
    t_v = t_a.reshape(-1) if t_a.shape == shape or t_a.size == 1 else np.broadcast_to(t_a, shape).reshape(-1)
    s_v = s_a.reshape(-1) if s_a.shape == shape or s_a.size == 1 else np.broadcast_to(s_a, shape).reshape(-1)
    z = _laplace_stream(np.ascontiguousarray(t_v), np.ascontiguousarray(s_v), count, _generator(rng))
    return z.reshape(shape)


def grid_exponent(scale) -> np.ndarray:
    """k = ⌊log₂ scale⌋ − GRID_BITS, exactly (from the binary exponent of the double, no log₂ rounding)."""
    _, exponent = np.frexp(np.asarray(scale, dtype=np.float64))  # scale = m·2^e, m ∈ [1/2, 1)
    return exponent.astype(np.int64) - 1 - GRID_BITS


def grid(scale) -> np.ndarray:
    """g = 2^grid_exponent(scale): between 2^−(GRID_BITS+1) and 2^−GRID_BITS of ``scale``."""
    return np.ldexp(1.0, grid_exponent(scale))


def validate_range(value_range) -> tuple[float, float]:
    """The public range (low, high) of one value: finite, low < high."""
    hint = ("value_range must be the public range (low, high) of one value, e.g. (0, 25) for a 25 kWh meter — "
            "from the device or the domain, never from the data")
    try:
        low, high = (float(v) for v in value_range)
    except (TypeError, ValueError):
        raise ParameterError(f"{hint}; got {value_range!r}") from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ParameterError(f"{hint}; got {value_range!r}")
    return low, high


@dataclass(frozen=True)
class Calibration:
    """The integer mechanism behind a budget ε (arrays of ε's shape): grid g = 2^k, Δ_int, t, range in steps."""

    exponent: np.ndarray  # k (int64)
    steps: np.ndarray  # Δ_int = ⌊Δ/g⌋ + 1 (int64)
    scale: np.ndarray  # t = ⌈Δ_int/ε⌉ (int64), with Δ_int/t ≤ ε exactly
    low: np.ndarray  # ⌈low/g⌉: lowest grid index inside the range (int64)
    high: np.ndarray  # ⌊high/g⌋ (int64)
    sensitivity: float  # Δ actually used: min(Δ, high − low)

    def take(self, rows: np.ndarray) -> Calibration:
        """The calibration of the elements ``rows`` (of a 1-D calibration)."""
        return Calibration(self.exponent[rows], self.steps[rows], self.scale[rows], self.low[rows], self.high[rows],
                           self.sensitivity)

    @property
    def grid(self) -> np.ndarray:
        """g = 2^k."""
        return np.ldexp(1.0, self.exponent)

    @property
    def epsilon(self) -> np.ndarray:
        """The guaranteed ε per element: Δ_int/t (≤ the requested ε)."""
        return self.steps / self.scale


def calibrate_unchecked(eps: np.ndarray, delta: float, low: float, high: float) -> Calibration:
    """``calibrate`` without validation (eps > 0 finite array, low < high, delta > 0): the hot path.

    Per element (``lmdk.discrete_laplace_kernel.calibrate_cells``, compiled): k = ⌊log₂ min(Δ, Δ/ε)⌋ − GRID_BITS
    (``grid_exponent``), Δ_int = ⌊Δ/g⌋ + 1, t = ⌈Δ_int/ε·(1 + 2^−40)⌉ — at least the real Δ_int/ε, as the two float
    roundings lose at most 2^−52 relative — and the range in grid steps, ⌈low/g⌉..⌊high/g⌋, stepped back inside
    the public range where low/g under-flows (a subnormal bound over a coarse grid)."""
    from lmdk.discrete_laplace_kernel import calibrate_cells

    delta = min(delta, float(np.nextafter(high - low, np.inf)))  # ≥ the real width: clamped changes are ≤ it
    e = np.asarray(eps, dtype=np.float64)
    flat = np.ascontiguousarray(e).reshape(-1)
    k, steps, t, lo, hi = (np.empty(flat.size, dtype=np.int64) for _ in range(5))
    widest, farthest = calibrate_cells(flat, float(delta), float(low), float(high), GRID_BITS, k, steps, t, lo, hi)
    if widest > MAX_SCALE:
        raise ParameterError(f"epsilon {float(np.min(e)):g} is too small for the exact discrete Laplace "
                             f"(its integer scale would exceed 2^52); give a larger budget")
    if farthest > MAX_STEPS:
        raise ParameterError("value_range is too far from 0 for its grid (more than 2^61 grid steps); shift the "
                             "values (e.g. subtract a public offset) before releasing them")
    shape = e.shape
    return Calibration(k.reshape(shape), steps.reshape(shape), t.reshape(shape), lo.reshape(shape), hi.reshape(shape),
                       delta)


def calibrate(epsilon, sensitivity, value_range) -> Calibration:
    """The grid, integer sensitivity Δ_int and integer scale t for budgets ``epsilon`` (see the module docstring)."""
    from lmdk.mechanisms import validate_epsilon, validate_sensitivity

    low, high = validate_range(value_range)
    return calibrate_unchecked(validate_epsilon(epsilon), validate_sensitivity(sensitivity), low, high)


_NORMAL_EXPONENTS = (-1022, 1022)  # k with 2^k and 2^−k both normal doubles: _power_of_two's bit pattern is exact


def _power_of_two(k: np.ndarray) -> np.ndarray:
    """2^k as doubles for integer k within _NORMAL_EXPONENTS: the exponent field set directly (k + 1023, mantissa 0)."""
    return ((np.asarray(k, dtype=np.int64) + 1023) << 52).view(np.float64)


def on_grid(x_clamped: np.ndarray, cal: Calibration, z: np.ndarray) -> np.ndarray:
    """g·clamp(round(x/g) + z) for values already clamped to the range: the released values (steps 2–4)."""
    exponent = np.asarray(cal.exponent)
    scaled = exponent.size == 0 or _NORMAL_EXPONENTS[0] <= int(exponent.min()) <= int(exponent.max()) <= \
        _NORMAL_EXPONENTS[1]
    # with g = 2^k a normal double, x·2^−k and q·2^k are ldexp(x, −k) and ldexp(q, k) exactly (one correctly rounded
    # product of the same real number either way) at a fifth of ldexp's cost per cell (issue 34)
    ratio = x_clamped * _power_of_two(-exponent) if scaled else np.ldexp(x_clamped, -exponent)
    steps = np.asarray(np.rint(ratio).astype(np.int64) + z)  # an array even for one value (numpy gives a scalar)
    np.maximum(steps, cal.low, out=steps)  # in place: two passes instead of np.clip's copy (a hot path, issue 34)
    np.minimum(steps, cal.high, out=steps)
    out = steps.astype(np.float64)
    if not scaled:
        return np.ldexp(out, exponent)
    out *= _power_of_two(exponent)
    return out


def release_values(x, epsilon, sensitivity, value_range, rng=None) -> np.ndarray:
    """The ε-DP release of values ``x`` for changes of one value by at most Δ = ``sensitivity`` (module docstring).

    ``epsilon`` may be an array broadcasting against ``x`` (e.g. per-timestamp budgets × repetitions).
    Every output is a multiple of its grid g inside ``value_range``; ``calibrate(epsilon, sensitivity,
    value_range).epsilon`` is the ε each element is guaranteed (≤ ``epsilon``).
    """
    from lmdk.mechanisms import broadcast_shape, finite_array

    values = finite_array(x, "x")
    cal = calibrate(epsilon, sensitivity, value_range)
    shape = broadcast_shape(values.shape, cal.scale.shape, "x")
    low, high = validate_range(value_range)
    z = discrete_laplace(np.broadcast_to(cal.scale, shape), 1, rng)
    return on_grid(np.clip(values, low, high), cal, z)  # z has the release's shape; x and the calibration broadcast
