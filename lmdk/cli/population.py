"""``lmdk population``: release many users' series under one policy (wired into ``lmdk.cli.main``).

Exit codes as ``lmdk release``: 0 done, 2 bad input (one line naming the field), 3 some user's release
violates (ε, L)-landmark privacy (Theorem 2): nothing is released or written unless ``--allow-violation`` (a
private landmark selection that ran stays charged); 4 the ledger's
cap (``--ledger``, ``--cap``) withheld every user. Users the cap withholds are listed in the summary.
"""
from __future__ import annotations

import argparse
import sys
import time

from lmdk.cli.arguments import positive_float, positive_int
from lmdk.cli.common import (
    EXIT_OK,
    EXIT_VIOLATION,
    json_summary,
    read_json,
    relation_flags,
    say,
    shared_policy_flags,
)
from lmdk.cli.ledger import (
    EXIT_CAP,
    budget_from_args,
    cancel,
    ledger_flag,
    refuse_seed,
    violation_line,
    withheld_line,
)
from lmdk.cli.policies import POLICIES_EXAMPLES, assignment_for, policies_flags
from lmdk.errors import LmdkError, ParameterError

EXAMPLES = """examples:
  lmdk population fleet.parquet --config policy.json --out released/ --range 0 25
  lmdk population fleet.parquet --config policy.json --out on-dask/ --range 0 25 --workers 2
  lmdk population fleet.csv --scheme adaptive --epsilon 1 --landmarks calendar:mon-fri@18:00-22:00 --range 0 25 \\
      --out flags/ --json summary.json      # the policy as flags, the summary as JSON
  lmdk population fleet.csv --config policy.json --out demo/ --seed 0       # reproducible demonstration

The files named here are in docs/examples/ (python docs/examples/make_examples.py). A folder of per-user files
(GeoLife's Data/ with --radius R --bound B for locations) is read as one user per subfolder.

policy.json: {"landmarks": "calendar:mon-fri@18:00-22:00", "scheme": "adaptive", "epsilon": 1.0}
(also: mechanism, w, dummies, seed, relation — what ε protects, as --range/--up-to/--radius —, mapping,
landmark_epsilon, allow_data_landmarks). A rule that reads the values (percentile:20, below:0.5, stay:…,
contacts:…) is refused in an export (exit code 3) unless --landmark-epsilon E selects each user's landmarks
privately (ε per user: E + epsilon) or --allow-data-landmarks releases them with the statement saying first what
is not protected. So is file:… naming a RunConfig or the app's landmark file whose positions were marked while
viewing the values (landmark_origin "viewed", "data", or no field), here and in a --policies row.
Without --seed every user's noise comes from fresh OS entropy that is never recorded: values use the exact
discrete Laplace on the public range, locations the snapping sampler inside the public box --bound B.
Output: DIR/released/user=<id>/part-0.parquet, DIR/summary.parquet (per user: n, |L|, worst Σ over L ∪ {t},
Theorem 2, MAE — for your eyes only) and DIR/aggregates.json; --json FILE|- writes the aggregates again (a file,
or '-': standard output) as lmdk release and lmdk aggregate write their summary.
Exit codes: 0 when at least one user was released (the others withheld, each with its reason in the summary's
'withheld' column: no policy, a bound of --max-epsilon/--schemes, or the ledger's --cap); when every user was
withheld, 4 if any of them was withheld by the cap, else 3; 2 for bad input; 3 for a Theorem 2 refusal."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``population`` arguments to ``parser``."""
    parser.description = ("Apply one landmark-privacy policy to every user of a long table (user, timestamp, "
                          "value | lat, lon | contact) or a folder of per-user files; write the releases "
                          "partitioned by user, a per-user summary and population aggregates.")
    parser.epilog = EXAMPLES + "\n\n" + POLICIES_EXAMPLES
    parser.add_argument("input", metavar="INPUT", help="Parquet/CSV long table, a multi-user file, or a folder")
    shared_policy_flags(parser, "the population policy (JSON); --scheme, --epsilon and --landmarks override it; "
                                "with --policies, the policy of users without a row", releases=True,
                        tz_help="the wall clock every user's (and every policy row's) calendar windows are read on "
                                "(IANA name, e.g. Europe/Berlin). Without it a time with an offset is read in its own "
                                "local time (the offset it carries), a naive time as it stands")
    parser.add_argument("--out", metavar="DIR", required=True,
                        help="a new (or empty) output folder; built under a temporary name beside it and renamed when "
                             "complete, so an interrupted run leaves no partial release")
    engine = parser.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=positive_int("--workers", 1024), help="run on a Dask LocalCluster of N "
                                                                                "worker processes")
    engine.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask cluster (e.g. "
                                                               "tcp://host:8786; default: $LMDK_DASK_SCHEDULER)")
    parser.add_argument("--bound", type=positive_float("--bound"),
                        help="locations: the public box ±B metres around each user's mean point (snapping sampler; "
                             "required for exported locations). Values: without --range, the public range [−B, B]")
    from lmdk.cli.aggregate import MAPPING_HELP, column_flags

    parser.add_argument("--mapping", metavar="FILE", help=MAPPING_HELP)
    column_flags(parser)
    parser.add_argument("--include-private-columns", action="store_true",
                        help="also write budget, published and landmark columns (they reveal the landmark sets)")
    parser.add_argument("--allow-violation", action="store_true", help="release even if a user's release violates "
                                                                       "Theorem 2")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary: nothing but errors and "
                                                             "the output asked for (--json -)")
    relation_flags(parser)
    ledger_flag(parser)
    policies_flags(parser)


def _policy(args):
    """The policy file (without one, with --policies: the settings every row shares), with --seed and --mapping
    applied."""
    from dataclasses import replace

    from lmdk.policies.policy import Policy, load_policy

    flags = (args.landmarks, args.scheme, args.epsilon)
    if args.config is None and args.policies is None and None in flags:
        raise ParameterError("give the policy: --scheme S --epsilon E --landmarks RULE (e.g. --scheme adaptive "
                             "--epsilon 1 --landmarks calendar:daily@18:00-22:00), --config FILE (one policy for "
                             "every user) or --policies FILE (a policy table, one row per user)")
    if args.config is not None:
        policy = load_policy(args.config)
    elif None not in flags:
        policy = Policy(args.landmarks, args.scheme, args.epsilon)
    else:
        policy = Policy("none", "adaptive", 1.0)
    overrides = {name: value for name, value in zip(("landmarks", "scheme", "epsilon"), flags, strict=True)
                 if value is not None}
    if overrides:  # the flags override the policy file (Policy validates the result)
        policy = replace(policy, **overrides)
    if args.seed is not None:
        policy = replace(policy, seed=args.seed)
    if args.mapping is not None:
        policy = replace(policy, mapping=read_json(args.mapping, "--mapping"))
    policy = _named_columns(args, policy)
    if args.landmark_epsilon is not None:
        policy = replace(policy, landmark_epsilon=args.landmark_epsilon)
    if args.allow_data_landmarks:
        policy = replace(policy, allow_data_landmarks=True)
    protected = _relation(args, policy)
    if protected is not None:
        policy = replace(policy, relation=protected.to_dict(), sensitivity=protected.sensitivity)
    return policy


def _relation(args, policy):
    """--range/--up-to/--radius over the policy file's relation (None: leave the policy's)."""
    from lmdk import relation

    if args.radius is not None:
        if args.range is not None or args.up_to is not None:
            raise ParameterError("--radius (locations) and --range/--up-to (values) exclude each other")
        return relation.radius(args.radius)
    if args.range is None and args.up_to is None:
        return None
    base = relation.Relation.from_dict(policy.relation) if policy.relation is not None else None
    low, high = args.range if args.range is not None else ((base.low, base.high) if base and base.low is not None
                                                           else (None, None))
    unit = base.unit if base is not None else ""
    if low is None:
        raise ParameterError("--up-to D needs the public range too (--range LOW HIGH or 'relation' in the policy)")
    return relation.up_to(args.up_to, low, high, unit) if args.up_to is not None else relation.public_range(low, high,
                                                                                                             unit)


def _protects(args, policy, kind: str):
    """What ε protects in this run: an export's relation (the policy's, a radius in the public box --bound, or the
    legacy --bound alone), or a demonstration's (the policy's, else the papers' Δ = the policy's sensitivity, said)."""
    from lmdk import relation
    from lmdk.population.api import export_relation

    if policy.seed is None:
        return export_relation(policy, kind, args.bound)
    protected = policy.protected(kind)
    if protected is None:
        say(args, "no --range/--radius given: this demonstration protects changes of up to "
                  f"{policy.sensitivity:g} unit(s) (Δ = {policy.sensitivity:g}, the papers' simplification)")
        protected = relation.legacy_papers(policy.sensitivity)
    return protected


class _Bar:
    """A tqdm bar of users (total when known) with events per second."""

    def __init__(self, quiet: bool):
        """A bar on standard error, opened at the first report (so input errors print alone)."""
        self.quiet, self.bar = quiet, None
        self.users: int | None = None
        self.events, self.start = 0, time.perf_counter()

    def _open(self):
        """The tqdm bar, created on first use."""
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.users, unit="user", desc="users", disable=self.quiet, file=sys.stderr,
                            dynamic_ncols=True)
        return self.bar

    def total(self, users: int) -> None:
        """Set the number of users once known."""
        self.users = users
        if self.bar is not None:
            self.bar.total = users
            self.bar.refresh()

    def update(self, users: int, events: int) -> None:
        """Count finished users and events."""
        bar = self._open()
        self.events += events
        rate = self.events / max(time.perf_counter() - self.start, 1e-9)
        bar.set_postfix_str(f"{self.events:,} events, {rate:,.0f} events/s", refresh=False)
        bar.update(users)

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()


def _number(value) -> str:
    """A number as the summary prints it ('per user' when the users' policies differ)."""
    return "per user" if value is None else f"{value:g}"


def _summary_lines(result, seconds: float) -> list[str]:
    """The final summary printed after a run."""
    agg = result.aggregates
    q = agg["mae_quantiles"]
    policy = ("per-user policies" if agg["epsilon"] is None else
              f"{agg['scheme']}, ε = {agg['epsilon']:g}, landmarks {agg['landmark_rule']}")
    lines = [
        f"{policy}: {agg['users']:,} users, "
        f"{agg['events']:,} events in {seconds:.1f} s ({agg['events'] / max(seconds, 1e-9):,.0f} events/s)",
        f"MAE per user: median {q['0.5']:.4g}, 5–95 % {q['0.05']:.4g}..{q['0.95']:.4g}, max {q['1']:.4g}",
        f"landmark share per user (0, 0.1, …, 1): {agg['landmark_share_histogram']['counts']}",
        f"Theorem 2 violated for {agg['violated']:,} users; degenerate (all landmarks, or no better than "
        f"user level) for {agg['degenerate']:,} users; worst Σ over L ∪ {{t}} = {agg['worst_sigma_max']:.4g}",
    ]
    landmark_set = agg.get("landmark_set")
    if landmark_set and landmark_set["kind"] == "private":
        lines.append(f"landmarks selected privately per user at ε_sel = {landmark_set['selection_epsilon']:g}: each "
                     f"user's value is protected at the total ε = {_number(agg['epsilon_total'])}")
    elif landmark_set and landmark_set["kind"] == "unprotected":
        lines.append("landmarks computed from the values (--allow-data-landmarks): a value whose landmark status could "
                     "change is not protected at ε — the statement in every file says so first")
    if str(agg.get("landmark_rule") or "").startswith("calendar:") or agg["epsilon"] is None:
        lines.append(f"declared windows read on {agg['landmark_clock']}")
    if agg["dropped_events"]:
        lines.append(f"{agg['dropped_events']:,} events without a time or value dropped")
    if result.released is not None:
        lines.append(f"released: {result.released} (Parquet partitioned by user); summary and aggregates beside it")
    if agg["demonstration_seed"] is not None:
        lines.append(f"demonstration seed {agg['demonstration_seed']}: anyone with it can regenerate and remove the "
                     "noise — do not hand these files out as a release")
    return lines


def _named_columns(args, policy):
    """``policy`` with --user-column/--time-column/--value-column over its mapping's keys (detected around them
    without a mapping)."""
    from dataclasses import replace
    from pathlib import Path

    from lmdk.aggregate.inputs import population_spec
    from lmdk.cli.aggregate import columns_from_args
    from lmdk.data.mapping import ImportSpec

    columns = columns_from_args(args)
    if (all(name is None for name in columns.values()) and policy.mapping is None) \
            or str(args.input).startswith("sample:"):
        return policy  # (a mapping naming only some columns has the rest detected around them)
    spec = ImportSpec.from_dict(policy.mapping) if isinstance(policy.mapping, dict) else policy.mapping
    named = population_spec(Path(args.input), spec, columns=columns)
    return replace(policy, mapping=named.to_dict() if named is not None else None)


def _reserve(args, policy, source, assignment):
    """(the run's ledger Reservation, {user: reason} withheld by the cap): (None, None) without --ledger, for a
    demonstration, or when the policy table withholds every user (:func:`lmdk.population.ledger.reserve_run`)."""
    from lmdk.population.ledger import reserve_run

    return reserve_run(budget_from_args(args), policy, source, args.input, assignment,
                       getattr(args, "policies", None))


def run(args) -> int:
    """Run ``lmdk population``; returns the exit code."""
    from lmdk.population.api import release
    from lmdk.population.input import open_source

    policy = _policy(args)
    refuse_seed(args, policy.seed, "--seed" if args.seed is not None else f"the policy file's 'seed' ({args.config})")
    assignment = assignment_for(args, policy, policy if args.config is not None else None)
    source = open_source(args.input, policy.mapping)
    if args.strict:
        from lmdk.population.strict import loader_warnings

        found = loader_warnings(source)
        if found:
            raise ParameterError(f"INPUT {args.input!r}: {len(found)} loader warning(s) with --strict: "
                                 + " | ".join(found) + " — fix the file (or leave --strict out: a release drops "
                                 "empty rows and averages a user's repeated times, and says so)")
    protects = _protects(args, policy, source.kind)
    reservation, withheld = _reserve(args, policy, source, assignment)  # before any noise; the cap withholds users
    if reservation is not None and not reservation.granted:
        print(withheld_line(reservation, summary=False) + "; no user released", file=sys.stderr)
        return EXIT_CAP
    bar = _Bar(args.quiet)
    start = time.perf_counter()
    try:
        result = release(source, policy, out=args.out, scheduler=args.scheduler, workers=args.workers,
                         protects=protects, private_columns=True if args.include_private_columns else None,
                         allow_violation=args.allow_violation, progress=bar.update, on_total=bar.total,
                         assignment=assignment, withheld=withheld, tz=args.tz)
    except LmdkError:
        cancel(args, reservation)
        raise
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    if result.refused:  # nothing computed from the data is printed or written (no counts, no MAE, no summary)
        from lmdk.population.ledger import keep_selection

        keep_selection(budget_from_args(args), reservation, policy, source, args.input, assignment)
        selection = policy.landmark_epsilon if assignment is None else max(
            (v.landmark_epsilon or 0.0 for v in assignment.variants), default=0.0)
        print(violation_line(policy.scheme if assignment is None else "per user", selection,
                             getattr(args, "ledger", None), " for some users"), file=sys.stderr)
        return EXIT_VIOLATION
    if not args.quiet:
        print("\n".join(_summary_lines(result, seconds)), file=sys.stderr)
    if assignment is not None and not args.quiet:
        from lmdk.cli.policies import summary_lines

        print("\n".join(summary_lines(result)), file=sys.stderr)
    if reservation is not None and reservation.withheld:
        print(withheld_line(reservation), file=sys.stderr)
    if result.aggregates["users"] == 0 and (assignment is not None or reservation is not None):
        by_cap = reservation is not None and bool(reservation.withheld)
        print("lmdk: refused: every user was withheld (see the reasons above); nothing was released", file=sys.stderr)
        return EXIT_CAP if by_cap else EXIT_VIOLATION
    json_summary(args, dict(result.aggregates))
    return EXIT_OK
