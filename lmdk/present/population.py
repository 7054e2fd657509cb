"""What the Population page asks of a small in-memory population: every scheme's per-user summary, the
users a policy fails, and one user's series for the single-series pages."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pandas as pd

from lmdk.data.series import Series
from lmdk.errors import DataError, ParameterError
from lmdk.policies.policy import Policy
from lmdk.population.api import release
from lmdk.population.input import KIND_COLUMNS, Source

UNITS = {"values": "", "trajectory": "m", "contacts": "% wrong"}


def compare_schemes(source: Source, policy: Policy, schemes, protects=None,
                    rules: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per-user summaries of ``policy`` under each scheme, stacked with a ``scheme`` column (nothing written);
    ``protects``: what ε protects (default: the policy's relation); ``rules``: {user: the landmark rule that user
    declared} — each user released under their own rule (per-user policies, :func:`declared_policies`), the policy's
    ``landmarks`` then unused."""
    frames, assignment = [], None
    for s in schemes:
        pol = replace(policy, scheme=s)
        if rules is not None:  # the users' policies built once, then only their scheme changes
            assignment = declared_policies(rules, pol) if assignment is None else _with_scheme(assignment, s)
        frames.append(release(source, pol, protects=protects, assignment=assignment).summary.assign(scheme=s))
    return pd.concat(frames, ignore_index=True)


def _with_scheme(assignment, scheme: str):
    """``assignment`` (:func:`declared_policies`) with every variant under ``scheme``: what
    ``declared_policies(rules, replace(policy, scheme=scheme))`` gives, without reading the rules again."""
    return replace(assignment, variants=tuple(replace(v, scheme=scheme) for v in assignment.variants))


def declared_policies(rules: Mapping[str, str], policy: Policy):
    """The per-user policies (:class:`lmdk.policies.assign.Assignment`) of users who declared their own landmarks:
    ``policy`` with each user's rule of ``rules`` ({user: rule}); a rule that reads the values is refused (these are
    declared sets). Users without a rule are withheld ("no policy")."""
    from lmdk.policies.assign import assign
    from lmdk.policies.table import table_from_frame

    _declared_only(rules)
    frame = pd.DataFrame({"user": list(rules), "landmarks": list(rules.values()), "epsilon": policy.epsilon,
                          "scheme": policy.scheme, "w": policy.w})
    return assign(table_from_frame(frame, "the users' declared landmarks", files=False), None, policy)


def _declared_only(rules: Mapping[str, str]) -> Mapping[str, str]:
    """``rules`` when none of them reads the values, else a ParameterError naming the first that does."""
    from lmdk.landmarks import parse_rule

    reading = sorted({rule for rule in rules.values() if parse_rule(rule).data_dependent})
    if reading:
        raise ParameterError(f"rules: {reading[0]!r} reads the values; a user's own landmarks are declared "
                             "(calendar:…, ics:…, times:…, none)")
    return rules


def guess_errors(source: Source, value_range: tuple[float, float]) -> pd.Series:
    """Per user (index), the MAE of the data-free guess (the middle of the public range, released without looking at
    the data; ``lmdk.metrics.data_free_guess``): the error every user's release is read against. Values only."""
    from lmdk.metrics import data_free_guess

    middle = data_free_guess(value_range)
    total: pd.Series | None = None
    count: pd.Series | None = None
    for chunk in source.chunks(1_000_000):
        gap = (chunk["value"].astype(float) - middle).abs().groupby(chunk["user"].astype(str))
        s, c = gap.sum(), gap.count()
        total = s if total is None else total.add(s, fill_value=0.0)
        count = c if count is None else count.add(c, fill_value=0)
    if total is None or count is None:
        return pd.Series(dtype=float)
    return (total / count).rename("guess_mae")


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


def rule_statement(rule: str, scheme: str, epsilon: float, kind: str, protected, w: int | None = None,
                   rules: Mapping[str, str] | None = None):
    """The statement an export of every user under ``rule`` would carry (:class:`lmdk.exports.statement.Guarantee`):
    a rule that reads the values gets the data-derived one (NOT PROTECTED first), as every export does; None without
    a relation. ``rules``: each user's own declared rule instead of ``rule`` (:func:`declared_policies`: every user's
    statement is that of a declared set)."""
    from lmdk.population.prepared import population_guarantee

    if protected is None:
        return None
    if rules is not None:
        rule = next(iter(_declared_only(rules).values()), "none")
    policy = Policy(landmarks=rule, scheme=scheme, epsilon=epsilon, w=w, allow_data_landmarks=True)
    mechanism = {"values": "laplace", "trajectory": "planar_laplace", "contacts": "randomized_response"}[kind]
    said = population_guarantee(policy, kind, protected, mechanism)
    if rules is None:
        return said
    return replace(said, landmark_set=said.landmark_set.replace(f"({rule})", "(each user's own calendar rule)"))


def headline(summaries: pd.DataFrame, schemes, epsilon: float, unit: str, guess=None, *,
             data_derived: bool = False) -> str:
    """The page's verdict in at most two sentences: the best protecting scheme's median error, how many users it
    fails, and (``guess``: a ``lmdk.present.headlines.Guess`` of the users' median data-free-guess error) how that
    error compares with guessing the middle of the public range. ``data_derived``: the rule reads the values, so no
    scheme protects a value whose landmark status could change (said instead of "protects every user's
    landmarks")."""
    from lmdk.present.headlines import guess_sentence, readable

    stats = summaries.groupby("scheme").agg(median=("mae", "median"), holds=("theorem2_holds", "all"),
                                            degenerate=("degenerate", "sum"), violated=("theorem2_holds",
                                                                                          lambda h: int((~h).sum())))
    users = int(summaries["user"].nunique())
    protecting = [s for s in schemes if s != "user" and stats.loc[s, "holds"]]
    if not protecting:
        return (f"With ε = {epsilon:g}, none of the chosen schemes protects every user's landmarks together: "
                "add *uniform*, *skip* or *adaptive*." + (" The rule reads the values: even they would not protect a "
                                                          "reading whose landmark status could change."
                                                          if data_derived else ""))
    best = min(protecting, key=lambda s: stats.loc[s, "median"])
    baseline = float(summaries.loc[summaries["scheme"] == best, "user_level_mae"].median())
    failed = int(stats.loc[best, "degenerate"])
    protects = ("protects every user's landmarks" if not data_derived else
                "**does not protect** a reading whose landmark status could change (the rule reads the values: "
                "NOT PROTECTED), only changes that leave every landmark as it is")
    text = (f"With ε = {epsilon:g}, *{best}* gives the typical user an error of {readable(stats.loc[best, 'median'])} "
            f"{unit} (user level: {readable(baseline)}) and {protects}")
    if failed and not data_derived:
        text += (f"; for {failed:,} of {users:,} users ({100 * failed / users:.0f} %) it is no better than user "
                 "level (too many landmarks)")
    elif not data_derived:
        text += f", better than user level for all {users:,} users"
    violating = [s for s in schemes if stats.loc[s, "violated"] > 0]
    if violating:
        text += "; " + ", ".join(f"*{s}*" for s in violating) + (" does" if len(violating) == 1 else " do") + \
                " **not** protect the landmarks together"
    text += "."
    if guess is not None:
        text += " " + guess_sentence(float(stats.loc[best, "median"]), guess, unit).replace(
            "without looking at the data, which is off by", "without looking at the data, off for the typical user by")
    return text
