"""``lmdk audit``: what an attacker learns from a policy's releases — the empirical privacy loss of the worst
neighbours beside the claimed ε, the landmark-position attack with and without dummy landmarks, the value attack
against e^ε/(1+e^ε) and, with --correlation, the attack on a correlated series next to its temporal privacy loss."""
from __future__ import annotations

import argparse
import json
import sys

from lmdk.cli.arguments import positive_float, positive_int, seed
from lmdk.cli.common import (
    EXIT_OK,
    EXIT_VIOLATION,
    dummies_flag,
    event_word,
    policy_flags,
    policy_from_args,
    read_input,
    relation_flags,
    say,
    with_dummies,
    write_table,
)
from lmdk.errors import ParameterError
from lmdk.exports.files import write_atomic

AUDIT_EXAMPLES = """examples:
  lmdk audit sample:hue --scheme skip --epsilon 1 --landmarks calendar:daily@18:00-22:00 --range 0 25 --json audit.json
  lmdk audit sample:hue --scheme skip --epsilon 1 --landmarks percentile:20 --range 0 25 \\
      --dummies partitioned   # exits 3: a rule that reads the values leaks past ε (the flip neighbours)
  lmdk audit meter.csv --config runconfig.json --trials 5000 --correlation strong --out audit.csv

Releases the series and its worst neighbours (one event changed across the public range at a regular event and at
a landmark; every landmark and one regular event changed at once, Theorem 2) N times each with the exports'
sampler, and estimates the loss with a Clopper–Pearson interval (epsilon_lower is a lower confidence bound of the
mechanism's ε; epsilon_upper bounds the loss of the best test found). The attacks see only the released values.
The audit's own randomness comes from --seed (default 0): the same seed gives the same numbers.
A rule that reads the values (below, above, percentile, share) adds the flip neighbours: one value moved across
the rule's threshold, so its landmark status flips and each neighbour is released with its own landmark set
(--landmark-epsilon E: selected privately per release, claimed at E + ε). With --landmark-epsilon it also adds the
group neighbours: the k events the rule marks on INPUT (without noise, fixed in advance) moved together, each
release selecting privately, claimed at ε + k·E. The verdict quotes the total ε the statement promises (E + ε).
Exit code 3 when a measured lower bound exceeds the ε claimed for its pair (the release leaks more than it says)."""


def correlation_strength(text: str) -> float:
    """weak | moderate | strong, or a smoothing strength s > 0."""
    from lmdk.tpl import CORRELATION

    if text in CORRELATION:
        return CORRELATION[text]
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--correlation must be weak, moderate, strong or a strength s > 0, "
                                         f"got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"--correlation must be weak, moderate, strong or a strength s > 0, "
                                         f"got {text!r}")
    return value


def confidence(text: str) -> float:
    """A confidence level in [0.5, 1)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.5 <= value < 1:
        raise argparse.ArgumentTypeError(f"--confidence must be a number in [0.5, 1), e.g. 0.95, got {text!r}")
    return value


def _progress(args):
    """A one-line progress meter on a terminal's standard error (none when quiet or redirected)."""
    if getattr(args, "quiet", False) or not sys.stderr.isatty():
        return None

    def show(fraction: float, text: str) -> None:
        print(f"\raudit: {100 * fraction:3.0f} % {text:<40}", end="", file=sys.stderr, flush=True)

    return show


def _lines(result: dict) -> list[str]:
    """The summary printed on standard error: one line per neighbouring pair and attack."""
    out = []
    for p in result["neighbours"].values():
        upper = "∞" if p["epsilon_upper"] is None else f"{p['epsilon_upper']:.3f}"
        out.append(f"  {p['description']}: ε̂ in [{p['epsilon_lower']:.3f}, {upper}] (claimed ε = "
                   f"{p['epsilon_claimed']:g}, spent Σ εₜ = {p['budget_spent']:.4g})")
    for method, r in result["landmark_inference"]["by_dummies"].items():
        if not result.get("landmarks"):
            out.append("  landmark positions: none to attack (no landmarks, |L| = 0)")
            break
        if r.get("auc") is None or r["auc"] != r["auc"]:
            out.append(f"  landmark positions, dummies {method}: {r.get('note', 'not measured')}")
        else:
            out.append(f"  landmark positions, dummies {method}: AUC {r['auc']:.3f}, precision at |L| "
                       f"{r['precision_at_k']:.3f} (chance {r['chance']:.3f}; attacker {r['attacker']})")
    v = result["value_inference"]
    if v:
        out.append(f"  value guess at t = {v['event']} ({v['prior']} prior): success {v['success']:.3f} "
                   f"[{v['ci'][0]:.3f}, {v['ci'][1]:.3f}], bound at ε {v['bound']:.3f}")
    c = result["correlation"]
    if c:
        out.append(f"  correlated series (s = {c['s']:g}), t = {c['event']}: success {c['success']:.3f}, bound "
                   f"(TPL α = {c['tpl']:.3g}) {c['bound_tpl']:.3f}, "
                   f"without correlation {c['bound_no_correlation']:.3f}")
    return out


def cmd_audit(args) -> int:
    """``lmdk audit``: load, mark landmarks, audit the policy, write the JSON (and the tables), summarise."""
    from lmdk.audit import audit
    from lmdk.present import audit as words

    cfg, series = read_input(args)
    policy = with_dummies(args, policy_from_args(args, series, cfg))
    if policy.relation is None:
        raise ParameterError("an audit needs what ε protects: --range LOW HIGH for values (the public range, never "
                             "from the data), --radius R for locations")
    result = audit(series, policy.landmarks, policy.scheme, policy.epsilon, protects=policy.relation, w=policy.w,
                   dummies=policy.dummies, trials=args.trials, seed=args.seed if args.seed is not None else 0,
                   confidence=args.confidence, prior=args.prior, s=args.correlation, progress=_progress(args),
                   event=event_word(series), rule=args.landmarks,
                   landmark_epsilon=args.landmark_epsilon).to_dict()
    if _progress(args) is not None:
        print(file=sys.stderr)
    result = {"input": args.input, "landmark_rule": args.landmarks, **result}
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.json:
        write_atomic(args.json, text + "\n")
    elif args.out is None:
        print(text)
    if args.out is not None:
        write_table(words.loss_table([result]), args.out)
    say(args, words.headline([result], event_word(series)).replace("*", ""))
    for line in _lines(result):
        say(args, line)
    if result["exceeds_claim"]:
        worst = result["neighbours"][result["worst_neighbour"]]
        print(f"lmdk: the audit measured ε ≥ {result['epsilon_lower']:.3f} for {policy.scheme!r}, above the ε = "
              f"{worst['epsilon_claimed']:g} claimed for its {result['worst_neighbour']} neighbours (the statement "
              f"promises ε = {result['epsilon_claimed']:g} for one event)", file=sys.stderr)
        return EXIT_VIOLATION
    return EXIT_OK


def configure(p: argparse.ArgumentParser) -> None:
    """Add the ``audit`` arguments to ``p``."""
    policy_flags(p)
    relation_flags(p)
    p.add_argument("--bound", type=float, help="values without --range: the public range [−B, B] (legacy)")
    dummies_flag(p)
    p.add_argument("--landmark-epsilon", type=positive_float("--landmark-epsilon"), metavar="E",
                   help="audit a data-derived rule's landmarks selected privately at ε_sel = E (as lmdk release "
                        "--landmark-epsilon): its flip neighbours are then claimed at E + --epsilon, and the group "
                        "neighbours (the k events the rule marks, moved together) at --epsilon + k·E")
    p.add_argument("--trials", type=positive_int("--trials", 1_000_000), default=2000,
                   help="releases of each neighbour (default 2,000; at least 100)")
    p.add_argument("--json", metavar="FILE", help="write the audit as JSON (default: JSON on standard output)")
    p.add_argument("--seed", type=seed, help="the audit's seed (default 0): an audit is an experiment, reproducible")
    p.add_argument("--confidence", type=confidence, default=0.95,
                   help="confidence of the intervals (default 0.95; simultaneous over the tests of a pair)")
    p.add_argument("--prior", choices=("range", "histogram"), default="range",
                   help="the value attacker's prior: the public range's two ends (a fair binary guess, default) or "
                        "the histogram of INPUT's values (a population's stand-in)")
    p.add_argument("--correlation", type=correlation_strength, metavar="S",
                   help="also attack a correlated series: weak, moderate, strong or a strength s > 0 (§4.1.2)")
    p.set_defaults(func=cmd_audit, repetitions=None)
