"""What ``--strict`` refuses in a population input: the rows a release would drop or average, named."""
from __future__ import annotations

import pandas as pd

from lmdk.population.input import CHUNK_ROWS, KIND_COLUMNS, Source

SHOWN = 3  # examples named per warning


def loader_warnings(source: Source, rows: int = CHUNK_ROWS) -> tuple[str, ...]:
    """The loader's warnings on ``source`` (one pass): rows without a time or value (dropped by a release) and a
    user's repeated timestamps (averaged by a release), each with its count and the first users and times."""
    empty, empty_users = 0, []
    seen: dict = {}
    repeated: list[tuple] = []
    for chunk in source.chunks(rows):
        needed = ["timestamp", *KIND_COLUMNS[source.kind]]
        missing = chunk[needed].isna().any(axis=1).to_numpy()
        if missing.any():
            empty += int(missing.sum())
            empty_users.extend(chunk.loc[missing, "user"].astype(str).unique()[:SHOWN].tolist())
        kept = chunk.loc[~missing, ["user", "timestamp"]]
        for user, time in zip(kept["user"].astype(str), kept["timestamp"], strict=True):
            key = (user, time)
            if key in seen:
                repeated.append(key)
            else:
                seen[key] = None
    out = []
    if empty:
        out.append(f"{empty:,} row(s) without a time or value would be dropped (users "
                   + ", ".join(dict.fromkeys(empty_users[:SHOWN])) + ")")
    if repeated:
        shown = "; ".join(f"user {u} at {pd.Timestamp(t).isoformat()}" for u, t in repeated[:SHOWN])
        out.append(f"{len(repeated):,} row(s) repeat a user's timestamp and would be averaged ({shown}"
                   + (", …" if len(repeated) > SHOWN else "") + "); keep one row per user and time")
    return tuple(out)
