"""Outputs that survive a crash: every file the command line writes goes through a temporary file in the same
folder, is fsynced and renamed over its name (a reader sees the old file or the whole new one, never a 0-byte or
half-written file); a folder (``lmdk population --out``) is built under a temporary name beside it and renamed when
complete. A process killed half-way leaves only a hidden ``.NAME.partial-…`` behind, never a truncated output."""
from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lmdk.errors import ParameterError

PARTIAL = ".partial-"
"""The infix of the temporary names (``.NAME.partial-XXXX``) an interrupted write may leave behind."""


def _fsync_folder(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (POSIX; a no-op where folders cannot be opened)."""
    if sys.platform.startswith("win"):
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path in ``path``'s folder to write to; on success it is fsynced and renamed to ``path``, on an
    error removed (``path`` untouched)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise ParameterError(f"output {str(path)!r}: the folder {str(folder)!r} does not exist; create it first")
    fd, name = tempfile.mkstemp(prefix=f".{target.name}{PARTIAL}", dir=folder)
    os.close(fd)
    temp = Path(name)
    try:
        yield temp
        with open(temp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_folder(folder)


def _umask() -> int:
    """The process' umask (mkstemp creates 0600 files; an output gets the permissions open() would give it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | Path, data: str | bytes, encoding: str = "utf-8") -> None:
    """Write ``data`` (text in ``encoding``, or bytes) to ``path`` atomically (temporary file, fsync, rename)."""
    payload = data.encode(encoding) if isinstance(data, str) else data
    with atomic_path(path) as temp:
        temp.write_bytes(payload)


@dataclass
class Building:
    """A folder under construction (:func:`atomic_folder`): ``path`` to write in; ``abandon()`` to leave nothing."""

    path: Path
    abandoned: bool = False

    def abandon(self) -> None:
        """Remove what was built instead of renaming it into place (e.g. a refused release writes nothing)."""
        self.abandoned = True


@contextlib.contextmanager
def atomic_folder(path: str | Path) -> Iterator[Building]:
    """A temporary folder beside ``path`` to build it in (``.path``); on success renamed to ``path`` (which must
    not exist or be an empty folder), on an error or ``abandon()`` removed."""
    target = Path(path)
    check_new_folder(target)
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    building = Building(Path(tempfile.mkdtemp(prefix=f".{target.name}{PARTIAL}", dir=parent)))
    try:
        yield building
        if building.abandoned:
            shutil.rmtree(building.path, ignore_errors=True)
            return
        os.chmod(building.path, 0o777 & ~_umask())
        if hasattr(os, "sync"):
            os.sync()  # every file written inside is on disk before the folder appears under its name
        if target.is_dir():
            target.rmdir()  # empty (checked above): the rename below puts the whole folder in its place
        os.rename(building.path, target)
    except BaseException:
        shutil.rmtree(building.path, ignore_errors=True)
        raise
    _fsync_folder(parent)


def check_new_folder(path: str | Path) -> None:
    """Refuse an output folder that is a file or already holds something (a folder is written whole, once)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise ParameterError(f"--out {str(path)!r} is a file; give a new folder")
    if target.is_dir() and any(target.iterdir()):
        raise ParameterError(f"--out {str(path)!r} already holds files; choose a new (or empty) folder — an output "
                             "folder is written whole, in one step")


DEMONSTRATION = "# DEMONSTRATION ONLY"
"""How every seeded output file begins (CSV: its first line; Parquet: the ``lmdk`` metadata; JSON: the
``demonstration_only`` key): its noise is reproducible from the seed, so it must not be handed out."""


def demonstration_note(seed: int | None) -> str:
    """The line a seeded (demonstration) output carries inside the file."""
    return (f"{DEMONSTRATION}: this noise was drawn from the seed {seed} and is reproducible — anyone with the seed "
            "can regenerate and remove it. Do not hand this file out as a release")


def table_text(frame, note: str | None = None) -> str:
    """A table as the CSV the command line writes: ``note`` (``# …`` lines) first, then the rows; text cells that
    a spreadsheet would run as a formula get a leading ``'`` (:func:`lmdk.exports.cells.csv_text`)."""
    from lmdk.exports.cells import csv_text

    return csv_text(frame, note)


def write_table(frame, path: str | Path, note: str | None = None) -> None:
    """Write a table atomically: Parquet for ``.parquet``/``.pq`` (``note`` in the file metadata under ``lmdk``),
    else CSV (``note`` as its first lines)."""
    target = Path(path)
    if target.suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        if note:
            table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"lmdk": note.encode()})
        with atomic_path(target) as temp:
            pq.write_table(table, temp)
        return
    write_atomic(target, table_text(frame, note))
