"""The exact discrete Laplace mechanism on a 2^k grid: the Laplace mechanism of exported values.

What it protects. One event's value x under the neighbouring relation "the value changes by at most Δ"
(``sensitivity``; with the public range [low, high] of the values, any change inside the range when
Δ = high − low): :func:`release_values` is ε-differentially private for that change, at every ε, Δ and range,
with ε the budget the scheme accounts for (the guaranteed figure Δ_int/t of :class:`Calibration` is ≤ ε
exactly). Nothing here protects against a weak pseudo-random generator (numpy's PCG64 is not cryptographic;
exports seed it from fresh OS entropy) or a public range chosen by looking at the data.

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
(NeurIPS 2020): Algorithm 1 for every Bernoulli(exp(−γ)) with rational γ, and Algorithm 2 for Lap_Z(t/s),
X = t·V + U, Y = ⌊X/s⌋, a sign, a restart at "−0". Its U (P(U = u) ∝ e^(−u/t) on {0..t−1}) is taken as
⌊t·F⌋ with F the fractional part of an Exp(1) variable, whose first 32 bits are Algorithm 2's own U for
t = 2^32 and whose further bits are drawn the same way when a floor needs them: the same law, and only the
final floor depends on t (so Adaptive can draw everything else ahead, :class:`LockstepNoise`). Every draw is a
uniform integer — a 64-bit word of the Generator's bit generator reduced by exact rejection (``_Draws``), or
``Generator.integers``, which does the same — and every decision an integer comparison: no floating-point
number touches the randomness, so Z has exactly the law of (a), and the output's low bits carry nothing (there
are none beyond g). How much randomness is drawn never depends on x.

Everything is vectorised: each rejection loop runs in passes over the entries still active (one uniform
integer per active entry and pass, with one bound per pass) until every entry has been accepted.
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
"""Resolution 2^−b at which the fractional part of the exponential is drawn ahead (b ≤ 32; see _floor_scaled)."""
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
    return arr.astype(np.int64)


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


class _Draws:
    """Exact uniform integers for entries that each draw from their row's Generator (``rows[i]``, non-decreasing;
    None: every entry from ``generators[0]``), the row's entries in order — so a row's numbers depend on its own
    entries alone, and a population batch (one row per user) draws exactly what each user drawn alone would.

    Each draw is one 64-bit word of the Generator's bit generator (``bit_generator.random_raw``, the uniform integers
    ``Generator.integers`` itself reduces; it is called directly because ``integers`` costs ~13 µs per call and a
    batch calls once per user and pass), reduced exactly: w is kept when w < 2^64 − (2^64 mod m), a multiple of m,
    and gives w mod m; a rejected word (probability < m/2^64) is replaced by the row's next word.
    """

    def __init__(self, generators, rows: np.ndarray | None = None):
        self.generators = generators
        self.bits = [g.bit_generator for g in generators]
        self.rows = rows
        if rows is not None:  # entries of row r: ids starts[r] .. starts[r+1]−1
            self.starts = np.searchsorted(rows, np.arange(len(generators) + 1))

    def __call__(self, high: int, ids: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Uniform integers in [0, high) (high ≤ 2^63) for the entries ``ids[active]`` (or ``ids``), increasing."""
        if self.rows is None:
            words = self.bits[0].random_raw(ids.size if active is None else active.size)
        else:
            if active is not None:
                ids = ids[active]
            words = np.empty(ids.size, dtype=np.uint64)
            ends = np.searchsorted(ids, self.starts).tolist()  # ids of row r: positions ends[r] .. ends[r+1]−1
            for r in np.flatnonzero(np.diff(ends)).tolist():
                words[ends[r]:ends[r + 1]] = self.bits[r].random_raw(ends[r + 1] - ends[r])
        excess = (1 << 64) % high
        if excess:
            limit = np.uint64((1 << 64) - excess)
            for i in np.flatnonzero(words >= limit).tolist():  # rare; a row's entries in order
                bits = self.bits[0 if self.rows is None else int(self.rows[ids[i]])]
                while words[i] >= limit:
                    words[i] = bits.random_raw()
            words %= np.uint64(high)
        else:  # a power of two
            words &= np.uint64(high - 1)
        return words.view(np.int64)

    def generator(self, i: int) -> np.random.Generator:
        """The Generator of entry i."""
        return self.generators[0 if self.rows is None else int(self.rows[i])]


def _bernoulli_exp_fraction(num: np.ndarray, den: int, ids: np.ndarray, draw: _Draws, k0: int = 1) -> np.ndarray:
    """Algorithm 1 for γ = num/den ≤ 1 with one ``den`` for all entries: pass K draws ``integers(0, den·K)`` for
    every entry still in its loop (one scalar bound per pass). ``k0 = 2`` skips the sure first trial when γ = 1."""
    out = np.empty(num.size, dtype=bool)
    active = np.arange(num.size)
    k = k0
    while active.size:
        a = draw(den * k, ids, active) < num[active]  # Bernoulli(γ/K)
        out[active[~a]] = (k & 1) == 1
        active = active[a]
        k += 1
    return out


def _geometric_e(ids: np.ndarray, draw: _Draws) -> np.ndarray:
    """V: Bernoulli(exp(−1)) successes before the first failure, so P(V ≥ v) = e^−v (the integer part of an
    Exp(1) variable; Algorithm 2's V)."""
    v = np.zeros(ids.size, dtype=np.int64)
    active = np.arange(ids.size)
    while active.size:
        success = _bernoulli_exp_fraction(np.ones(active.size, dtype=np.int64), 1,
                                          ids if active.size == ids.size else ids[active], draw, k0=2)
        active = active[success]
        v[active] += 1
    return v


def _fraction(ids: np.ndarray, draw: _Draws, bits: int) -> np.ndarray:
    """F_b: uniform on {0..2^b−1}, accepted with Bernoulli(exp(−F_b/2^b)), else drawn again (Algorithm 2's U
    with t = 2^b), so P(F_b = k) ∝ exp(−k/2^b): the first b bits of the fractional part of an Exp(1) variable."""
    out = np.empty(ids.size, dtype=np.int64)
    pending = np.arange(ids.size)
    while pending.size:
        at = ids if pending.size == ids.size else ids[pending]
        u = draw(2**bits, at)
        accept = _bernoulli_exp_fraction(u, 2**bits, at, draw)
        out[pending[accept]] = u[accept]
        pending = pending[~accept]
    return out


def _exponential_parts(ids: np.ndarray, draw: _Draws) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(V, F_b, B) for the entries ``ids``: integer part and first b fractional bits of E ~ Exp(1), and a fair
    sign bit. None depends on the scale t."""
    v = _geometric_e(ids, draw)
    f = _fraction(ids, draw, FRACTION_BITS)
    b = draw(2, ids).astype(np.int8)
    return v, f, b


def _below(m: int, gen: np.random.Generator) -> int:
    """A uniform integer in [0, m) for any m ≥ 1 (Python int), from 64-bit words with exact rejection."""
    if m <= 2**62:
        return int(gen.integers(0, m))
    words = -(-m.bit_length() // 64)
    span = 1 << (64 * words)
    limit = span - span % m
    while True:
        w = 0
        for word in gen.integers(0, 2**64, size=words, dtype=np.uint64).tolist():
            w = (w << 64) | word
        if w < limit:
            return w % m


def _refined_floor(t: int, f: int, bits: int, gen: np.random.Generator) -> int:
    """⌊t·F⌋ for F ∈ [f/2^bits, (f+1)/2^bits) with density ∝ e^−F: draw 32 more bits of F while the cell
    straddles a multiple of 1/t. Given the cell, the rest of 2^bits·F has density ∝ exp(−r/2^bits) on [0, 1),
    so its next 32 bits are Algorithm 2's U with t = 2^(bits+32) restricted to {0..2^32−1} (exact, Python ints)."""
    while (t * f) >> bits != (t * f + t - 1) >> bits:
        den = 1 << (bits + 32)
        while True:  # U uniform on {0..2^32−1}, accepted with Bernoulli(exp(−U/den)) (Algorithm 1)
            u = int(gen.integers(0, 2**32))
            k = 1
            while _below(den * k, gen) < u:
                k += 1
            if k & 1:
                break
        f, bits = (f << 32) | u, bits + 32
    return (t * f) >> bits


def _floor_scaled(t: np.ndarray, v: np.ndarray, f: np.ndarray, gen_of) -> np.ndarray:
    """X = ⌊t·E⌋ = t·V + ⌊t·F⌋ for E = V + F (F_b = f): exact in uint64 arithmetic when the 2^−b cell of F lies
    between two multiples of 1/t (probability ≥ 1 − t/2^b), else refined (``_refined_floor`` with the Generator
    ``gen_of(i)`` of entry i)."""
    bits = FRACTION_BITS
    tt = t.astype(np.uint64)
    ff = f.astype(np.uint64)
    low = (tt & _MASK32) * ff  # < 2^64: t_lo < 2^32, F_b < 2^32
    m = (tt >> np.uint64(32)) * ff * np.uint64(2 ** (32 - bits)) + (low >> np.uint64(bits))  # ⌊t·F_b/2^b⌋
    x = t * v + m.astype(np.int64)
    unsure = (low & np.uint64(2**bits - 1)) + tt > np.uint64(2**bits)  # t·F_b mod 2^b + t > 2^b
    if unsure.any():
        for i in np.flatnonzero(unsure).tolist():
            x[i] = int(t[i]) * int(v[i]) + _refined_floor(int(t[i]), int(f[i]), bits, gen_of(i))
    return x


def _scalar_laplace(t: int, s: int, gen: np.random.Generator) -> int:
    """One sample of :func:`discrete_laplace` with Python integers (a lockstep row's restart): the same steps —
    V, F_b, B, the floor (refined if needed), the restart at −0 — one draw at a time."""
    bits = FRACTION_BITS
    while True:
        v = 0
        while True:  # Bernoulli(exp(−1)): Algorithm 1's K-loop from K = 2 (Bernoulli(1/1) always succeeds)
            k = 2
            while gen.integers(0, k) == 0:
                k += 1
            if not k & 1:
                break
            v += 1
        while True:  # F_b: uniform on {0..2^b−1}, accepted with Bernoulli(exp(−F_b/2^b))
            f = int(gen.integers(0, 2**bits))
            k = 1
            while gen.integers(0, 2**bits * k) < f:
                k += 1
            if k & 1:
                break
        b = int(gen.integers(0, 2))
        y = (t * v + _refined_floor(t, f, bits, gen)) // s
        if not (b == 1 and y == 0):
            return -y if b else y


def _signed(y: np.ndarray, b: np.ndarray) -> np.ndarray:
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
    t_v = np.broadcast_to(t_a, shape).reshape(-1)
    s_v = np.broadcast_to(s_a, shape).reshape(-1)
    return _laplace(t_v, s_v, _Draws([_generator(rng)])).reshape(shape)


def discrete_laplace_rows(t, rows, generators) -> np.ndarray:
    """:func:`discrete_laplace` (s = 1) for entries drawn from their rows' Generators: entry i from
    ``generators[rows[i]]`` (``rows`` non-decreasing), all rows in one vectorised pass. Row r's samples equal
    ``discrete_laplace(t[rows == r], 1, generators[r])`` (the population batch, one row per user)."""
    t_v = _positive_integers(t, "t").reshape(-1)
    rows = np.asarray(rows, dtype=np.int64).reshape(-1)
    if rows.shape != t_v.shape or np.any(np.diff(rows) < 0):
        raise ParameterError("rows must give each entry of t its row, in non-decreasing order")
    return _laplace(t_v, np.ones_like(t_v), _Draws([_generator(g) for g in generators], rows))


def _laplace(t: np.ndarray, s: np.ndarray, draw: _Draws) -> np.ndarray:
    """The rounds of :func:`discrete_laplace` for flat t, s: (V, F_b, B), the floor, restarts at −0."""
    out = np.empty(t.size, dtype=np.int64)
    pending = np.arange(t.size)
    while pending.size:
        v, f, b = _exponential_parts(pending, draw)
        y = _floor_scaled(t[pending], v, f, lambda i: draw.generator(pending[i])) // s[pending]
        out[pending] = _signed(y, b)
        pending = pending[(b == 1) & (y == 0)]  # −0 would give 0 twice its weight: draw again
    return out


class LockstepNoise:
    """Lap_Z(t) noise for rows that learn t only at each step (Adaptive's budget), drawn ahead where it can be.

    V, F_b and B of :func:`discrete_laplace` do not depend on t: they are drawn for every (row, step) at once
    (``from_generator``: all rows from one Generator; ``from_generators``: row r from its own, as
    ``from_generator(generators[r], 1, n_r)`` would). At step j only the floor ⌊t·E⌋ is computed; the rare
    rows that need more bits of F or a restart (B = 1, Y = 0) draw them from a Generator of their own, seeded
    from 256 bits of the row's Generator — so each row's numbers depend on its own Generator alone.
    """

    def __init__(self, v: np.ndarray, f: np.ndarray, b: np.ndarray, seeds: np.ndarray):
        # (steps, rows), contiguous per step
        self._v = np.ascontiguousarray(v.T, dtype=np.int64)
        self._f = np.ascontiguousarray(f.T, dtype=np.uint64)
        self._b = np.ascontiguousarray(b.T)
        self._seeds = seeds
        self._children: dict[int, np.random.Generator] = {}

    @classmethod
    def from_generator(cls, rng, rows: int, n: int) -> LockstepNoise:
        """All rows from one Generator (``lmdk.schemes.release``'s repetitions)."""
        gen = _generator(rng)
        v, f, b = _exponential_parts(np.arange(rows * n), _Draws([gen]))
        seeds = gen.integers(0, 2**64, size=(rows, 4), dtype=np.uint64)
        return cls(v.reshape(rows, n), f.reshape(rows, n), b.reshape(rows, n), seeds)

    @classmethod
    def from_generators(cls, generators, lengths, n: int) -> LockstepNoise:
        """Row r from ``generators[r]`` for its first ``lengths[r]`` steps (a population batch; 0 after)."""
        gens = [_generator(g) for g in generators]
        lengths = np.asarray(lengths, dtype=np.int64)
        valid = np.arange(n) < lengths[:, None]
        rows = np.repeat(np.arange(len(gens)), lengths)
        parts = _exponential_parts(np.arange(rows.size), _Draws(gens, rows))
        v, f, b = (np.zeros((len(gens), n), dtype=a.dtype) for a in parts)
        v[valid], f[valid], b[valid] = parts
        seeds = np.stack([gen.integers(0, 2**64, size=(1, 4), dtype=np.uint64)[0] for gen in gens]) if gens else \
            np.empty((0, 4), dtype=np.uint64)
        return cls(v, f, b, seeds)

    def _child(self, r: int) -> np.random.Generator:
        """Row r's own Generator for refinements and restarts."""
        if r not in self._children:
            self._children[r] = np.random.default_rng(np.random.SeedSequence(self._seeds[r].tolist()))
        return self._children[r]

    def step(self, j: int, t: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Z ~ Lap_Z(t[i]) at step j for every row (``rows`` None) or for the rows ``rows[i]`` (ascending)."""
        v, f, b = self._v[j], self._f[j], self._b[j]
        child = self._child
        if rows is not None:
            v, f, b = v[rows], f[rows], b[rows]
            child = lambda i: self._child(int(rows[i]))  # noqa: E731
        y = _floor_scaled(t, v, f, child)
        z = _signed(y, b)
        again = (b == 1) & (y == 0)
        if again.any():  # restart: a fresh sample from the row's own Generator
            for i in np.flatnonzero(again).tolist():
                z[i] = _scalar_laplace(int(t[i]), 1, child(i))
        return z


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


def _calibrate(eps: np.ndarray, delta: float, low: float, high: float) -> Calibration:
    """``calibrate`` without validation (eps > 0 finite array, low < high, delta > 0): the hot path."""
    delta = min(delta, float(np.nextafter(high - low, np.inf)))  # ≥ the real width: clamped changes are ≤ it
    k = grid_exponent(np.minimum(delta, delta / eps))
    steps = np.floor(np.ldexp(delta, -k)).astype(np.int64) + 1  # Δ/g is exact (g = 2^k)
    # ⌈Δ_int/ε·(1 + 2^−40)⌉ ≥ the real Δ_int/ε: the two float roundings lose at most 2^−52 relative
    t = np.ceil(steps / eps * (1.0 + 2.0**-40))
    if np.any(t > MAX_SCALE):
        raise ParameterError(f"epsilon {float(np.min(eps)):g} is too small for the exact discrete Laplace "
                             f"(its integer scale would exceed 2^52); give a larger budget")
    lo = np.ceil(np.ldexp(low, -k))
    hi = np.floor(np.ldexp(high, -k))
    if np.any(np.abs(lo) > MAX_STEPS) or np.any(np.abs(hi) > MAX_STEPS):
        raise ParameterError("value_range is too far from 0 for its grid (more than 2^61 grid steps); shift the "
                             "values (e.g. subtract a public offset) before releasing them")
    return Calibration(k, steps, t.astype(np.int64), lo.astype(np.int64), hi.astype(np.int64), delta)


def calibrate(epsilon, sensitivity, value_range) -> Calibration:
    """The grid, integer sensitivity Δ_int and integer scale t for budgets ``epsilon`` (see the module docstring)."""
    from lmdk.mechanisms import validate_epsilon, validate_sensitivity

    low, high = validate_range(value_range)
    return _calibrate(validate_epsilon(epsilon), validate_sensitivity(sensitivity), low, high)


def on_grid(x_clamped: np.ndarray, cal: Calibration, z: np.ndarray) -> np.ndarray:
    """g·clamp(round(x/g) + z) for values already clamped to the range: the released values (steps 2–4)."""
    q = np.rint(np.ldexp(x_clamped, -cal.exponent)).astype(np.int64)
    return np.ldexp(np.clip(q + z, cal.low, cal.high).astype(np.float64), cal.exponent)


def release_values(x, epsilon, sensitivity, value_range, rng=None) -> np.ndarray:
    """The ε-DP release of values ``x`` for changes of one value by at most Δ = ``sensitivity`` (module docstring).

    ``epsilon`` may be an array broadcasting against ``x`` (e.g. per-timestamp budgets × repetitions).
    Every output is a multiple of its grid g inside ``value_range``; ``calibrate(epsilon, sensitivity,
    value_range).epsilon`` is the ε each element is guaranteed (≤ ``epsilon``).
    """
    from lmdk.mechanisms import _broadcast_shape, _finite_array

    values = _finite_array(x, "x")
    cal = calibrate(epsilon, sensitivity, value_range)
    shape = _broadcast_shape(values.shape, cal.scale.shape, "x")
    low, high = validate_range(value_range)
    clamped = np.broadcast_to(np.clip(values, low, high), shape)
    cal = Calibration(*(np.broadcast_to(a, shape) for a in (cal.exponent, cal.steps, cal.scale, cal.low,
                                                             cal.high)), cal.sensitivity)
    z = discrete_laplace(cal.scale, 1, rng)
    return on_grid(clamped, cal, z)
