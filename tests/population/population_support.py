"""Small populations for the population tests (imported by them; pytest puts this folder on sys.path)."""
from __future__ import annotations

import numpy as np
import pandas as pd


def fleet(users: int = 12, n: int = 120, *, ragged: bool = True, seed: int = 0, ids=None) -> pd.DataFrame:
    """A long table user,timestamp,value (hourly), some users shorter than others."""
    rng = np.random.default_rng(seed)
    ids = list(ids) if ids is not None else list(range(users))
    frames = []
    for i, user in enumerate(ids):
        size = n - (int(rng.integers(0, n // 2)) if ragged and i % 3 else 0)
        frames.append(pd.DataFrame({"user": user, "timestamp": pd.date_range("2024-01-01", periods=size, freq="h"),
                                    "value": rng.gamma(2.0, 1.0, size)}))
    return pd.concat(frames, ignore_index=True)


def read_released(path) -> pd.DataFrame:
    """A released folder as one frame sorted by user and time (user as text)."""
    frame = pd.read_parquet(path)
    frame["user"] = frame["user"].astype(str)
    return frame.sort_values(["user", "timestamp"], kind="stable").reset_index(drop=True)
