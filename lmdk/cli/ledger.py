"""``lmdk ledger``: the total privacy spent by the exports recorded in a ledger; and the ``--ledger URL``,
``--cap``, ``--dataset`` and ``--period`` options of ``lmdk release``, ``lmdk population`` and ``lmdk aggregate``,
which reserve each export's ε before any noise is drawn (:mod:`lmdk.ledger`).

A ``--seed`` demonstration is not a release (anyone with the seed removes its noise): never recorded, and refused
beside ``--ledger`` or ``--cap`` (seeds are for demonstrations only).
A population run records one entry: its fingerprint is the input's (file or folder), ``users`` the number of
users released and ``charges`` what each of them spent — composition is per person, so a run of 1,000 users
counts once for each of them, not 1,000 times. A single series is one user: ``--user ID``'s budget in the
dataset, else the anonymous ``series``. User ids and dataset names are keys (:mod:`lmdk.data.ids`).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lmdk.cli.common import EXIT_OK
from lmdk.errors import ParameterError
from lmdk.ledger.reserve import (  # noqa: F401 (the lines the exporting commands print)
    refused_line,
    violation_line,
    withheld_line,
)

if TYPE_CHECKING:
    from lmdk.ledger import Reservation
    from lmdk.ledger.reserve import Budget

LEDGER_EXAMPLES = """examples:
  lmdk release meter.csv --config runconfig.json --bound 25 --out r1.csv --ledger ledger.jsonl
  lmdk ledger ledger.jsonl                  # releases, epsilon_basic (Σ ε), epsilon_pld at delta 1e-6
  lmdk ledger ledger.jsonl --delta 1e-9     # the same at δ = 1e-9 (a ledger downloaded from the app reads alike)
  lmdk population fleet.parquet --config policy.json --out d1/ --range 0 25 \\
      --ledger sqlite:///ledger.db --dataset meters-2026 --cap 10 --period month
  lmdk ledger sqlite:///ledger.db --by user --dataset meters-2026   # each user's total and what remains
  lmdk ledger init postgresql://lmdk_owner@db:5432/lmdk   # once, as the owner: the ledger's tables
  lmdk ledger cap sqlite:///ledger.db --dataset meters-2026 --cap 5   # set or lower a cap (never raise it)
  lmdk ledger import ledger.jsonl --into postgresql://lmdk@db:5432/lmdk   # idempotent, all or nothing

A ledger file literally named init, cap or import is given as a path: lmdk ledger ./init.
URL: a plain path (JSON Lines), sqlite:///PATH (sqlite:////abs/path) or postgresql://USER@HOST:PORT/DB; the
password comes from PGPASSWORD or PGPASSFILE, never the URL (messages name host, port and database only).
Exit codes: 0 done, 2 bad input (a malformed URL; an import that would raise a cap names the line, nothing
imported), 5 the ledger cannot be reached or has no tables yet (run lmdk ledger init URL).
Output (JSON): releases, epsilon_basic (sequential composition, Σ ε, δ = 0), epsilon_pld at delta (privacy-loss
distributions of Google's dp_accounting; each export counts as one pure ε-DP mechanism), epsilon_max and
epsilon_by_fingerprint (the same totals per input: composition applies to one person's data). With --by user:
by_user {user: epsilon_basic, epsilon_pld, remaining} of one dataset, remaining against its stored cap in the
current period (null without a cap)."""

LEDGER_HELP = ("the privacy ledger: a JSON Lines file (created if missing), sqlite:///PATH or postgresql://…; "
               "every export reserves its ε there before any noise is drawn (sum it up with lmdk ledger URL). A "
               "--seed demonstration is not a release: a seed beside --ledger or --cap is refused")
EXIT_UNAVAILABLE = 5
"""Exit code when the ledger cannot be reached or is not ready (its tables missing): nothing was released or charged;
or, after a refusal, the ledger could not withdraw the reservation (nothing released; the message says it stays
charged and names it)."""
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
                             "to the same per-user budget; required with --ledger by lmdk population and lmdk "
                             "aggregate. Names are NFKC-normalised and case-folded, then may hold only a-z, 0-9, "
                             "'-', '_' and '.' (Meter and meter are one budget). Without it a single series is "
                             "keyed by its parsed content (timestamps and values: a re-saved copy shares the "
                             "budget, a changed row is a new one). User ids are keys too: a user column of numbers "
                             "is read as numbers (7, 7.0 → 7), other ids as stripped NFC text; control characters "
                             "and the ledger's own keys 'series' and '*' are refused")
    parser.add_argument("--period", choices=PERIODS,
                        help="the cap bounds the whole history (none, the default) or each UTC calendar day or "
                             "month of release time")


def budget_from_args(args) -> Budget:
    """Where an export's ε is reserved: --ledger, --dataset, --cap and --period (absent flags: None)."""
    from lmdk.ledger.reserve import Budget

    return Budget(getattr(args, "ledger", None), getattr(args, "dataset", None), getattr(args, "cap", None),
                  getattr(args, "period", None))


def reserve_release(args, series, policy) -> Reservation | None:
    """Reserve one ``lmdk release`` export's ε for the single series (``--user``'s budget, else one anonymous
    user) before any noise is drawn (:func:`lmdk.ledger.reserve.reserve_release`): the Reservation, or None."""
    from lmdk.ledger.reserve import reserve_release as reserve

    return reserve(budget_from_args(args), series, policy, landmarks=getattr(args, "landmarks", None),
                   landmark_epsilon=args.landmark_epsilon, user=getattr(args, "user", None))


def cancel(args, reservation: Reservation | None) -> None:
    """Withdraw a reservation whose export was then refused (a refusal charges nothing)."""
    budget_from_args(args).cancel(reservation)


def refuse_seed(args, seed: int | None, origin: str) -> None:
    """Seeds are for demonstrations only: refuse ``seed`` (from ``origin``) with --ledger or --cap (exit 2)."""
    from lmdk.ledger.reserve import refuse_seeded

    refuse_seeded(budget_from_args(args), seed, origin)


def keep_release_selection(args, reservation: Reservation | None, series, policy) -> None:
    """An ``lmdk release`` refused by Theorem 2 after its private landmark selection ran: the selection's ε_sel
    stays charged (it read the data), the rest of the reservation is withdrawn."""
    from lmdk.ledger.entry import release_entry

    if reservation is None or args.landmark_epsilon is None:
        return cancel(args, reservation)
    entry = release_entry(series, policy, getattr(args, "landmarks", None), args.landmark_epsilon)
    budget_from_args(args).keep_spent(reservation, entry,
                                      dict.fromkeys(reservation.granted, float(args.landmark_epsilon)))


def _delta(text: str) -> float:
    """A δ in (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--delta must be a number in (0, 1), got {text!r}") from None
    if not math.isfinite(value) or not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"--delta must be a number in (0, 1), got {text!r}")
    return value


ACTIONS = {"init": "lmdk ledger init URL", "cap": "lmdk ledger cap URL --dataset NAME --cap EPS [--period P]",
           "import": "lmdk ledger import FILE.jsonl --into URL"}
"""The subcommands of ``lmdk ledger``: a ledger file literally named so is given as ``./init``."""


def cmd_ledger(args) -> int:
    """``lmdk ledger``: print the composed totals of a ledger as JSON; ``init``, ``cap`` and ``import``."""
    from lmdk import ledger

    target = list(args.target)
    action = target[0] if target[0] in ACTIONS else None
    if action is not None and len(target) != 2:
        raise ParameterError(f"{ACTIONS[action]} takes one {'FILE' if action == 'import' else 'URL'} (a ledger file "
                             f"named {action!r} is given as ./{action})")
    if action is None and len(target) != 1:
        raise ParameterError("lmdk ledger takes one URL (or: " + "; ".join(ACTIONS.values()) + ")")
    homes = (("--into", args.into, "import"), ("--cap", args.cap, "cap"), ("--period", args.period, "cap"))
    misplaced = [(flag, home) for flag, value, home in homes if value is not None and action != home]
    if misplaced:
        raise ParameterError(f"{misplaced[0][0]} belongs to {ACTIONS[misplaced[0][1]]}")
    if action == "import":
        return _import(target[1], args)
    if action == "init":
        print(f"ledger {ledger.init_ledger(target[1])} is ready (its tables exist)", file=sys.stderr)
        return EXIT_OK
    if action == "cap":
        return _cap(target[1], args)
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


def _cap(url: str, args) -> int:
    """``lmdk ledger cap URL --dataset NAME --cap EPS [--period P]``: set or lower a dataset's cap (as the owner)."""
    from lmdk import ledger

    cap, changed, dataset = ledger.set_cap(url, args.dataset, args.cap, args.period)
    what = "stored" if changed else "already in force, unchanged"
    print(f"{cap.label(dataset) if cap is not None else dataset}: {what} in ledger {ledger.redact(url)}",
          file=sys.stderr)
    return EXIT_OK


def _import(path: str, args) -> int:
    """``lmdk ledger import FILE.jsonl --into URL``: every entry and cap, none twice, all or nothing."""
    from lmdk import ledger

    if args.into is None:
        raise ParameterError("lmdk ledger import FILE.jsonl needs --into URL (sqlite:///PATH or postgresql://…)")
    if not Path(path).is_file():
        raise ParameterError(f"lmdk ledger import: {path!r} is not a file; give a JSON Lines ledger")
    report = ledger.import_jsonl(path, args.into)
    print(report.line(path, ledger.redact(args.into)), file=sys.stderr)
    return EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``ledger`` arguments to ``parser``."""
    from lmdk.cli.arguments import positive_float
    from lmdk.ledger import PERIODS

    parser.description = ("Sum up the privacy spent by the exports recorded in a ledger (lmdk release/population/"
                          "aggregate --ledger URL, or the app's ledger): sequential composition and the tighter "
                          "(ε, δ) total of privacy-loss distributions, overall, per input and per user. "
                          "'lmdk ledger import FILE.jsonl --into URL' moves a JSON Lines ledger into a database.")
    parser.epilog = LEDGER_EXAMPLES
    parser.add_argument("target", nargs="+", metavar="URL",
                        help="a JSON Lines ledger, sqlite:///PATH or postgresql://… (the password from PGPASSWORD or "
                             "PGPASSFILE, never in the URL); or: init URL (create the ledger's tables once, as the "
                             "owner), cap URL (set or lower a dataset's cap, as the owner), import FILE.jsonl. A "
                             "ledger file named init, cap or import is given as ./init")
    parser.add_argument("--by", choices=("user",), help="also by_user: each user's totals and remaining budget")
    parser.add_argument("--dataset", metavar="NAME", help="only the exports of this dataset (--dataset of the "
                                                          "exports; default: all)")
    parser.add_argument("--delta", type=_delta, default=1e-6, help="δ of the (ε, δ) total (default 1e-6)")
    parser.add_argument("--into", metavar="URL", help="lmdk ledger import: the database to move the entries into")
    parser.add_argument("--cap", type=positive_float("--cap"), metavar="EPS",
                        help="lmdk ledger cap: the most ε one user of --dataset may spend; a stored cap can be "
                             "lowered, never raised")
    parser.add_argument("--period", choices=PERIODS,
                        help="lmdk ledger cap: the period the cap bounds (none, day, month); a stored cap keeps its "
                             "period")
    parser.set_defaults(func=cmd_ledger)
