"""Moving a JSON Lines ledger into another ledger (``lmdk ledger import FILE --into URL``): idempotent, caps only
going down, all or nothing.

Every entry is imported under its id; an entry without one gets the hash of its canonical record (and of how many
identical records came before it in the file), so running the same import again finds every entry already there
and imports nothing twice. Every cap line goes through :func:`lmdk.ledger.budget.resolve_cap` against the cap in
force: a line that would raise a stored cap or change its period refuses the whole import, naming the line.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from lmdk.errors import ParameterError
from lmdk.ledger.budget import Cap, resolve_cap
from lmdk.ledger.entry import LedgerEntry, LedgerError
from lmdk.ledger.text import json_line


@dataclass(frozen=True)
class ImportReport:
    """What an import did: entries read from the file, imported now, already in the ledger; caps stored or
    lowered."""

    read: int
    imported: int
    present: int
    caps: int

    def line(self, source: str, target: str) -> str:
        """E.g. "imported 3,000 of 3,000 entries (0 already in the ledger) and 1 cap from a.jsonl into …"."""
        caps = f" and {self.caps:,} cap{'s' if self.caps != 1 else ''}"
        return (f"imported {self.imported:,} of {self.read:,} entries ({self.present:,} already in the ledger)"
                f"{caps} from {source} into {target}")


@dataclass(frozen=True)
class ImportPlan:
    """What an import writes: caps to store (in order) and entries to insert; ``report`` counts them."""

    caps: list[tuple[str, Cap]]
    entries: list[LedgerEntry]
    report: ImportReport


def with_ids(entries: list[LedgerEntry]) -> list[LedgerEntry]:
    """The entries, each without an id given the hash of its canonical record and of its occurrence among
    identical records before it (the same file imported twice gives the same ids; two identical exports stay two)."""
    seen: Counter[str] = Counter()
    out = []
    for entry in entries:
        if entry.id:
            out.append(entry)
            continue
        canonical = json_line(asdict(replace(entry, id="")))
        seen[canonical] += 1
        digest = hashlib.sha256(f"{canonical}\n{seen[canonical]}".encode()).hexdigest()
        out.append(replace(entry, id=f"import-{digest[:40]}"))
    return out


def same_record(a: LedgerEntry, b: LedgerEntry) -> bool:
    """Whether two entries record the same export (time, dataset, input, policy and each user's charge)."""
    def key(e: LedgerEntry) -> tuple:
        return (e.time, e.budget_key, e.fingerprint, e.scheme, e.mechanism, sorted(e.user_charges().items()))

    return key(a) == key(b)


def plan_import(source, name: str, stored_cap: Callable[[str], Cap | None], known: dict[str, LedgerEntry | None]
                ) -> ImportPlan:
    """What importing ``source`` (a ``jsonl.Records`` read with its line numbers) writes into a ledger whose caps
    are ``stored_cap(dataset)`` and whose entries are ``known`` ({id: entry}, None for a cancelled one); raises
    LedgerError naming the line of ``name`` that would raise a cap, change its period or reuse an id."""
    working: dict[str, Cap | None] = {}
    caps: list[tuple[str, Cap]] = []
    for number, dataset, cap in source.cap_lines:
        current = working[dataset] if dataset in working else stored_cap(dataset)
        try:
            effective, changed = resolve_cap(dataset, current, cap.cap, cap.period, line=f"{name} line {number}")
        except ParameterError as exc:
            raise LedgerError(f"{exc}; nothing was imported (delete or correct that line)") from None
        working[dataset] = effective
        if changed and effective is not None:
            caps.append((dataset, effective))
    lines = source.lines if len(source.lines) == len(source.entries) else [0] * len(source.entries)
    seen = dict(known)
    new, present = [], 0
    for number, entry in zip(lines, with_ids(source.entries), strict=True):
        if entry.id in seen:
            there = seen[entry.id]
            if there is not None and not same_record(there, entry):
                raise LedgerError(f"{name} line {number}: id {entry.id!r} is already in the ledger with another "
                                  "record; nothing was imported (fix or delete that line)")
            present += 1
            continue
        seen[entry.id] = entry
        new.append(entry)
    return ImportPlan(caps, new, ImportReport(len(source.entries), len(new), present, len(caps)))
