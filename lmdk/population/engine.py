"""Engines that map ``process_frame`` over frames of whole users: in-process streaming, or Dask.

In-process (default): chunks stream from the source, are regrouped so no user is split
(``lmdk.population.partition``) and processed one after the other; memory stays about one chunk.
Dask: Parquet whose users come clustered is cut into row ranges at user boundaries, each read by the
worker that processes it (no data moves); any other input becomes a ``dask.dataframe`` (Parquet read by
Dask itself, smaller inputs from pandas) shuffled by user so each partition holds whole users. The same
batch function is mapped over the partitions on an existing cluster (``scheduler`` address or
``LMDK_DASK_SCHEDULER``) or on a ``LocalCluster`` of ``workers`` processes started for the run. No process pool of
our own.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pandas as pd

from lmdk.errors import ParameterError
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
    """Stream whole-user frames through ``process_frame`` in this process (clustered Parquet: row ranges cut at
    user boundaries, read one after the other; other input: ``partition.user_frames``)."""
    info = None
    if not source.clustered:
        info = partition.scan(source, rows)
        if on_total is not None:
            on_total(info.users)
    frames: Iterator[pd.DataFrame]
    if source.parquet and info is not None and info.clustered:
        ranges = partition.user_ranges(info, rows)
        layout = source.parquet_layout()
        frames = (canonical(partition.read_rows(source.parquet, list(layout.columns.values()), a, b)
                            .to_pandas(split_blocks=True), layout) for a, b in ranges)
    else:
        frames = partition.user_frames(source, rows, info, folder)
    parts = [summary_meta()]
    for frame in frames:
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
    if workers is None:
        raise ParameterError("a local Dask cluster needs workers= (how many processes to start), or give the "
                             "address of a running scheduler")
    with LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=processes,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def dask_frame(source: Source, rows: int):
    """The source as a dask DataFrame of canonical rows."""
    import dask.dataframe as dd

    if source.parquet:
        layout = source.parquet_layout()
        raw = dd.read_parquet(list(source.parquet), columns=list(layout.columns.values()))
        meta = canonical(raw._meta, layout)
        return raw.map_partitions(canonical, layout, meta=meta)
    frames = list(source.chunks(rows))
    frame = pd.concat(frames, ignore_index=True)
    return dd.from_pandas(frame, chunksize=max(1, rows))


def process_rows(files: tuple[str, ...], layout, start: int, stop: int, job: Job) -> pd.DataFrame:
    """``process_frame`` of rows [start, stop) of Parquet files (a task of the Dask engine on clustered input)."""
    table = partition.read_rows(files, list(layout.columns.values()), start, stop)
    return process_frame(canonical(table.to_pandas(split_blocks=True), layout), job)


def _tasks(source: Source, job: Job, rows: int, workers: int, on_total) -> list:
    """Dask tasks over whole users: row ranges cut at user boundaries (clustered Parquet, each worker reads its
    rows itself), else the input shuffled by user."""
    import dask

    if source.parquet:
        info = partition.scan(source, rows)
        if on_total is not None:
            on_total(info.users)
        if info.clustered:
            size = max(1, min(rows, -(-info.rows // (2 * workers))))
            return [dask.delayed(process_rows)(source.parquet, source.layout, a, b, job)
                    for a, b in partition.user_ranges(info, size)]
    ddf = dask_frame(source, rows)
    by_user = ddf.shuffle(on="user", npartitions=max(ddf.npartitions, 2 * workers))
    return [dask.delayed(process_frame)(piece, job) for piece in by_user.to_delayed()]


def run_dask(source: Source, job: Job, rows: int, progress: Progress, client,
             on_total: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Map ``process_frame`` over partitions of whole users on ``client``'s cluster (see ``_tasks``)."""
    from distributed import as_completed

    workers = max(1, len(client.scheduler_info().get("workers", {})))
    futures = client.compute(_tasks(source, job, rows, workers, on_total))
    results = [summary_meta()]
    for future in as_completed(futures):
        part = future.result()
        results.append(part)
        progress(len(part), int(part["n"].sum()))
    return pd.concat(results, ignore_index=True)
