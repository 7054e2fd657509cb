"""Engines that map ``process_frame`` over frames of whole users: in-process streaming, or Dask.

In-process (default): chunks stream from the source, are regrouped so no user is split
(``lmdk.population.partition``) and processed one after the other; memory stays about one chunk.
Dask: the input becomes a ``dask.dataframe`` (Parquet read by Dask itself; smaller inputs from pandas),
shuffled by user so each partition holds whole users, and the same batch function is mapped over the
partitions on an existing cluster (``scheduler`` address or ``LMDK_DASK_SCHEDULER``) or on a ``LocalCluster``
of ``workers`` processes started for the run. No process pool of our own.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Callable, Iterator

import pandas as pd

from lmdk.population import partition
from lmdk.population.input import Source, canonical
from lmdk.population.process import Job, process_frame, summary_meta

SCHEDULER_ENV = "LMDK_DASK_SCHEDULER"
Progress = Callable[[int, int], None]  # (users finished, events finished) since the last call


def scheduler_address(scheduler: str | None) -> str | None:
    """The Dask scheduler to use: the argument, else ``LMDK_DASK_SCHEDULER``, else None."""
    return scheduler or os.environ.get(SCHEDULER_ENV) or None


def run_local(source: Source, job: Job, rows: int, progress: Progress, folder: str | None = None,
              on_total: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Stream whole-user frames through ``process_frame`` in this process."""
    info = None
    if not source.clustered:
        info = partition.scan(source, rows)
        if on_total is not None:
            on_total(info.users)
    parts = [summary_meta()]
    for frame in partition.user_frames(source, rows, info, folder):
        part = process_frame(frame, job)
        parts.append(part)
        progress(len(part), int(part["n"].sum()))
    return pd.concat(parts, ignore_index=True)


@contextmanager
def dask_client(scheduler: str | None, workers: int | None, processes: bool = True) -> Iterator:
    """A distributed Client: connected to ``scheduler``, or to a LocalCluster of ``workers`` started here."""
    import logging

    from distributed import Client, LocalCluster

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)  # per-shuffle start/stop notices
    if scheduler is not None:
        with Client(scheduler) as client:
            yield client
        return
    with LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=processes,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def _dask_frame(source: Source, rows: int):
    """The source as a dask DataFrame of canonical rows."""
    import dask.dataframe as dd

    if source.parquet:
        layout = source.layout
        raw = dd.read_parquet(list(source.parquet), columns=list(layout.columns.values()))
        meta = canonical(raw._meta, layout)
        return raw.map_partitions(canonical, layout, meta=meta)
    frames = list(source.chunks(rows))
    frame = pd.concat(frames, ignore_index=True)
    return dd.from_pandas(frame, chunksize=max(1, rows))


def run_dask(source: Source, job: Job, rows: int, progress: Progress, client,
             on_total: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Shuffle the input by user and map ``process_frame`` over the partitions on ``client``'s cluster."""
    import dask
    from distributed import as_completed

    ddf = _dask_frame(source, rows)
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    parts = max(ddf.npartitions, 2 * workers)
    by_user = ddf.shuffle(on="user", npartitions=parts)
    tasks = [dask.delayed(process_frame)(piece, job) for piece in by_user.to_delayed()]
    futures = client.compute(tasks)
    results = [summary_meta()]
    for future in as_completed(futures):
        part = future.result()
        results.append(part)
        progress(len(part), int(part["n"].sum()))
    return pd.concat(results, ignore_index=True)
