"""``lmdk experiments FIGURE`` (``python -m lmdk experiments FIGURE``): reproduce the papers' figures with
:mod:`lmdk.experiments.runner` — this module parses the flags, calls the runner and prints what it wrote."""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lmdk.cli.arguments import positive_float, positive_int, seed
from lmdk.errors import ParameterError

PROG = "lmdk experiments"


def _formats(text: str) -> tuple[str, ...]:
    """A comma-separated subset of csv,html,png."""
    from lmdk.experiments.runner import FORMATS

    parts = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    bad = [p for p in parts if p not in FORMATS]
    if bad or not parts:
        raise argparse.ArgumentTypeError(
            f"formats must be a comma-separated subset of {','.join(FORMATS)}, got {text!r}"
        )
    return parts


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command-line interface of ``lmdk experiments``."""
    from lmdk.experiments.registry import FIGURES, GROUPS, ordered_names
    from lmdk.experiments.runner import FORMATS, MAX_JOBS, MAX_REPETITIONS

    names = ordered_names() + list(GROUPS)
    parser = argparse.ArgumentParser(
        prog=prog,
        allow_abbrev=False,
        description="Reproduce a figure of the landmark-privacy or PriSTE paper: "
        "writes FIGURE.csv (tidy), FIGURE.html and FIGURE.png into --out.",
        epilog="figures: " + ", ".join(f"{n} ({FIGURES[n].title})" for n in ordered_names())
        + "; groups: all, landmark, priste.",
    )
    parser.add_argument("figure", metavar="FIGURE", help="one of: " + ", ".join(names))
    parser.add_argument(
        "--repetitions", type=positive_int("--repetitions", MAX_REPETITIONS), default=None,
        help="repetitions per configuration (default: the paper's, 100)",
    )
    parser.add_argument("--seed", type=seed, default=0, help="master seed (default 0)")
    parser.add_argument("--out", type=Path, default=Path("out"), help="output directory (default ./out)")
    parser.add_argument(
        "--jobs", type=positive_int("--jobs", MAX_JOBS), default=1,
        help="worker processes running configurations in parallel (default 1)",
    )
    parser.add_argument(
        "--formats", type=_formats, default=FORMATS, help="comma-separated subset of csv,html,png (default all)"
    )
    parser.add_argument(
        "--cell-km", type=positive_float("--cell-km"), default=None, metavar="KM",
        help="PriSTE figures: side of a grid cell in km; α is per km, so only α·cell matters for the calibration "
             "(default: each figure's, 0.1 = the paper's scale inferred from its Table 2; 1 = our earlier runs)",
    )
    parser.add_argument("--raw", action="store_true",
                        help="also write FIGURE.raw.csv.gz: the per-repetition rows behind the summary")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Entry point: parse arguments, run the figure(s), write outputs, print a summary."""
    from lmdk.experiments.registry import FIGURES, GROUPS, figure_names, ordered_names
    from lmdk.experiments.runner import RunOptions, run_and_write

    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.figure in GROUPS:
        names = figure_names(args.figure)
    elif args.figure in FIGURES:
        names = [args.figure]
    else:
        parser.error(
            f"unknown figure {args.figure!r}; choose one of: {', '.join(ordered_names() + list(GROUPS))}"
        )
    options = RunOptions(repetitions=args.repetitions, seed=args.seed, jobs=args.jobs, out=args.out,
                         formats=args.formats, cell_km=args.cell_km, raw=args.raw)
    if options.overrides() and not any("cell_km" in FIGURES[n].parameters for n in names):
        parser.error(f"--cell-km applies to the PriSTE figures only, not to {', '.join(names)}")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {str(args.out)!r} exists and is not a directory; choose a directory")
    if "png" in args.formats:
        from lmdk.experiments import charts as charts

        problem = charts.png_unavailable()
        if problem:
            parser.error(f"PNG output is unavailable: {problem} (or pass --formats csv,html)")
    stream = None if args.quiet else sys.stderr
    total = 0.0
    pngs: list = []
    for i, name in enumerate(names, start=1):
        if stream is not None and len(names) > 1:
            stream.write(f"[{i}/{len(names)}] {name}: {FIGURES[name].title}\n")
        try:
            done = run_and_write(name, options, progress=stream, png_batch=pngs)
        except ParameterError as exc:
            parser.error(str(exc))
        total += done.seconds
        print(f"{name}: {done.rows} rows in {done.seconds:.1f}s -> " + ", ".join(str(p) for p in done.written.values()))
    if len(names) > 1:
        print(f"total computing time: {total:.1f}s")
    if pngs:
        from lmdk.experiments import charts as charts

        if stream is not None:
            stream.write(f"writing {len(pngs)} PNG chart(s) with headless Chromium…\n")
        t0 = time.perf_counter()
        charts.write_pngs(pngs)
        print(f"{len(pngs)} PNG chart(s) written in {time.perf_counter() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
