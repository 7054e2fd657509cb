"""Per-user randomness: a ``SeedSequence`` keyed by (seed, scheme, user id), whatever the partitioning.

The user id is hashed (BLAKE2b of its text) so any id — integer or string — maps to the same stream on
every worker, in every batch and in every run. Without a seed each user's generator is seeded from fresh
OS entropy that is never recorded (``lmdk.snapping.fresh_generator``).
"""
from __future__ import annotations

import hashlib

import numpy as np

from lmdk.policies.policy import SCHEME_NAMES

DOMAIN = 0x706F70  # "pop": keeps these streams apart from RunConfig's [seed, scheme] streams


def user_key(user) -> int:
    """A stable 128-bit integer for a user id (its text, so 7 and '7' are the same user)."""
    text = str(user.item() if isinstance(user, np.generic) else user)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest(), "little")


def user_seed_sequence(seed: int, scheme: str, user) -> np.random.SeedSequence:
    """The SeedSequence of one user's release under a seeded (demonstration) policy."""
    return np.random.SeedSequence([int(seed), DOMAIN, SCHEME_NAMES.index(scheme), user_key(user)])


def user_generator(seed: int | None, scheme: str, user) -> np.random.Generator:
    """One user's Generator: keyed by (seed, scheme, user id), or fresh unrecorded entropy when seed is None."""
    if seed is None:
        from lmdk.snapping import fresh_generator

        return fresh_generator()
    return np.random.default_rng(user_seed_sequence(seed, scheme, user))


def generators(seed: int | None, scheme: str, users) -> list[np.random.Generator]:
    """One Generator per user id, in the order given; without a seed one fresh cryptographically secure generator
    (:func:`lmdk.snapping.fresh_generator`) serves every user of the batch, drawn one after the other (keying an
    AESCounter costs ~0.1 ms: once per batch, not per user)."""
    if seed is None:
        from lmdk.snapping import fresh_generator

        return [fresh_generator()] * len(users)
    return [user_generator(seed, scheme, user) for user in users]


SELECTION = 0x73656C  # "sel": a private landmark selection's stream, apart from the release's


def selection_generators(seed: int | None, users) -> list[np.random.Generator]:
    """One Generator per user for a private landmark selection: keyed by (seed, user id) in a stream of its own,
    or fresh unrecorded entropy when seed is None."""
    if seed is None:
        from lmdk.snapping import fresh_generator

        return [fresh_generator()] * len(users)  # one fresh generator for the batch, as generators()
    return [np.random.default_rng(np.random.SeedSequence([int(seed), DOMAIN, SELECTION, user_key(user)]))
            for user in users]
