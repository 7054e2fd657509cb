"""``lmdk ledger``: the total privacy spent by the exports recorded in a ledger; and the ``--ledger URL``,
``--cap``, ``--dataset`` and ``--period`` options of ``lmdk release``, ``lmdk population`` and ``lmdk aggregate``,
which reserve each export's ε before any noise is drawn (:mod:`lmdk.ledger`).

A ``--seed`` demonstration is not a release (anyone with the seed removes its noise) and is never recorded.
A population run records one entry: its fingerprint is the input's (file or folder), ``users`` the number of
users released and ``charges`` what each of them spent — composition is per person, so a run of 1,000 users
counts once for each of them, not 1,000 times. A single series is one user (``series``).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from lmdk.cli.common import EXIT_OK
from lmdk.errors import ParameterError
from lmdk.ledger.reserve import refused_line, withheld_line  # noqa: F401 (the lines the exporting commands print)

if TYPE_CHECKING:
    from lmdk.ledger import Reservation
    from lmdk.ledger.reserve import Budget

LEDGER_EXAMPLES = """examples:
  lmdk release meter.csv --config runconfig.json --bound 25 --out r1.csv --ledger ledger.jsonl
  lmdk ledger ledger.jsonl                  # releases, epsilon_basic (Σ ε), epsilon_pld at delta 1e-6
  lmdk ledger app_ledger.jsonl --delta 1e-9 # the ledger downloaded from the app
  lmdk population day1.parquet --config policy.json --out d1/ --range 0 25 \\
      --ledger sqlite:///ledger.db --dataset meters-2026 --cap 10 --period month
  lmdk ledger sqlite:///ledger.db --by user --dataset meters-2026   # each user's total and what remains
  lmdk ledger import ledger.jsonl --into postgresql://lmdk@db:5432/lmdk

URL: a plain path (JSON Lines), sqlite:///PATH (sqlite:////abs/path) or postgresql://USER@HOST:PORT/DB.
Output (JSON): releases, epsilon_basic (sequential composition, Σ ε, δ = 0), epsilon_pld at delta (privacy-loss
distributions of Google's dp_accounting; each export counts as one pure ε-DP mechanism), epsilon_max and
epsilon_by_fingerprint (the same totals per input: composition applies to one person's data). With --by user:
by_user {user: epsilon_basic, epsilon_pld, remaining} of one dataset, remaining against its stored cap in the
current period (null without a cap)."""

LEDGER_HELP = ("the privacy ledger: a JSON Lines file (created if missing), sqlite:///PATH or postgresql://…; "
               "every export reserves its ε there before any noise is drawn (sum it up with lmdk ledger URL). A "
               "--seed demonstration is not a release and is not recorded")
EXIT_CAP = 4
"""Exit code of an export the ledger's cap refused (lmdk release), or of a run that withheld every user."""


def ledger_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--ledger URL``, ``--cap EPS``, ``--dataset NAME`` and ``--period`` to an exporting command."""
    from lmdk.cli.arguments import positive_float
    from lmdk.ledger import PERIODS

    parser.add_argument("--ledger", metavar="URL", help=LEDGER_HELP)
    parser.add_argument("--cap", type=positive_float("--cap"), metavar="EPS",
                        help="the most ε one user of --dataset may spend (Σ ε over every export, per --period); "
                             "stored in the ledger and enforced on every later export of the dataset, with or "
                             "without this flag. An export past it is refused before any noise is drawn")
    parser.add_argument("--dataset", metavar="NAME",
                        help="the budget's name, chosen by the officer (e.g. meters-2026), so each day's file adds "
                             "to the same per-user budget (default: the input's content fingerprint)")
    parser.add_argument("--period", choices=PERIODS,
                        help="the cap bounds the whole history (none, the default) or each UTC calendar day or "
                             "month of release time")


def budget_from_args(args) -> Budget:
    """Where an export's ε is reserved: --ledger, --dataset, --cap and --period (absent flags: None)."""
    from lmdk.ledger.reserve import Budget

    return Budget(getattr(args, "ledger", None), getattr(args, "dataset", None), getattr(args, "cap", None),
                  getattr(args, "period", None))


def _release_entry(args, series, policy):
    """The ledger entry of one ``lmdk release`` export, known before any noise is drawn."""
    from lmdk import ledger
    from lmdk.exports.export import sampler_for

    sensitivity, relation = ledger.relation_of(policy, mechanism=policy.mechanism)
    selection = float(args.landmark_epsilon or 0.0)
    return ledger.LedgerEntry(
        fingerprint=ledger.fingerprint_series(series), epsilon=float(policy.epsilon) + selection,
        scheme=policy.scheme, mechanism=policy.mechanism, landmarks=getattr(args, "landmarks", None),
        landmark_count=None if selection else int(len(policy.landmarks)), w=policy.w, dummies=policy.dummies,
        sensitivity=sensitivity, relation=relation, sampler=sampler_for(policy.mechanism), tool="lmdk release",
        landmark_epsilon=selection)


def reserve_release(args, series, policy) -> Reservation | None:
    """Reserve one ``lmdk release`` export's ε for the single series (one user) before any noise is drawn: the
    Reservation, or None without --ledger or for a demonstration (--seed). ``withheld`` non-empty: refused."""
    budget = budget_from_args(args)
    budget.check()
    if not budget.url or policy.seed is not None:
        return None
    return budget.reserve_single(_release_entry(args, series, policy))


def cancel(args, reservation: Reservation | None) -> None:
    """Withdraw a reservation whose export was then refused (a refusal charges nothing)."""
    budget_from_args(args).cancel(reservation)


def reserve_population(args, policy, source, charges: dict | None = None):
    """Reserve ε for every user of a population run before any noise is drawn (``charges`` {user: ε}, default the
    policy's total ε for each user of ``source``; with --policies each user's own, see
    :func:`lmdk.policies.assign.charges`): the Reservation, or None without --ledger or for a demonstration.
    The run releases ``granted`` and withholds ``withheld`` ({user: reason})."""
    budget = budget_from_args(args)
    budget.check()
    if not budget.url or policy.seed is not None:
        return None
    from lmdk.exports.export import sampler_for
    from lmdk.population.users import user_ids

    mechanism = policy.mechanism_for(source.kind)
    entry = population_entry(args, policy, mechanism, sampler_for(mechanism))
    if charges is None:
        charges = {str(user): entry.epsilon for user in user_ids(source)}
    elif getattr(args, "policies", None) is not None:  # per-user policies: each user's own ε is in charges
        entry = replace(entry, scheme="per user", landmarks=f"per-user policies ({args.policies})")
    return budget.reserve(entry, charges)


def population_entry(args, policy, mechanism: str, sampler: str):
    """The ledger entry of one ``lmdk population`` run (None for a demonstration): ε per user, before noise."""
    if policy.seed is not None:
        return None
    from lmdk import ledger

    sensitivity, relation = ledger.relation_of(policy, mechanism=mechanism)
    return ledger.LedgerEntry(
        fingerprint=ledger.fingerprint_path(args.input),
        epsilon=float(policy.epsilon) + float(policy.landmark_epsilon or 0.0), scheme=policy.scheme,
        mechanism=mechanism, landmarks=policy.landmarks, w=policy.w, dummies=policy.dummies,
        sensitivity=sensitivity, relation=relation, sampler=sampler, tool="lmdk population",
        landmark_epsilon=float(policy.landmark_epsilon or 0.0))


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
    """``lmdk ledger``: print the composed totals of a ledger as JSON (or import a JSON Lines ledger)."""
    from lmdk import ledger

    target = list(args.target)
    if target[0] == "import" and len(target) == 2:
        return _import(target[1], args)
    if len(target) != 1:
        raise ParameterError("lmdk ledger takes one URL (or: lmdk ledger import FILE.jsonl --into URL)")
    if args.into is not None:
        raise ParameterError("--into belongs to lmdk ledger import FILE.jsonl --into URL")
    url = target[0]
    if not ledger.is_database(url) and not Path(url).is_file():
        raise ParameterError(f"ledger {url!r} is not a file; give the JSON Lines file written by --ledger "
                             "or downloaded from the app, or sqlite:///PATH, postgresql://…")
    if ledger.is_database(url) and url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).is_file():
        raise ParameterError(f"ledger {url!r}: no such database file")
    if args.by is None and args.dataset is None and not ledger.is_database(url):
        totals = ledger.compose(ledger.read(url), delta=args.delta)  # today's output, unchanged
    else:
        totals = ledger.summary(url, dataset=args.dataset, users=args.by == "user", delta=args.delta)
    sys.stdout.write(json.dumps(totals, indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK


def _import(path: str, args) -> int:
    """``lmdk ledger import FILE.jsonl --into URL``: every entry and cap, none lost."""
    from lmdk import ledger

    if args.into is None:
        raise ParameterError("lmdk ledger import FILE.jsonl needs --into URL (sqlite:///PATH or postgresql://…)")
    if not Path(path).is_file():
        raise ParameterError(f"lmdk ledger import: {path!r} is not a file; give a JSON Lines ledger")
    count = ledger.import_jsonl(path, args.into)
    print(f"imported {count:,} entries from {path} into {args.into.split('@')[-1]}", file=sys.stderr)
    return EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``ledger`` arguments to ``parser``."""
    parser.description = ("Sum up the privacy spent by the exports recorded in a ledger (lmdk release/population/"
                          "aggregate --ledger URL, or the app's ledger): sequential composition and the tighter "
                          "(ε, δ) total of privacy-loss distributions, overall, per input and per user. "
                          "'lmdk ledger import FILE.jsonl --into URL' moves a JSON Lines ledger into a database.")
    parser.epilog = LEDGER_EXAMPLES
    parser.add_argument("target", nargs="+", metavar="URL",
                        help="a JSON Lines ledger, sqlite:///PATH or postgresql://… (or: import FILE.jsonl)")
    parser.add_argument("--by", choices=("user",), help="also by_user: each user's totals and remaining budget")
    parser.add_argument("--dataset", metavar="NAME", help="only the exports of this dataset (--dataset of the "
                                                          "exports; default: all)")
    parser.add_argument("--delta", type=_delta, default=1e-6, help="δ of the (ε, δ) total (default 1e-6)")
    parser.add_argument("--into", metavar="URL", help="lmdk ledger import: the database to move the entries into")
    parser.set_defaults(func=cmd_ledger)
