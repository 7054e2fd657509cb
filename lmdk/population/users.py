"""The users of a population input, listed before anything is released (a ledger reserves each one's ε first)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk.population.input import CHUNK_ROWS, Source


def user_ids(source: Source, rows: int = CHUNK_ROWS) -> list:
    """Every user of ``source`` once, in order of first appearance (one pass over the user column)."""
    columns = source.users(rows) if source.users is not None else (c["user"].to_numpy() for c in source.chunks(rows))
    seen: dict = {}
    for users in columns:
        for user in pd.unique(np.asarray(users, dtype=object)).tolist():
            seen.setdefault(user, None)
    return list(seen)


def without_users(source: Source, users) -> Source:
    """``source`` without the rows of ``users`` (compared as text): what a run releases when some are withheld."""
    from dataclasses import replace

    drop = frozenset(map(str, users))
    if not drop:
        return source

    def chunks(rows: int):
        for chunk in source.chunks(rows):
            yield chunk[~chunk["user"].astype(str).isin(drop).to_numpy()]

    return replace(source, chunks=chunks, users=None, parquet=(), clustered=source.clustered)
