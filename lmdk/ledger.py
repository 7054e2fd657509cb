"""A privacy ledger: what every exported release spent, and the total guarantee of all of them together.

One :class:`LedgerEntry` per export (UTC time, a fingerprint of the input — a sha256, never the data —, the
policy, ε, the neighbouring relation's sensitivity Δ and its description, mechanism and sampler), kept as JSON
Lines (one entry per line). :func:`compose` adds them up: ``epsilon_basic`` by sequential composition (Σ ε, a
pure ε-DP total) and ``epsilon_pld``, the tighter (ε, δ) total of Google's ``dp_accounting`` privacy-loss
distributions (PLD).

Every export is accounted for as **one pure ε-DP mechanism**: a series released under a scheme with total ε is
ε-DP for the protected event (Laplace values, randomized response, planar Laplace alike), whatever happens
inside it. The PLD of each export is therefore the generic worst case of pure ε-DP
(``from_privacy_parameters(DifferentialPrivacyParameters(ε, 0))``, the dominating pair of randomized response),
which is valid for every mechanism we release; the Laplace PLD would be tighter but is valid for Laplace only.

Composition applies per person's data: releases of different inputs (different fingerprints, or different users
of one population run) do not add up for one person — ``epsilon_by_fingerprint`` gives the total per input.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path

from lmdk.errors import DataError, ParameterError

DELTA = 1e-6
"""The δ at which the app states the PLD total."""

RELATIONS = {"laplace": "one event's value changes by up to {delta:g}",
             "planar_laplace": "one event's location moves (ε per metre, geo-indistinguishability)",
             "randomized_response": "one event's contact changes"}
"""Default descriptions of the neighbouring relation per mechanism (when the policy gives none)."""


class LedgerError(DataError):
    """A ledger file or entry is malformed; the message names the line and the field."""


def now_utc() -> str:
    """The current UTC time in ISO 8601 (seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class LedgerEntry:
    """One exported release: when, of what input (fingerprint), under which policy, spending which ε."""

    fingerprint: str  # "sha256:<hex>" of the input's bytes or of the series' timestamps and values
    epsilon: float  # the policy's total ε: the export is one pure ε-DP mechanism
    scheme: str
    mechanism: str
    landmarks: str | None = None  # the landmark rule, if the policy had one
    landmark_count: int | None = None  # |L| (None when it differs per user)
    w: int | None = None
    dummies: dict | None = None
    sensitivity: float = 1.0  # Δ of the neighbouring relation
    relation: str = ""  # the neighbouring relation in words, e.g. "any value in [0, 25] kWh"
    sampler: str = "snapping"
    users: int = 1  # users released together (a population run: each user is one person, ε each)
    tool: str = ""  # what exported it: "lmdk release", "lmdk population", "app"
    landmark_epsilon: float = 0.0  # ε_sel of a private landmark selection, already included in ``epsilon``
    time: str = field(default_factory=now_utc)  # UTC, ISO 8601

    def __post_init__(self) -> None:
        """Check ε, Δ and users; each message names the field."""
        for name in ("epsilon", "sensitivity"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value <= 0:
                raise ParameterError(f"ledger entry: {name} must be a finite number > 0, not {value!r}")
        if not isinstance(self.fingerprint, str) or not self.fingerprint:
            raise ParameterError("ledger entry: fingerprint must be a non-empty text such as 'sha256:<hex>'")
        sel = self.landmark_epsilon
        if isinstance(sel, bool) or not isinstance(sel, (int, float)) or not math.isfinite(sel) or sel < 0 \
                or sel >= self.epsilon:
            raise ParameterError(f"ledger entry: landmark_epsilon must be a finite number ≥ 0 below epsilon (it is "
                                 f"part of the total), not {sel!r}")
        if isinstance(self.users, bool) or not isinstance(self.users, int) or self.users < 1:
            raise ParameterError(f"ledger entry: users must be a whole number ≥ 1, not {self.users!r}")

    def to_json(self) -> str:
        """One JSON line (no newline)."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> LedgerEntry:
        """An entry from its dict; unknown keys are ignored (newer ledgers), missing required ones refused."""
        if not isinstance(data, dict):
            raise ParameterError("ledger entry must be a JSON object")
        missing = [name for name in ("fingerprint", "epsilon", "scheme", "mechanism") if name not in data]
        if missing:
            raise ParameterError(f"ledger entry lacks {', '.join(missing)}")
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in known})
        except TypeError as exc:
            raise ParameterError(f"ledger entry: {exc}") from None


def fingerprint_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of raw data bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def fingerprint_path(path: str | Path) -> str:
    """``sha256:<hex>`` of a file's bytes (streamed), or of a folder's files (relative paths and bytes, sorted)."""
    root = Path(path)
    digest = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    for file in files:
        if root.is_dir():
            digest.update(file.relative_to(root).as_posix().encode() + b"\0")
        inner = hashlib.sha256()
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                inner.update(block)
        digest.update(inner.digest())
    return "sha256:" + (digest.hexdigest() if root.is_dir() else inner.hexdigest())


def fingerprint_series(series) -> str:
    """``sha256:<hex>`` of a ``lmdk.data.Series``: its ``source_hash`` (the file's bytes, or its timestamps and
    values for series built in memory)."""
    source = getattr(series, "source_hash", "")
    if source:
        return source if source.startswith("sha256:") else "sha256:" + source
    from lmdk.data.series import frame_hash

    return "sha256:" + frame_hash(series.frame)


def relation_of(*sources, mechanism: str = "laplace") -> tuple[float, str]:
    """(Δ, its description) of the neighbouring relation: the first source (or its ``relation``) with a
    ``sensitivity`` and a ``label()``, else the first ``sensitivity`` found (default 1) and a generic description."""
    for source in sources:
        for candidate in (_relation(getattr(source, "relation", None)), source):
            label = getattr(candidate, "label", None)
            if callable(label) and getattr(candidate, "sensitivity", None) is not None:
                return float(candidate.sensitivity), str(label())
    sensitivity = next((float(s.sensitivity) for s in sources if getattr(s, "sensitivity", None) is not None), 1.0)
    return sensitivity, RELATIONS.get(mechanism, "").format(delta=sensitivity)


def _relation(value):
    """A relation given as its dict (a population policy's ``relation``) as a ``lmdk.relation.Relation``."""
    if not isinstance(value, dict):
        return value
    try:
        from lmdk.relation import Relation

        return Relation.from_dict(value)
    except (ImportError, ParameterError):
        return None


# --------------------------------------------------------------------------- JSON Lines file
def to_jsonl(entries: Iterable[LedgerEntry]) -> str:
    """The entries as JSON Lines text (one entry per line, each ending in a newline)."""
    return "".join(entry.to_json() + "\n" for entry in entries)


def parse_jsonl(text: str, name: str = "ledger") -> list[LedgerEntry]:
    """Entries from JSON Lines text; blank lines are skipped, a malformed line raises LedgerError naming it."""
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(LedgerEntry.from_dict(json.loads(line)))
        except (json.JSONDecodeError, RecursionError):
            raise LedgerError(f"{name} line {number} is not valid JSON; each line must be one ledger entry "
                              "(fix or delete that line)") from None
        except ParameterError as exc:
            raise LedgerError(f"{name} line {number}: {exc} (fix or delete that line)") from None
    return entries


def read(path: str | Path) -> list[LedgerEntry]:
    """The entries of a ledger file; a missing file is an empty ledger."""
    file = Path(path)
    if not file.exists():
        return []
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise LedgerError(f"ledger {str(path)!r} is not UTF-8 text; give a JSON Lines ledger") from None
    except OSError as exc:
        raise LedgerError(f"ledger {str(path)!r} cannot be read: {exc.strerror or exc}") from None
    return parse_jsonl(text, f"ledger {str(path)!r}")


def append(path: str | Path, entries: LedgerEntry | Iterable[LedgerEntry]) -> None:
    """Append entries to a ledger file (created if missing), one JSON line each."""
    batch = [entries] if isinstance(entries, LedgerEntry) else list(entries)
    file = Path(path)
    try:
        with open(file, "a", encoding="utf-8") as handle:
            if file.stat().st_size and not _ends_with_newline(file):
                handle.write("\n")
            handle.write(to_jsonl(batch))
    except OSError as exc:
        raise ParameterError(f"--ledger {str(path)!r} cannot be written: {exc.strerror or exc}") from None


def _ends_with_newline(file: Path) -> bool:
    """Whether a non-empty file's last byte is a newline (so an appended entry starts on its own line)."""
    with open(file, "rb") as handle:
        handle.seek(-1, 2)
        return handle.read(1) == b"\n"


# --------------------------------------------------------------------------- composition
def compose(entries: Iterable[LedgerEntry], delta: float = DELTA) -> dict:
    """Totals of the entries: ``releases``, ``epsilon_basic`` (Σ ε, pure DP), ``epsilon_pld`` at ``delta``
    (dp_accounting PLD, each export one pure ε-DP mechanism), ``delta``, ``epsilon_max`` and
    ``epsilon_by_fingerprint`` ({fingerprint: {releases, epsilon_basic, epsilon_pld}}: composition is per input).
    """
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 < delta < 1:
        raise ParameterError(f"delta must be a number in (0, 1), not {delta!r}")
    batch = list(entries)
    by_fingerprint: dict[str, list[float]] = {}
    for entry in batch:
        by_fingerprint.setdefault(entry.fingerprint, []).append(float(entry.epsilon))
    totals = _totals([float(e.epsilon) for e in batch], float(delta))
    return {**totals, "delta": float(delta),
            "epsilon_by_fingerprint": {fp: _totals(eps, float(delta)) for fp, eps in by_fingerprint.items()},
            "accounting": "each export is one pure ε-DP mechanism; epsilon_basic: sequential composition (δ = 0); "
                          "epsilon_pld: dp_accounting privacy-loss distributions at delta"}


def _totals(epsilons: list[float], delta: float) -> dict:
    """releases, epsilon_basic, epsilon_pld and epsilon_max of a list of ε."""
    basic = math.fsum(epsilons)
    counts = tuple(sorted(Counter(epsilons).items()))
    return {"releases": len(epsilons), "epsilon_basic": basic,
            "epsilon_pld": pld_epsilon(counts, delta) if epsilons else 0.0,
            "epsilon_max": max(epsilons, default=0.0)}


@functools.lru_cache(maxsize=256)
def pld_epsilon(counts: tuple[tuple[float, int], ...], delta: float) -> float:
    """ε at ``delta`` of composing ``count`` pure ε-DP mechanisms per (ε, count), by dp_accounting's PLD.

    The result is clamped to [max ε, Σ ε], both valid statements: (Σ ε, 0)-DP implies (Σ ε, δ)-DP, and an
    (ε′, δ) guarantee with ε′ < max ε also holds with the larger max ε (at δ > 0 the PLD of one release lies a hair
    below its ε). The pessimistic discretisation only ever rounds privacy losses up.
    """
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    basic = math.fsum(eps * k for eps, k in counts)
    releases = sum(k for _, k in counts)
    # Losses are rounded up to the grid: an error < releases × interval (interval: 0.1 % of the mean ε, at least
    # the library's 10⁻⁴), and none for the smallest ε (a whole number of intervals).
    target = min(1e-2, max(1e-4, 1e-3 * basic / releases))
    smallest = min(eps for eps, _ in counts)
    interval = smallest / math.ceil(smallest / target)
    parts = []
    for eps, k in counts:
        one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(eps, 0.0),
                                          value_discretization_interval=interval)
        parts.append(one.self_compose(k) if k > 1 else one)
    total = parts[0]
    for part in parts[1:]:
        total = total.compose(part)
    epsilon = float(total.get_epsilon_for_delta(delta))
    return min(basic, max(epsilon, max(eps for eps, _ in counts)))


def would_exceed(entries: Iterable[LedgerEntry], epsilon: float, cap: float | None) -> bool:
    """Whether one more export spending ``epsilon`` takes the sequential total Σ ε past ``cap`` (None: no cap)."""
    if cap is None:
        return False
    return math.fsum([float(e.epsilon) for e in entries] + [float(epsilon)]) > float(cap) * (1 + 1e-12)
