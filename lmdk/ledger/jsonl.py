"""The JSON Lines ledger: one entry per line, in a plain file (``--ledger PATH``, the app's download).

Besides entries the file may hold two kinds of record, each one line: a cap (``{"record": "cap", "dataset",
"cap", "period", "time"}``) and the cancellation of a reservation whose export was refused after it was reserved
(``{"record": "cancel", "id", "time"}``). The file is append-only; a reservation reads, checks and appends under an
exclusive lock on the file itself (``fcntl.flock``), so concurrent exports on one machine never overspend.
"""
from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

from lmdk.errors import LedgerUnavailable, ParameterError
from lmdk.ledger.budget import Cap, Reservation, reserve_in, resolve_cap
from lmdk.ledger.entry import LedgerEntry, LedgerError, now_utc
from lmdk.ledger.text import json_line


def to_jsonl(entries: Iterable[LedgerEntry]) -> str:
    """The entries as JSON Lines text (one entry per line, each ending in a newline)."""
    return "".join(entry.to_json() + "\n" for entry in entries)


def cap_line(dataset: str, cap: Cap) -> str:
    """The JSON line that stores a dataset's cap."""
    return json_line({"record": "cap", "dataset": dataset, "cap": cap.cap, "period": cap.period, "time": now_utc()})


def _cap(data: dict) -> tuple[str, Cap]:
    """(dataset, Cap) of a cap record, checked."""
    from lmdk.ledger.budget import check_cap

    if not isinstance(data.get("dataset"), str) or "cap" not in data:
        raise ParameterError("a cap record needs dataset and cap")
    from lmdk.data.ids import dataset_key

    check_cap(data["cap"], data.get("period", "none"), line=True)
    return dataset_key(data["dataset"]), Cap(float(data["cap"]), data.get("period", "none"))


@dataclass
class Records:
    """What a JSON Lines ledger holds: entries (cancelled ones removed) and the caps per dataset (the lowest cap of
    a dataset with its first period: a cap only goes down, whatever a later line says); ``lines`` (the line of each
    entry), ``cap_lines`` ((line, dataset, cap) in order) and ``cancelled`` (ids) as read."""

    entries: list[LedgerEntry] = field(default_factory=list)
    caps: dict[str, Cap] = field(default_factory=dict)
    lines: list[int] = field(default_factory=list)
    cap_lines: list[tuple[int, str, Cap]] = field(default_factory=list)
    cancelled: set[str] = field(default_factory=set)


def binding(caps: dict[str, Cap], dataset: str, cap: Cap) -> Cap:
    """The cap in force after a cap line: the lowest so far, with the dataset's first period."""
    first = caps.get(dataset)
    return cap if first is None else Cap(min(first.cap, cap.cap), first.period)


def parse_records(text: str, name: str = "ledger") -> Records:
    """Entries and caps from JSON Lines text, split on ``\n`` only (a name holding U+2028 or U+0085 never breaks
    a record); blank lines are skipped, a malformed line raises LedgerError naming it."""
    out, cancelled = Records(), set()
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = data.get("record") if isinstance(data, dict) else None
            if kind == "cap":
                dataset, cap = _cap(data)
                out.caps[dataset] = binding(out.caps, dataset, cap)
                out.cap_lines.append((number, dataset, cap))
            elif kind == "cancel":
                cancelled.add(str(data.get("id", "")))
            else:
                out.entries.append(LedgerEntry.from_dict(data))
                out.lines.append(number)
        except (json.JSONDecodeError, RecursionError):
            raise LedgerError(f"{name} line {number} is not valid JSON; each line must be one ledger entry "
                              "(fix or delete that line)") from None
        except ParameterError as exc:
            raise LedgerError(f"{name} line {number}: {exc} (fix or delete that line)") from None
    kept = [(e, n) for e, n in zip(out.entries, out.lines, strict=True) if not e.id or e.id not in cancelled]
    out.entries, out.lines = [e for e, _ in kept], [n for _, n in kept]
    out.cancelled = cancelled
    return out


def parse_jsonl(text: str, name: str = "ledger") -> list[LedgerEntry]:
    """Entries from JSON Lines text; blank lines are skipped, a malformed line raises LedgerError naming it."""
    return parse_records(text, name).entries


def _decode(raw: bytes, path) -> str:
    """The ledger's text, or a LedgerError naming the file."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LedgerError(f"ledger {str(path)!r} is not UTF-8 text; give a JSON Lines ledger") from None


def read_records(path: str | Path) -> Records:
    """Entries and caps of a ledger file; a missing file is an empty ledger."""
    file = Path(path)
    if not file.exists():
        return Records()
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise LedgerError(f"ledger {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    return parse_records(_decode(raw, path), f"ledger {str(path)!r}")


def read(path: str | Path) -> list[LedgerEntry]:
    """The entries of a ledger file; a missing file is an empty ledger."""
    return read_records(path).entries


@contextmanager
def _locked(path: str | Path) -> Iterator[IO[bytes]]:
    """The ledger file opened for appending (created if missing) under an exclusive lock."""
    try:
        handle = open(path, "a+b")  # noqa: SIM115 (closed below, after the lock is released)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError) as exc:  # a wrong path: bad input
        raise ParameterError(f"--ledger {str(path)!r} cannot be written: {exc.strerror or exc}") from None
    except OSError as exc:  # permissions, a read-only or full disk: the ledger cannot be reached
        raise LedgerUnavailable(f"ledger {str(path)!r} cannot be written: {exc.strerror or exc}") from None
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield handle
    finally:
        handle.close()  # closing releases the lock


def _write(handle: IO[bytes], lines: list[str]) -> None:
    """Append lines (starting on a new line) and make them durable before anything is drawn."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    prefix = b""
    if size:
        handle.seek(size - 1)
        prefix = b"" if handle.read(1) == b"\n" else b"\n"
    handle.seek(0, os.SEEK_END)
    try:
        handle.write(prefix + "".join(line + "\n" for line in lines).encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())
    except OSError as exc:
        raise LedgerUnavailable(f"ledger {handle.name!r} cannot be written: {exc.strerror or exc}") from None


def append(path: str | Path, entries: LedgerEntry | Iterable[LedgerEntry]) -> None:
    """Append entries to a ledger file (created if missing), one JSON line each."""
    batch = [entries] if isinstance(entries, LedgerEntry) else list(entries)
    with _locked(path) as handle:
        _write(handle, [entry.to_json() for entry in batch])


class _FileTransaction:
    """The ledger as read under the lock, and the lines a reservation appends."""

    def __init__(self, records: Records):
        """The ledger read under the lock; nothing appended yet."""
        self.records = records
        self.lines: list[str] = []

    def stored_cap(self, dataset: str) -> Cap | None:
        """The dataset's stored cap (None: none)."""
        return self.records.caps.get(dataset)

    def spent(self, dataset: str, since: str | None) -> dict[str, float]:
        """Σ ε per user of the dataset at or after ``since``."""
        from lmdk.ledger.compose import spent_by_user

        return spent_by_user(self.records.entries, dataset, since)

    def store_cap(self, dataset: str, cap: Cap) -> None:
        """Store (or lower) the dataset's cap."""
        self.lines.append(cap_line(dataset, cap))

    def insert(self, entry: LedgerEntry) -> None:
        """Record the entry and its charges."""
        self.lines.append(entry.to_json())


class JsonLinesLedger:
    """A plain-path ledger: JSON Lines, caps enforced under a file lock."""

    def __init__(self, path: str | Path):
        """The ledger at ``path`` (created on the first reservation)."""
        self.path = Path(path)
        self.name = str(path)

    def reserve(self, entry: LedgerEntry, cap: float | None, period: str | None,
                now: datetime | None = None) -> Reservation:
        """Check and reserve under the lock (see :func:`lmdk.ledger.budget.reserve_in`)."""
        with _locked(self.path) as handle:
            tx = _FileTransaction(self._read(handle))
            reservation = reserve_in(tx, entry, cap, period, now)
            if tx.lines:
                _write(handle, tx.lines)
        return reservation

    def cancel(self, reservation_id: str) -> None:
        """Withdraw a reservation whose export was refused (an appended cancel record)."""
        if reservation_id:
            line = json_line({"record": "cancel", "id": reservation_id, "time": now_utc()})
            with _locked(self.path) as handle:
                _write(handle, [line])

    def records(self) -> Records:
        """Every entry and cap."""
        return read_records(self.path)

    def init(self) -> None:
        """Create the file if missing (``lmdk ledger init``; a reservation also creates it)."""
        with _locked(self.path):
            pass

    def _read(self, handle: IO[bytes]) -> Records:
        """The ledger as read through the locked ``handle``."""
        handle.seek(0)
        return parse_records(_decode(handle.read(), self.path), f"ledger {self.name!r}")

    def set_cap(self, dataset: str, cap: float, period: str | None) -> tuple[Cap | None, bool]:
        """Set or lower the dataset's cap under the lock (:func:`lmdk.ledger.budget.resolve_cap`): (the cap in force,
        whether it changed)."""
        with _locked(self.path) as handle:
            effective, changed = resolve_cap(dataset, self._read(handle).caps.get(dataset), cap, period)
            if changed and effective is not None:
                _write(handle, [cap_line(dataset, effective)])
        return effective, changed

    def add(self, source: Records, name: str):
        """Import ``source`` under the lock, all or nothing: caps through ``resolve_cap``, entries not already here
        (:func:`lmdk.ledger.transfer.plan_import`); the ``ImportReport``."""
        from lmdk.ledger.transfer import plan_import

        with _locked(self.path) as handle:
            here = self._read(handle)
            known: dict[str, LedgerEntry | None] = {key: None for key in here.cancelled}
            known.update({e.id: e for e in here.entries if e.id})
            plan = plan_import(source, name, here.caps.get, known)
            lines = [cap_line(d, c) for d, c in plan.caps] + [e.to_json() for e in plan.entries]
            if lines:
                _write(handle, lines)
        return plan.report
