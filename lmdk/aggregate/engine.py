"""Aggregates on Dask, the population's engine: tasks over whole users, each returning its partial sums.

Clustered Parquet (each user's rows contiguous, as a table written user by user) is cut into row ranges at user
boundaries and each worker reads its own rows — no shuffle; any other input is shuffled by user (a Dask
dataframe shuffle). Either way a user's readings of one bin meet in one task, so a user contributes at most one
reading per bin, and the partial sums of the tasks are added up here.
"""
from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from lmdk.aggregate.partial import Partial, Region, frame_partial
from lmdk.data.bins import Grid


def rows_partial(files: tuple[str, ...], layout, start: int, stop: int, width: Grid, low: float,
                 high: float, member: pd.DataFrame | None, region: Region | None,
                 bounds: tuple[int, int] | None = None) -> Partial:
    """``frame_partial`` of rows [start, stop) of Parquet files (a task on clustered input)."""
    from lmdk.population import partition
    from lmdk.population.input import canonical

    table = partition.read_rows(files, list(layout.columns.values()), start, stop)
    return frame_partial(canonical(table.to_pandas(split_blocks=True), layout), layout.kind, width, low, high,
                         member, region, bounds)


def partials(src, width: Grid, low: float, high: float, member: pd.DataFrame | None,
             region: Region | None, rows: int, scheduler: str | None, workers: int | None,
             bounds: tuple[int, int] | None = None) -> Iterator[Partial]:
    """The partials of every task, computed on the cluster at ``scheduler`` or a LocalCluster of ``workers``."""
    import dask
    from distributed import as_completed

    from lmdk.population import engine, partition

    address = engine.scheduler_address(scheduler)
    with engine.dask_client(address, workers if address is None else None) as client:
        count = max(1, len(client.scheduler_info().get("workers", {})))
        tasks = None
        if src.parquet:
            info = partition.scan(src, rows)
            if info.clustered:
                size = max(1, min(rows, -(-info.rows // (2 * count))))
                tasks = [dask.delayed(rows_partial)(src.parquet, src.layout, a, b, width, low, high, member, region,
                                                     bounds)
                         for a, b in partition.user_ranges(info, size)]
        if tasks is None:
            ddf = engine.dask_frame(src, rows)
            by_user = ddf.shuffle(on="user", npartitions=max(ddf.npartitions, 2 * count))
            tasks = [dask.delayed(frame_partial)(piece, src.kind, width, low, high, member, region, bounds)
                     for piece in by_user.to_delayed()]
        for future in as_completed(client.compute(tasks)):
            yield future.result()
