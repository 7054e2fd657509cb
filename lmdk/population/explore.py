"""What the Population page asks of a small in-memory population: every scheme's per-user summary, the
users a policy fails, and one user's series for the single-series pages."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from lmdk.data.series import Series
from lmdk.errors import DataError
from lmdk.population.api import release
from lmdk.population.input import KIND_COLUMNS, Source
from lmdk.population.policy import Policy

UNITS = {"values": "", "trajectory": "m", "contacts": "% wrong"}


def compare_schemes(source: Source, policy: Policy, schemes, protects=None) -> pd.DataFrame:
    """Per-user summaries of ``policy`` under each scheme, stacked with a ``scheme`` column (nothing written);
    ``protects``: what ε protects (default: the policy's relation)."""
    frames = [release(source, replace(policy, scheme=s), protects=protects).summary.assign(scheme=s)
              for s in schemes]
    return pd.concat(frames, ignore_index=True)


def flagged(summaries: pd.DataFrame) -> pd.DataFrame:
    """Rows whose scheme violates Theorem 2 for that user, or gives them no better utility than user level
    (the user-level scheme itself excepted)."""
    degenerate = summaries["degenerate"] & (summaries["scheme"] != "user")  # user level is the yardstick itself
    bad = ~summaries["theorem2_holds"] | degenerate
    why = pd.Series("", index=summaries.index)
    why[~summaries["theorem2_holds"]] = "violates Theorem 2"
    why[degenerate & summaries["theorem2_holds"]] = "no better than user level"
    return summaries.assign(reason=why)[bad].sort_values(["scheme", "mae"], ascending=[True, False])


def user_series(source: Source, user, name: str = "") -> Series:
    """The series of one user of ``source`` (its rows gathered from every chunk)."""
    columns = KIND_COLUMNS[source.kind]
    parts = [chunk[chunk["user"].astype(str) == str(user)] for chunk in source.chunks(1_000_000)]
    rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if rows.empty:
        raise DataError(f"user {user!r} is not in this population")
    frame = rows.set_index(pd.DatetimeIndex(rows["timestamp"], name="timestamp"))[list(columns)]
    frame = frame.sort_index(kind="stable")
    if source.kind != "contacts":
        frame = frame[~frame.index.duplicated(keep="first")]
    return Series(frame=frame, kind=source.kind, name=name or f"user {user}")


def headline(summaries: pd.DataFrame, schemes, epsilon: float, unit: str) -> str:
    """The page's verdict in plain words: the best protecting scheme's median error, how many users it fails."""
    from lmdk.present.headlines import readable

    stats = summaries.groupby("scheme").agg(median=("mae", "median"), holds=("theorem2_holds", "all"),
                                            degenerate=("degenerate", "sum"), violated=("theorem2_holds",
                                                                                          lambda h: int((~h).sum())))
    users = int(summaries["user"].nunique())
    protecting = [s for s in schemes if s != "user" and stats.loc[s, "holds"]]
    if not protecting:
        return (f"With ε = {epsilon:g}, none of the chosen schemes protects every user's landmarks together: "
                "add *uniform*, *skip* or *adaptive*.")
    best = min(protecting, key=lambda s: stats.loc[s, "median"])
    baseline = float(summaries.loc[summaries["scheme"] == best, "user_level_mae"].median())
    failed = int(stats.loc[best, "degenerate"])
    text = (f"With ε = {epsilon:g}, *{best}* gives the typical user an error of {readable(stats.loc[best, 'median'])} "
            f"{unit} (user level: {readable(baseline)}) and protects every user's landmarks. ")
    if failed:
        text += (f"For {failed:,} of {users:,} users ({100 * failed / users:.0f} %) it is no better than user "
                 "level: they have too many landmarks.")
    else:
        text += f"It beats user level for all {users:,} users."
    violating = [s for s in schemes if stats.loc[s, "violated"] > 0]
    if violating:
        text += " " + ", ".join(f"*{s}*" for s in violating) + (" does" if len(violating) == 1 else " do") + \
                " **not** protect the landmarks together."
    return text
