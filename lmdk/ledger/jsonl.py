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

from lmdk.errors import ParameterError
from lmdk.ledger.budget import Cap, Reservation, reserve_in
from lmdk.ledger.entry import LedgerEntry, LedgerError, now_utc


def to_jsonl(entries: Iterable[LedgerEntry]) -> str:
    """The entries as JSON Lines text (one entry per line, each ending in a newline)."""
    return "".join(entry.to_json() + "\n" for entry in entries)


def cap_line(dataset: str, cap: Cap) -> str:
    """The JSON line that stores a dataset's cap."""
    return json.dumps({"record": "cap", "dataset": dataset, "cap": cap.cap, "period": cap.period,
                       "time": now_utc()}, ensure_ascii=False, sort_keys=True)


def _cap(data: dict) -> tuple[str, Cap]:
    """(dataset, Cap) of a cap record, checked."""
    from lmdk.ledger.budget import check_cap

    if not isinstance(data.get("dataset"), str) or "cap" not in data:
        raise ParameterError("a cap record needs dataset and cap")
    check_cap(data["cap"], data.get("period", "none"))
    return data["dataset"], Cap(float(data["cap"]), data.get("period", "none"))


@dataclass
class Records:
    """What a JSON Lines ledger holds: entries (cancelled ones removed) and the caps per dataset."""

    entries: list[LedgerEntry] = field(default_factory=list)
    caps: dict[str, Cap] = field(default_factory=dict)


def parse_records(text: str, name: str = "ledger") -> Records:
    """Entries and caps from JSON Lines text; blank lines are skipped, a malformed line raises LedgerError."""
    out, cancelled = Records(), set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = data.get("record") if isinstance(data, dict) else None
            if kind == "cap":
                dataset, cap = _cap(data)
                out.caps[dataset] = cap
            elif kind == "cancel":
                cancelled.add(str(data.get("id", "")))
            else:
                out.entries.append(LedgerEntry.from_dict(data))
        except (json.JSONDecodeError, RecursionError):
            raise LedgerError(f"{name} line {number} is not valid JSON; each line must be one ledger entry "
                              "(fix or delete that line)") from None
        except ParameterError as exc:
            raise LedgerError(f"{name} line {number}: {exc} (fix or delete that line)") from None
    out.entries = [e for e in out.entries if not e.id or e.id not in cancelled]
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
    except OSError as exc:
        raise ParameterError(f"--ledger {str(path)!r} cannot be written: {exc.strerror or exc}") from None
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
    handle.write(prefix + "".join(line + "\n" for line in lines).encode("utf-8"))
    handle.flush()
    os.fsync(handle.fileno())


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
            handle.seek(0)
            tx = _FileTransaction(parse_records(_decode(handle.read(), self.path), f"ledger {self.name!r}"))
            reservation = reserve_in(tx, entry, cap, period, now)
            if tx.lines:
                _write(handle, tx.lines)
        return reservation

    def cancel(self, reservation_id: str) -> None:
        """Withdraw a reservation whose export was refused (an appended cancel record)."""
        if reservation_id:
            line = json.dumps({"record": "cancel", "id": reservation_id, "time": now_utc()}, sort_keys=True)
            with _locked(self.path) as handle:
                _write(handle, [line])

    def records(self) -> Records:
        """Every entry and cap."""
        return read_records(self.path)

    def add(self, entries: list[LedgerEntry], caps: dict[str, Cap]) -> None:
        """Append entries and caps as they are (an import)."""
        with _locked(self.path) as handle:
            _write(handle, [cap_line(d, c) for d, c in caps.items()] + [e.to_json() for e in entries])
