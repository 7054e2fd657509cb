"""The ``lmdk`` command line: release a series under a landmark-privacy policy, its temporal privacy loss,
the papers' experiments and (when installed) population releases.

Exit codes: 0 done; 2 bad input or arguments (one line naming the field and the fix); 3 the policy violates
(ε, L)-landmark privacy (Theorem 2) and ``--allow-violation`` was not given.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from lmdk.arguments import positive_float, positive_int, seed
from lmdk.errors import LmdkError, ParameterError

EXIT_OK, EXIT_INPUT, EXIT_VIOLATION = 0, 2, 3
SAMPLE_PREFIX = "sample:"
PREFERRED_SCHEMES = ("adaptive", "skip", "uniform", "user", "w-event", "event")  # default pick among a config's

RELEASE_EXAMPLES = """examples:
  lmdk release sample:hue --scheme adaptive --epsilon 1 --landmarks percentile:20 --bound 10 --out released.csv
  lmdk release meter.csv --config runconfig.json --bound 25 --out released.parquet
  lmdk release trace.plt --scheme skip --epsilon 0.01 --landmarks stay:30min --bound 50000
  lmdk release sample:hue --config runconfig.json --seed 0   # the app's demonstration view, reproducible

Without --seed the noise comes from fresh OS entropy that is never recorded and the floating-point-safe
snapping sampler (needs --bound B, a public limit of the values): a release to hand out. With --seed S
the output is reproducible (a demonstration: anyone with the seed can remove the noise)."""
LOSS_EXAMPLES = """examples:
  lmdk loss sample:hue --config runconfig.json --correlation strong --out loss.csv
  lmdk loss meter.csv --scheme uniform --epsilon 1 --landmarks below:0.5 --correlation matrix.csv"""


@dataclass(frozen=True)
class Policy:
    """What a release needs besides the data: landmarks, scheme, mechanism, ε, w, repetitions, seed."""

    landmarks: np.ndarray
    scheme: str
    mechanism: str
    epsilon: float
    w: int | None
    repetitions: int  # releases written
    seed: int | None
    dummies: dict | None = None
    draws: int = 1  # releases drawn: a RunConfig's repetitions, so a seeded stream matches the app's

# --------------------------------------------------------------------------- input
def load_input(text: str, cfg=None, mapping_file: str | None = None):
    """A series from a file path (read with the import mapping: the config's, a file's, or detected) or
    ``sample:hue|taxi|contacts``; a config's first ``events`` events, after checking the file's hash."""
    from lmdk import data

    events = cfg.events if cfg is not None else None
    if text.startswith(SAMPLE_PREFIX):
        name, _, seed = text[len(SAMPLE_PREFIX):].partition(":seed=")
        return data.sample(name, n=events if events is not None else -1, seed=int(seed or 0))
    path = Path(text)
    if not path.is_file():
        raise ParameterError(f"INPUT {text!r} is not a file; give a path or sample:hue|taxi|contacts")
    if mapping_file is not None:
        mapping = data.ImportSpec.from_dict(_read_json(mapping_file, "--mapping"))
    else:
        mapping = cfg.mapping if cfg is not None and cfg.mapping is not None else "detect"
    series = data.load_series(str(path), mapping=mapping)
    if cfg is not None and cfg.data.startswith("sha256:") and series.source_hash != cfg.data[len("sha256:"):]:
        raise ParameterError("INPUT is not the file the configuration was made with (its content hash differs)")
    if events is not None:
        if len(series) < events:
            raise ParameterError(f"INPUT has {len(series):,} events but the configuration says events={events:,}")
        series = series.head(events)
    return series


def _read_bytes(path: str, flag: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ParameterError(f"{flag} {path!r} cannot be read: {exc.strerror or exc}") from None


def _read_json(path: str, flag: str) -> dict:
    try:
        return json.loads(_read_bytes(path, flag))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise ParameterError(f"{flag} {path!r} is not valid JSON") from None


def _read_config(path: str):
    """A RunConfig saved by the app (or written by hand)."""
    from lmdk.data.runconfig import RunConfig

    return RunConfig.from_json(_read_bytes(path, "--config"))


def _config_input_matches(cfg, text: str) -> None:
    """Refuse a sample config applied to a different sample (files are checked by their content hash)."""
    if cfg.data.startswith(SAMPLE_PREFIX) and text.startswith(SAMPLE_PREFIX) and cfg.data != text:
        raise ParameterError(f"the configuration was made for {cfg.data}, not {text}")


def policy_from_args(args, series, cfg) -> Policy:
    """The policy: a RunConfig's fields, overridden by any flag given on the command line."""
    from lmdk import landmarks as lmk
    from lmdk.schemes import SCHEMES

    if args.landmarks is not None:
        L = lmk.parse_rule(args.landmarks).indices(series)
    elif cfg is not None:
        L = np.asarray(cfg.landmarks, dtype=np.int64)
    else:
        raise ParameterError("no landmarks: pass --landmarks RULE (e.g. percentile:20, or none) or --config")
    if args.scheme is not None:
        scheme = args.scheme
    elif cfg is not None:
        scheme = next((s for s in PREFERRED_SCHEMES if s in cfg.schemes), cfg.schemes[0])
    else:
        raise ParameterError(f"no scheme: pass --scheme ({', '.join(SCHEMES)}) or --config")
    epsilon = args.epsilon if args.epsilon is not None else (cfg.epsilon if cfg is not None else None)
    if epsilon is None:
        raise ParameterError("no privacy budget: pass --epsilon E (a number > 0) or --config")
    mechanism = args.mechanism or (cfg.mechanism if cfg is not None else _default_mechanism(series))
    if mechanism != _default_mechanism(series):
        raise ParameterError(f"mechanism {mechanism!r} does not apply to a {series.kind} series; "
                             f"use {_default_mechanism(series)!r} (or leave --mechanism out)")
    w = args.w if args.w is not None else (cfg.w if cfg is not None else None)
    repetitions = args.repetitions if args.repetitions is not None else 1
    draws = max(repetitions, cfg.repetitions if cfg is not None else 1)
    return Policy(L, scheme, mechanism, float(epsilon), w, repetitions, args.seed,
                  cfg.dummies if cfg is not None else None, draws)


def _default_mechanism(series) -> str:
    """The §4.1.2 mechanism of a series' kind."""
    return {"values": "laplace", "trajectory": "planar_laplace", "contacts": "randomized_response"}[series.kind]


# --------------------------------------------------------------------------- release
def run_release(series, policy: Policy):
    """(mechanism input, Release, origin) of ``policy`` on ``series``; fresh entropy unless a seed is set."""
    from lmdk import schemes, views
    from lmdk.data.runconfig import scheme_rng

    x, _, origin = views.release_input(series, policy.landmarks)
    rng = scheme_rng(policy.seed, policy.scheme) if policy.seed is not None else np.random.default_rng()
    rel = schemes.release(x, policy.landmarks, policy.scheme, policy.epsilon, mechanism=policy.mechanism,
                          repetitions=policy.draws, rng=rng, w=policy.w, dummies=policy.dummies)
    return x, rel, origin


def release_summary(series, policy: Policy, rel) -> dict:
    """n, |L|, budgets, the worst Σ ε over L ∪ {t} and the Theorem 2 verdict of one release."""
    from lmdk import privacy

    budgets = np.atleast_2d(rel.budgets)
    worst = float(np.max(privacy.landmark_loss(budgets, policy.landmarks))) if budgets.size else 0.0
    return {
        "events": len(series), "landmarks": int(len(policy.landmarks)), "scheme": policy.scheme,
        "mechanism": policy.mechanism, "epsilon": policy.epsilon, "budget_min": float(budgets.min()),
        "budget_max": float(budgets.max()), "budget_total": float(budgets.sum(axis=-1).max()),
        "worst_sum_over_L_and_t": worst, "theorem2_holds": bool(worst <= policy.epsilon * (1 + 1e-9)),
        "reproducible_seed": policy.seed is not None,
    }


def _summary_line(summary: dict) -> str:
    verdict = ("satisfies (ε, L)-landmark privacy (Theorem 2)" if summary["theorem2_holds"]
               else "VIOLATES (ε, L)-landmark privacy (Theorem 2)")
    return (f"{summary['scheme']}: n = {summary['events']:,}, |L| = {summary['landmarks']:,}, ε = {summary['epsilon']:g}, "
            f"budgets {summary['budget_min']:.4g}..{summary['budget_max']:.4g} per event, "
            f"worst Σ over L ∪ {{t}} = {summary['worst_sum_over_L_and_t']:.4g} → {verdict}")


def write_table(frame, out: str | None, note: str | None = None) -> None:
    """CSV (default, also to stdout; ``note`` as its first line) or Parquet (``note`` in its metadata)."""
    text = note + "\n" if note else ""
    if out is None or out == "-":
        sys.stdout.write(text + frame.to_csv(index=False, lineterminator="\n"))
        return
    path = Path(out)
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        if note:
            table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"lmdk": note.encode()})
        pq.write_table(table, path)
    else:
        path.write_text(text + frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")


def released_table(series, policy: Policy, rel, origin):
    """The released series as a table: the app's released-series CSV, one block per repetition."""
    import pandas as pd

    from lmdk.data.export import released_frame

    frames = []
    for r in range(policy.repetitions):
        frame = released_frame(series, rel, policy.landmarks, policy.mechanism, origin, repetition=r)
        if policy.repetitions > 1:
            frame.insert(0, "repetition", r + 1)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def cmd_release(args) -> int:
    """``lmdk release``: load, mark landmarks, release, write, summarise; refuse violations."""
    from lmdk.data.export import export_scheme_release

    cfg = _read_config(args.config) if args.config else None
    if cfg is not None:
        _config_input_matches(cfg, args.input)
    series = load_input(args.input, cfg, args.mapping)
    policy = policy_from_args(args, series, cfg)
    if policy.seed is None:
        if policy.repetitions > 1:
            raise ParameterError("--repetitions applies to demonstration releases (--seed): every exported "
                                 "release spends ε again")
        exported = export_scheme_release(series, policy.landmarks, policy.scheme, policy.epsilon, w=policy.w,
                                         bound=args.bound, private_columns=args.include_private_columns,
                                         dummies=policy.dummies)
        rel, table, note = exported.release, exported.frame, exported.note
    else:
        _, rel, origin = run_release(series, policy)
        table, note = released_table(series, policy, rel, origin), None
    summary = release_summary(series, policy, rel)
    if not summary["theorem2_holds"] and not args.allow_violation:
        _say(args, _summary_line(summary))
        print(f"lmdk: refused: scheme {policy.scheme!r} violates the landmark-privacy policy; choose a scheme "
              "that satisfies it (adaptive, skip, uniform, user) or pass --allow-violation", file=sys.stderr)
        return EXIT_VIOLATION
    write_table(table, args.out, note)
    _say(args, _summary_line(summary))
    if note is not None:
        _say(args, note.lstrip("# "))
    else:
        _say(args, f"demonstration seed {policy.seed}: anyone with it can regenerate and remove the noise — "
                   "do not hand this file out as a release")
    if args.summary:
        Path(args.summary).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return EXIT_OK


# --------------------------------------------------------------------------- temporal privacy loss
def correlation_matrix(text: str) -> tuple[np.ndarray, str]:
    """A transition matrix from 'weak|moderate|strong', a smoothing strength s, or a CSV file."""
    from lmdk import tpl
    from lmdk.views_loss import read_transition_matrix

    if text in tpl.CORRELATION:
        return tpl.transition_matrix(text), f"{text} (s = {tpl.CORRELATION[text]:g})"
    path = Path(text)
    if path.is_file():
        return read_transition_matrix(path.read_bytes()), f"matrix {path.name}"
    try:
        s = float(text)
    except ValueError:
        raise ParameterError(f"--correlation {text!r}: use weak, moderate, strong, a strength s > 0 or a CSV "
                             "file of a transition matrix") from None
    return tpl.transition_matrix(s), f"s = {s:g}"


def loss_table(series, policy: Policy, P: np.ndarray):
    """Per timestamp: budget, landmark flag, BPL/FPL/TPL and the landmark temporal privacy loss."""
    import pandas as pd

    from lmdk import schemes, tpl

    n = len(series)
    budgets = schemes.allocate(policy.scheme, n, policy.landmarks, policy.epsilon, w=policy.w)
    bpl, fpl, tpl_t = tpl.temporal_privacy_loss(budgets, P)
    lm = tpl.landmark_temporal_privacy_loss(budgets, policy.landmarks, P)
    flag = np.zeros(n, dtype=np.int8)
    flag[policy.landmarks] = 1
    return pd.DataFrame({
        "timestamp": series.timestamps.astype(str), "budget": budgets, "landmark": flag, "bpl": bpl, "fpl": fpl,
        "tpl": tpl_t, "landmark_overall": lm.overall, "landmark_own": lm.own, "landmark_bound": lm.bound,
    })


def cmd_loss(args) -> int:
    """``lmdk loss``: temporal privacy loss of a policy's budgets under a correlation."""
    cfg = _read_config(args.config) if args.config else None
    if cfg is not None:
        _config_input_matches(cfg, args.input)
    series = load_input(args.input, cfg, args.mapping)
    args.seed, args.repetitions = None, 1
    policy = policy_from_args(args, series, cfg)
    P, label = correlation_matrix(args.correlation)
    table = loss_table(series, policy, P)
    write_table(table, args.out)
    _say(args, f"{policy.scheme}, ε = {policy.epsilon:g}, correlation {label}: max TPL = {table['tpl'].max():.4g}, "
               f"max landmark temporal privacy loss = {table['landmark_bound'].max():.4g} "
               f"(the definition gives {table['landmark_overall'].max():.4g}; sequential composition caps it at Σ ε)")
    return EXIT_OK


# --------------------------------------------------------------------------- parser
def _policy_flags(p: argparse.ArgumentParser) -> None:
    from lmdk.landmarks import RULE_HELP
    from lmdk.mechanisms import MECHANISMS
    from lmdk.schemes import SCHEMES

    p.add_argument("input", metavar="INPUT", help="a data file (CSV/TSV/Parquet/.plt/.dat …) or sample:hue|taxi|contacts")
    p.add_argument("--config", metavar="FILE", help="a RunConfig JSON saved by the app; flags below override it")
    p.add_argument("--mapping", metavar="FILE", help="an import mapping JSON (how to read INPUT); default: the "
                                                     "config's, else detected as in the app's import step")
    p.add_argument("--scheme", choices=SCHEMES, help="budget scheme (default: the config's, adaptive first)")
    p.add_argument("--epsilon", type=positive_float("--epsilon"), help="total privacy budget ε > 0")
    p.add_argument("--mechanism", choices=MECHANISMS, help="default: the config's, else by the kind of series")
    p.add_argument("--landmarks", metavar="RULE", help="landmark rule: " + RULE_HELP.replace("%", "%%"))
    p.add_argument("--w", type=positive_int("--w", 10_000_000), help="window of the w-event scheme")
    p.add_argument("--out", metavar="FILE", help="output .csv or .parquet (default: CSV on standard output)")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")


def build_parser() -> argparse.ArgumentParser:
    """The ``lmdk`` argument parser with its subcommands."""
    from lmdk import __version__

    parser = argparse.ArgumentParser(prog="lmdk", description=__doc__.split("\n\n")[0],
                                     epilog="exit codes: 0 done, 2 bad input or arguments, 3 policy violates "
                                            "landmark privacy (release, population)")
    parser.add_argument("--version", action="version", version=f"lmdk {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rel = sub.add_parser("release", help="release a series under a landmark-privacy policy",
                         description="Load a series, mark landmarks by a rule, release it with a scheme and "
                                     "write the released series; prints n, |L|, budgets and the Theorem 2 verdict.",
                         epilog=RELEASE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _policy_flags(rel)
    rel.add_argument("--repetitions", type=positive_int("--repetitions", 10_000),
                     help="independent releases to write (default 1). With --config the config's repetitions are "
                          "drawn, as in the app, and the first N written: repetition 1 is the app's download")
    rel.add_argument("--seed", type=seed, help="demonstration seed (reproducible, NOT safe to hand out; the "
                                                "textbook sampler, as the app's views)")
    rel.add_argument("--bound", type=positive_float("--bound"),
                     help="public limit B of the values (|value| ≤ B; metres from the series' origin for "
                          "locations) for the floating-point-safe snapping sampler of exports; required without "
                          "--seed for values and locations — take it from the device (e.g. the meter's rating), "
                          "never from the data")
    rel.add_argument("--include-private-columns", action="store_true",
                     help="also write the budget, published and landmark columns (they reveal the landmark set)")
    rel.add_argument("--allow-violation", action="store_true", help="write a release that violates the policy")
    rel.add_argument("--summary", metavar="FILE", help="also write the summary as JSON")
    rel.set_defaults(func=cmd_release)

    loss = sub.add_parser("loss", help="temporal privacy loss (BPL/FPL/TPL, landmark quantities) as CSV",
                          description="Budgets of a policy's scheme and their temporal privacy loss under a "
                                      "Markov correlation (papers/000 §2.3, §3.3).",
                          epilog=LOSS_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _policy_flags(loss)
    loss.add_argument("--correlation", default="moderate",
                      help="weak|moderate|strong, a smoothing strength s > 0, or a CSV transition matrix")
    loss.set_defaults(func=cmd_loss)

    exp = sub.add_parser("experiments", help="reproduce the papers' figures (same flags as python -m lmdk.experiments)",
                         add_help=False)
    exp.set_defaults(func=None)

    try:
        from lmdk.population import command as population
    except ImportError:
        population = None
    if population is not None:
        pop = sub.add_parser("population", help="release many users' series under one policy",
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        population.configure(pop)
        pop.set_defaults(func=population.run)
    return parser


def _say(args, text: str) -> None:
    if not getattr(args, "quiet", False):
        print(text, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lmdk`` command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "experiments":
        from lmdk.experiments.runner import main as experiments_main

        return experiments_main(argv[1:], prog="lmdk experiments")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except LmdkError as exc:
        print(f"lmdk: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
