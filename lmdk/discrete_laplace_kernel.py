"""The compiled inner loop of :mod:`lmdk.discrete_laplace`: one exponential E = V + F per sample, read off about
two 64-bit words of the entry's Generator by exact integer comparisons, then Algorithm 2's floor, sign and restart.

Why compiled, and why this construction. Algorithm 1 of Canonne, Kamath & Steinke (2020) spends about ten
32-bit numbers per sample, each behind an unpredictable branch; compiled (numba, a well-kept LLVM compiler for
numeric Python) it still took 4–5× numpy's textbook Laplace. Here the sample needs about four 32-bit numbers and
one short table scan. The randomness is still numpy's bit generator (its raw words) and every decision is an
integer comparison.

The stream. ``halves`` are the raw 64-bit outputs of the Generator's bit generator (``random_raw``) read as
32-bit numbers (low half first), uniform and independent; a 64-bit number is two consecutive halves.

One sample (``_sample``), with A = ⌊64·E⌋ for E ~ Exp(1), so that P(A ≥ a) = e^(−a/64):

1. A from one 64-bit number U, read as the binary expansion u ∈ [U/2^64, (U+1)/2^64) of a uniform real: A ≥ a
   iff u < e^(−a/64). With the exact integers T_a = ⌊2^64·e^(−a/64)⌋ (``THRESHOLDS``, a = 1..L; e^(−a/64) is
   irrational, so T_a < 2^64·e^(−a/64) < T_a + 1): U < T_a decides "yes" and U > T_a "no"; U = T_a (a *tie*,
   probability 2^−64 per sample) is left to the caller, who compares further 64-bit numbers with the further
   binary digits of e^(−a/64) (``lmdk.discrete_laplace._tie``). A is the number of thresholds above U, found
   from a guide table on U's top 12 bits and a short upward scan. U < T_L means A ≥ L: by the memorylessness of
   the exponential, A − L is then again ⌊64·E⌋, drawn afresh and added.
2. V = ⌊A/64⌋ and J = A mod 64 (independent: P(V = v, J = j) ∝ e^(−v)·e^(−j/64)); F_b, the first b = 32 binary
   digits of F = E − V, is J·2^26 + G with G uniform on {0..2^26−1} accepted with Bernoulli(exp(−G/2^32))
   (P(F_b = f) ∝ e^(−f/2^32), the law of ⌊2^32·F⌋); that Bernoulli is Algorithm 1 with γ = G/2^32 < 2^−6:
   K = 1, 2, … while Bernoulli(γ/K) succeeds (Bernoulli(γ) = [C < G] with C a uniform 32-bit number, and for
   K ≥ 2 Bernoulli(1/K) and then [C < G]), accepted when K is odd — almost always at K = 1. G, C and the sign B
   come from one 64-bit number (bits 0–25, the high half, bit 26); a redraw of G uses new numbers and keeps B.
3. X = ⌊t·(V + F_b/2^b)⌋ exactly in 64-bit integers unless the 2^−b cell of F straddles a multiple of 1/t (then
   the caller draws more digits of F), Y = ⌊X/s⌋, Z = ±Y by B, and a fresh sample at B = 1, Y = 0.

When the stream runs out inside a sample, the kernel stops before that sample and says where it started, so the
caller extends the stream and the sample is drawn from exactly the words it would have had with a longer stream:
the law never depends on the buffer.
"""
from __future__ import annotations

import bisect
import math
from decimal import ROUND_FLOOR, Decimal, localcontext

import numpy as np
from numba import njit

OK = 0
"""Status: every entry was drawn."""
OUT_OF_WORDS = 1
"""Status: the stream ended inside the sample of entry ``stop``; extend it from word ``start`` and go on."""

STEPS = 64
"""A = ⌊STEPS·E⌋: V = A // 64 and the first 6 binary digits J of F."""
LIMIT = 40 * STEPS
"""L: thresholds T_1..T_L (e^(−40) ≈ 4·10^−18 of the samples go past them and draw again)."""
GUIDE_BITS = 12


def exp_digits(a: int, words: int) -> int:
    """⌊2^(64·words)·e^(−a/64)⌋ exactly: decimal's exp is correctly rounded, so e^(−a/64) lies within one unit
    of the last digit of the result; the precision grows until the interval has a single floor (it always
    does: e^(−a/64) is irrational for a ≥ 1, Lindemann)."""
    digits = 20 * words + 20
    while True:
        with localcontext() as ctx:
            ctx.prec = digits
            x = (Decimal(-a) / STEPS).exp()
            ctx.prec = 3 * digits  # exact below: x has `digits` digits, 2^(64·words) fewer than 20·words + 1
            ulp = Decimal(1).scaleb(x.adjusted() - digits + 1)
            scale = Decimal(2 ** (64 * words))
            lo, hi = int(((x - ulp) * scale).to_integral_value(ROUND_FLOOR)), \
                int(((x + ulp) * scale).to_integral_value(ROUND_FLOOR))
        if lo == hi:
            return lo
        digits += 20


def _tables() -> tuple[np.ndarray, np.ndarray]:
    """T_0..T_L (T_0 unused) and the guide: guide[h] = A of the largest U whose top GUIDE_BITS bits are h."""
    thresholds = [2**64 - 1] + [exp_digits(a, 1) for a in range(1, LIMIT + 1)]
    assert all(x > y for x, y in zip(thresholds[1:-1], thresholds[2:], strict=True)) and thresholds[LIMIT] > 0
    rising = thresholds[:0:-1]  # T_L..T_1, increasing
    guide = []
    for h in range(2**GUIDE_BITS):
        top = ((h + 1) << (64 - GUIDE_BITS)) - 1
        guide.append(LIMIT - bisect.bisect_right(rising, top))  # #{a ≥ 1: top < T_a}
    return np.array(thresholds, dtype=np.uint64), np.array(guide, dtype=np.int64)


THRESHOLDS, GUIDE = _tables()

_TABLE = 64
_QUOTIENT = np.array([0] + [2**32 // k for k in range(1, _TABLE)], dtype=np.uint64)
"""⌊2^32/K⌋ for K < 64, so the loop divides only beyond."""


@njit(cache=True, nogil=True)
def _one_in(k: int, halves: np.ndarray, pos: int) -> tuple[bool, int]:
    """Bernoulli(1/K) from the next accepted 32-bit number h: with q = ⌊2^32/K⌋, numbers h ≥ K·q are rejected
    (h is then uniform on {0..Kq−1}) and the result is h < q, of probability q/(Kq) = 1/K exactly.
    Position −1 when the stream ended."""
    q = _QUOTIENT[k] if k < _TABLE else np.uint64(4294967296 // k)
    limit = q * np.uint64(k)
    n = halves.size
    while pos < n:
        h = np.uint64(halves[pos])
        pos += 1
        if h < limit:
            return bool(h < q), pos
    return False, -1


@njit(cache=True, nogil=True)
def _steps(halves: np.ndarray, pos: int) -> tuple[int, int, int]:
    """(A, tie, next position) for A = ⌊64·E⌋ (step 1 of the module docstring); tie = a ≥ 1 when U = T_a: A is
    then the returned value if u ≥ e^(−a/64), else one more (a = L: L more plus a fresh A); position −1 when the
    stream ended."""
    n = halves.size
    base = 0
    shift = np.uint64(64 - GUIDE_BITS)
    while True:
        if pos + 2 > n:
            return 0, 0, -1
        u = np.uint64(halves[pos]) | (np.uint64(halves[pos + 1]) << np.uint64(32))
        pos += 2
        a = GUIDE[np.int64(u >> shift)]
        while a < LIMIT and u < THRESHOLDS[a + 1]:
            a += 1
        if a == LIMIT:
            base += LIMIT
            continue
        if u == THRESHOLDS[a + 1]:
            return base + a, a + 1, pos
        return base + a, 0, pos


@njit(cache=True, nogil=True)
def _sample(halves: np.ndarray, pos: int) -> tuple[int, int, np.uint64, int, int]:
    """(A, tie, G, B, next position) of one sample (steps 1–2): F_b's first 32 digits are (A mod 64)·2^26 + G.
    Position −1 when the stream ended."""
    a, tie, pos = _steps(halves, pos)
    if pos < 0:
        return 0, 0, np.uint64(0), 0, -1
    n = halves.size
    b = -1
    mask = np.uint64(2**26 - 1)
    while True:
        if pos + 2 > n:
            return 0, 0, np.uint64(0), 0, -1
        low = np.uint64(halves[pos])
        g = low & mask
        if b < 0:
            b = int((low >> np.uint64(26)) & np.uint64(1))
        hit = bool(np.uint64(halves[pos + 1]) < g)
        pos += 2
        k = 1
        while hit:  # Algorithm 1: Bernoulli(γ/K) for K = 2, 3, … (rare: γ < 2^−6)
            k += 1
            hit, pos = _one_in(k, halves, pos)
            if pos < 0 or (hit and pos >= n):
                return 0, 0, np.uint64(0), 0, -1
            if hit:
                hit = bool(np.uint64(halves[pos]) < g)
                pos += 1
        if (k & 1) == 1:
            return a, tie, g, b, pos


@njit(cache=True, nogil=True)
def fraction(a: int, g: np.uint64, bits: int) -> np.uint64:
    """F_b for b ≤ 32: the first b of the 32 digits (A mod 64)·2^26 + G (fewer digits: the caller draws the rest)."""
    f32 = (np.uint64(a & (STEPS - 1)) << np.uint64(26)) | g
    return f32 >> np.uint64(32 - bits)


@njit(cache=True, nogil=True)
def floor_scaled(t: int, v: int, f: np.uint64, bits: int) -> tuple[int, bool]:
    """(⌊t·(V + F_b/2^b)⌋, sure): exact in 64-bit integers for t < 2^63 and b ≤ 32; ``sure`` is False when the
    2^−b cell of F straddles a multiple of 1/t, so that more bits of F decide the floor."""
    tt = np.uint64(t)
    mask32 = np.uint64(0xFFFFFFFF)
    low = (tt & mask32) * f  # < 2^64: t_lo < 2^32, F_b < 2^32
    shift = np.uint64(bits)
    m = (tt >> np.uint64(32)) * f * (np.uint64(1) << np.uint64(32 - bits)) + (low >> shift)
    x = t * v + np.int64(m)
    cell = low & ((np.uint64(1) << shift) - np.uint64(1))
    return int(x), bool(cell + tt <= (np.uint64(1) << shift))


@njit(cache=True, nogil=True)
def laplace_stream(t: np.ndarray, s: np.ndarray, first: int, count: int, halves: np.ndarray, bits: int,
                   out: np.ndarray, pending: np.ndarray, pend_a: np.ndarray, pend_g: np.ndarray,
                   pend_b: np.ndarray) -> tuple[int, int, int]:
    """Draw Lap_Z(t[i]/s[i]) into out[i] for i = first..count−1 from the stream (restart at −0 as Algorithm 2);
    ``t`` and ``s`` hold one scale per entry or one for all.

    An entry whose A ties with a threshold, or whose floor needs more bits of F, is left to the caller:
    ``pending[i]`` is the tie (−1: no tie, the floor only) and (A, G, B) are kept in ``pend_a/g/b[i]``.
    Returns (status, entry where it stopped, position where that entry's sample started).
    """
    t_step = 1 if t.size > 1 else 0
    s_step = 1 if s.size > 1 else 0
    pos = 0
    for i in range(first, count):
        start = pos
        ti = t[i * t_step]
        si = s[i * s_step]
        while True:
            a, tie, g, b, pos = _sample(halves, pos)
            if pos < 0:
                return OUT_OF_WORDS, i, start
            if tie > 0:
                pending[i] = tie
                pend_a[i], pend_g[i], pend_b[i] = a, g, b
                break
            x, sure = floor_scaled(ti, a >> 6, fraction(a, g, bits), bits)
            if not sure:
                pending[i] = -1
                pend_a[i], pend_g[i], pend_b[i] = a, g, b
                break
            y = x // si
            if not (b == 1 and y == 0):  # −0 would give 0 twice its weight: draw again
                out[i] = -y if b == 1 else y
                break
    return OK, count, pos


@njit(cache=True, nogil=True)
def parts_stream(t: np.ndarray, s: np.ndarray, first: int, count: int, halves: np.ndarray, bits: int,
                 out: np.ndarray, ties: np.ndarray, a_out: np.ndarray, g_out: np.ndarray,
                 b_out: np.ndarray) -> tuple[int, int, int]:
    """(A, tie, G, B) of entries first..count−1 (Adaptive's noise drawn ahead of its scales): the signature of
    laplace_stream, with ``t``, ``s``, ``bits`` and ``out`` unused; returns as laplace_stream."""
    pos = 0
    for i in range(first, count):
        start = pos
        a, tie, g, b, pos = _sample(halves, pos)
        if pos < 0:
            return OUT_OF_WORDS, i, start
        ties[i], a_out[i], g_out[i], b_out[i] = tie, a, g, b
    return OK, count, pos


@njit(cache=True, nogil=True)
def calibrate_one(eps: float, delta: float, low: float, high: float, grid_bits: int) -> tuple[int, float, float,
                                                                                                float, float]:
    """(k, Δ_int, t, lowest and highest grid index) of one budget: ``lmdk.discrete_laplace.calibrate_unchecked``'s
    formulas with the same IEEE operations in the same order (frexp, ldexp, floor and ceil are exact; one division and
    one product), so the same numbers; floats, which the caller checks against 2^52 and 2^61 before casting."""
    _, e = math.frexp(min(delta, delta / eps))
    k = e - 1 - grid_bits
    n_steps = np.floor(math.ldexp(delta, -k)) + 1.0  # Δ/g is exact (g = 2^k)
    t = np.ceil(n_steps / eps * (1.0 + 2.0**-40))
    a = np.ceil(math.ldexp(low, -k))
    b = np.floor(math.ldexp(high, -k))
    if math.ldexp(a, k) < low:  # low/g underflowed to 0: step back inside the public range
        a += 1.0
    if math.ldexp(b, k) > high:
        b -= 1.0
    return k, n_steps, t, a, b


@njit(cache=True, nogil=True)
def representable(t: float, a: float, b: float) -> bool:
    """Whether a calibration fits the sampler's integers: t ≤ 2^52 and grid indices within ±2^61
    (``lmdk.discrete_laplace.MAX_SCALE`` and ``MAX_STEPS``; the caller raises their errors otherwise)."""
    return t <= 2.0**52 and max(abs(a), abs(b)) <= 2.0**61


@njit(cache=True, nogil=True)
def calibrate_cells(eps: np.ndarray, delta: float, low: float, high: float, grid_bits: int, exponent: np.ndarray,
                    steps: np.ndarray, scale: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float]:
    """``calibrate_one`` per element of the flat ``eps`` in one compiled pass (the numpy steps' dozen passes
    dominated on the small arrays of Adaptive's steps). Writes the outputs in place; returns (largest scale t,
    largest |grid index|) for the caller's checks."""
    widest = 0.0
    farthest = 0.0
    k, n_steps, t, a, b = 0, 0.0, 0.0, 0.0, 0.0
    for i in range(eps.size):
        if i == 0 or eps[i] != eps[i - 1]:  # runs of one budget (a row of a scheme, a landmark's) calibrate once
            k, n_steps, t, a, b = calibrate_one(eps[i], delta, low, high, grid_bits)
        widest = max(widest, t)
        farthest = max(farthest, max(abs(a), abs(b)))
        exponent[i], steps[i] = k, np.int64(n_steps)
        if representable(t, a, b):  # the caller refuses the call otherwise: no overflowing cast
            scale[i], lo[i], hi[i] = np.int64(t), np.int64(a), np.int64(b)
    return widest, farthest


@njit(cache=True, nogil=True)
def floor_cells(scale: np.ndarray, v: np.ndarray, f: np.ndarray, b: np.ndarray, published: np.ndarray, bits: int,
                out: np.ndarray, rare: np.ndarray) -> int:
    """Z = (1 − 2B)·⌊t·E⌋ at every published cell of (steps, rows) arrays from parts drawn ahead (V, F_b, B; t per
    cell), 0 elsewhere. A cell whose floor needs more bits of F (rare 1) or that restarts (B = 1, Y = 0: rare 2) is
    left to the caller with its floor in ``out``. Returns how many cells were left."""
    steps, rows = v.shape
    left = 0
    for j in range(steps):
        for r in range(rows):
            if not published[j, r]:
                out[j, r] = 0
                continue
            x, sure = floor_scaled(scale[j, r], v[j, r], f[j, r], bits)
            out[j, r] = -x if b[j, r] == 1 else x
            if not sure:
                rare[j, r] = 1
                left += 1
            elif b[j, r] == 1 and x == 0:
                rare[j, r] = 2
                left += 1
    return left
