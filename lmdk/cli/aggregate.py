"""``lmdk aggregate``: release a statistic over many users (sum, mean or count per time bin, optionally per group)
under a landmark-privacy scheme — the stream a utility, a transport authority or a contact study publishes.

The statistic is built by :mod:`lmdk.aggregate` (in process, or on Dask with ``--workers``/``--scheduler``), its
neighbouring relation is :func:`lmdk.relation.aggregate` (one user's readings at L ∪ {t} anywhere in the public
range), and each group's series is exported as any series is (:func:`lmdk.data.export.export_scheme_release`:
fresh OS entropy, the exact discrete Laplace on the statistic's own range [N·low, N·high]).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from lmdk.cli.arguments import positive_float, positive_int
from lmdk.cli.common import EXIT_OK, EXIT_VIOLATION, say, write_table
from lmdk.data.export import ExportedRelease
from lmdk.errors import DataError, ParameterError

AGGREGATE_EXAMPLES = """examples:
  lmdk aggregate meters.parquet --statistic sum --bin 1h --range 0 25 --landmarks calendar:sun@09:00-12:00 \\
      --scheme skip --epsilon 1 --out district.csv --json district.json
  lmdk aggregate meters.parquet --statistic mean --by feeder --range 0 25 --landmarks calendar:mon-fri@17:00-20:00 \\
      --scheme adaptive --epsilon 1 --workers 2 --out feeders.parquet
  lmdk aggregate primaryschool.csv --statistic count --bin 5min --start 2009-10-01 \\
      --landmarks calendar:daily@12:00-14:00 --scheme skip --epsilon 1 --json school.json

The released file has the columns timestamp, group (with --by) and released, with the statement of what is
protected in '#' lines (Parquet: in its metadata). The JSON summary is for the officer's eyes only: it holds the
true statistic's error (mae, relative_mae = MAE / mean |true statistic|), which the published file must not.
What ε protects: any one user's readings at every landmark bin and any one other bin, each anywhere in the public
range (--range LOW HIGH; a count: 0 to --max-per-user K contact rows per bin). Landmarks should be declared
(calendar:…, file:…): a rule that reads the data (percentile, below/above, stay) is refused (exit 3) unless
--allow-data-landmarks, and the statement then says what it leaves unprotected."""

def _mapping(args, path: Path):
    """The import mapping of INPUT with --start/--tz applied (None: detected as lmdk population does)."""
    from lmdk.cli.common import placed_spec, read_json
    from lmdk.data.mapping import ImportSpec

    spec = ImportSpec.from_dict(read_json(args.mapping, "--mapping")) if args.mapping else None
    if args.start is None and args.tz is None:
        return spec
    if spec is None:
        spec = _detected(path)
    return placed_spec(spec, args)


def _detected(path: Path):
    """The mapping of INPUT as the population reader would find it: detected for a text file, or the columns of a
    Parquet/large CSV long table named explicitly (so --start/--tz change nothing else)."""
    from lmdk.data import mapping as mp
    from lmdk.data.mapping import ImportSpec
    from lmdk.data.read import MAX_BYTES, read_source
    from lmdk.population.input import open_source

    if path.is_file() and path.suffix.lower() not in (".parquet", ".pq") and path.stat().st_size <= MAX_BYTES:
        raw, filename = read_source(str(path), MAX_BYTES)
        spec = mp.detect_bytes(raw, filename).spec
        if spec.entity_column is None:
            raise DataError(f"{path.name}: no user (entity) column found; --start/--tz need a long table "
                            "(user, timestamp, …) or give --mapping FILE")
        return spec
    layout = open_source(str(path)).layout
    if layout is None:
        raise ParameterError("--start/--tz apply to a long table or a multi-user file; for a folder of per-user "
                             "files give --mapping FILE with start/timezone")
    cols = layout.columns
    return ImportSpec(kind=layout.kind, entity_column=cols["user"], time_column=cols["timestamp"],
                      value_column=cols.get("value"), lat_column=cols.get("lat"), lon_column=cols.get("lon"),
                      contact_column=cols.get("contact"))


def group_pairs(path: Path, by: str, spec=None) -> pd.DataFrame:
    """(user, group) rows of INPUT's column ``by`` (a long table in Parquet or text; users as the reader sees them)."""
    from lmdk.population.input import PARQUET_SUFFIXES, _parquet_files, open_source

    src = open_source(str(path), spec)
    if src.parquet:
        import pyarrow.parquet as pq

        user = src.parquet_layout().columns["user"]
        names = pq.ParquetFile(src.parquet[0]).schema_arrow.names
        if by not in names:
            raise ParameterError(f"--by {by!r}: the input has no such column; its columns are {', '.join(names)}")
        frames = [pq.read_table(f, columns=[user, by]).to_pandas() for f in _parquet_files(path)]
        frame = pd.concat(frames, ignore_index=True)
        return pd.DataFrame({"user": frame[user].to_numpy(), "group": frame[by].astype(str).to_numpy()})
    if path.is_dir() or path.suffix.lower() in PARQUET_SUFFIXES:
        raise ParameterError("--by needs a long table with the group column (Parquet or CSV); a folder of per-user "
                             "files has none")
    from lmdk.data import mapping as mp
    from lmdk.data.read import MAX_BYTES, check_text, read_source

    raw, filename = read_source(str(path), max(MAX_BYTES, path.stat().st_size))
    found = spec if spec is not None else mp.detect_bytes(raw[:MAX_BYTES], filename).spec
    frame = mp.read_table(check_text(raw), found, max_rows=10**9)
    user = found.entity_column if src.layout is None else src.layout.columns["user"]
    if by not in frame.columns:
        raise ParameterError(f"--by {by!r}: the input has no such column; its columns are "
                             f"{', '.join(map(str, frame.columns))}")
    ids = frame[user].astype(str).str.strip()
    if src.layout is not None:  # a large CSV read by pyarrow: ids keep the type pyarrow gives them
        first = next(src.chunks(1024))["user"]
        if pd.api.types.is_numeric_dtype(first.dtype):
            ids = pd.to_numeric(ids)
    return pd.DataFrame({"user": ids.to_numpy(), "group": frame[by].astype(str).str.strip().to_numpy()})


def _region(values):
    from lmdk.aggregate import Region

    return None if values is None else Region(*values)


def _landmark_rule(args):
    """The parsed --landmarks rule, and whether it is declared (fixed before the data is seen)."""
    from lmdk.landmarks import parse_rule

    rule = parse_rule(args.landmarks)
    return rule, not rule.data_dependent


def release_group(agg, group: str, args, rule, who: str, units: str, event: str
                  ) -> tuple[pd.DataFrame, dict, ExportedRelease]:
    """Export one group's statistic: (released rows, the group's summary, the exported release)."""
    from lmdk import privacy, relation
    from lmdk.data.export import export_scheme_release

    series = agg.to_series(group, units=units, tz=args.tz)
    L = np.asarray(rule.indices(series, args.tz), dtype=np.int64)
    low, high = (args.range if args.statistic != "count" else (None, None))
    protects = relation.aggregate(args.statistic, users=agg.users[group], low=low, high=high, unit=units,
                                  max_per_user=args.max_per_user if agg.kind == "contacts" else 1,
                                  groups=len(agg.series), who=who,
                                  counted=None if args.statistic != "count" else
                                  "contacts" if agg.kind == "contacts" else "region")
    data_derived = rule.data_dependent  # said in the statement: declared, or data-derived and unprotected
    from lmdk.selection.export import source_of

    source = source_of(L, args.landmarks.strip(), data_derived=data_derived)  # the statement names the rule
    dummies = None if args.dummies is None else {"method": args.dummies, "share": 0.01, "utility": "position"}
    exported = export_scheme_release(series, source, args.scheme, args.epsilon, protects=protects, w=args.w,
                                     event=event, data_derived=data_derived, allow_data_landmarks=data_derived,
                                     dummies=dummies)
    released = exported.frame["released"].to_numpy(dtype=float)
    truth = series.values
    budgets = np.atleast_2d(exported.release.budgets)
    worst = float(np.max(privacy.landmark_loss(budgets, L))) if budgets.size else 0.0
    mae = float(np.mean(np.abs(released - truth)))
    scale = float(np.mean(np.abs(truth)))
    statistic_range = protects.value_range or (0.0, 0.0)
    summary = {
        "statistic": args.statistic, "scheme": args.scheme, "epsilon": args.epsilon, "n_users": agg.users[group],
        "n_events": len(series), "landmarks": int(len(L)), "landmark_kind": "data" if rule.data_dependent
        else "declared", "sensitivity": protects.sensitivity,
        "range": [_plain(statistic_range[0]), _plain(statistic_range[1])],
        "theorem2": {"satisfied": bool(worst <= args.epsilon * (1 + 1e-9)), "worst_sum": worst},
        "mae": mae, "relative_mae": mae / scale if scale > 0 else None,
        "guarantee": exported.guarantee.text(),
    }
    if dummies is not None:  # the landmarks hidden among dummies chosen privately with 1 % of ε (§3.4)
        summary["dummies"] = {"method": args.dummies, "share": dummies["share"]}
    frame = pd.DataFrame({"timestamp": exported.frame["timestamp"], "released": released})
    if args.by is not None:
        frame.insert(1, "group", group)
    return frame, summary, exported


def _plain(value: float):
    """25000 for 25000.0 (JSON as the issue spells it), the float otherwise."""
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def _data_landmarks_line(text: str) -> str:
    return (f"Not protected: the landmark set came from the data ({text.strip()}): a change of one user's readings "
            "can change which bins are landmarks, which (ε, L)-landmark privacy takes as fixed in advance; "
            "declare the landmarks (calendar:…) to be covered.")


def _declared_line(rule) -> str:
    return (f"Landmarks: declared ({rule.kind}), fixed before the data is seen: the landmark set does not depend on "
            "any user's readings, so Theorem 2 applies as stated.")


def cmd_aggregate(args) -> int:
    """``lmdk aggregate``: build the statistic, release every group, write the table and the JSON summary."""
    from lmdk.aggregate import build, membership

    if args.statistic in ("sum", "mean") and args.range is None:
        raise ParameterError(f"--statistic {args.statistic} needs --range LOW HIGH: the public range of one user's "
                             "reading (from the device, e.g. 0 25 for a 25 kWh meter — never from the data)")
    if args.statistic == "count" and args.range is not None:
        raise ParameterError("--range does not apply to a count: one user moves a bin's count by at most "
                             "--max-per-user K (contacts) or 1 (users inside --region)")
    rule, declared = _landmark_rule(args)
    if not declared and not args.allow_data_landmarks:
        print(f"lmdk: refused: landmark rule {args.landmarks!r} reads the data it releases, so the landmark set is "
              "not covered by ε; declare the landmarks (e.g. --landmarks calendar:sun@09:00-12:00, or a file of times "
              "times:FILE) or "
              "pass --allow-data-landmarks (the statement then says what is not protected)", file=sys.stderr)
        return EXIT_VIOLATION
    path = Path(args.input)
    if not path.exists():
        raise ParameterError(f"INPUT {args.input!r} does not exist; give a long table (Parquet/CSV), a multi-user "
                             "file or a folder of per-user files")
    spec = _mapping(args, path)
    groups = membership(group_pairs(path, args.by, spec)) if args.by is not None else None
    from lmdk.cli.ledger import EXIT_CAP, aggregate_source, withheld_line

    source, reservation = aggregate_source(args, str(path) if spec is None else _source(path, spec))
    if reservation is not None and reservation.withheld:
        print(withheld_line(reservation) + ("" if reservation.granted else "; no user released"), file=sys.stderr)
        if not reservation.granted:
            return EXIT_CAP
    agg = build(source, args.statistic,
                value_range=tuple(args.range) if args.range is not None else None, bin=args.bin, groups=groups,
                max_per_user=args.max_per_user, region=_region(args.region), scheduler=args.scheduler,
                workers=args.workers)
    say(args, f"read {args.input}: {sum(agg.users.values()):,} users, {len(agg.series)} group(s), "
              f"{len(next(iter(agg.series.values()))):,} bins of {args.bin}")
    for warning in agg.warnings:
        say(args, f"warning: {warning}")
    units = args.units if args.units is not None else ("contacts" if agg.kind == "contacts" else "")
    event = _event_word(args.bin)
    frames: list[pd.DataFrame] = []
    summaries: dict[str, dict] = {}
    statement: ExportedRelease | None = None
    for group in sorted(agg.series):
        frame, summary, exported = release_group(agg, group, args, rule, args.who, units, event)
        frames.append(frame)
        summaries[group] = summary
        statement = statement or exported
    if not all(s["theorem2"]["satisfied"] for s in summaries.values()) and not args.allow_violation:
        print(f"lmdk: refused: scheme {args.scheme!r} violates the landmark-privacy policy on this aggregate; choose "
              "a scheme that satisfies it (adaptive, skip, uniform, user) or pass --allow-violation", file=sys.stderr)
        return EXIT_VIOLATION
    assert statement is not None  # build refused an input without users
    said = _data_landmarks_line(args.landmarks) if not declared else _declared_line(rule)
    note = statement.note + "\n# " + said
    if args.by is not None:
        note += f"\n# Groups: {len(summaries)} (by {args.by!r}); each group's lines above speak for one group of its N"
    write_table(pd.concat(frames, ignore_index=True), args.out, note)
    result = summaries[next(iter(summaries))] if args.by is None else {"groups": summaries}
    if not declared:
        for summary in summaries.values():
            summary["guarantee"] += " " + _data_landmarks_line(args.landmarks)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False) + "\n",
                                   encoding="utf-8")
        say(args, f"wrote {args.json} (the true statistic's error: for the officer's eyes only)")
    for group, s in summaries.items():
        rel = "—" if s["relative_mae"] is None else f"{100 * s['relative_mae']:.3g} %"
        say(args, ("" if args.by is None else f"{group}: ") + f"{args.statistic} over {s['n_users']:,} users, "
                  f"{s['n_events']:,} bins, |L| = {s['landmarks']:,}, {args.scheme} at ε = {args.epsilon:g}: "
                  f"MAE {s['mae']:.4g} {units}".rstrip() + f" (relative {rel}); Theorem 2 "
                  + ("satisfied" if s["theorem2"]["satisfied"] else "VIOLATED"))
    return EXIT_OK


def _source(path: Path, spec):
    from lmdk.population.input import open_source

    return open_source(str(path), spec)


def _event_word(bin_text: str) -> str:
    """What one bin is called in the statement: "hour", "half-hour", "5-minute bin", "day"."""
    width = pd.Timedelta(bin_text) if bin_text else pd.Timedelta("1h")
    names = {pd.Timedelta("1h"): "hour", pd.Timedelta("30min"): "half-hour", pd.Timedelta("1d"): "day",
             pd.Timedelta("15min"): "quarter-hour", pd.Timedelta("1min"): "minute"}
    if width in names:
        return names[width]
    minutes = width / pd.Timedelta("1min")
    return f"{minutes:g}-minute bin" if float(minutes).is_integer() else f"{bin_text} bin"


def configure(p: argparse.ArgumentParser) -> None:
    """Add the ``aggregate`` arguments to ``p``."""
    from lmdk.aggregate import STATISTICS
    from lmdk.landmarks import RULE_HELP
    from lmdk.schemes import ALL_SCHEMES

    p.add_argument("input", metavar="INPUT", help="a long table (user, timestamp, value | lat, lon | contact) in "
                                                  "Parquet or CSV, a multi-user file, or a folder of per-user files")
    p.add_argument("--statistic", choices=STATISTICS, required=True,
                   help="sum (readings clamped to --range; a user without a reading contributes 0), mean (the sum ÷ "
                        "N, treated as public) or count (contact rows, each user at most --max-per-user per bin; or "
                        "users inside --region)")
    p.add_argument("--by", metavar="COLUMN", help="release the statistic per group of this column (district, feeder, "
                                                  "class): each user in exactly one group, membership public")
    p.add_argument("--bin", default="1h", metavar="WIDTH", help="the common time grid (default 1h; e.g. 30min, 5min, "
                                                                "1d): at most one contribution per user and bin")
    p.add_argument("--range", nargs=2, type=float, metavar=("LOW", "HIGH"),
                   help="sum/mean: the public range of one user's reading, from the device or domain, never from the "
                        "data (Δ = HIGH − LOW; a mean's Δ is that ÷ N); readings are clamped to it")
    p.add_argument("--max-per-user", type=positive_int("--max-per-user", 1_000_000), default=1, metavar="K",
                   help="count of contacts: rows one person contributes per bin at most (public, default 1; Δ = K)")
    p.add_argument("--region", nargs=3, type=float, metavar=("LAT", "LON", "RADIUS_M"),
                   help="count of locations: the public circle users are counted inside")
    p.add_argument("--landmarks", metavar="RULE", required=True,
                   help="landmark rule, declared: calendar:sun@09:00-12:00, file:… (" +
                        RULE_HELP.replace("%", "%%") + ")")
    p.add_argument("--allow-data-landmarks", action="store_true",
                   help="release with a landmark rule that reads the data (percentile, below, …): the statement then "
                        "says the landmark set is not covered")
    p.add_argument("--scheme", choices=ALL_SCHEMES, required=True, help="budget scheme (bd, ba, fast, pegasus: the "
                                                                        "state of the art, not landmark-aware)")
    p.add_argument("--epsilon", type=positive_float("--epsilon"), required=True, help="total privacy budget ε > 0")
    p.add_argument("--w", type=positive_int("--w", 10_000_000), help="window of the w-event, bd and ba schemes")
    p.add_argument("--tz", metavar="ZONE", help="time zone of timestamps without one (IANA name, e.g. Europe/Berlin; "
                                                "default UTC): resolves a clock change's repeated hour, and calendar "
                                                "windows read the wall clock of this zone")
    p.add_argument("--start", metavar="DATETIME", help="files of relative seconds: the date/time their 0 stands for "
                                                       "(e.g. 2009-10-01), so calendar windows can place them")
    p.add_argument("--units", help="unit of one reading in the statement (e.g. kWh; default none)")
    p.add_argument("--who", default="user", help="whose readings, in the statement (default user; e.g. household)")
    p.add_argument("--mapping", metavar="FILE", help="an import mapping JSON naming the input's columns")
    p.add_argument("--out", metavar="FILE", help="released series: .csv or .parquet (default: CSV on standard output)")
    p.add_argument("--json", metavar="FILE", help="also write the summary (officer's eyes only: it holds the error)")
    from lmdk.cli.ledger import ledger_flag, refund_on_refusal

    ledger_flag(p)
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=positive_int("--workers", 1024),
                        help="build the statistic on a Dask LocalCluster of N worker processes")
    engine.add_argument("--scheduler", metavar="ADDRESS", help="build it on an existing Dask cluster (tcp://host:8786)")
    from lmdk.cli.common import dummies_flag

    dummies_flag(p)
    p.add_argument("--allow-violation", action="store_true", help="write a release that violates Theorem 2")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=refund_on_refusal(cmd_aggregate))
