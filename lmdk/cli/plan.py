"""``lmdk plan``: from the error one can accept to the smallest ε per scheme (lmdk.plan), as a table and JSON."""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from lmdk.cli.arguments import positive_float, positive_int, seed
from lmdk.cli.common import (
    EXIT_OK,
    default_mechanism,
    dummies_flag,
    event_word,
    landmarks_from_args,
    read_input,
    relation_flags,
    relation_from_args,
    say,
)
from lmdk.errors import ParameterError
from lmdk.exports.files import write_atomic

PLAN_EXAMPLES = """examples:
  lmdk plan sample:hue --landmarks calendar:daily@18:00-22:00 --range 0 25 --target-mae 0.5
  lmdk plan sample:hue --landmarks percentile:20 --landmark-epsilon 0.5 --range 0 25 --target-mae 0.5
  lmdk plan sample:hue --landmarks percentile:20 --range 0 25 --target-mae 0.5 --at landmarks --json plan.json
  lmdk plan meter.csv --landmarks below:0.5 --range 0 25 --within 1 --probability 0.9
  lmdk plan sample:hue --landmarks percentile:20 --range 0 25 --target-mae 0.5 --tradeoff 25,10,2,1
  lmdk plan sample:hue --config runconfig.json        # the config's landmarks, relation, w and target
  lmdk plan fleet.parquet --statistic sum --range 0 25 --landmarks calendar:sun@09:00-12:00 --target-relative-mae 0.02
  lmdk plan fleet.parquet --statistic sum --range 0 25 --landmarks calendar:sun@09:00-12:00 \
      --target-relative-mae 0.02 --users-for 1        # how many homes for 2 % at ε = 1?

The JSON is {scheme: {"epsilon": ε or null, "achieved_mae": …, "ci95": [low, high], "feasible": true|false}}:
epsilon is the smallest ε that meets the target (null when no ε does), achieved_mae the mean absolute error
measured at that ε with the exports' sampler and ci95 its 95 % confidence interval (an infeasible scheme: the
lowest error it reaches, at the largest ε searched). The target is in the series' unit (values), metres
(locations) or % wrong reports (contacts); --range/--up-to/--radius fix Δ and the public range as in
lmdk release (without them: the papers' Δ = 1, no clamping). Event level and w-event with w < |L| + 1 meet the
error but not landmark privacy: the Theorem 2 column says so.

Aggregates (--statistic sum|mean|count: INPUT is a population, as lmdk aggregate reads it): the target is
--target-relative-mae R (MAE / mean |true statistic|) and the JSON is {scheme: {"epsilon", "achieved_relative_mae",
"ci95", "feasible"}} for the file's N users; with --users-for EPSILON it is the smallest N per scheme for that
target at that ε: {scheme: {"users", "achieved_relative_mae", "feasible"}} (the file's statistic scaled to N
users)."""


def _number(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.{digits}g}"


def _pm(mean: float, ci: tuple[float, float]) -> str:
    """"0.502 ± 0.005" (half the 95 % interval)."""
    if not all(math.isfinite(v) for v in ci):
        return _number(mean, 4)
    return f"{mean:.4g} ± {(ci[1] - ci[0]) / 2:.2g}"


def plan_table(result, unit: str) -> str:
    """The plan as an aligned text table: ε needed, achieved error ± half its 95 % interval, method, Theorem 2."""
    within = result.target.probability is not None
    head = ["scheme", "ε needed", f"achieved MAE ({unit}, ± 95 % CI)"]
    if within:
        head.append(f"share within ±{result.target.error:g}")
    head += ["method", "Theorem 2"]
    rows = []
    for name, p in result.schemes.items():
        if not p.feasible:
            eps = "infeasible"
        elif p.any_epsilon:
            eps = f"any (≥ {p.epsilon:g})"
        else:
            eps = _number(p.epsilon, 3)
        row = [name, eps, _pm(p.achieved_mae, p.ci95)]
        if within:
            row.append(_pm(p.achieved_probability, p.probability_ci95) if p.achieved_probability is not None else "—")
        row += [p.method, "satisfies" if p.satisfies else "violates"]
        rows.append(row)
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [head] + rows]
    notes = [f"{name}: {p.note}" for name, p in result.schemes.items()
             if not p.feasible or p.any_epsilon or not p.within_tolerance]
    return "\n".join(lines + notes) + "\n"


def tradeoff_table(table: dict, current: float, unit: str) -> str:
    """ε per scheme (columns) for each protected change Δ (rows)."""
    names = list(next(iter(table.values())))
    head = [f"Δ ({unit})".strip()] + names
    rows = []
    for d, row in table.items():
        label = f"{d:g}" + (" (current)" if abs(d - current) <= 1e-12 * max(1.0, current) else "")
        rows.append([label] + ["infeasible" if row[s] is None else _number(row[s], 3) for s in names])
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [head] + rows]
    return "\n".join(lines) + "\n"


def _sensitivities(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ParameterError(f"--tradeoff must be numbers > 0 separated by commas (e.g. 25,10,2), "
                             f"not {text!r}") from None
    if not values or any(not math.isfinite(v) or v <= 0 for v in values):
        raise ParameterError(f"--tradeoff must be numbers > 0 separated by commas (e.g. 25,10,2), not {text!r}")
    return values


def _counts(result) -> str:
    """"40" or "40–160": the validation runs' repetitions."""
    counts = sorted({p.repetitions for p in result.schemes.values()})
    return f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"


def target_from_args(args, cfg):
    """The target: --target-mae X, or --within X --probability P, else the config's; --at overrides where."""
    from lmdk.plan import Target

    if args.target_mae is not None and args.within is not None:
        raise ParameterError("give either --target-mae X or --within X --probability P, not both")
    if args.within is not None or args.probability is not None:
        if args.within is None or args.probability is None:
            raise ParameterError("--within X needs --probability P (e.g. --within 1 --probability 0.9), and back")
        return Target(error=args.within, at=args.at or "all", probability=args.probability)
    if args.target_mae is not None:
        return Target(error=args.target_mae, at=args.at or "all")
    if cfg is not None and cfg.target is not None:
        target = Target.from_dict(cfg.target)
        return Target(error=target.error, at=args.at or target.at, probability=target.probability)
    raise ParameterError("no target: pass --target-mae X (the mean absolute error you can accept, in the series' "
                         "unit) or --within X --probability P, or a --config that has one")


def cmd_plan_aggregate(args) -> int:
    """``lmdk plan --statistic …``: the relative-error plan of an aggregate (or --users-for: the N it needs)."""
    from lmdk.aggregate.planning import plan_aggregate
    from lmdk.cli.aggregate import population_spec_from_args
    from lmdk.population.input import open_source

    if args.target_relative_mae is None:
        raise ParameterError("--statistic needs --target-relative-mae R (e.g. 0.02: the MAE may be 2 % of the mean "
                             "statistic)")
    if args.statistic in ("sum", "mean") and args.range is None:
        raise ParameterError(f"--statistic {args.statistic} needs --range LOW HIGH: the public range of one user's "
                             "reading")
    if args.landmarks is None:
        raise ParameterError("--statistic needs --landmarks RULE (declared, e.g. calendar:sun@09:00-12:00)")
    path = Path(args.input)
    if not path.exists() and args.input != "sample:district":
        raise ParameterError(f"INPUT {args.input!r} does not exist; give a population (long table, multi-user file "
                             "or folder)")
    spec = population_spec_from_args(args, path)
    planned = plan_aggregate(
        open_source(str(path), spec), args.statistic, args.landmarks, args.target_relative_mae,
        value_range=(args.range[0], args.range[1]) if args.range is not None else None, bin=args.bin,
        max_per_user=args.max_per_user, region=tuple(args.region) if args.region else None, tz=args.tz,
        schemes=tuple(s for s in args.schemes.split(",") if s) if args.schemes else None, w=args.w, seed=args.seed,
        repetitions=args.repetitions, users_for=args.users_for,
        time_range=(args.time_range[0], args.time_range[1]) if args.time_range is not None else None,
        drop_rows_without_user=args.drop_rows_without_user)
    for note in planned.notes:
        say(args, note)
    result = planned.result
    if args.users_for is not None:
        print(f"users needed for a relative MAE of {100 * args.target_relative_mae:g} % at ε = {args.users_for:g} "
              f"({args.statistic} per {args.bin}, |L| = {planned.landmarks:,} of {planned.bins:,} bins; the file's "
              f"{planned.users:,} users' statistic scaled to N):")
        for name, a in result.items():
            users = f"{a['users']:,}" if a["feasible"] else "infeasible"
            print(f"  {name:<10} {users:>14}  achieved {100 * a['achieved_relative_mae']:.3g} %")
    else:
        print(f"ε per scheme for a relative MAE of {100 * args.target_relative_mae:g} % on the {args.statistic} over "
              f"{planned.users:,} users ({planned.bins:,} bins of {args.bin}, |L| = {planned.landmarks:,}):")
        for name, a in result.items():
            eps = "infeasible" if not a["feasible"] else f"{a['epsilon']:.3g}"
            got = "—" if a["achieved_relative_mae"] is None else f"{100 * a['achieved_relative_mae']:.3g} %"
            print(f"  {name:<10} ε {eps:>10}  achieved {got}")
    if args.json:
        write_atomic(args.json, json.dumps(result, indent=2, allow_nan=False))
        say(args, f"wrote {args.json}")
    return EXIT_OK


def cmd_plan(args) -> int:
    """``lmdk plan``: load, mark landmarks, plan every scheme, print the table, write the JSON."""
    if args.statistic is not None:
        return cmd_plan_aggregate(args)
    if args.target_relative_mae is not None or args.users_for is not None:
        raise ParameterError("--target-relative-mae and --users-for plan an aggregate: give --statistic sum|mean|count")
    from lmdk import plan as planner
    from lmdk.data.mechanism_input import release_input
    from lmdk.declared.calendar import rule_clock
    from lmdk.relation import PAPERS_UNIT_CHANGE

    cfg, series = read_input(args)
    landmark_epsilon = getattr(args, "landmark_epsilon", None)
    L = landmarks_from_args(args, series, cfg) if landmark_epsilon is None else args.landmarks
    if landmark_epsilon is not None and args.landmarks is None:
        raise ParameterError("--landmark-epsilon needs the data-derived rule to select from: --landmarks RULE")
    target = target_from_args(args, cfg)
    mechanism = default_mechanism(series)
    protected = relation_from_args(args, series, cfg)
    if protected is None:
        say(args, "no --range/--radius given: the plan protects changes of up to 1 unit (Δ = 1, the papers' "
                  "simplification) without a public range")
    w = args.w if args.w is not None else (cfg.w if cfg is not None else None)
    schemes = tuple(s for s in args.schemes.split(",") if s) if args.schemes else planner.PLAN_SCHEMES
    x, _, _ = release_input(series, L if landmark_epsilon is None else [])
    dummies = cfg.dummies if cfg is not None else None
    if args.dummies is not None:  # as lmdk release --dummies: the config's share and utility, else 1 % and position
        dummies = {"method": args.dummies, "share": float((dummies or {}).get("share", 0.01)),
                   "utility": (dummies or {}).get("utility", "position")}
    result = planner.plan(x, L, target, protects=protected or PAPERS_UNIT_CHANGE, mechanism=mechanism, schemes=schemes,
                          w=w,
                          repetitions=args.repetitions, rng=args.seed, tolerance=args.tolerance, dummies=dummies,
                          landmark_epsilon=landmark_epsilon)
    unit = (series.units or "value units") if mechanism == "laplace" else result.unit
    words = event_word(series) + "s"
    print(f"target: {target.describe(unit, words)}; what ε protects: "
          + (protected.label() if protected is not None else "changes of up to 1 unit (Δ = 1)")
          + f"; n = {len(series):,}, |L| = {len(L) if landmark_epsilon is None else 'selected privately'}; validated "
            f"with {_counts(result)} repetitions "
            f"({result.sampler} sampler); tolerance ±{100 * result.tolerance:g} %")
    sys.stdout.write(plan_table(result, unit))
    clock = rule_clock(args.landmarks, series, args.tz)
    if clock is not None:
        print(f"the landmark rule {args.landmarks!r} was read on {clock}")
    if result.landmark_epsilon:
        totals = ", ".join(f"{name} {result.total_epsilon(name):.3g}" for name, p in result.schemes.items()
                           if p.feasible)
        print(f"the private landmark selection spends ε_sel = {result.landmark_epsilon:g} on top of each scheme's ε "
              f"(ledger and caps count both); total ε: {totals or 'none feasible'}")
    if args.tradeoff:
        table = planner.tradeoff(result, _sensitivities(args.tradeoff))
        print(f"\nε needed for the same target when one {event_word(series)}'s change of up to Δ is protected "
              f"(same public range; ε ∝ Δ):")
        sys.stdout.write(tradeoff_table(table, result.sensitivity, unit))
    if args.json:
        summary = result.to_json() if clock is None else {**result.to_json(), "landmark_clock": clock}
        write_atomic(args.json, json.dumps(summary, indent=2, allow_nan=False))
        say(args, f"wrote {args.json}")
    return EXIT_OK


def configure(p: argparse.ArgumentParser) -> None:
    """Add the ``plan`` arguments to ``p``."""
    from lmdk.landmarks import RULE_HELP
    from lmdk.plan import AT, TOLERANCE

    p.add_argument("input", metavar="INPUT",
                   help="a data file (CSV/TSV/Parquet/.plt/.dat …) or sample:hue|taxi|contacts")
    p.add_argument("--config", metavar="FILE", help="a RunConfig JSON saved by the app: its landmarks, relation, w "
                                                    "and target; flags below override it")
    p.add_argument("--mapping", metavar="FILE", help="an import mapping JSON (how to read INPUT)")
    p.add_argument("--landmarks", metavar="RULE", help="landmark rule: " + RULE_HELP.replace("%", "%%"))
    p.add_argument("--landmark-epsilon", type=positive_float("--landmark-epsilon"), metavar="E",
                   help="plan for landmarks selected privately from a data-derived rule at ε_sel = E (as lmdk release "
                        "--landmark-epsilon): every scheme's total ε then counts E on top")
    p.add_argument("--target-mae", type=positive_float("--target-mae"), metavar="X",
                   help="the mean absolute error you can accept, in the series' unit (kWh, metres, %% wrong reports)")
    p.add_argument("--within", type=positive_float("--within"), metavar="X",
                   help="instead: an event's error must stay within ±X …")
    p.add_argument("--probability", type=float, metavar="P", help="… with probability at least P (0 < P < 1)")
    p.add_argument("--at", choices=AT, help="where the error is measured: all events (default), the landmarks or the "
                                            "regular events")
    relation_flags(p)
    p.add_argument("--bound", type=positive_float("--bound"),
                   help="values without --range: the public range [−B, B] (Δ = 2B)")
    p.add_argument("--w", type=positive_int("--w", 10_000_000), help="window of the w-event scheme (default: n)")
    p.add_argument("--schemes", metavar="LIST", help="comma-separated schemes (default: the six; the baselines "
                                                     "bd, ba, fast, pegasus are searched through their releases)")
    dummies_flag(p)
    p.add_argument("--tradeoff", metavar="D1,D2,…", help="also print ε per scheme when changes of up to each Δ are "
                                                         "protected instead (e.g. 25,10,2,1)")
    p.add_argument("--repetitions", type=positive_int("--repetitions", 10_000),
                   help="repetitions of the validation with the real sampler (default: automatic, about 40,000 "
                        "measured events)")
    p.add_argument("--tolerance", type=positive_float("--tolerance"), default=TOLERANCE,
                   help=f"stated relative accuracy of the achieved error (default {TOLERANCE:g})")
    p.add_argument("--seed", type=seed, default=0, help="seed of the search and validation noise (default 0; nothing "
                                                         "is released)")
    p.add_argument("--json", metavar="FILE", help="also write {scheme: {epsilon, achieved_mae, ci95, feasible}}")
    p.add_argument("--strict", action="store_true", help="treat every loader warning as an error")
    p.add_argument("--quiet", action="store_true", help="print nothing but the table and errors")
    agg = p.add_argument_group("aggregates", "plan a statistic over many users (INPUT as lmdk aggregate reads it)")
    agg.add_argument("--statistic", choices=("sum", "mean", "count"),
                     help="plan the sum, mean or count over the users of INPUT per --bin")
    agg.add_argument("--target-relative-mae", type=positive_float("--target-relative-mae"), metavar="R",
                     help="the MAE you can accept as a share of the mean |statistic| (0.02 = 2 %%)")
    agg.add_argument("--users-for", type=positive_float("--users-for"), metavar="EPSILON",
                     help="instead of ε: the smallest number of users per scheme for the target at this ε")
    from lmdk.cli.aggregate import BIN_HELP

    agg.add_argument("--bin", default="1h", metavar="WIDTH", help=BIN_HELP)
    agg.add_argument("--max-per-user", type=positive_int("--max-per-user", 1_000_000), default=1, metavar="K",
                     help="count of contacts: rows per person and bin (default 1)")
    agg.add_argument("--region", nargs=3, type=float, metavar=("LAT", "LON", "RADIUS_M"),
                     help="count of locations: the public circle")
    agg.add_argument("--tz", metavar="ZONE", help="time zone of timestamps without one (default UTC); calendar windows "
                                                  "read its wall clock, for times with an offset too")
    agg.add_argument("--start", metavar="DATETIME", help="files of relative seconds: the date/time of their 0")
    from lmdk.cli.aggregate import column_flags, time_range_flags

    time_range_flags(agg)
    column_flags(agg)
    p.set_defaults(func=cmd_plan)
