"""One home against the district (issue 36): the error of each user's own release beside the error of the
population's total, per scheme — "each home alone: 8 kWh error; the district's total: 1 %"."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lmdk.errors import ParameterError

DISTRICT_RULE = "calendar:sun@09:00-12:00"
"""The district's default landmarks: declared (Sunday mornings), never read from the data."""


def side_by_side(per_user: pd.DataFrame, source, schemes, epsilon: float, *, value_range: tuple[float, float],
                 rule: str = DISTRICT_RULE, bin: str = "1h", w: int | None = None, rng=None, unit: str = "",
                 who: str = "user") -> pd.DataFrame:
    """Per scheme: the users' median MAE of their own releases (``per_user``: the population's summaries with
    columns scheme, mae) and its share of the mean reading, beside the MAE of the sum over all users released
    under the aggregate relation with the declared ``rule``, and its share of the mean sum (relative MAE)."""
    from lmdk import relation
    from lmdk import schemes as sch
    from lmdk.aggregate.build import build
    from lmdk.aggregate.landmarks import bin_landmarks
    from lmdk.declared.calendar import PREFIX
    from lmdk.landmarks import parse_rule

    if not str(rule).lower().startswith(PREFIX) and not str(rule).startswith(("file:", "none")):
        raise ParameterError(f"the district's landmarks must be declared (calendar:… or file:…), not {rule!r}: a rule "
                             "read from the data is not covered by ε")
    agg = build(source, "sum", value_range=value_range, bin=bin)
    series = agg.to_series(units=unit)
    L = bin_landmarks(parse_rule(rule), series, bin, None, agg.zoned).indices  # a bin touching a window
    n = agg.users["all"]
    protects = relation.aggregate("sum", users=n, low=value_range[0], high=value_range[1], unit=unit, who=who)
    truth = series.values
    scale = float(np.mean(np.abs(truth))) or float("nan")
    per_reading = scale / n
    gen = np.random.default_rng(rng)
    rows = []
    for scheme in schemes:
        released = sch.release(truth, L, scheme, epsilon, protects=protects, rng=gen,
                               w=w if w is not None else len(truth))
        mae = float(np.mean(np.abs(np.asarray(released.values)[0] - truth)))
        alone = per_user.loc[per_user["scheme"] == scheme, "mae"]
        median = float(alone.median()) if len(alone) else float("nan")
        rows.append({"scheme": scheme, "users": n, "landmarks": int(L.size),
                     "one user: median MAE": median, "one user: share of the mean reading": median / per_reading,
                     "total: MAE": mae, "total: relative MAE": mae / scale})
    return pd.DataFrame(rows)


def headline(table: pd.DataFrame, unit: str, who: str = "home") -> str:
    """"Each home alone: 8.0 kWh error (900 % of a reading); the district's total: 1.0 % (Skip)."""
    if table.empty:
        return ""
    best = table.loc[table["total: relative MAE"].idxmin()]
    return (f"Each {who} alone: {best['one user: median MAE']:.3g} {unit} error".replace("  ", " ") +
            f" ({100 * best['one user: share of the mean reading']:.0f} % of a reading); the total of all "
            f"{int(best['users']):,}: {100 * best['total: relative MAE']:.2g} % ({best['scheme']}, same ε).")
