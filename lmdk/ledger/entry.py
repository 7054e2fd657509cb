"""One ledger entry: what one exported release spent, of which input and which users; fingerprints of inputs.

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
of one population run) do not add up for one person — ``epsilon_by_fingerprint`` gives the total per input, and
``charges`` ({user: ε}) what each person of the ``dataset`` spent in this export (the budget a cap bounds).
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path

from lmdk.errors import DataError, ParameterError
from lmdk.ledger.text import json_line, utc_text

DELTA = 1e-6
"""The δ at which the app states the PLD total."""

RELATIONS = {"laplace": "one event's value changes by up to {delta:g}",
             "planar_laplace": "one event's location moves (ε per metre, geo-indistinguishability)",
             "randomized_response": "one event's contact changes"}
"""Default descriptions of the neighbouring relation per mechanism (when the policy gives none)."""

SINGLE_USER = "series"
"""The user of an ``lmdk release`` (or app) export: a single series is one person."""
EVERY_USER = "*"
"""The user key of an older population entry without ``charges``: every user of its input spent its ε."""


class LedgerError(DataError):
    """A ledger file or entry is malformed; the message names the line and the field."""


def now_utc() -> str:
    """The current UTC time in ISO 8601 (seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class LedgerEntry:
    """One exported release: when, of what input (fingerprint), under which policy, spending which ε."""

    fingerprint: str  # "sha256:<hex>" of a folder's or file's bytes, or of a series' parsed timestamps and values
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
    dataset: str | None = None  # the budget's name (--dataset); None: the fingerprint is the dataset
    charges: dict[str, float] | None = None  # ε per user of the dataset (None: an entry from before per-user budgets)
    id: str = ""  # the reservation's id, set when the entry is reserved in a ledger
    released_by: str | None = None  # who handed it out: the app's login subject (``sub``); None: not recorded

    @property
    def budget_key(self) -> str:
        """The dataset whose per-user budgets this entry spends: its name (normalised as stored names are read:
        NFKC, case-folded, stripped — :func:`lmdk.data.ids.dataset_key`), else the input's fingerprint."""
        if not self.dataset:
            return self.fingerprint
        from lmdk.data.ids import dataset_key

        return dataset_key(self.dataset)

    def user_charges(self) -> dict[str, float]:
        """ε per user: ``charges``, or for an older entry its single series ("series") or every user ("*")."""
        if self.charges is not None:
            return dict(self.charges)
        return {SINGLE_USER if self.users == 1 else EVERY_USER: float(self.epsilon)}

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
        object.__setattr__(self, "time", utc_text(self.time))  # one UTC text: times compare as instants
        if isinstance(self.users, bool) or not isinstance(self.users, int) or self.users < 1:
            raise ParameterError(f"ledger entry: users must be a whole number ≥ 1, not {self.users!r}")
        if self.released_by is not None and (not isinstance(self.released_by, str) or not self.released_by.strip()):
            raise ParameterError(f"ledger entry: released_by must be the login subject that handed the release out "
                                 f"(a non-empty text) or absent, not {self.released_by!r}")
        if self.charges is not None:
            if not isinstance(self.charges, dict) or not self.charges:
                raise ParameterError("ledger entry: charges must be a non-empty object {user: ε}")
            for user, eps in self.charges.items():
                if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps <= 0:
                    raise ParameterError(f"ledger entry: charges[{user!r}] must be a finite number > 0, not {eps!r}")

    def to_json(self) -> str:
        """One JSON line (no newline; line-breaking characters of names and ids escaped: ``text.json_line``)."""
        return json_line(asdict(self))

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
    """``sha256:<hex>`` of a ``lmdk.data.Series``' parsed content (:func:`lmdk.data.ids.series_key`: canonical
    timestamps and values, not the file's bytes): a copy saved again (CRLF, a trailing newline, another column
    order, CSV or Parquet) is the same input and shares its budget; a changed row is a new one."""
    from lmdk.data.ids import series_key

    return series_key(series)


def series_entry(series, epsilon: float, scheme: str, mechanism: str, *, protects=None, landmarks: str | None = None,
                 landmark_count: int | None = None, w: int | None = None, dummies: dict | None = None,
                 landmark_epsilon: float = 0.0, tool: str = "lmdk release") -> LedgerEntry:
    """The ledger entry of one single series' export (``lmdk release``, the app's hand-out), known before any noise:
    its content key, ε (a private selection's ε_sel included), the policy, the relation of ``protects``."""
    from lmdk.release_common import sampler_for

    sensitivity, relation = relation_of(protects, mechanism=mechanism)
    return LedgerEntry(fingerprint=fingerprint_series(series), epsilon=float(epsilon), scheme=scheme,
                       mechanism=mechanism, landmarks=landmarks, landmark_count=landmark_count,
                       w=w, dummies=dummies, sensitivity=sensitivity, relation=relation,
                       sampler=sampler_for(mechanism), tool=tool, landmark_epsilon=float(landmark_epsilon))


def release_entry(series, policy, landmarks: str | None = None, landmark_epsilon: float | None = None
                  ) -> LedgerEntry:
    """The entry of one ``lmdk release`` export of ``series`` under ``policy`` (a ``lmdk.present.release.Policy``):
    ε is the policy's plus a private selection's ``landmark_epsilon``; |L| unknown before a selection."""
    selection = float(landmark_epsilon or 0.0)
    return series_entry(series, float(policy.epsilon) + selection, policy.scheme, policy.mechanism, protects=policy,
                        landmarks=landmarks, landmark_count=None if selection else int(len(policy.landmarks)),
                        w=policy.w, dummies=policy.dummies, landmark_epsilon=selection)


def population_entry(policy, mechanism: str, input_path: str | Path, tool: str = "lmdk population") -> LedgerEntry:
    """The entry of one population run of the file or folder ``input_path`` under ``policy`` (a
    ``lmdk.population.Policy``): ε per user (a private selection's included), before any noise is drawn."""
    from lmdk.release_common import sampler_for

    selection = float(policy.landmark_epsilon or 0.0)
    sensitivity, relation = relation_of(policy, mechanism=mechanism)
    return LedgerEntry(fingerprint=fingerprint_path(input_path), epsilon=float(policy.epsilon) + selection,
                       scheme=policy.scheme, mechanism=mechanism, landmarks=policy.landmarks, w=policy.w,
                       dummies=policy.dummies, sensitivity=sensitivity, relation=relation,
                       sampler=sampler_for(mechanism), tool=tool, landmark_epsilon=selection)


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


