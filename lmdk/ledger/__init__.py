"""A privacy ledger: what every exported release spent, per input and per user, and the total guarantee of all
of them together; budgets that persist and refuse.

One :class:`LedgerEntry` per export (UTC time, a fingerprint of the input — a sha256, never the data —, the
policy, ε, the neighbouring relation's Δ and its description, mechanism, sampler, and what each user of the
dataset spent). :func:`compose` adds them up: ``epsilon_basic`` by sequential composition (Σ ε, a pure ε-DP
total) and ``epsilon_pld``, the tighter (ε, δ) total of Google's ``dp_accounting`` privacy-loss distributions.

Where the entries live is a URL (:func:`open_ledger`): a plain path (JSON Lines, :mod:`lmdk.ledger.jsonl`),
``sqlite:///PATH`` (:mod:`lmdk.ledger.sqlite`) or ``postgresql://…`` (:mod:`lmdk.ledger.postgres`).
:func:`reserve_users` checks a cap per (dataset, user) and records the reservation in one transaction before any
noise is drawn (:mod:`lmdk.ledger.budget`); :func:`cancel` withdraws one whose export was refused.
"""
from __future__ import annotations

from dataclasses import fields

from lmdk.errors import DataError, ParameterError
from lmdk.ledger.budget import PERIODS, Cap, Reservation, check_cap, period_start
from lmdk.ledger.compose import by_user, compose, pld_epsilon, spent_by_user, would_exceed
from lmdk.ledger.entry import (
    DELTA,
    EVERY_USER,
    RELATIONS,
    SINGLE_USER,
    LedgerEntry,
    LedgerError,
    fingerprint_bytes,
    fingerprint_path,
    fingerprint_series,
    now_utc,
    population_entry,
    relation_of,
    release_entry,
    series_entry,
)
from lmdk.ledger.jsonl import append, parse_jsonl, parse_records, read, read_records, to_jsonl
from lmdk.ledger.redact import redact
from lmdk.ledger.store import (
    cancel,
    import_jsonl,
    init_ledger,
    is_database,
    open_ledger,
    records,
    reserve_users,
    set_cap,
    summary,
    would_refuse,
)

__all__ = ["DELTA", "EVERY_USER", "PERIODS", "RELATIONS", "SINGLE_USER", "Cap", "DataError", "LedgerEntry",
           "LedgerError", "ParameterError", "Reservation", "append", "by_user", "cancel", "check_cap", "compose",
           "fields", "fingerprint_bytes", "fingerprint_path", "fingerprint_series", "import_jsonl", "init_ledger",
           "is_database",
           "now_utc", "open_ledger", "parse_jsonl", "parse_records", "period_start", "pld_epsilon", "read",
           "read_records", "records", "redact", "relation_of", "reserve_users", "set_cap", "spent_by_user", "summary",
           "to_jsonl",
           "would_exceed", "would_refuse", "population_entry", "release_entry", "series_entry"]
