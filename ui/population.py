"""The Population page's state: the population of this session (a synthetic fleet or its own upload), its
per-scheme summaries (memoised in the session), and opening one user in the single-series pages."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from ui import text
from ui.session import state

if TYPE_CHECKING:
    from lmdk.population.input import Source

MEMO_MAX = 8  # population summaries kept per session (ε back and forth is instant)
DEFAULT_RULES = dict.fromkeys(("values", "trajectory", "contacts"), "calendar:daily@01:00-06:00")
"""An upload's default landmark rule per kind: the declared night hours (lmdk.declared.calendar.DEFAULT_RULE), as on
the single-series pages (issue 33: the former defaults read the values)."""
UPLOAD_TYPES = ["csv", "txt", "tsv", "parquet", "pq", "plt", "dat"]


@dataclass
class Population:
    """A population ready for the core: its Source, a token naming its data, its kind and a description."""

    source: Source
    token: str
    kind: str
    description: str
    default_rule: str
    rules: dict[str, str] | None = None
    """{user: the calendar rule that user declared}: the synthetic users' own landmarks (``FLEET_RULE``)."""

    def own_rules(self, rule: str) -> dict[str, str] | None:
        """The users' own declared rules when ``rule`` asks for them (the synthetic users' default), else None."""
        from lmdk.population.fleet import FLEET_RULE

        return self.rules if self.rules is not None and rule.strip() == FLEET_RULE else None


@st.cache_data(max_entries=4, show_spinner=False)
def _fleet(users: int, events: int, share: tuple[float, float], seed: int):
    """A synthetic fleet (lmdk.population.fleet), cached across sessions: it depends only on its arguments."""
    from lmdk.population.fleet import synthetic_fleet

    return synthetic_fleet(users, events, share, rng=seed)


def fleet_too_large() -> str | None:
    """Why the synthetic fleet of the sidebar is over the page's size (users × hours per user ≤ MAX_CELLS), naming
    the fields and the fix; None when it fits."""
    from lmdk.population.fleet import MAX_CELLS

    ss = st.session_state
    users, hours = int(ss[state.POP_USERS]), int(ss[state.POP_EVENTS])
    if users * hours <= MAX_CELLS:
        return None
    return (f"{users:,} users × {hours:,} hours per user = {users * hours:,} readings, over this page's "
            f"{MAX_CELLS:,}: lower *users* (at most {MAX_CELLS // hours:,} at {hours:,} hours) or *hours per user* "
            f"(at most {MAX_CELLS // users:,} for {users:,} users) in the sidebar; larger fleets run with "
            "`lmdk population` on the command line.")


def population() -> Population | None:
    """This session's population (None when an upload is missing or unreadable, or the synthetic fleet is over the
    page's size: ``fleet_too_large`` says why)."""
    from lmdk.population.input import frame_source

    ss = st.session_state
    if ss[state.POP_SOURCE] == "fleet":
        from lmdk.population.fleet import FLEET_RULE

        args = (int(ss[state.POP_USERS]), int(ss[state.POP_EVENTS]), tuple(ss[state.POP_SHARE]),
                int(ss[state.POP_FLEET_SEED]))
        if fleet_too_large() is not None:
            return None
        fleet = _fleet(*args)
        return Population(frame_source(fleet.table), "fleet:" + ":".join(map(str, args)), "values",
                          f"{args[0]:,} synthetic users (smart meters) × {args[1]:,} hours",
                          FLEET_RULE, fleet.declared())  # each user's declared quiet hours (issue 53)
    held = ss.get(state.POP_UPLOAD)
    if held is None:
        return None
    frame, name, digest = held
    kind = frame_source(frame).kind
    return Population(frame_source(frame), f"upload:{digest}", kind,
                      f"{text.escape_markdown(name)}: {frame['user'].nunique():,} users, {len(frame):,} events",
                      DEFAULT_RULES[kind])


def on_upload(key: str) -> None:
    """Read the uploaded multi-user file into a canonical long table held in this session only."""
    import hashlib

    import pandas as pd

    from lmdk.population.fleet import MAX_CELLS
    from lmdk.population.input import upload_source

    ss = st.session_state
    ss[state.POP_UPLOAD], ss[state.POP_RESULTS] = None, {}
    file = ss.get(key)
    if file is None:
        return
    raw = file.getvalue()
    try:
        source = upload_source(raw, file.name)
        frame = pd.concat(list(source.chunks(MAX_CELLS)), ignore_index=True)
    except ValueError as exc:  # lmdk.errors: the message names the field and the fix
        ss["_pop_error"] = str(exc)
        return
    except Exception:  # never a traceback for a visitor
        ss["_pop_error"] = ("The file could not be read as a multi-user table. Use columns user, timestamp and "
                            "value (or lat, lon / contact), or one of the supported multi-user formats.")
        return
    if len(frame) > MAX_CELLS:
        ss["_pop_error"] = (f"{len(frame):,} events are over this page's limit of {MAX_CELLS:,}; run larger "
                            "populations with `lmdk population` (see README).")
        return
    ss["_pop_error"] = None
    ss[state.POP_UPLOAD] = (frame, file.name, hashlib.sha256(raw).hexdigest()[:16])
    ss[state.POP_RULE] = None  # the new data's default rule


FLEET_RANGE = (0.0, 25.0)  # kWh: the synthetic meters' public range, as the HUE sample's (a 100 A, 240 V service)
RADIUS_M = 200.0


def relation(pop: Population, fleet: bool):
    """What ε protects for this population: the sidebar's public range / radius over the source's default."""
    from lmdk import relation as rel

    ss = st.session_state
    if pop.kind == "contacts":
        return rel.FLIP
    if pop.kind == "trajectory":
        return rel.radius(ss.get(state.REL_RADIUS) or RADIUS_M)
    low = ss.get(state.REL_LOW) if ss.get(state.REL_LOW) is not None else (FLEET_RANGE[0] if fleet else None)
    high = ss.get(state.REL_HIGH) if ss.get(state.REL_HIGH) is not None else (FLEET_RANGE[1] if fleet else None)
    if low is None or high is None or not low < high:
        return None
    unit = "kWh" if fleet else ""
    if ss.get(state.REL_KIND) == "up_to" and ss.get(state.REL_D) is not None:
        return rel.up_to(ss[state.REL_D], low, high, unit)
    return rel.public_range(low, high, unit)


def data_free_guess(pop: Population, protected, unit: str):
    """The yardstick of the page's errors (lmdk.present.headlines.Guess): the users' median error of guessing the
    middle of the public range without the data; None without a public range or for other kinds than values."""
    if pop.kind != "values" or protected is None or protected.value_range is None:
        return None
    from lmdk.present.headlines import Guess
    from lmdk.present.population import guess_errors

    memo = st.session_state.setdefault(state.POP_RESULTS, {})
    key = ("guess", pop.token, protected.value_range)
    if key not in memo:
        memo[key] = float(guess_errors(pop.source, protected.value_range).median())
    low, high = protected.value_range
    return Guess(mae=memo[key], value=(low + high) / 2, range_text=f"{low:g}–{high:g} {unit}".strip())


def summaries(pop: Population, rule: str, schemes: tuple, epsilon: float, w: int, seed: int, protected=None):
    """Per-user summaries of every scheme (lmdk.present.population.compare_schemes), memoised in the session;
    ``protected``: the relation (its Δ and sampler calibrate every user's release, as an export's)."""
    from lmdk.population import Policy
    from lmdk.present.population import compare_schemes
    from lmdk.relation import PAPERS_UNIT_CHANGE

    memo = st.session_state.setdefault(state.POP_RESULTS, {})
    key = (pop.token, rule, schemes, epsilon, w, seed, protected)
    if key not in memo:
        landmarks = "none" if pop.own_rules(rule) is not None else rule  # each user's own rule: compare_schemes
        policy = Policy(landmarks=landmarks, scheme=schemes[0], epsilon=epsilon, w=w, seed=seed,
                        relation=protected.to_dict() if protected is not None else None)
        memo[key] = compare_schemes(pop.source, policy, schemes,  # no public range yet: the papers' Δ = 1, said
                                    protects=PAPERS_UNIT_CHANGE if protected is None else None,
                                    rules=pop.own_rules(rule))
        while len(memo) > MEMO_MAX:
            memo.pop(next(iter(memo)))
    return memo[key]


def data_derived(pop: Population, rule: str) -> bool:
    """Whether the Population page's rule reads the values (a detector: no value-level protection); the users' own
    declared rules never do."""
    from lmdk.landmarks import parse_rule

    return pop.own_rules(rule) is None and parse_rule(rule).data_dependent


def rule_words(pop: Population, rule: str) -> str:
    """How the page names ``rule``: the rule in backticks, or the users' own declared quiet hours."""
    if pop.own_rules(rule) is not None:
        return "each user's own declared quiet hours (a `calendar:` rule per user)"
    return text.code(rule)


def statement_box(pop: Population, rule: str, chosen: tuple, eps: float, w: int, protected) -> None:
    """What an export of every user under ``rule`` guarantees (the scheme an export offers first): a rule that reads
    the values gets the data-derived statement, NOT PROTECTED first, as everywhere else."""
    from lmdk.present.population import rule_statement

    scheme = next((s for s in ("adaptive", "skip", "uniform", "user") if s in chosen), chosen[0])
    said = rule_statement(rule, scheme, eps, pop.kind, protected, w=w, rules=pop.own_rules(rule))
    if said is None:
        return
    with st.container(border=True, key="pop_statement"):
        st.markdown(f"**What an export of every user under {rule_words(pop, rule)} with *{scheme}* guarantees**")
        st.markdown("\n".join(f"- {text.escape_markdown(line)}" for line in said.lines()))


def open_user(pop: Population, user: str, rule: str) -> None:
    """Make one user's series (and the policy's landmarks of it) the current series of the single-series pages."""
    import numpy as np

    from lmdk.landmarks import parse_rule
    from lmdk.present.population import user_series

    ss = st.session_state
    series = user_series(pop.source, user, name=f"user {user} of the population")
    ss[state.SERIES_UPLOAD] = series
    ss[state.UPLOAD_FILE_NAME] = None
    ss[state.IMPORT_SPEC], ss[state.IMPORT_DETECTION], ss[state.UPLOAD_ERROR] = None, None, None
    ss[state.SOURCE] = "upload"
    ss[state.LENGTH] = min(len(series), state.N_MAX)
    own = pop.own_rules(rule)
    parsed = parse_rule(own.get(str(user), "none") if own is not None else rule)  # the user's declared set
    ss[state.LANDMARKS] = tuple(np.asarray(parsed.indices(series), dtype=np.int64).tolist())
    ss[state.LANDMARKS_TOKEN] = f"upload:{series.source_hash}:{min(len(series), state.N_MAX)}"
    ss[state.LANDMARKS_DEFAULT] = False
    ss[state.LANDMARKS_ORIGIN] = "data" if parsed.data_dependent else "declared"
    ss[state.LANDMARK_UNDO], ss[state.LANDMARK_REDO] = [], []


def district(pop: Population, per_user, rule: str, schemes: tuple, epsilon: float, w: int, seed: int, protected):
    """The side-by-side table of :func:`lmdk.aggregate.compare.side_by_side` (each user alone against the total of
    all users under the declared ``rule``), memoised in the session with the summaries."""
    from lmdk.aggregate.compare import side_by_side

    memo = st.session_state.setdefault(state.POP_RESULTS, {})
    key = ("district", pop.token, rule, schemes, epsilon, w, seed, protected)
    if key not in memo:
        memo[key] = side_by_side(per_user, pop.source, schemes, epsilon, value_range=protected.value_range, rule=rule,
                                 w=w, rng=seed, unit=protected.unit, who="user")
        while len(memo) > MEMO_MAX:
            memo.pop(next(iter(memo)))
    return memo[key]


def district_section(pop: Population, table, chosen: tuple, eps: float, w: int, seed: int, protected,
                     unit: str) -> None:
    """The Population page's "one user against the total": the per-user error beside the total's, per scheme (one
    name for the people on the page, users, whatever the data: issue 35)."""
    from lmdk.aggregate.compare import DISTRICT_RULE, headline

    ss = st.session_state
    st.subheader("Each user alone, against the total of all users")
    rule = ss.get(state.POP_DISTRICT_RULE) or DISTRICT_RULE
    entered = st.text_input("Landmarks of the total (declared: calendar:… windows)", value=rule,
                            key="pop_district_text",
                            help="Windows of the wall clock fixed in advance, e.g. calendar:sun@09:00-12:00 or "
                                 "calendar:mon-fri@17:00-20:00: whether an hour is a landmark never depends on "
                                 "anyone's readings.")
    if not entered.strip().lower().startswith("calendar:"):  # never a server path (file:) from a visitor
        st.error("Landmarks of the total: give calendar windows, e.g. calendar:sun@09:00-12:00")
        return
    try:
        from lmdk.landmarks import web_rule

        web_rule(entered)  # the one gate of a visitor's rule (a calendar: rule carries its content)
        side = district(pop, table, entered, chosen, eps, w, seed, protected)
    except ValueError as exc:
        st.error(f"Landmarks of the total: {text.escape_markdown(exc)}")
        return
    ss[state.POP_DISTRICT_RULE] = entered if entered != DISTRICT_RULE else None
    st.markdown(f"**{headline(side, unit, 'user')}**")
    st.dataframe(side.drop(columns=["users"]), hide_index=True, width="stretch", column_config={
        "one user: median MAE": st.column_config.NumberColumn(f"one user: median MAE ({unit})", format="%.3g"),
        "one user: share of the mean reading": st.column_config.NumberColumn(format="percent"),
        "total: MAE": st.column_config.NumberColumn(f"total: MAE ({unit})", format="%.3g"),
        "total: relative MAE": st.column_config.NumberColumn(format="percent")})
    if st.button("Open the total on the single-series pages", icon=":material/open_in_new:",
                 key="pop_open_total"):
        open_total(pop, protected, entered)
        st.switch_page("pages/schemes_utility.py")
    st.caption(f"The same ε protects, on the left, any one reading of one user's own series and, on the right, "
               f"any one user's readings at every landmark hour and any one other hour of the hourly total over "
               f"all {int(side['users'].iloc[0]):,} users (Δ = {protected.sensitivity:g} {unit}; the total in "
               f"[N·{protected.low:g}, N·{protected.high:g}]). The noise is the same size; the total is N times "
               "larger, so its relative error is about N times smaller. Command line: `lmdk aggregate`.")


def open_total(pop: Population, protected, rule: str) -> None:
    """Make the hourly sum over all users the current series of the single-series pages, with its aggregate
    relation (Δ = one reading's range, the sum in [N·low, N·high]) and the declared landmarks ``rule``."""
    import numpy as np

    from lmdk import relation
    from lmdk.aggregate import build
    from lmdk.landmarks import parse_rule

    ss = st.session_state
    agg = build(pop.source, "sum", value_range=protected.value_range, bin="1h")
    series = agg.to_series(units=protected.unit)
    n = min(len(series), state.N_MAX)
    total = relation.aggregate("sum", users=agg.users["all"], low=protected.low, high=protected.high,
                               unit=protected.unit, who="user")
    ss[state.SERIES_UPLOAD] = series
    ss[state.TOTAL_OF_USERS] = {"hash": series.source_hash, "relation": total.to_dict()}
    ss[state.UPLOAD_FILE_NAME] = None
    ss[state.IMPORT_SPEC], ss[state.IMPORT_DETECTION], ss[state.UPLOAD_ERROR] = None, None, None
    ss[state.SOURCE] = "upload"
    ss[state.LENGTH] = n
    ss[state.LANDMARKS] = tuple(np.asarray(parse_rule(rule).indices(series.head(n)), dtype=np.int64).tolist())
    ss[state.LANDMARKS_TOKEN] = f"upload:{series.source_hash}:{n}"
    ss[state.LANDMARKS_DEFAULT] = False
    ss[state.LANDMARK_UNDO], ss[state.LANDMARK_REDO] = [], []
