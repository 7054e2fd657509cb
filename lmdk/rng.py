"""One place that turns a seed or Generator into a numpy Generator (never the global RNG)."""
from __future__ import annotations

import numpy as np

RngLike = "np.random.Generator | int | None"


def as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """Return ``rng`` if it is a Generator, else a new PCG64 Generator seeded with it."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be a numpy.random.Generator, an int seed or None, not {type(rng).__name__}")
