"""The ``lmdk`` command line: release a series under a landmark-privacy policy, its temporal privacy loss,
the papers' experiments and (when installed) population releases.

Exit codes: 0 done; 2 bad input or arguments (one line naming the field and the fix); 3 the policy violates
(ε, L)-landmark privacy (Theorem 2) and ``--allow-violation`` was not given, or an export's landmark rule reads the
values it releases without ``--landmark-epsilon`` or ``--allow-data-landmarks`` (:mod:`lmdk.selection.export`); 4 a
ledger's cap refused the export; 5 the ledger cannot be reached or has no tables yet (nothing released or charged;
or, after a refusal, the ledger could not withdraw the export's reservation: nothing released, the reservation stays
charged and the message names it).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lmdk.cli import aggregate as aggregate_command
from lmdk.cli import audit as audit_command
from lmdk.cli import ledger as ledger_command
from lmdk.cli import loss as loss_command
from lmdk.cli import plan as plan_command
from lmdk.cli import population as population_command
from lmdk.cli import release as release_command
from lmdk.cli.common import EXIT_INPUT, EXIT_OK, EXIT_VIOLATION
from lmdk.errors import LedgerUnavailable, LmdkError, PolicyRefused, ReservationKept


def build_parser() -> argparse.ArgumentParser:
    """The ``lmdk`` argument parser with its subcommands."""
    from lmdk.version import __version__

    parser = argparse.ArgumentParser(prog="lmdk", description=__doc__.split("\n\n")[0], allow_abbrev=False,
                                     epilog="exit codes: 0 done, 2 bad input or arguments, 3 policy violates "
                                            "landmark privacy or its landmarks are data-derived (release, population, "
                                            "aggregate), 4 a ledger's cap refused the export (or withheld every "
                                            "user), 5 the ledger cannot be reached or has no tables yet (lmdk "
                                            "ledger init URL): nothing was released or charged — unless the "
                                            "message says a refused export's reservation stays charged")
    parser.add_argument("--version", action="version", version=f"lmdk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rel = sub.add_parser("release", help="release a series under a landmark-privacy policy",
                         description="Load a series, mark landmarks by a rule, release it with a scheme and "
                                     "write the released series; prints n, |L|, budgets and the Theorem 2 verdict.",
                         epilog=release_command.RELEASE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    release_command.configure(rel)

    loss = sub.add_parser("loss", help="temporal privacy loss (BPL/FPL/TPL, landmark quantities) as CSV",
                          description="Budgets of a policy's scheme and their temporal privacy loss under a "
                                      "Markov correlation (papers/000 §2.3, §3.3).",
                          epilog=loss_command.LOSS_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    loss_command.configure(loss)

    exp = sub.add_parser("experiments", help="reproduce the papers' figures",
                         add_help=False)
    exp.set_defaults(func=None)

    pop = sub.add_parser("population", help="release many users' series under one policy",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    population_command.configure(pop)
    pop.set_defaults(func=population_command.run)

    agg = sub.add_parser("aggregate", help="release a statistic over many users (sum, mean, count per time bin)",
                         description="Build the sum, mean or count over users per time bin (optionally per group) "
                                     "and release it under a landmark-privacy scheme: any one user's readings at "
                                     "every landmark and any one other bin are protected.",
                         epilog=aggregate_command.AGGREGATE_EXAMPLES,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    aggregate_command.configure(agg)

    pln = sub.add_parser("plan", help="the smallest ε per scheme for the error you can accept",
                         description="From a target error (mean absolute error overall, at landmarks or at regular "
                                     "events, or within ±x with probability p) to the smallest ε of every scheme, "
                                     "validated with the exports' sampler (MAE with its 95 % CI).",
                         epilog=plan_command.PLAN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    plan_command.configure(pln)

    aud = sub.add_parser("audit", help="measure what an attacker learns from a policy's releases",
                         description="Release a series and its worst neighbours many times: the empirical privacy "
                                     "loss beside the claimed ε, the landmark-position attack with and without dummy "
                                     "landmarks, the value attack and (--correlation) the correlated attack.",
                         epilog=audit_command.AUDIT_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    audit_command.configure(aud)

    led = sub.add_parser("ledger", help="total privacy spent by the exports recorded in a ledger (JSON)",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    ledger_command.configure(led)
    for command in sub.choices.values():  # no abbreviations: --scheme is never read as --schemes
        command.allow_abbrev = False
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lmdk`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "experiments":
        from lmdk.cli.experiments import main as experiments_main

        return experiments_main(argv[1:], prog="lmdk experiments")
    parser = build_parser()
    args = parser.parse_args(argv)
    import warnings

    try:
        with warnings.catch_warnings():  # lmdk says what it did in its own words: no raw library warning is shown
            warnings.simplefilter("ignore")
            return args.func(args)
    except PolicyRefused as exc:
        print(f"lmdk: {exc}", file=sys.stderr)
        return EXIT_VIOLATION
    except ReservationKept as exc:  # nothing released, but the reservation stays charged: the message says so
        print(f"lmdk: error: {exc}", file=sys.stderr)
        return ledger_command.EXIT_UNAVAILABLE
    except LedgerUnavailable as exc:  # before LmdkError: an unreachable ledger is not bad input
        print(f"lmdk: error: {exc}; nothing was released or charged", file=sys.stderr)
        return ledger_command.EXIT_UNAVAILABLE
    except LmdkError as exc:
        print(f"lmdk: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
