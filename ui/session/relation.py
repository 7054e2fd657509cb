"""The neighbouring relation of the session: the source's public default, the user's settings, the view options
(the sidebar controls that set it are ``ui.widgets.relation_controls``).

Every view, download, report and script of a session uses ``current(cur)``: one relation, one Δ, one sampler
(``Relation.calibration``, passed as ``protects=``), so a preview is what a release to hand out gives.
"""
from __future__ import annotations

import streamlit as st

from lmdk import relation as rel
from ui.session import state

SYNTHETIC_VALUES = {"kind": "range", "low": 0.0, "high": 20.0, "unit": "kWh"}  # AR(1) of mean 10, sd 2, by design
SYNTHETIC_RADIUS_M = 200.0


def default(cur) -> rel.Relation | None:
    """The data source's public relation: a bundled sample's fact, the synthetic generator's design, or None for
    an upload (its public range must come from the user, never from the data)."""
    from lmdk.data import SAMPLES

    kind = cur.series.kind
    if kind == "contacts":
        return rel.FLIP
    ss = st.session_state
    if ss[state.SOURCE] == "sample" and SAMPLES.get(ss[state.SAMPLE]) is not None:
        fact = SAMPLES[ss[state.SAMPLE]].relation
        base = rel.Relation.from_dict(fact) if fact is not None else None
        aggregation = getattr(cur, "aggregation", None)
        if (base is not None and aggregation is not None and base.kind == "range"  # one event = a whole hour/day
                and base.low is not None and base.high is not None):
            from lmdk.data.resample import aggregated_range

            low, high = aggregated_range(base.low, base.high, aggregation[1], aggregation[2])
            base = rel.public_range(low, high, base.unit)
        return base
    if ss[state.SOURCE] == "synthetic":
        return rel.radius(SYNTHETIC_RADIUS_M) if kind == "trajectory" else rel.Relation.from_dict(SYNTHETIC_VALUES)
    if ss[state.SOURCE] == "district":
        from ui.session.cache import DISTRICT_RANGE

        low, high = DISTRICT_RANGE
        if ss[state.DIST_STATISTIC] == "one":
            return rel.public_range(low, high, "kWh")
        return rel.aggregate(ss[state.DIST_STATISTIC], users=int(ss[state.DIST_USERS]), low=low, high=high,
                             unit="kWh", who="home")
    return None


def aggregate_relation() -> rel.Relation | None:
    """The aggregate relation when the current series is a statistic over many users — the Data page's district
    total or mean, or a total opened from the Population page (one user's readings at L ∪ {t} anywhere in the public
    range) — else None."""
    ss = st.session_state
    if ss.get(state.SOURCE) == "district" and ss.get(state.DIST_STATISTIC) in ("sum", "mean"):
        from ui.session.cache import DISTRICT_RANGE

        return rel.aggregate(ss[state.DIST_STATISTIC], users=int(ss[state.DIST_USERS]), low=DISTRICT_RANGE[0],
                             high=DISTRICT_RANGE[1], unit="kWh", who="home")
    held, series = ss.get(state.TOTAL_OF_USERS), ss.get(state.SERIES_UPLOAD)
    if not held or series is None or ss.get(state.SOURCE) != "upload" or held.get("hash") != series.source_hash:
        return None
    return rel.Relation.from_dict(held["relation"])


def current(cur) -> rel.Relation | None:
    """The relation of this view: the user's settings over the source's default; None while an upload has no
    public range yet (the views then use the papers' Δ = 1, and say so). A total over many users opened from the
    Population page keeps its aggregate relation."""
    ss = st.session_state
    kind = cur.series.kind
    if kind == "values" and (total := aggregate_relation()) is not None:
        return total
    base = default(cur)
    if kind == "contacts":
        return rel.FLIP
    if kind == "trajectory":
        radius_m = ss.get(state.REL_RADIUS)
        if radius_m is not None:
            return rel.radius(radius_m)
        return base
    low = ss.get(state.REL_LOW) if ss.get(state.REL_LOW) is not None else (base.low if base else None)
    high = ss.get(state.REL_HIGH) if ss.get(state.REL_HIGH) is not None else (base.high if base else None)
    if low is None or high is None or not low < high:
        return None
    unit = cur.series.units or (base.unit if base else "")
    if ss.get(state.REL_KIND) == "up_to":
        d = ss.get(state.REL_D) if ss.get(state.REL_D) is not None else max((high - low) / 10.0, 1e-12)
        return rel.up_to(d, low, high, unit)
    return rel.public_range(low, high, unit)


def options(cur, mechanism: str) -> tuple:
    """``schemes.release``'s ``protects=`` as a hashable tuple (a cache key of ``ui.session.cache``): the view's
    relation, or the papers' Δ = 1 while an upload has no public range (the views say so). ``mechanism``: kept for the
    callers."""
    return (("protects", current(cur) or rel.PAPERS_UNIT_CHANGE),)


def restore(cfg) -> str | None:
    """Apply a loaded RunConfig's relation to the session; the note for a legacy config (or None)."""
    ss = st.session_state
    if cfg.relation is None:
        return cfg.relation_note
    protected = rel.Relation.from_dict(cfg.relation)
    if protected.kind == "radius":
        ss[state.REL_RADIUS] = protected.d
    elif protected.kind in ("range", "up_to"):
        ss[state.REL_KIND], ss[state.REL_LOW], ss[state.REL_HIGH] = protected.kind, protected.low, protected.high
        if protected.kind == "up_to":
            ss[state.REL_D] = protected.d
    return None


def data_free_guess(cur, x, mechanism: str):
    """The data-free guess every error is read against (lmdk.present.headlines.Guess): the middle of the public
    range; None without a public range or for locations and contacts."""
    from lmdk.present import headlines
    from ui.text import escape_markdown

    protected = current(cur)
    if protected is None or mechanism != "laplace" or protected.value_range is None:
        return None  # the guess's words are shown in markdown: the user's unit escaped
    return headlines.Guess.of(x, protected.value_range, escape_markdown(cur.series.units or protected.unit or ""))
