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


def secure_generator(key: int | None = None) -> np.random.Generator:
    """numpy's Generator over randomgen's AESCounter (AES-128 in counter mode: a cryptographically secure bit
    generator whose raw words are 64-bit), keyed directly with ``key`` (``key=``, not ``seed=``: no hash of a
    seed in between; None: 128 fresh bits of ``os.urandom``, never recorded)."""
    import os

    from randomgen import AESCounter

    if key is None:
        key = int.from_bytes(os.urandom(16), "little")
    return np.random.Generator(AESCounter(key=int(key) % 2**128))


def is_secure(gen: np.random.Generator) -> bool:
    """Whether ``gen`` draws from a cryptographically secure bit generator (:func:`secure_generator`)."""
    return type(gen.bit_generator).__name__ == "AESCounter" and type(gen.bit_generator).__module__.startswith(
        "randomgen")
