"""``lmdk release``: load a series, mark landmarks by a rule, release it under a scheme, write it, summarise;
refuse a policy that violates (ε, L)-landmark privacy (Theorem 2)."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from lmdk.cli.arguments import positive_float, positive_int
from lmdk.cli.common import (
    EXIT_OK,
    EXIT_VIOLATION,
    dummies_flag,
    event_word,
    json_summary,
    policy_flags,
    policy_from_args,
    read_input,
    refuse_json_on_stdout,
    relation_flags,
    say,
    with_dummies,
    write_table,
)
from lmdk.cli.ledger import (
    EXIT_CAP,
    cancel,
    keep_release_selection,
    ledger_flag,
    refuse_seed,
    refused_line,
    reserve_release,
    violation_line,
)
from lmdk.errors import LmdkError, ParameterError
from lmdk.present.release import Policy

RELEASE_EXAMPLES = """examples:
  lmdk release sample:hue --scheme adaptive --epsilon 1 --landmarks calendar:daily@18:00-22:00 --range 0 25 --out r.csv
  lmdk release sample:hue --scheme adaptive --epsilon 1 --landmarks percentile:20 --landmark-epsilon 0.5 --range 0 25
  lmdk release meter.csv --scheme skip --epsilon 1 --landmarks file:landmarks.csv --range 0 25 --up-to 2
  lmdk release meter.csv --config runconfig.json --out released.parquet
  lmdk release trace.plt --scheme skip --epsilon 1 --landmarks calendar:daily@09:00-17:00 --radius 200 --bound 50000
  lmdk release sample:hue --config runconfig.json --seed 0   # the app's demonstration view, reproducible
  lmdk release sample:hue --scheme skip --epsilon 1 --landmarks calendar:sun@00:00-24:00 --range 0 25 --dummies random

Landmarks: a declared rule (calendar:…, file:…, none) keeps Theorem 2 as stated. A rule that reads the values
being released (below, above, percentile, share, stay, contacts) is refused in an export (exit code 3) unless
--landmark-epsilon E selects it privately (the statement's ε is then E + --epsilon) or --allow-data-landmarks
releases it anyway (the statement then says first what is not protected). A --config's positions marked while
viewing the values (landmark_origin "viewed", or a config without the field) are refused the same way unless
--declared-landmarks confirms they were declared in advance (the statement records it); so are those of a
file:… naming a RunConfig or the app's landmark file that says "viewed" or "data" (or nothing), unless
--allow-data-landmarks.

What ε protects is part of the policy: --range LOW HIGH (values; any change of one event within the public
range, Δ = HIGH − LOW), optionally --up-to D (only changes of up to D units, Δ = D), or --radius R (locations).
Take them from the device or the domain, never from the data. Without --seed the noise comes from fresh OS
entropy that is never recorded: values use the exact discrete Laplace on a 2^k grid (proof at every scale),
locations the snapping sampler inside the public box --bound B. Every export carries the statement of what it
protects and what it does not. With --seed S the output is reproducible (a demonstration: anyone with the seed
can remove the noise)."""

def cmd_release(args) -> int:
    """``lmdk release``: load, mark landmarks, reserve ε in the ledger, release, write, summarise; refuse
    violations and exports past the ledger's cap (exit 4, before any noise is drawn; a refusal charges nothing)."""
    if args.declared_landmarks and (args.config is None or args.landmarks is not None):
        raise ParameterError("--declared-landmarks confirms that a --config's landmark positions were declared in "
                             "advance; use it with --config and without --landmarks")
    refuse_json_on_stdout(args)
    cfg, series = read_input(args)
    policy = with_dummies(args, policy_from_args(args, series, cfg))
    refuse_seed(args, policy.seed, "--seed")  # seeds are for demonstrations only
    if policy.seed is None and policy.repetitions > 1:
        raise ParameterError("--repetitions applies to demonstration releases (--seed): every exported "
                             "release spends ε again")
    reservation = reserve_release(args, series, policy)
    if reservation is not None and reservation.withheld:
        print(refused_line(reservation), file=sys.stderr)
        return EXIT_CAP
    try:
        code = _release(args, cfg, series, policy)
    except LmdkError:
        cancel(args, reservation)
        raise
    if code == EXIT_VIOLATION and reservation is not None and args.landmark_epsilon is not None:
        # the private selection ran before Theorem 2 refused: its ε_sel is spent and stays charged
        keep_release_selection(args, reservation, series, policy)
    elif code != EXIT_OK:
        cancel(args, reservation)
    return code


def _release(args, cfg, series, policy: Policy) -> int:
    """Release, write and summarise (the ledger has reserved the ε already)."""
    from lmdk.declared.calendar import rule_clock
    from lmdk.exports.export import export_scheme_release
    from lmdk.exports.files import demonstration_note
    from lmdk.present.release import (
        demonstration_landmarks,
        release_summary,
        released_table,
        run_release,
        summary_line,
    )

    source = None
    if policy.seed is None:
        landmarks = args.landmarks if args.landmarks is not None else policy.landmarks
        if args.landmarks is None and cfg is not None:  # the config's positions, as its landmark_origin says
            from lmdk.exports.runconfig import config_landmarks

            landmarks = config_landmarks(cfg, declared_landmarks=args.declared_landmarks,
                                         allow_data_landmarks=args.allow_data_landmarks, path=args.config)
        exported = export_scheme_release(series, landmarks,
                                         policy.scheme, policy.epsilon, w=policy.w,
                                         protects=policy.relation, bound=args.bound,
                                         private_columns=args.include_private_columns, dummies=policy.dummies,
                                         event=event_word(series), landmark_epsilon=args.landmark_epsilon,
                                         allow_data_landmarks=args.allow_data_landmarks, tz=args.tz)
        rel, table, note = exported.release, exported.frame, exported.note
        source = exported.landmark_source
        if source is not None:
            policy = replace(policy, landmarks=source.indices)
    else:
        if args.landmark_epsilon is not None:  # the demonstration selects as an export would, from its seed
            source = demonstration_landmarks(series, args.landmarks if args.landmarks is not None
                                             else policy.landmarks, policy, args.landmark_epsilon)
            policy = replace(policy, landmarks=source.indices)
        if policy.relation is None and series.kind != "contacts":
            say(args, "no --range/--radius given: this demonstration protects changes of up to 1 unit (Δ = 1, the "
                      "papers' simplification)")
        _, rel, origin = run_release(series, policy)
        table, note = released_table(series, policy, rel, origin), demonstration_note(policy.seed)
    summary = release_summary(series, policy, rel)
    summary["landmark_clock"] = (exported.landmark_clock if policy.seed is None  # the clock a calendar rule read
                                 else rule_clock(args.landmarks, series, args.tz))
    if source is not None:
        summary["landmark_set"] = source.to_dict()
        summary["epsilon_total"] = source.total_epsilon(policy.epsilon)
    if policy.seed is None:
        summary["guarantee"] = exported.guarantee.to_dict()
        summary["sensitivity"] = exported.relation.sensitivity
        summary["sampler"] = exported.sampler
    from lmdk.exports.swamped import release_swamped

    swamp = release_swamped(rel)  # most values at a range end, or noise wider than the range: said, with the fix
    summary["clamped_share"] = swamp.clamped_share
    if swamp.warning:
        summary["warnings"] = [*summary.get("warnings", []), swamp.warning]
    if not summary["theorem2_holds"] and not args.allow_violation:
        if policy.seed is not None:  # a demonstration's counts are its lesson; an export prints nothing of the data
            say(args, summary_line(summary))
        print(violation_line(policy.scheme, args.landmark_epsilon if policy.seed is None else None,
                             getattr(args, "ledger", None)), file=sys.stderr)
        return EXIT_VIOLATION
    write_table(table, args.out, note)
    say(args, summary_line(summary))
    if swamp.warning:
        say(args, f"warning: {swamp.warning}")
    if policy.seed is None:
        for line in note.splitlines():
            say(args, line.lstrip("# "))
    else:
        say(args, f"demonstration seed {policy.seed}: anyone with it can regenerate and remove the noise — "
                   "do not hand this file out as a release")
    if policy.seed is not None:  # a demonstration says so inside every file it writes
        summary = {"demonstration_only": note.removeprefix("# "), **summary}
    json_summary(args, summary)
    return EXIT_OK


def configure(rel: argparse.ArgumentParser) -> None:
    """Add the ``release`` arguments to ``rel``."""
    policy_flags(rel, releases=True)
    relation_flags(rel)
    rel.add_argument("--repetitions", type=positive_int("--repetitions", 10_000),
                     help="independent releases to write (default 1). With --config the config's repetitions are "
                          "drawn, as in the app, and the first N written: repetition 1 is the app's download")
    rel.add_argument("--bound", type=positive_float("--bound"),
                     help="locations: the public box ±B metres around the series' centre for the snapping sampler "
                          "(required for exported locations). Values: without --range, the public range [−B, B] "
                          "(Δ = 2B; a meter reading 0..B is better served by --range 0 B)")
    rel.add_argument("--include-private-columns", action="store_true",
                     help="also write the budget, published and landmark columns (they reveal the landmark set)")
    dummies_flag(rel)
    rel.add_argument("--declared-landmarks", action="store_true",
                     help="with --config: confirm that the config's landmark positions were declared in advance "
                          "(chosen without looking at these values). A config marked on the chart of the values, or "
                          "saved without landmark_origin, is refused without it; the statement records the "
                          "confirmation")
    rel.add_argument("--allow-violation", action="store_true", help="write a release that violates the policy")
    rel.add_argument("--summary", dest="json", metavar="FILE", help="the same as --json FILE (kept for scripts)")
    ledger_flag(rel)
    rel.add_argument("--user", metavar="ID",
                     help="the person the series belongs to: the export is charged to that user's budget in "
                          "--dataset (the key rule of user columns: 7 and 7.0 are one user, other ids stripped "
                          "NFC text; needs --ledger). Without it the series is one anonymous user ('series')")
    rel.set_defaults(func=cmd_release)
