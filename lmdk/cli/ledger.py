"""``lmdk ledger``: the total privacy spent by the exports recorded in a ledger file; and the ``--ledger FILE``
option of ``lmdk release`` and ``lmdk population``, which appends one entry per export.

A ``--seed`` demonstration is not a release (anyone with the seed removes its noise) and is never recorded.
``lmdk population`` records one entry per run: its fingerprint is the input's (file or folder), ``users`` the
number of users released, and its ε is what each user's data spent — composition is per person, so a run of
1,000 users counts once for each of them, not 1,000 times.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from lmdk.cli.common import EXIT_OK
from lmdk.errors import ParameterError

LEDGER_EXAMPLES = """examples:
  lmdk release meter.csv --config runconfig.json --bound 25 --out r1.csv --ledger ledger.jsonl
  lmdk release meter.csv --config runconfig.json --bound 25 --out r2.csv --ledger ledger.jsonl
  lmdk ledger ledger.jsonl                  # releases 2, epsilon_basic 2 ε, epsilon_pld at delta 1e-6
  lmdk ledger app_ledger.jsonl --delta 1e-9 # the ledger downloaded from the app

Output (JSON): releases, epsilon_basic (sequential composition, Σ ε, δ = 0), epsilon_pld at delta (privacy-loss
distributions of Google's dp_accounting; each export counts as one pure ε-DP mechanism), epsilon_max and
epsilon_by_fingerprint (the same totals per input: composition applies to one person's data)."""

LEDGER_HELP = ("append one entry per export to this JSON Lines privacy ledger (created if missing; sum it up with "
               "lmdk ledger FILE). A --seed demonstration is not a release and is not recorded")


def ledger_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--ledger FILE`` to an exporting command."""
    parser.add_argument("--ledger", metavar="FILE", help=LEDGER_HELP)


def record_release(args, series, policy, exported) -> None:
    """Append the entry of one ``lmdk release`` export (nothing for a demonstration or without --ledger)."""
    if not getattr(args, "ledger", None) or policy.seed is not None or exported is None:
        return
    from lmdk import ledger

    sensitivity, relation = ledger.relation_of(exported, policy, getattr(exported, "release", None),
                                               mechanism=policy.mechanism)
    ledger.append(args.ledger, ledger.LedgerEntry(
        fingerprint=ledger.fingerprint_series(series),
        epsilon=float(policy.epsilon) + float(getattr(exported, "landmark_epsilon", 0.0)), scheme=policy.scheme,
        mechanism=policy.mechanism, landmarks=getattr(args, "landmarks", None),
        landmark_count=int(len(policy.landmarks)), w=policy.w, dummies=policy.dummies, sensitivity=sensitivity,
        relation=relation, sampler=getattr(exported, "sampler", "") or "snapping", tool="lmdk release",
        landmark_epsilon=float(getattr(exported, "landmark_epsilon", 0.0))))


def record_population(args, result) -> None:
    """Append the entry of one ``lmdk population`` run: one per run, ``users`` released, ε per user."""
    if not getattr(args, "ledger", None) or result.refused or result.released is None or result.policy.seed is not None:
        return
    from lmdk import ledger

    totals = result.aggregates
    groups = [(p, q["users"], q["mechanism"]) for p, q in zip(result.variants, totals.get("policies", ()), strict=False)
              if q["users"]] if result.variants else [(result.policy, totals.get("users", 1), totals.get("mechanism"))]
    fingerprint = ledger.fingerprint_path(args.input)
    for policy, users, used in groups:  # per-user policies: one entry per policy, its users each spending its ε
        mechanism = used or policy.mechanism or ""
        sensitivity, relation = ledger.relation_of(policy, mechanism=mechanism)
        ledger.append(args.ledger, ledger.LedgerEntry(
            fingerprint=fingerprint, epsilon=float(policy.epsilon) + float(policy.landmark_epsilon or 0.0),
            scheme=policy.scheme, mechanism=mechanism, landmarks=policy.landmarks, w=policy.w, dummies=policy.dummies,
            sensitivity=sensitivity, relation=relation, sampler=totals.get("sampler") or "snapping",
            users=max(1, int(users)), tool="lmdk population", landmark_epsilon=float(policy.landmark_epsilon or 0.0)))


def _delta(text: str) -> float:
    """A δ in (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--delta must be a number in (0, 1), got {text!r}") from None
    if not math.isfinite(value) or not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"--delta must be a number in (0, 1), got {text!r}")
    return value


def cmd_ledger(args) -> int:
    """``lmdk ledger``: print the composed totals of a ledger file as JSON."""
    from lmdk import ledger

    if not Path(args.file).is_file():
        raise ParameterError(f"ledger {args.file!r} is not a file; give the JSON Lines file written by --ledger "
                             "or downloaded from the app")
    totals = ledger.compose(ledger.read(args.file), delta=args.delta)
    sys.stdout.write(json.dumps(totals, indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``ledger`` arguments to ``parser``."""
    parser.description = ("Sum up the privacy spent by the exports recorded in a ledger (lmdk release/population "
                          "--ledger FILE, or the app's session ledger): sequential composition and the tighter "
                          "(ε, δ) total of privacy-loss distributions, overall and per input.")
    parser.epilog = LEDGER_EXAMPLES
    parser.add_argument("file", metavar="FILE", help="a JSON Lines ledger (one entry per line)")
    parser.add_argument("--delta", type=_delta, default=1e-6, help="δ of the (ε, δ) total (default 1e-6)")
    parser.set_defaults(func=cmd_ledger)
