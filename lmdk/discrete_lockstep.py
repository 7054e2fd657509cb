"""Noise for rows that learn their budgets late: the exact discrete Laplace (:mod:`lmdk.discrete_laplace`) with its
budget-free parts drawn ahead for every (row, step), so that only the floor ⌊t·E⌋ waits for the scale t.

Adaptive learns each step's budget as it goes; the other schemes know theirs but a view releases one seed at many ε:
both draw V, F_b and B once (:class:`LockstepNoise`) and floor them at the budgets (``step``, ``cells``).
"""
from __future__ import annotations

import numpy as np

from lmdk.discrete_laplace import (
    FRACTION_BITS,
    floor_scaled,
    parts_stream,
    raw64,
    refined_floor,
    refined_floor_from,
    scalar_laplace,
    signed,
)
from lmdk.rng import as_generator, is_secure, secure_generator


class LockstepNoise:
    """Lap_Z(t) noise for rows that learn t only at each step (Adaptive's budget), drawn ahead where it can be.

    V, F_b and B of :func:`discrete_laplace` do not depend on t: they are drawn for every (row, step) at once
    (``from_generator``: all rows from one Generator; ``from_generators``: row r from its own, as
    ``from_generator(generators[r], 1, n_r)`` would). At step j only the floor ⌊t·E⌋ is computed; the rare
    rows that need more bits of F or a restart (B = 1, Y = 0) draw them from a Generator of their own, seeded
    from 256 bits of the row's Generator — so each row's numbers depend on its own Generator alone.
    """

    def __init__(self, v: np.ndarray, f: np.ndarray, b: np.ndarray, seeds: np.ndarray, secure: bool = False):
        # (steps, rows), contiguous per step
        self._v = np.ascontiguousarray(v.T, dtype=np.int64)
        self._f = np.ascontiguousarray(f.T, dtype=np.uint64)
        self._b = np.ascontiguousarray(b.T)
        self._seeds = seeds
        self._secure = secure  # the rows' Generators are cryptographically secure: so are their children
        self._children: dict[int, np.random.Generator] = {}

    @classmethod
    def from_generator(cls, rng, rows: int, n: int) -> LockstepNoise:
        """All rows from one Generator (``lmdk.schemes.release``'s repetitions)."""
        gen = as_generator(rng)
        v, f, b = parts_stream(rows * n, gen)
        seeds = gen.integers(0, 2**64, size=(rows, 4), dtype=np.uint64)
        return cls(v.reshape(rows, n), f.reshape(rows, n), b.reshape(rows, n), seeds, is_secure(gen))

    @classmethod
    def from_generators(cls, generators, lengths, n: int) -> LockstepNoise:
        """Row r from ``generators[r]`` for its first ``lengths[r]`` steps (a population batch; 0 after)."""
        gens = [as_generator(g) for g in generators]
        lengths = np.asarray(lengths, dtype=np.int64)
        valid = np.arange(n) < lengths[:, None]
        drawn = [parts_stream(int(length), gen) for gen, length in zip(gens, lengths.tolist(), strict=True)]
        v = np.zeros((len(gens), n), dtype=np.int64)
        f = np.zeros((len(gens), n), dtype=np.uint64)
        b = np.zeros((len(gens), n), dtype=np.int8)
        if drawn:
            v[valid], f[valid], b[valid] = (np.concatenate(parts) for parts in zip(*drawn, strict=True))
        seeds = np.stack([gen.integers(0, 2**64, size=(1, 4), dtype=np.uint64)[0] for gen in gens]) if gens else \
            np.empty((0, 4), dtype=np.uint64)
        return cls(v, f, b, seeds, bool(gens) and all(is_secure(g) for g in gens))

    def _child(self, r: int) -> np.random.Generator:
        """Row r's own Generator for refinements and restarts."""
        if r not in self._children:
            words = self._seeds[r].tolist()
            self._children[r] = (secure_generator(words[0] | words[1] << 64) if self._secure
                                 else np.random.default_rng(np.random.SeedSequence(words)))
        return self._children[r]

    def parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(V, F_b, B), each (steps, rows): what ``step`` reads (for a compiled loop that floors them itself)."""
        return self._v, self._f, self._b

    def finish(self, j: int, r: int, t: int, x: int, sure: bool) -> int:
        """Row r's Z at step j and integer scale t, as ``step`` gives it, when the floor X = ``x`` was not ``sure``
        (more bits of F) or is a restart (B = 1, X = 0): from the row's own Generator, in ``step``'s order."""
        if not sure:
            x = t * int(self._v[j, r]) + refined_floor(t, int(self._f[j, r]), FRACTION_BITS, self._child(r))
        if self._b[j, r] == 1:
            return scalar_laplace(t, 1, self._child(r)) if x == 0 else -x
        return x

    def fresh(self) -> LockstepNoise:
        """The same parts with the rows' Generators back at their start: a second use gives the first's numbers
        (the parts of a demonstration's seed drawn once, its releases at every ε; ``lmdk.schemes.draw_noise``)."""
        copy = object.__new__(LockstepNoise)
        copy._v, copy._f, copy._b, copy._seeds, copy._secure = self._v, self._f, self._b, self._seeds, self._secure
        copy._children = {}
        return copy

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, steps) the parts were drawn for."""
        steps, rows = self._v.shape
        return rows, steps

    def cells(self, t: np.ndarray, published: np.ndarray, rows_apart: bool = False) -> np.ndarray:
        """Z ~ Lap_Z(t) at every published cell of (rows, steps) at once, 0 elsewhere (the floors compiled,
        :func:`lmdk.discrete_laplace_kernel.floor_cells`): where the parts decide the floor, the numbers ``step``
        gives. ``t``: int64 scales, one per cell or one per step (every row alike); ``rows_apart``: the rare cells of
        each row from that row's own Generator (``from_generators``: each user's numbers from their own alone)."""
        from lmdk import discrete_laplace_kernel as kernel

        pub_t = np.asarray(published, dtype=bool).T  # (steps, rows): step's order
        scale = np.asarray(t, dtype=np.int64)
        scale_t = np.broadcast_to(scale[:, None] if scale.ndim == 1 else scale.T, pub_t.shape)
        out = np.empty(pub_t.shape, dtype=np.int64)
        rare = np.zeros(pub_t.shape, dtype=np.int8)
        if kernel.floor_cells(scale_t, self._v, self._f, self._b, pub_t, FRACTION_BITS, out, rare):
            self._finish_cells(rare, scale_t, out, rows_apart)
        return out.T

    def _finish_cells(self, rare: np.ndarray, scale_t: np.ndarray, out: np.ndarray, rows_apart: bool) -> None:
        """The cells ``floor_cells`` left, in (row, step) order: first two 64-bit numbers per floor that needs more
        bits of F, drawn at once (their next 32 digits, ``refined_floor_from``: at a small budget thousands of cells
        refine, issue 34), then, cell by cell, what a floor or a restart needs beyond them. ``rows_apart``: each
        row's from its own Generator (a population's users); else all from row 0's (the repetitions of one release:
        one Generator made, not one per row)."""
        steps, rows = np.nonzero(rare)
        order = np.lexsort((steps, rows))  # by row, steps ascending within a row
        steps, rows = steps[order].tolist(), rows[order].tolist()
        start = 0
        while start < len(rows):
            stop = start
            while stop < len(rows) and (rows[stop] == rows[start] or not rows_apart):
                stop += 1
            cells = list(zip(steps[start:stop], rows[start:stop], strict=True))
            gen = self._child(rows[start] if rows_apart else 0)
            unsure = [cell for cell in cells if rare[cell] == 1]
            words = raw64(gen, 2 * len(unsure)).tolist()
            drawn = {cell: (words[2 * k], words[2 * k + 1]) for k, cell in enumerate(unsure)}
            for cell in cells:
                t = int(scale_t[cell])
                x = 0
                if cell in drawn:
                    x = t * int(self._v[cell]) + refined_floor_from(t, int(self._f[cell]), FRACTION_BITS, *drawn[cell],
                                                                     gen)
                if self._b[cell] == 1:
                    out[cell] = scalar_laplace(t, 1, gen) if x == 0 else -x
                else:
                    out[cell] = x
            start = stop

    def pack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
        """The parts in a third of the memory (V as int16 where it fits, F_b as uint32, B as int8; (steps, rows)) for
        keeping between releases; :meth:`unpack` gives the noise back."""
        v = self._v.astype(np.int16) if int(self._v.max(initial=0)) <= np.iinfo(np.int16).max else self._v
        return v, self._f.astype(np.uint32), self._b.astype(np.int8), self._seeds, self._secure

    @classmethod
    def unpack(cls, packed) -> LockstepNoise:
        """The noise :meth:`pack` kept, its rows' Generators at their start."""
        v, f, b, seeds, secure = packed
        return cls(v.T, f.T, b.T, seeds, secure)

    def step(self, j: int, t: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Z ~ Lap_Z(t[i]) at step j for every row (``rows`` None) or for the rows ``rows[i]`` (ascending)."""
        v, f, b = self._v[j], self._f[j], self._b[j]
        index = np.arange(v.size) if rows is None else np.asarray(rows)
        if rows is not None:
            v, f, b = v[rows], f[rows], b[rows]
        y, unsure = floor_scaled(t, v, f)
        z = signed(y, b)
        for i in np.flatnonzero(unsure | ((b == 1) & (y == 0))).tolist():  # rare: more bits of F, or a restart
            z[i] = self.finish(j, int(index[i]), int(t[i]), int(y[i]), not unsure[i])
        return z
