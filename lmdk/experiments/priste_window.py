"""Event-window dip of PriSTE Figs. 8–10 (papers/001 §5.2) from the per-repetition rows of ``priste-budget``.

The paper reads a dip of α inside the event window from Fig. 8 vs Fig. 9; these summaries put numbers and 95 %
intervals on it: ``lmdk experiments priste-budget --raw`` writes the rows, :func:`window_means` and
:func:`window_dip` summarise them.
"""
from __future__ import annotations

import pandas as pd

from lmdk.experiments.spec import mean_ci

WINDOW_SPANS = {"T=[4:8]": (4, 8), "T=[16:20]": (16, 20)}  # the event windows of Figs. 8–10, 1-based inclusive


def window_means(raw: pd.DataFrame) -> pd.DataFrame:
    """Event-window dip (§5.2, Figs. 8 vs 9): mean α per repetition over each window and outside both, with 95 % CIs.

    ``raw``: per-repetition rows of ``priste-budget`` (``run_figure(..., keep_raw=True)`` or ``--raw``). Each
    repetition's α is averaged over the timestamps of a span, then mean and t-interval over repetitions; the
    difference to the span outside both windows is paired by repetition (the α trend over time cancels when the
    same span is compared across panels — the paper's own comparison of Fig. 8 with Fig. 9).
    """
    t1 = raw["t"] + 1  # the paper's timestamps are 1-based
    inside = {name: t1.between(a, b) for name, (a, b) in WINDOW_SPANS.items()}
    spans = {**inside, "outside both": ~(inside["T=[4:8]"] | inside["T=[16:20]"])}
    keys = [k for k in ("cell_km", "panel", "epsilon", "alpha0") if k in raw]
    per_rep = pd.concat({name: raw[mask].groupby(keys + ["repetition"])["alpha"].mean()
                         for name, mask in spans.items()}, axis=1)
    rows = []
    for key, grp in per_rep.groupby(level=keys, sort=False):
        for name in spans:
            mean, std, lo, hi = mean_ci(grp[name].to_numpy())
            d_mean, _, d_lo, d_hi = mean_ci((grp[name] - grp["outside both"]).to_numpy())
            rows.append({**dict(zip(keys, key, strict=True)), "span": name, "alpha": mean, "alpha_std": std,
                         "alpha_ci_low": lo, "alpha_ci_high": hi,
                         "minus_outside": d_mean, "minus_outside_ci_low": d_lo, "minus_outside_ci_high": d_hi,
                         "repetitions": len(grp)})
    return pd.DataFrame(rows)


def window_dip(means: pd.DataFrame) -> pd.DataFrame:
    """The paper's Fig. 8 vs Fig. 9 comparison (§5.2): α on a span when the event is there minus when it is not.

    ``means``: :func:`window_means`. For T=[4:8] the event panel is Fig. 8 and the other Fig. 9, for T=[16:20] the
    reverse; both see the same timestamps, so the time trend cancels. 95 % interval of the difference of two
    independent means (Welch's standard error, normal quantile). A dip is a difference below 0 whose interval
    excludes 0.
    """
    owner = {"T=[4:8]": ("fig8", "fig9"), "T=[16:20]": ("fig9", "fig8")}
    keys = [k for k in ("cell_km", "epsilon", "alpha0") if k in means]
    m = means.assign(fig=means["panel"].str.split().str[0])
    rows = []
    for key, grp in m.groupby(keys, sort=False):
        for span, (ev, other) in owner.items():
            a, b = (grp[(grp["fig"] == f) & (grp["span"] == span)].iloc[0] for f in (ev, other))
            var = sum(r["alpha_std"] ** 2 / r["repetitions"] for r in (a, b))
            diff, half = a["alpha"] - b["alpha"], 1.96 * var**0.5
            rows.append({**dict(zip(keys, key, strict=True)), "span": span, "alpha_event": a["alpha"],
                         "alpha_other": b["alpha"], "dip": diff, "dip_ci_low": diff - half, "dip_ci_high": diff + half})
    return pd.DataFrame(rows)
