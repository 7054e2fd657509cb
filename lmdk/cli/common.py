"""What the ``lmdk`` commands share: exit codes, reading INPUT and JSON files, the policy flags, writing tables.

Every command module (release, loss, population, …) imports this one; none imports another command or the
parser (``lmdk.cli.main``), so the command line has no import circle.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lmdk.cli.arguments import positive_float, positive_int
from lmdk.errors import ParameterError
from lmdk.present.release import Policy

EXIT_OK, EXIT_INPUT, EXIT_VIOLATION = 0, 2, 3
SAMPLE_PREFIX = "sample:"
PREFERRED_SCHEMES = ("adaptive", "skip", "uniform", "user", "w-event", "event")  # default pick among a config's


# --------------------------------------------------------------------------- input
def load_input(text: str, cfg=None, mapping_file: str | None = None):
    """A series from a file path (read with the import mapping: the config's, a file's, or detected) or
    ``sample:hue|taxi|contacts``; a config's first ``events`` events, after checking the file's hash."""
    from lmdk import data

    events = cfg.events if cfg is not None else None
    view = cfg is not None and cfg.view is not None  # a window/aggregation of the whole sample or file
    if text.startswith(SAMPLE_PREFIX):
        name, _, seed = text[len(SAMPLE_PREFIX):].partition(":seed=")
        whole = data.sample(name, n=None if view else events if events is not None else -1, seed=int(seed or 0))
        return cfg.view_of(whole) if view else whole
    path = Path(text)
    if not path.is_file():
        raise ParameterError(f"INPUT {text!r} is not a file; give a path or sample:hue|taxi|contacts")
    mapping: data.ImportSpec | str
    if mapping_file is not None:
        mapping = data.ImportSpec.from_dict(read_json(mapping_file, "--mapping"))
    else:
        mapping = cfg.mapping if cfg is not None and cfg.mapping is not None else "detect"
    series = data.load_series(str(path), mapping=mapping)
    if cfg is not None and cfg.data.startswith("sha256:") and series.source_hash != cfg.data[len("sha256:"):]:
        raise ParameterError("INPUT is not the file the configuration was made with (its content hash differs)")
    if view:
        return cfg.view_of(series)
    if events is not None:
        if len(series) < events:
            raise ParameterError(f"INPUT has {len(series):,} events but the configuration says events={events:,}")
        series = series.head(events)
    return series


def read_input(args):
    """(RunConfig or None, series) of INPUT: the --config checked against it, how INPUT was read said."""
    cfg = read_config(args.config) if args.config else None
    if cfg is not None:
        config_input_matches(cfg, args.input)
    if getattr(args, "tz", None) is not None or getattr(args, "start", None) is not None:
        series = _load_placed(args, cfg)
    else:
        series = load_input(args.input, cfg, args.mapping)
    report_loading(args, args.input, series)
    return cfg, series


def _load_placed(args, cfg):
    """INPUT read with --tz (the zone of its naive times: a clock change's repeated hour becomes two instants) and
    --start (the date/time relative seconds count from) on top of its mapping (given, the config's, or detected)."""
    from lmdk import data
    from lmdk.aggregate.inputs import placed_spec
    from lmdk.data import mapping as mp
    from lmdk.data.read import MAX_BYTES, read_source

    if args.input.startswith(SAMPLE_PREFIX):
        raise ParameterError("--tz/--start apply to a file; a sample already has its times")
    if args.mapping is not None:
        spec = data.ImportSpec.from_dict(read_json(args.mapping, "--mapping"))
    elif cfg is not None and cfg.mapping is not None:
        spec = cfg.mapping
    else:
        if not Path(args.input).is_file():
            raise ParameterError(f"INPUT {args.input!r} is not a file; give a path or sample:hue|taxi|contacts")
        raw, filename = read_source(args.input, MAX_BYTES)
        spec = mp.detect_bytes(raw, filename).spec
    return data.load_series(args.input, mapping=placed_spec(spec, args.tz, args.start))


def landmarks_from_args(args, series, cfg=None):
    """The landmark set: --landmarks RULE on the series (calendar windows in --tz's wall clock), else the config's
    positions."""
    from lmdk.present.release import landmark_positions

    return landmark_positions(args.landmarks, series, getattr(args, "tz", None),
                              cfg.landmarks if cfg is not None else None)


def report_loading(args, text: str, series) -> None:
    """Say how INPUT was read (the detected mapping) and every loader warning; ``--strict`` makes a warning an
    error (exit 2) instead, so a script never releases data the loader had to guess about."""
    if text.startswith(SAMPLE_PREFIX):
        return
    how = series.mapping.summary() if getattr(series, "mapping", None) is not None else "the strict reader"
    warnings = tuple(getattr(series, "warnings", ()) or ())
    if getattr(args, "strict", False) and warnings:
        raise ParameterError(f"INPUT {text!r}: {len(warnings)} loader warning(s) with --strict: "
                             + " | ".join(warnings) + " — fix the file, pass --mapping FILE when a column was "
                             "guessed (or --tz ZONE for a clock change's repeated hour), or leave out --strict to "
                             "release with what each warning says was done")
    say(args, f"read {text} as: {how} ({len(series):,} events, {series.kind})")
    for warning in warnings:
        say(args, f"warning: {warning}")


def read_bytes(path: str, flag: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ParameterError(f"{flag} {path!r} cannot be read: {exc.strerror or exc}") from None


def read_json(path: str, flag: str) -> dict:
    try:
        return json.loads(read_bytes(path, flag))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise ParameterError(f"{flag} {path!r} is not valid JSON") from None


def read_config(path: str):
    """A RunConfig saved by the app (or written by hand)."""
    from lmdk.exports.runconfig import RunConfig

    return RunConfig.from_json(read_bytes(path, "--config"))


def config_input_matches(cfg, text: str) -> None:
    """Refuse a sample config applied to a different sample (files are checked by their content hash)."""
    if cfg.data.startswith(SAMPLE_PREFIX) and text.startswith(SAMPLE_PREFIX) and cfg.data != text:
        raise ParameterError(f"the configuration was made for {cfg.data}, not {text}")


def policy_from_args(args, series, cfg) -> Policy:
    """The policy: a RunConfig's fields, overridden by any flag given on the command line."""
    from lmdk.schemes import ALL_SCHEMES

    L = landmarks_from_args(args, series, cfg)
    if args.scheme is not None:
        scheme = args.scheme
    elif cfg is not None:
        scheme = next((s for s in PREFERRED_SCHEMES if s in cfg.schemes), cfg.schemes[0])
    else:
        raise ParameterError(f"no scheme: pass --scheme ({', '.join(ALL_SCHEMES)}) or --config")
    epsilon = args.epsilon if args.epsilon is not None else (cfg.epsilon if cfg is not None else None)
    if epsilon is None:
        raise ParameterError("no privacy budget: pass --epsilon E (a number > 0) or --config")
    mechanism = args.mechanism or (cfg.mechanism if cfg is not None else default_mechanism(series))
    if mechanism != default_mechanism(series):
        raise ParameterError(f"mechanism {mechanism!r} does not apply to a {series.kind} series; "
                             f"use {default_mechanism(series)!r} (or leave --mechanism out)")
    w = args.w if args.w is not None else (cfg.w if cfg is not None else None)
    repetitions = args.repetitions if args.repetitions is not None else 1
    draws = max(repetitions, cfg.repetitions if cfg is not None else 1)
    return Policy(L, scheme, mechanism, float(epsilon), w, repetitions, args.seed,
                  cfg.dummies if cfg is not None else None, draws, relation_from_args(args, series, cfg))


def relation_from_args(args, series, cfg=None):
    """The neighbouring relation: --range/--up-to/--radius, else the config's, else the legacy --bound (values:
    the range [−B, B]); None when nothing says what is protected (exports then refuse, demonstrations use Δ = 1)."""
    from lmdk import relation

    if series.kind == "contacts":
        return relation.FLIP
    low_high = getattr(args, "range", None)
    up_to, radius_m = getattr(args, "up_to", None), getattr(args, "radius", None)
    if series.kind == "values" and radius_m is not None:
        raise ParameterError("--radius applies to locations; for values give --range LOW HIGH (and --up-to D)")
    if series.kind == "trajectory" and (low_high is not None or up_to is not None):
        raise ParameterError("--range/--up-to apply to values; for locations give --radius R (metres)")
    if up_to is not None and low_high is None and not (cfg is not None and cfg.relation is not None):
        raise ParameterError("--up-to D needs the public range too (--range LOW HIGH): values are clamped to it")
    if low_high is not None or radius_m is not None:
        low, high = low_high if low_high is not None else (None, None)
        return relation.from_options(None, low=low, high=high, d=up_to, radius_m=radius_m,
                                     unit=series.units or "", series_kind=series.kind)
    if cfg is not None and cfg.relation is not None:
        protected = relation.Relation.from_dict(cfg.relation)
        if up_to is not None:
            protected = relation.up_to(up_to, protected.low, protected.high, protected.unit)
        return protected.check_kind(series.kind)
    bound = getattr(args, "bound", None)
    if series.kind == "values" and bound is not None:
        return relation.public_range(-bound, bound, series.units or "")
    return None


def default_mechanism(series) -> str:
    """The §4.1.2 mechanism of a series' kind."""
    return {"values": "laplace", "trajectory": "planar_laplace", "contacts": "randomized_response"}[series.kind]


def write_table(frame, out: str | None, note: str | None = None) -> None:
    """CSV (default, also to stdout; ``note`` as its first line) or Parquet (``note`` in its metadata), written
    atomically (:func:`lmdk.exports.files.write_table`)."""
    from lmdk.exports.files import table_text
    from lmdk.exports.files import write_table as write_file

    if out is None or out == "-":
        sys.stdout.write(table_text(frame, note))
        return
    write_file(frame, out, note)


def event_word(series) -> str:
    """What one event of ``series`` is called in statements ("hour", "fix", "event")."""
    from lmdk.present.headlines import event_word as word
    from lmdk.present.headlines import median_step_seconds

    return word(series.kind, median_step_seconds(series.timestamps)).removesuffix("s")  # "hours" → "hour"


def relation_flags(p: argparse.ArgumentParser) -> None:
    """The neighbouring relation's flags: what ε protects (--range, --up-to for values; --radius for locations)."""
    p.add_argument("--range", nargs=2, type=float, metavar=("LOW", "HIGH"),
                   help="public range of one value, from the device or domain, never from the data (e.g. 0 25 for a "
                        "25 kWh meter): any change of one event within it is protected (Δ = HIGH − LOW); values "
                        "are clamped to it")
    p.add_argument("--up-to", type=positive_float("--up-to"), metavar="D",
                   help="protect only changes of one value of up to D units (Δ = D) instead of the whole range; "
                        "every output then says so")
    p.add_argument("--radius", type=positive_float("--radius"), metavar="R",
                   help="locations: protect one location moved anywhere within R metres (planar Laplace with ε/R "
                        "per metre)")


def say(args, text: str) -> None:
    if not getattr(args, "quiet", False):
        print(text, file=sys.stderr)


def policy_flags(p: argparse.ArgumentParser, *, releases: bool = False) -> None:
    """INPUT, --mapping, the shared policy flags (``releases``: lmdk release's), --mechanism, --w, --out, --start and
    --quiet (release, loss, audit)."""
    from lmdk.mechanisms import MECHANISMS

    p.add_argument("input", metavar="INPUT",
                   help="a data file (CSV/TSV/Parquet/.plt/.dat …) or sample:hue|taxi|contacts")
    p.add_argument("--mapping", metavar="FILE", help="an import mapping JSON (how to read INPUT); default: the "
                                                     "config's, else detected as in the app's import step")
    shared_policy_flags(p, "a RunConfig JSON saved by the app; flags below override it", releases=releases)
    p.add_argument("--mechanism", choices=MECHANISMS, help="default: the config's, else by the kind of series")
    p.add_argument("--w", type=positive_int("--w", 10_000_000), help="window of the w-event, bd and ba schemes")
    p.add_argument("--out", metavar="FILE", help="output .csv or .parquet (default: CSV on standard output)")
    p.add_argument("--start", metavar="DATETIME", help="INPUT of relative seconds: the date/time their 0 stands for "
                                                       "(e.g. 2009-10-01), so calendar windows can place them")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors and the output asked for")


TZ_HELP = ("the wall clock calendar windows are read on, for every time (IANA name, e.g. Europe/Berlin), and the zone "
           "of INPUT's times without an offset (a clock change's repeated hour becomes two instants). Without it a "
           "time with an offset is read in its own local time (the offset it carries), a naive time as it stands")


def shared_policy_flags(p: argparse.ArgumentParser, config_help: str, *, releases: bool = False,
                        tz_help: str = TZ_HELP) -> None:
    """The policy flags every command that reads a policy takes: --config, --scheme, --epsilon, --landmarks, --tz,
    --strict; with ``releases`` (lmdk release, population, aggregate: one builder, one spelling) also
    --landmark-epsilon/--allow-data-landmarks, --seed and --json FILE|- (the summary)."""
    from lmdk.cli.arguments import seed
    from lmdk.landmarks import RULE_HELP
    from lmdk.schemes import ALL_SCHEMES

    p.add_argument("--config", metavar="FILE", help=config_help)
    p.add_argument("--scheme", choices=ALL_SCHEMES, help="budget scheme (default: the config's, adaptive first); "
                   "bd|ba (w-event, with --w), fast (user level), pegasus (event level): the state of the art, "
                   "values only, not landmark-aware")
    p.add_argument("--epsilon", type=positive_float("--epsilon"), help="total privacy budget ε > 0 (default: the "
                                                                       "config's)")
    p.add_argument("--landmarks", metavar="RULE", help="landmark rule (default: the config's): "
                                                       + RULE_HELP.replace("%", "%%"))
    p.add_argument("--tz", metavar="ZONE", help=tz_help)
    p.add_argument("--strict", action="store_true", help="treat every loader warning (averaged rows, dropped "
                                                         "repeats or empty values, a guessed column) as an error "
                                                         "(exit 2) naming the rows")
    if not releases:
        return
    data_landmark_flags(p)
    p.add_argument("--seed", type=seed, help="demonstration seed (reproducible, NOT safe to hand out): refused with "
                                             "--ledger or --cap; every output written says DEMONSTRATION ONLY inside")
    p.add_argument("--json", metavar="FILE|-", help="also write the summary as JSON (officer's eyes only: it holds "
                                                    "the error); '-': to standard output (the table then needs --out "
                                                    "FILE)")


def json_summary(args, summary: dict) -> None:
    """Write ``summary`` where --json says (a file, written atomically, or '-': standard output); nothing without
    --json. A demonstration's summary says so inside."""
    from lmdk.exports.files import write_atomic

    target = getattr(args, "json", None)
    if not target:
        return
    if getattr(args, "seed", None) is not None and "demonstration_only" not in summary:
        summary = {"demonstration_only": f"DEMONSTRATION ONLY (seed {args.seed}): anyone with the seed can remove "
                                         "the noise", **summary}
    text = json.dumps(summary, indent=2, ensure_ascii=False, allow_nan=False, default=str) + "\n"
    if target == "-":
        sys.stdout.write(text)
    else:
        write_atomic(target, text)
        say(args, f"wrote {target}")


def refuse_json_on_stdout(args) -> None:
    """``--json -`` writes to standard output: refused when the released table goes there too (no --out FILE)."""
    if getattr(args, "json", None) == "-" and getattr(args, "out", None) in (None, "-"):
        raise ParameterError("--json - writes the summary to standard output, where the released CSV goes without "
                             "--out; name the table with --out FILE (e.g. --out released.csv --json -), or write the "
                             "summary to a file (--json summary.json)")


def data_landmark_flags(p: argparse.ArgumentParser) -> None:
    """``--landmark-epsilon E`` and ``--allow-data-landmarks``: how an export may use a landmark rule that reads the
    values it releases (:mod:`lmdk.selection.export`); without either such a rule is refused (exit code 3)."""
    p.add_argument("--landmark-epsilon", type=positive_float("--landmark-epsilon"), metavar="E",
                   help="select the landmarks of a rule that reads the values (below, above, percentile, share) "
                        "privately at ε_sel = E (randomized response per event; lmdk.selection.private): the "
                        "statement's ε is then E + --epsilon, and the ledger records both")
    p.add_argument("--allow-data-landmarks", action="store_true",
                   help="export with landmarks computed from the released values anyway: the statement then says "
                        "first that the value of any event whose landmark status could change is not protected at ε")


def dummies_flag(p: argparse.ArgumentParser) -> None:
    """``--dummies METHOD``: hide the landmarks among dummy landmarks chosen privately (paper §3.4)."""
    from lmdk.dummies.selection import METHODS

    p.add_argument("--dummies", choices=METHODS, metavar="METHOD",
                   help="add dummy landmarks chosen by METHOD (" + " | ".join(METHODS) + ") so the landmark positions "
                        "are hidden among them (§3.4); 1 %% of ε selects them (the config's share and utility if it "
                        "has dummies)")


def with_dummies(args, policy: Policy) -> Policy:
    """The policy with ``--dummies METHOD`` applied (the config's share and utility kept, else 1 % and position)."""
    from dataclasses import replace

    method = getattr(args, "dummies", None)
    if method is None:
        return policy
    base = policy.dummies or {}
    return replace(policy, dummies={"method": method, "share": float(base.get("share", 0.01)),
                                    "utility": base.get("utility", "position")})
