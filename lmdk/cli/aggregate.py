"""``lmdk aggregate``: release a statistic over many users (sum, mean or count per time bin, optionally per group)
under a landmark-privacy scheme — the stream a utility, a transport authority or a contact study publishes.

The statistic is built by :mod:`lmdk.aggregate` (in process, or on Dask with ``--workers``/``--scheduler``), its
neighbouring relation is :func:`lmdk.relation.aggregate` (one user's readings at L ∪ {t} anywhere in the public
range), and each group's series is exported as any series is (:mod:`lmdk.aggregate.release`:
fresh OS entropy, the exact discrete Laplace on the statistic's own range [N·low, N·high]).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lmdk.cli.arguments import positive_int
from lmdk.cli.common import EXIT_OK, EXIT_VIOLATION, say, shared_policy_flags, write_table
from lmdk.cli.ledger import EXIT_CAP
from lmdk.errors import LmdkError, ParameterError
from lmdk.exports.files import write_atomic

if TYPE_CHECKING:
    from lmdk.aggregate.release import AggregateOptions
    from lmdk.ledger.reserve import Budget

AGGREGATE_EXAMPLES = """examples:
  lmdk aggregate fleet.parquet --statistic sum --bin 1h --range 0 25 --landmarks calendar:sun@09:00-12:00 \\
      --scheme skip --epsilon 1 --out district.csv --json district.json
  lmdk aggregate fleet.parquet --statistic mean --by feeder --range 0 25 --landmarks calendar:mon-fri@17:00-20:00 \\
      --scheme adaptive --epsilon 1 --workers 2 --out feeders.parquet
  lmdk aggregate fleet.csv --statistic sum --bin 1d --range 0 25 --config policy.json --out daily.csv --json -
  lmdk aggregate contacts.csv --statistic count --bin 5min --start 2009-10-01 \\
      --landmarks calendar:daily@12:00-14:00 --scheme skip --epsilon 1 --json school.json

The files named here are in docs/examples/ (python docs/examples/make_examples.py).

The released file has the columns timestamp, group (with --by) and released, with the statement of what is
protected in '#' lines (Parquet: in its metadata). The JSON summary is for the officer's eyes only: it holds the
true statistic's error (mae, relative_mae = MAE / mean |true statistic|), which the published file must not.
What ε protects: any one user's readings at every landmark bin and any one other bin, each anywhere in the public
range (--range LOW HIGH; a count: 0 to --max-per-user K contact rows per bin). Landmarks should be declared
(calendar:…, file:…): a rule that reads the data (percentile, below/above, stay) is refused (exit 3) unless
--allow-data-landmarks, and the statement then says what it leaves unprotected."""


BIN_HELP = ("the common time grid (default 1h): 30min, 1h (aligned on multiples of the width), 1d, 1w, 1month, "
            "1quarter, 1year (from local midnight in the series' zone, --tz; weeks from Monday); 1m, 1M and MS are "
            "refused as ambiguous (write 1min or 1month); at most 1,000,000 bins and one contribution per user and "
            "bin")


def policy_settings(args) -> tuple[str, str, float]:
    """(landmark rule, scheme, ε): the flags, else the --config policy file's; a missing one names its flag."""
    from lmdk.policies.policy import load_policy

    if args.landmark_epsilon is not None:
        raise ParameterError("--landmark-epsilon: lmdk aggregate releases declared landmarks only (a bin's landmark "
                             "status would be read from every user's data); declare them (--landmarks "
                             "calendar:sun@09:00-12:00 or file:…) or pass --allow-data-landmarks")
    policy = load_policy(args.config) if args.config is not None else None
    landmarks = args.landmarks if args.landmarks is not None else (policy.landmarks if policy else None)
    scheme = args.scheme if args.scheme is not None else (policy.scheme if policy else None)
    epsilon = args.epsilon if args.epsilon is not None else (policy.epsilon if policy else None)
    for value, flag, example in ((landmarks, "--landmarks", "calendar:sun@09:00-12:00"),
                                 (scheme, "--scheme", "adaptive"), (epsilon, "--epsilon", "1")):
        if value is None:
            raise ParameterError(f"no {flag[2:]}: pass {flag} (e.g. {flag} {example}) or --config POLICY.json")
    assert landmarks is not None and scheme is not None and epsilon is not None  # each refused above when missing
    return str(landmarks), str(scheme), float(epsilon)


def options_from_args(args) -> AggregateOptions:
    """The release's public parameters, as given on the command line (or the --config policy file)."""
    from lmdk.aggregate.release import AggregateOptions

    landmarks, scheme, epsilon = policy_settings(args)
    return AggregateOptions(
        statistic=args.statistic, landmarks=landmarks, scheme=scheme, epsilon=epsilon,
        value_range=(args.range[0], args.range[1]) if args.range is not None else None, bin=args.bin, by=args.by,
        max_per_user=args.max_per_user, w=args.w, tz=args.tz, units=args.units, who=args.who, dummies=args.dummies,
        time_range=(args.time_range[0], args.time_range[1]) if args.time_range is not None else None,
        drop_rows_without_user=args.drop_rows_without_user, seed=args.seed)


def population_spec_from_args(args, path: Path):
    """The import mapping of INPUT (--mapping FILE) with --start/--tz applied (None: detected as lmdk population
    does)."""
    from lmdk.aggregate.inputs import population_spec
    from lmdk.cli.common import read_json
    from lmdk.data.mapping import ImportSpec

    spec = ImportSpec.from_dict(read_json(args.mapping, "--mapping")) if args.mapping else None
    return population_spec(path, spec, args.tz, args.start, columns_from_args(args))


def columns_from_args(args) -> dict:
    """{user|time|value: the column named by --user-column/--time-column/--value-column} (None: not named)."""
    return {"user": args.user_column, "time": args.time_column, "value": args.value_column}


MAPPING_HELP = ("an import mapping JSON naming how INPUT is read; its keys: entity_column (the user column), "
                "time_column (or date_column + time_column), value_column (or lat_column + lon_column, or "
                "contact_column), time_format (auto, dayfirst, monthfirst, epoch_s, epoch_ms, relative_s, year, "
                "year-month, excel), timezone, delimiter, decimal, header, skip_rows; --user-column, --time-column and "
                "--value-column override its keys")


def column_flags(p) -> None:
    """Add --user-column, --time-column and --value-column (lmdk aggregate, population, plan --statistic)."""
    p.add_argument("--user-column", metavar="COLUMN",
                   help="the column of user ids (e.g. symbol, source, site; default: a column named user, user_id, "
                        "id, device, meter, taxi, entity, …); overrides the mapping's entity_column")
    p.add_argument("--time-column", metavar="COLUMN",
                   help="the column of times (overrides the mapping's time_column); named, it may hold whole years "
                        "(2001), year-months (2024-01) or Excel serial dates (45292)")
    p.add_argument("--value-column", metavar="COLUMN",
                   help="the column of readings (overrides the mapping's value_column; default: value, or the only "
                        "numeric column)")


def time_range_flags(p) -> None:
    """Add --time-range START END and --drop-rows-without-user (lmdk aggregate, lmdk plan --statistic)."""
    p.add_argument("--time-range", nargs=2, metavar=("START", "END"),
                   help="the public time span of the released bins, fixed in advance (END exclusive; naive times in "
                        "the series' zone or --tz; widened outward to whole bins): readings outside are dropped and "
                        "counted, bins inside without readings are released with noise. Without it the span is read "
                        "from the data and the statement says it is not protected")
    p.add_argument("--drop-rows-without-user", action="store_true",
                   help="drop rows without a user id (reported as dropped_rows) instead of refusing the input")


def budget_from_args(args) -> Budget:
    """Where the export's ε is reserved: --ledger, --dataset, --cap, --period."""
    from lmdk.ledger.reserve import Budget

    return Budget(args.ledger, args.dataset, args.cap, args.period)


def cmd_aggregate(args) -> int:
    """``lmdk aggregate``: build the statistic, release every group, write the table and the JSON summary; a
    refusal after the ledger reserved the ε cancels the reservation (a refusal charges nothing)."""
    from lmdk.aggregate import membership
    from lmdk.aggregate.inputs import group_pairs
    from lmdk.aggregate.reserve import reserve_aggregate
    from lmdk.landmarks import parse_rule
    from lmdk.ledger.reserve import withheld_line

    options = options_from_args(args)
    options.check()
    if args.json == "-" and args.out in (None, "-"):
        raise ParameterError("--json - writes the summary to standard output, where the released CSV goes without "
                             "--out; name the table with --out FILE (e.g. --out district.csv --json -), or write the "
                             "summary to a file (--json district.json)")
    from lmdk.cli.ledger import refuse_seed

    refuse_seed(args, args.seed, "--seed")
    rule = parse_rule(options.landmarks)
    if rule.data_dependent and not args.allow_data_landmarks:
        print(f"lmdk: refused: landmark rule {options.landmarks!r} reads the data it releases, so the landmark set is "
              "not covered by ε; declare the landmarks (e.g. --landmarks calendar:sun@09:00-12:00, or a file of times "
              "times:FILE) or "
              "pass --allow-data-landmarks (the statement then says what is not protected)", file=sys.stderr)
        return EXIT_VIOLATION
    path = Path(args.input)
    if not path.exists() and args.input != "sample:district":
        raise ParameterError(f"INPUT {args.input!r} does not exist; give a long table (Parquet/CSV), a multi-user "
                             "file or a folder of per-user files")
    spec = population_spec_from_args(args, path)
    groups = membership(group_pairs(path, args.by, spec)) if args.by is not None else None
    budget = budget_from_args(args)
    source, reservation = reserve_aggregate(budget, _source(path, spec), args.input, options)
    if reservation is not None and reservation.withheld:
        print(withheld_line(reservation, summary=False)  # the aggregate writes no per-user summary
              + ("" if reservation.granted else "; no user released"), file=sys.stderr)
        if not reservation.granted:
            return EXIT_CAP
    try:
        code = _release(args, options, rule, source, groups)
    except LmdkError:
        budget.cancel(reservation)
        raise
    if code not in (EXIT_OK, EXIT_CAP):
        budget.cancel(reservation)
    return code


def _release(args, options: AggregateOptions, rule, source, groups) -> int:
    """Build the statistic, release every group, write the table and the JSON (the ε is reserved already)."""
    from lmdk.aggregate import Region, build
    from lmdk.aggregate.release import release_aggregate

    agg = build(source, options.statistic, value_range=options.value_range, bin=options.bin, groups=groups,
                max_per_user=options.max_per_user, region=Region(*args.region) if args.region is not None else None,
                scheduler=args.scheduler, workers=args.workers, time_range=options.time_range, tz=options.tz,
                drop_rows_without_user=options.drop_rows_without_user)
    if args.strict and agg.warnings:  # before any noise is drawn: the ledger's reservation is cancelled
        raise ParameterError(f"INPUT {args.input!r}: {len(agg.warnings)} loader warning(s) with --strict: "
                             + " | ".join(agg.warnings) + " — fix the file (or leave --strict out to release with "
                             "these warnings)")
    released = release_aggregate(agg, options, rule)
    if not released.satisfied and not args.allow_violation:  # nothing computed from the data is printed (issue 52)
        print(f"lmdk: refused: scheme {options.scheme!r} violates the landmark-privacy policy on this aggregate; "
              "choose a scheme that satisfies it (adaptive, skip, uniform, user) or pass --allow-violation",
              file=sys.stderr)
        return EXIT_VIOLATION
    value = getattr(source, "value_column", None)
    say(args, f"read {args.input}: {sum(agg.users.values()):,} users, {len(agg.series)} group(s), "
              f"{len(next(iter(agg.series.values()))):,} bins of {args.bin}"
              + (f", readings from column {value!r}" if value and options.statistic != "count" else ""))
    for warning in [*agg.warnings, *released.warnings()]:
        say(args, f"warning: {warning}")
    write_table(released.table_for(args.out), args.out, released.note())
    if args.json:
        text = json.dumps(released.to_json(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            write_atomic(args.json, text)
            say(args, f"wrote {args.json} (the true statistic's error: for the officer's eyes only)")
    if args.seed is not None:
        say(args, f"demonstration seed {args.seed}: anyone with it can regenerate and remove the noise — do not hand "
                  "this file out as a release")
    for line in released.lines():
        say(args, line)
    return EXIT_OK


def _source(path: Path, spec):
    """INPUT opened with its import mapping."""
    from lmdk.population.input import open_source

    return open_source(str(path), spec)


def configure(p: argparse.ArgumentParser) -> None:
    """Add the ``aggregate`` arguments to ``p``."""
    from lmdk.aggregate import STATISTICS

    p.add_argument("input", metavar="INPUT", help="a long table (user, timestamp, value | lat, lon | contact) in "
                                                  "Parquet or CSV, a multi-user file, or a folder of per-user files")
    p.add_argument("--statistic", choices=STATISTICS, required=True,
                   help="sum (readings clamped to --range; a user without a reading contributes 0), mean (the sum ÷ "
                        "N, treated as public) or count (contact rows, each user at most --max-per-user per bin; or "
                        "users inside --region)")
    p.add_argument("--by", metavar="COLUMN", help="release the statistic per group of this column (district, feeder, "
                                                  "class): each user in exactly one group, membership public")
    p.add_argument("--bin", default="1h", metavar="WIDTH", help=BIN_HELP)
    shared_policy_flags(p, "a policy JSON as lmdk population reads ({\"landmarks\": …, \"scheme\": …, \"epsilon\": "
                           "…}); --landmarks, --scheme and --epsilon override it", releases=True,
                        tz_help="time zone of timestamps without one (IANA name, e.g. Europe/Berlin; default UTC): "
                                "resolves a clock change's repeated hour; calendar windows read the wall clock of this "
                                "zone, for times with an offset too (without --tz those are read on the offsets "
                                "they carried, day bins from that offset's midnight)")
    p.add_argument("--range", nargs=2, type=float, metavar=("LOW", "HIGH"),
                   help="sum/mean: the public range of one user's reading, from the device or domain, never from the "
                        "data; readings are clamped to it, and a user without a reading in a bin counts 0, so Δ = "
                        "max(0, HIGH) − min(0, LOW) (a mean's Δ is that ÷ N, N counted from the user ids, public)")
    p.add_argument("--max-per-user", type=positive_int("--max-per-user", 1_000_000), default=1, metavar="K",
                   help="count of contacts: rows one person contributes per bin at most (public, default 1; Δ = K)")
    p.add_argument("--region", nargs=3, type=float, metavar=("LAT", "LON", "RADIUS_M"),
                   help="count of locations: the public circle users are counted inside")
    p.add_argument("--w", type=positive_int("--w", 10_000_000), help="window of the w-event, bd and ba schemes")
    p.add_argument("--start", metavar="DATETIME", help="files of relative seconds: the date/time their 0 stands for "
                                                       "(e.g. 2009-10-01), so calendar windows can place them")
    time_range_flags(p)
    p.add_argument("--units", help="unit of one reading in the statement (e.g. kWh; default none)")
    p.add_argument("--who", default="user", help="whose readings, in the statement (default user; e.g. household)")
    p.add_argument("--mapping", metavar="FILE", help=MAPPING_HELP)
    column_flags(p)
    p.add_argument("--out", metavar="FILE", help="released series: .csv or .parquet (default: CSV on standard output)")
    from lmdk.cli.ledger import ledger_flag

    ledger_flag(p)
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=positive_int("--workers", 1024),
                        help="build the statistic on a Dask LocalCluster of N worker processes")
    engine.add_argument("--scheduler", metavar="ADDRESS", help="build it on an existing Dask cluster (tcp://host:8786)")
    from lmdk.cli.common import dummies_flag

    dummies_flag(p)
    p.add_argument("--allow-violation", action="store_true", help="write a release that violates Theorem 2")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=cmd_aggregate)
