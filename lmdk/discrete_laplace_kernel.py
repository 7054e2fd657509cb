"""The compiled inner loop of :mod:`lmdk.discrete_laplace`: Algorithm 2 of Canonne, Kamath & Steinke (2020) per
entry, consuming a stream of 64-bit words of the entry's Generator one sample after another.

Why compiled. A sample needs about eight uniform integers, each a loop with an exact rejection; numpy can only
run such loops in passes over the entries still active (a dozen array operations per pass), which made the exact
sampler 15× slower than numpy's textbook Laplace. Numba (a well-kept LLVM compiler for numeric Python) runs the
same integer steps per entry at the speed of the words themselves; the randomness is still numpy's bit
generator (its raw words), and every decision is still an integer comparison.

The stream. ``halves`` are the raw 64-bit outputs of the Generator's bit generator (``random_raw``) read as
32-bit numbers (low half first), uniform and independent. Algorithm 1 only ever needs Bernoulli(1/K) and
Bernoulli(F_b/(2^b·K)); both are drawn without a division for K < 64 (see ``_one_in`` and ``_parts``), with an
exact rejection where 2^32 is not a multiple of K. When the stream runs out inside a sample, the
kernel stops before that sample and says where it started, so the caller extends the stream and the sample is
drawn from exactly the words it would have had with a longer stream: the law never depends on the buffer.
"""
from __future__ import annotations

import numpy as np
from numba import njit

OK = 0
"""Status: every entry was drawn."""
OUT_OF_WORDS = 1
"""Status: the stream ended inside the sample of entry ``stop``; extend it from word ``start`` and go on."""


_TABLE = 64
_QUOTIENT = np.array([0] + [2**32 // k for k in range(1, _TABLE)], dtype=np.uint64)
"""⌊2^32/K⌋ for K < 64 (Algorithm 1's K rarely passes 10), so the loop divides only beyond."""


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
def _parts(halves: np.ndarray, pos: int, bits: int) -> tuple[int, np.uint64, int, int]:
    """(V, F_b, B, next position) of one sample, Algorithm 1 at every Bernoulli (position −1: the stream ended).

    V: Bernoulli(exp(−1)) successes before the first failure; each Bernoulli(exp(−1)) runs K = 2, 3, … while
    Bernoulli(1/K) succeeds and is K odd at the first failure. F_b: uniform on {0..2^b−1} (the low b bits of a
    32-bit number), accepted with Bernoulli(exp(−F_b/2^b)): K = 1, 2, … while Bernoulli(F_b/(2^b·K)) succeeds,
    drawn as Bernoulli(1/K) and then [c < F_b] with c the low b bits of the next number (independent draws: the
    probability is (1/K)·(F_b/2^b)), and accepted when K is odd. B: the lowest bit of a number.
    """
    n = halves.size
    v = 0
    while True:
        k = 2
        while True:
            hit, pos = _one_in(k, halves, pos)
            if pos < 0:
                return 0, np.uint64(0), 0, -1
            if not hit:
                break
            k += 1
        if (k & 1) == 0:
            break
        v += 1
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    while True:
        if pos >= n:
            return 0, np.uint64(0), 0, -1
        f = np.uint64(halves[pos]) & mask
        pos += 1
        k = 1
        while True:
            hit, pos = _one_in(k, halves, pos)
            if pos < 0 or (hit and pos >= n):
                return 0, np.uint64(0), 0, -1
            if not hit:
                break
            c = np.uint64(halves[pos]) & mask
            pos += 1
            if c >= f:
                break
            k += 1
        if (k & 1) == 1:
            break
    if pos >= n:
        return 0, np.uint64(0), 0, -1
    b = int(halves[pos] & np.uint32(1))
    return v, f, b, pos + 1


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
                   out: np.ndarray, unsure: np.ndarray, unsure_v: np.ndarray, unsure_f: np.ndarray,
                   unsure_b: np.ndarray) -> tuple[int, int, int]:
    """Draw Lap_Z(t[i]/s[i]) into out[i] for i = first..count−1 from the stream (restart at −0 as Algorithm 2);
    ``t`` and ``s`` hold one scale per entry or one for all.

    An entry whose floor needs more bits of F is left to the caller: ``unsure[i]`` is set and (V, F_b, B) kept in
    ``unsure_v/f/b[i]``. Returns (status, entry where it stopped, position where that entry's sample started).
    """
    t_step = 1 if t.size > 1 else 0
    s_step = 1 if s.size > 1 else 0
    pos = 0
    for i in range(first, count):
        start = pos
        ti = t[i * t_step]
        si = s[i * s_step]
        while True:
            v, f, b, pos = _parts(halves, pos, bits)
            if pos < 0:
                return OUT_OF_WORDS, i, start
            x, sure = floor_scaled(ti, v, f, bits)
            if not sure:
                unsure[i] = True
                unsure_v[i], unsure_f[i], unsure_b[i] = v, f, b
                break
            y = x // si
            if not (b == 1 and y == 0):  # −0 would give 0 twice its weight: draw again
                out[i] = -y if b == 1 else y
                break
    return OK, count, pos


@njit(cache=True, nogil=True)
def parts_stream(first: int, halves: np.ndarray, bits: int, v_out: np.ndarray, f_out: np.ndarray,
                 b_out: np.ndarray) -> tuple[int, int, int]:
    """(V, F_b, B) of entries first.. (Adaptive's noise drawn ahead of its scales); returns as laplace_stream."""
    pos = 0
    for i in range(first, v_out.size):
        start = pos
        v, f, b, pos = _parts(halves, pos, bits)
        if pos < 0:
            return OUT_OF_WORDS, i, start
        v_out[i], f_out[i], b_out[i] = v, f, b
    return OK, v_out.size, pos
