"""Every session-state key of the app, its default, and the sync of the configuration with the URL.

Pages never write string literals into ``st.session_state``: they import the constants below.
The *configuration* (what a link must reproduce: data choice, landmarks, scheme settings) is
mirrored into the URL's query parameters; loaded or uploaded *data* never is.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from lmdk.present.views import decode_landmarks, encode_landmarks
from ui import ENTRY_RERUN, SESSION_STARTED, ensure_entrypoint  # noqa: F401 (ENTRY_RERUN: a session key)

# ---------------------------------------------------------------- bounds (documented maxima)
N_MAX = 110_000  # longest series the app takes whole: a year of 5-minute readings (105,120; 105,408 in a leap year);
#                  a longer file is analysed as a window of at most N_MAX events or aggregated hourly/daily, as the
#                  user chooses (ui.long_series) — never cut silently
N_MIN = 10
REPETITIONS_MAX = 200  # repetitions of every release
# the views' default (issue 34): 30 × 1,000 releases per scheme put the MAE's 95 % interval within about ±1 % and cost
# a third of the paper's 100 (§4.1), which a class of a hundred on one server cannot afford per ε change; the
# Experiments page keeps the paper's 100
REPETITIONS_DEFAULT = 30
REPETITION_CELLS_MAX = 2_000_000  # repetitions × n per scheme (16 MB of releases; 6 schemes ≤ 12 M numbers): the cap
REPETITION_CELLS_DEFAULT = 100_000  # default repetitions × n of a long series (< REPETITIONS_DEFAULT from n = 3,334)
REPETITIONS_LONG_MIN = 3  # … but at least this many (a median, a band and a confidence interval need them)
EPSILON_OPTIONS = (
    0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7,
    1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 70.0, 100.0,
)  # the log-scale ε slider (roughly 1–1.5–2–3–5–7 per decade); up to 100, since an honest Δ (the public range)
#    needs large ε for small errors and the planner's answers must be reachable
W_MAX = 1_000
SEED_MAX = 2**31 - 1

EXPERIMENT_BUDGET_S = 60.0  # the Experiments page refuses recomputations estimated to take longer
PRISTE_T_MAX = 80  # timestamps of a PriSTE trace
PRISTE_SIDE_MAX = 20  # cells per side of the synthetic walk's grid (≤ 400 cells)
PRISTE_REPETITIONS_MAX = 20
PRISTE_SOURCES = ("taxi", "series", "walk")  # synthetic taxi sample | current series | synthetic grid walk
PRISTE_CELL_SIZES = (100, 200, 300, 500, 750, 1000, 1500, 2000)
PRISTE_ALPHAS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0)

SCHEME_NAMES = ("event", "user", "w-event", "uniform", "skip", "adaptive")  # the default selection: the paper's six
BASELINE_NAMES = ("bd", "ba", "fast", "pegasus")  # opt-in: the state of the art (lmdk.baselines), values only
ALL_SCHEME_NAMES = SCHEME_NAMES + BASELINE_NAMES  # = lmdk.schemes.ALL_SCHEMES (the six keep their indices)
DISTRIBUTION_NAMES = ("skewed", "symmetric", "bimodal", "uniform")

# ---------------------------------------------------------------- configuration keys (in the URL)
SOURCE = "source"  # "sample" | "synthetic" | "district" | "upload"
SAMPLE = "sample"  # name of a bundled sample (lmdk.data.SAMPLES)
LENGTH = "n"  # use n events of a sample / upload (from START on)
START = "from"  # first event of the window (position in the possibly aggregated series; the HUE sample and uploads)
AGGREGATE = "agg"  # "none" | "hourly" | "daily": one event per clock hour/day (lmdk.data.resample.aggregate)
AGGREGATE_HOW = "agg_how"  # "sum" | "mean" (values), "mean" | "last" (trajectories); None: the kind's default
SYN_KIND = "syn_kind"  # "values" | "trajectory"
SYN_N = "syn_n"
SYN_FRACTION = "syn_frac"  # landmark share of a synthetic series
SYN_DISTRIBUTION = "syn_dist"
SYN_CORRELATION = "syn_corr"  # temporal correlation of the synthetic series, 0..1
SYN_SEED = "syn_seed"
DIST_USERS = "d_users"  # the synthetic district: how many homes
DIST_N = "d_n"  # hours
DIST_STATISTIC = "d_stat"  # "one" (one home's own series) | "sum" | "mean" over all homes
DIST_SEED = "d_seed"
DIST_STATISTICS = ("one", "sum", "mean")
LANDMARKS = "lm"  # the landmark set, encoded by lmdk.present.views.encode_landmarks
LANDMARKS_ORIGIN_LINK = "lmo"  # "data" in a link whose landmark set a detector read from the values (issue 33),
# "viewed" when it was marked while the chart showed the values (issue 53)
DATA_DERIVED_ORIGINS = ("data", "viewed")
SCHEMES = "schemes"  # selected subset of ALL_SCHEME_NAMES
MECHANISM = "mech"
EPSILON = "eps"
W = "w"
REPETITIONS = "reps"
SEED = "seed"
CLAMP = "clamp"
# the neighbouring relation (what ε protects); None: the data source's public default (ui.session.relation)
REL_KIND = "rel"  # "range" (any value in the public range) | "up_to" (changes of up to d)
REL_LOW = "rlo"  # public range of one value
REL_HIGH = "rhi"
REL_D = "rd"  # the largest protected change (up_to)
REL_RADIUS = "rad"  # metres (locations)
CLAMP_LOW = "clamp_lo"
CLAMP_HIGH = "clamp_hi"
# the planner (ui.plan): the error one can accept → ε per scheme
TARGET = "target"  # the error (series' unit; metres; % wrong reports); None: no plan
TARGET_AT = "target_at"  # where it is measured: all | landmarks | regular
TARGET_P = "target_p"  # None: a mean absolute error; p: the error stays within ±target with probability p
# the Adversary lab (ui.audit)
AUDIT_TRIALS = "aud_n"  # releases of each neighbour, one of AUDIT_TRIAL_OPTIONS
AUDIT_PRIOR = "aud_prior"  # the value attacker's prior: range | histogram
AUDIT_CORRELATION = "aud_corr"  # the correlated attack: none | weak | moderate | strong
AUDIT_TRIAL_OPTIONS = (200, 500, 1000, 2000, 5000)
# used by the temporal-loss and dummy-landmark pages
CORRELATION = "corr"  # preset name or "custom"
CORRELATION_S = "s"
DUMMY_METHOD = "dummy_method"
DUMMY_UTILITY = "dummy_utility"
DUMMY_SHARE = "dummy_share"
MAP_SCHEME = "map_scheme"  # which scheme the released-trajectory map shows
TPL_SCHEME = "tpl_scheme"  # the scheme the Temporal privacy loss page analyses
BUDGET_ABSOLUTE = "babs"  # Schemes page: one fixed log εₜ axis for every scheme and ε (n ≤ charts.BAR_LIMIT)
# the Spatiotemporal events (PriSTE) page
ST_SOURCE = "st_src"  # one of PRISTE_SOURCES
ST_T = "st_t"  # timestamps of the trace
ST_CELL = "st_cell"  # cell size in metres, one of PRISTE_CELL_SIZES
ST_SIDE = "st_side"  # grid side of the synthetic walk
ST_TRACE_SEED = "st_tseed"
ST_ESTIMATE = "st_estm"  # estimate the mobility model M from the trace
ST_SIGMA = "st_sigma"  # σ of the Gaussian mobility (cells)
ST_EPSILON = "st_eps"
ST_ALPHA = "st_alpha"  # planar Laplace budget per km, one of PRISTE_ALPHAS
ST_USE_DELTA = "st_delta_on"
ST_DELTA = "st_delta"
ST_REPETITIONS = "st_reps"
ST_SEED = "st_seed"
ST_KIND = "st_kind"  # presence | pattern
ST_WINDOW = "st_win"  # (first, last) timestamp of the event; None = derived from the grid
ST_REGION = "st_cells"  # cell ids of the event's region; None = derived from the grid
ST_SHOW_PLAIN = "st_plain"
# the Experiments page
EX_FIGURE = "ex_fig"
EX_REPETITIONS = "ex_reps"
EX_SEED = "ex_seed"
EX_RUN = "ex_run"  # the figure whose recomputation (EX_REPETITIONS, EX_SEED) is shown; None = cached runs only

# the Population page (its policy reuses SCHEMES, EPSILON, W and SEED)
POP_SOURCE = "pop_src"  # "fleet" (synthetic) | "upload"
POP_USERS = "pop_users"
POP_EVENTS = "pop_n"
POP_SHARE = "pop_share"  # (low, high) landmark share of the fleet's users
POP_FLEET_SEED = "pop_fseed"
POP_RULE = "pop_rule"  # the landmark rule applied to every user; None = the source's default
POP_SCHEME = "pop_scheme"  # the scheme of the per-user scatter
POP_DISTRICT_RULE = "pop_district"  # the declared landmark rule of the population's total; None = DISTRICT_RULE

# ---------------------------------------------------------------- session-only keys (never in the URL)
SERIES_UPLOAD = "_upload_series"  # the Series parsed from this session's upload
TOTAL_OF_USERS = "_total_of_users"  # {"hash", "relation"}: SERIES_UPLOAD is a statistic over many users (its relation)
UPLOAD_ERROR = "_upload_error"
UPLOAD_FILE_NAME = "_upload_file_name"  # the upload's name, for the generated script (run it beside the file)
IMPORT_DETECTION = "_import_detection"  # lmdk.data.mapping.Detection of this session's upload (the proposal)
DOWNLOAD_FIGURES = "_download_figures"  # key → figure of a chart download (weakly referenced by its callable)
DOWNLOAD_PREVIOUS = "_download_previous"  # key → the run before's one: its button may still be on the screen
EXPORTS_OPEN = "show_exports"  # Schemes & utility: whether its exports expander is open (built only then; issue 34)
EXPORT_BOUND = "_export_bound"  # the public limit of |values| for exported releases (never from the data)
LEDGER = "_ledger"  # this session's privacy ledger: lmdk.ledger.LedgerEntry per release handed out (ui.ledger)
LEDGER_CAP = "_ledger_cap"  # the optional cap on the session's total ε (Σ ε); None: no cap
LEDGER_ACCEPT = "_ledger_accept"  # the confirmation of one export past the cap
LEDGER_DATASET = "ledger_dataset"  # with LMDK_LEDGER_URL: the dataset a hand-out release spends ("": the data's key)
LEDGER_PERSON = "ledger_person"  # with a dataset named: the person the series belongs to (their budget in it)
IMPORT_SPEC = "_import_spec"  # the import mapping the current upload was read with (saved in RunConfigs)
UPLOAD_FILE_ID = "_upload_file_id"
POP_UPLOAD = "_pop_upload"  # (bytes, file name) of this session's multi-user upload (memory only)
POLICY_ROWS = "_policy_rows"  # this session's policy table (pages/policies.py): one dict of cells per user
POLICY_LOADED = "_policy_loaded"  # the file id of the policy table last uploaded (read once)
POP_RESULTS = "_pop_results"  # this session's computed population summaries, most recent last
LANDMARKS_TOKEN = "_lm_token"  # data token the landmark set belongs to
LANDMARKS_DEFAULT = "_lm_default"  # True while L is the default set the app derived (left out of links)
LANDMARKS_RULE = "_lm_rule"  # the value rule a detector applied (e.g. "below:0.5"): the audit's flip neighbours
LANDMARKS_ORIGIN = "_lm_origin"  # "declared" (the default calendar rule, a file, marks on the values-free timeline),
# "data" (a detector read the values) or "viewed" (marked while the chart showed them, issue 53): a data-derived set is
# exported only when asked for, with the statement saying first what is not protected
TIMELINE_BLIND = "lm_blind"  # the Data page's timeline drawn without the values: marks made on it stay declared
LANDMARK_UNDO = "_lm_undo"  # earlier landmark sets of this series (most recent last, at most HISTORY_MAX)
LANDMARK_REDO = "_lm_redo"
HISTORY_MAX = 20
TIMELINE_EPOCH = "_timeline_epoch"  # bumped after a timeline selection so the same point can be clicked again
MAP_EPOCH = "_map_epoch"
SELECT_ACTION = "select_action"  # what a box/lasso selection does: add | remove
LAST_EDIT = "_last_edit"  # short text describing the last landmark edit
QP_LOADED = SESSION_STARTED  # app.py has initialised this session (ui.ensure_entrypoint relies on it)
CONFIG_UPLOAD = "_config_upload"
CONFIG_ERROR = "_config_error"
CONFIG_NOTE = "_config_note"  # what a loaded RunConfig could not restore exactly (shown as a warning)
CURRENT = "_current"  # ui.session.cache.Current of this run (series, token, landmarks), set by app.py
REPS_CHOSEN = "_reps_chosen"  # the user (widget, link or RunConfig) chose the repetitions: no long-series default
ZOOM = "_zoom"  # (series token, first, stop): the events the charts of every page draw (ui.charts.zoom)
RESAMPLED = "_resampled"  # (key, Series): this session's aggregated upload (memory only, ui.session.cache)

REGISTERED_PAGES: list[tuple[str, str, str]] = []  # app.py's PAGES, for the overview's links


def register_pages(pages: list[tuple[str, str, str]]) -> None:
    """Remember the app's page registry (file, title, icon) so pages can link to each other."""
    REGISTERED_PAGES[:] = pages


def current():
    """The ui.session.cache.Current resolved by app.py for this run (None when no series is loaded)."""
    ensure_entrypoint()  # a page started without app.py (legacy pages/ mode) reruns through it
    return st.session_state.get(CURRENT)


@dataclass(frozen=True)
class Param:
    """One configuration parameter: default and a parser that returns None for invalid URL text."""

    default: Any
    parse: Callable[[str], Any]
    dump: Callable[[Any], str] = str


def _number(kind: type, low: float, high: float) -> Callable[[str], Any]:
    """A URL parser of numbers of type ``kind`` in [low, high] (None for anything else)."""
    def parse(text: str) -> Any:
        """``text`` as a number in range, else None."""
        try:
            value = kind(float(text)) if kind is int else kind(text)
        except (TypeError, ValueError, OverflowError):  # int(float("inf")) overflows
            return None
        return value if low <= value <= high else None

    return parse


def _choice(options: tuple[str, ...]) -> Callable[[str], Any]:
    """A URL parser that accepts one of ``options``."""
    return lambda text: text if text in options else None


def _subset(options: tuple[str, ...]) -> Callable[[str], Any]:
    """A URL parser of a comma-separated subset of ``options``, in their order."""
    def parse(text: str) -> Any:
        """``text`` as a subset of the options, else None."""
        items = [t for t in text.split(",") if t]
        return [t for t in options if t in items] if all(t in options for t in items) else None

    return parse


def _epsilon(text: str) -> Any:
    """ε from the URL: the nearest offered value, for 0 < ε < 10⁶."""
    try:
        value = float(text)
    except ValueError:
        return None
    return min(EPSILON_OPTIONS, key=lambda e: abs(e - value)) if 0 < value < 1e6 else None


def _landmarks(text: str) -> Any:
    """Landmark indices from the URL's compact encoding (None when malformed or too long)."""
    try:
        return tuple(decode_landmarks(text, limit=N_MAX).tolist()) if len(text) < 20_000 else None
    except ValueError:
        return None


def _flag(text: str) -> Any:
    """A boolean from the URL: 1/0 or true/false."""
    return {"1": True, "0": False, "true": True, "false": False}.get(text.lower())


def _dump_flag(value: bool) -> str:
    """A boolean for the URL: 1 or 0."""
    return "1" if value else "0"


def _dump_number(value: float) -> str:
    """A number for the URL, as short as it prints."""
    return f"{value:g}"


def _option(options: tuple[float, ...]) -> Callable[[str], Any]:
    """A URL parser that accepts a number equal (to 1e-9 relative) to one of ``options``."""
    def parse(text: str) -> Any:
        """``text`` as one of the options, else None."""
        try:
            value = float(text)
        except ValueError:
            return None
        return next((o for o in options if abs(o - value) <= 1e-9 * max(1.0, abs(o))), None)

    return parse


def _stepped(low: float, high: float, step: float) -> Callable[[str], Any]:
    """A float on the grid low, low + step, …, high (as a slider with this step shows it)."""
    def parse(text: str) -> Any:
        """``text`` rounded to the step, in range, else None."""
        try:
            value = float(text)
        except ValueError:
            return None
        return round(round(value / step) * step, 10) if low <= value <= high else None

    return parse


def _window(text: str) -> Any:
    """A PriSTE event window 'a-b' from the URL (0 ≤ a ≤ b < PRISTE_T_MAX)."""
    first, sep, last = text.partition("-")
    if not sep or not (first.isdigit() and last.isdigit()) or len(text) > 12:
        return None
    a, b = int(first), int(last)
    return (a, b) if 0 <= a <= b < PRISTE_T_MAX else None


PRISTE_REGION_MAX = 2_000  # cells named in a URL


def _cells(text: str) -> Any:
    """A PriSTE event region from the URL: comma-separated cell numbers, at most PRISTE_REGION_MAX."""
    items = [t for t in text.split(",") if t]
    if len(items) > PRISTE_REGION_MAX or not all(t.isdigit() and len(t) <= 6 for t in items):
        return None
    return sorted({int(t) for t in items})


def _share_range(text: str) -> Any:
    """A landmark share range 'low-high' from the URL, both in [0, 1]."""
    low, sep, high = text.partition("-")
    try:
        a, b = round(float(low), 2), round(float(high), 2)
    except ValueError:
        return None
    return (a, b) if sep and 0 <= a <= b <= 1 else None


def _rule(text: str) -> Any:
    """A landmark rule from the URL, if lmdk.landmarks.web_rule takes it (never one naming a server file)."""
    from lmdk.landmarks import web_rule

    if len(text) > 80:
        return None
    try:
        web_rule(text)  # no server paths from a link: ics:, times:, file:, contacts: are refused unread
    except ValueError:
        return None
    return text


def _experiment(text: str) -> Any:
    """An experiment figure name from the URL, if the runner knows it."""
    if len(text) > 40:
        return None
    from lmdk.experiments.runner import figures

    return text if text in figures() else None


PARAMS: dict[str, Param] = {
    SOURCE: Param("sample", _choice(("sample", "synthetic", "district", "upload"))),
    SAMPLE: Param("hue", lambda t: t if t.replace("-", "").replace("_", "").isalnum() and len(t) < 40 else None),
    LENGTH: Param(1_000, _number(int, N_MIN, N_MAX)),
    START: Param(0, _number(int, 0, 10**9)),
    AGGREGATE: Param("none", _choice(("none", "hourly", "daily"))),
    AGGREGATE_HOW: Param(None, _choice(("sum", "mean", "last")), lambda v: v or ""),
    SYN_KIND: Param("values", _choice(("values", "trajectory"))),
    SYN_N: Param(1_000, _number(int, N_MIN, N_MAX)),
    SYN_FRACTION: Param(0.2, _number(float, 0.0, 1.0)),
    SYN_DISTRIBUTION: Param("uniform", _choice(DISTRIBUTION_NAMES)),
    SYN_CORRELATION: Param(0.5, _number(float, 0.0, 0.99)),
    SYN_SEED: Param(1, _number(int, 0, SEED_MAX)),
    DIST_USERS: Param(200, _number(int, 2, 2_000)),
    DIST_N: Param(672, _number(int, N_MIN, 5_000)),
    DIST_STATISTIC: Param("sum", _choice(DIST_STATISTICS)),
    DIST_SEED: Param(1, _number(int, 0, SEED_MAX)),
    LANDMARKS: Param(None, _landmarks, lambda v: encode_landmarks(v)),
    SCHEMES: Param(list(SCHEME_NAMES), _subset(ALL_SCHEME_NAMES), lambda v: ",".join(v)),
    MECHANISM: Param(None, _choice(("laplace", "randomized_response", "planar_laplace")), lambda v: v or ""),
    EPSILON: Param(1.0, _epsilon, _dump_number),
    W: Param(10, _number(int, 1, W_MAX)),
    REPETITIONS: Param(REPETITIONS_DEFAULT, _number(int, 1, REPETITIONS_MAX)),
    SEED: Param(0, _number(int, 0, SEED_MAX)),
    CLAMP: Param(False, _flag, _dump_flag),
    REL_KIND: Param("range", _choice(("range", "up_to"))),
    REL_LOW: Param(None, _number(float, -1e12, 1e12), lambda v: "" if v is None else f"{v:g}"),
    REL_HIGH: Param(None, _number(float, -1e12, 1e12), lambda v: "" if v is None else f"{v:g}"),
    REL_D: Param(None, _number(float, 1e-12, 1e12), lambda v: "" if v is None else f"{v:g}"),
    REL_RADIUS: Param(None, _number(float, 1e-3, 1e7), lambda v: "" if v is None else f"{v:g}"),
    TARGET: Param(None, _number(float, 1e-12, 1e12), lambda v: "" if v is None else f"{v:g}"),
    TARGET_AT: Param("all", _choice(("all", "landmarks", "regular"))),
    TARGET_P: Param(None, _number(float, 0.5, 0.999), lambda v: "" if v is None else f"{v:g}"),
    CLAMP_LOW: Param(None, _number(float, -1e12, 1e12), lambda v: "" if v is None else f"{v:g}"),
    CLAMP_HIGH: Param(None, _number(float, -1e12, 1e12), lambda v: "" if v is None else f"{v:g}"),
    AUDIT_TRIALS: Param(1000, lambda t: int(v) if (v := _option(AUDIT_TRIAL_OPTIONS)(t)) is not None else None),
    AUDIT_PRIOR: Param("range", _choice(("range", "histogram"))),
    AUDIT_CORRELATION: Param("moderate", _choice(("none", "weak", "moderate", "strong"))),
    CORRELATION: Param("moderate", _choice(("weak", "moderate", "strong", "custom"))),
    CORRELATION_S: Param(0.1, _number(float, 1e-6, 100.0), _dump_number),
    DUMMY_METHOD: Param("partitioned", _choice(("optimal", "heuristic", "partitioned", "random"))),
    DUMMY_UTILITY: Param("position", _choice(("position", "count"))),
    DUMMY_SHARE: Param(0.01, _number(float, 0.001, 0.9), _dump_number),
    MAP_SCHEME: Param("uniform", _choice(ALL_SCHEME_NAMES)),
    TPL_SCHEME: Param("uniform", _choice(ALL_SCHEME_NAMES)),
    BUDGET_ABSOLUTE: Param(True, _flag, _dump_flag),
    ST_SOURCE: Param("taxi", _choice(PRISTE_SOURCES)),
    ST_T: Param(40, _number(int, 10, PRISTE_T_MAX)),
    ST_CELL: Param(500, lambda t: int(v) if (v := _option(PRISTE_CELL_SIZES)(t)) is not None else None),
    ST_SIDE: Param(12, _number(int, 4, PRISTE_SIDE_MAX)),
    ST_TRACE_SEED: Param(0, _number(int, 0, SEED_MAX)),
    ST_ESTIMATE: Param(False, _flag, _dump_flag),
    ST_SIGMA: Param(1.0, _stepped(0.3, 5.0, 0.1), _dump_number),
    ST_EPSILON: Param(1.0, _epsilon, _dump_number),
    ST_ALPHA: Param(0.1, _option(PRISTE_ALPHAS), _dump_number),  # α·cell 0.05 at 500 m: PriSTE cuts α partly (issue 16)
    ST_USE_DELTA: Param(False, _flag, _dump_flag),
    ST_DELTA: Param(0.1, _stepped(0.0, 0.5, 0.01), _dump_number),
    ST_REPETITIONS: Param(5, _number(int, 1, PRISTE_REPETITIONS_MAX)),
    ST_SEED: Param(0, _number(int, 0, SEED_MAX)),
    ST_KIND: Param("presence", _choice(("presence", "pattern"))),
    ST_WINDOW: Param(None, _window, lambda v: f"{v[0]}-{v[1]}"),
    ST_REGION: Param(None, _cells, lambda v: ",".join(str(int(c)) for c in v)),
    ST_SHOW_PLAIN: Param(False, _flag, _dump_flag),
    POP_SOURCE: Param("fleet", _choice(("fleet", "upload"))),
    POP_USERS: Param(200, _number(int, 1, 2_000)),
    POP_EVENTS: Param(1_000, _number(int, 10, 5_000)),
    POP_SHARE: Param((0.05, 0.6), _share_range, lambda v: f"{v[0]:g}-{v[1]:g}"),
    POP_FLEET_SEED: Param(1, _number(int, 0, SEED_MAX)),
    POP_RULE: Param(None, _rule, lambda v: v or ""),
    POP_SCHEME: Param("adaptive", _choice(SCHEME_NAMES)),
    POP_DISTRICT_RULE: Param(None, _rule, lambda v: v or ""),
    EX_FIGURE: Param("fig7", _experiment),
    EX_REPETITIONS: Param(3, _number(int, 1, REPETITIONS_MAX)),
    EX_SEED: Param(0, _number(int, 0, SEED_MAX)),
    EX_RUN: Param(None, _experiment, lambda v: v or ""),
}

SESSION_DEFAULTS: dict[str, Any] = {TIMELINE_EPOCH: 0, MAP_EPOCH: 0, SELECT_ACTION: "add", LAST_EDIT: ""}


WIDGET_PREFIX = "w_"


def widget_key(key: str) -> str:
    """The widget key bound to configuration key ``key`` (ui.widgets.bind)."""
    return WIDGET_PREFIX + key


def init() -> None:
    """Fill missing keys with defaults; on a session's first run take the configuration from the URL."""
    ss = st.session_state
    first = not ss.get(QP_LOADED, False)
    if first:
        for key, param in PARAMS.items():
            if key in st.query_params:
                value = param.parse(st.query_params[key])
                if value is not None:
                    ss[key] = value
        ss[QP_LOADED] = True
        if LANDMARKS in ss:
            ss[LANDMARKS_TOKEN] = "url"
            # a set a detector read from the values stays data-derived in the session the link opens: no release to
            # hand out under a "declared in advance" statement (issue 33)
            linked = st.query_params.get(LANDMARKS_ORIGIN_LINK)
            ss[LANDMARKS_ORIGIN] = linked if linked in DATA_DERIVED_ORIGINS else "declared"
        if REPETITIONS in st.query_params:
            ss[REPS_CHOSEN] = True
        from ui.session.memory import SWEEP_EVERY_S, release_freed_memory

        # what sessions that ended since the last visitors left freed goes back to the OS
        release_freed_memory(every=SWEEP_EVERY_S)
    for key, param in PARAMS.items():
        if key not in ss:
            ss[key] = list(param.default) if isinstance(param.default, list) else param.default
    for key, value in SESSION_DEFAULTS.items():
        ss.setdefault(key, value)


def config() -> dict[str, Any]:
    """The current configuration (the URL-mirrored keys) as a plain dict."""
    return {key: st.session_state.get(key, param.default) for key, param in PARAMS.items()}


def sync_query_params() -> None:
    """Write the configuration to the URL (only differing keys; defaults are left out)."""
    qp = st.query_params
    shown = qp.to_dict()  # read once: every proxy access takes the session's locks (issue 34: on every ε change)
    ss = st.session_state
    for key, param in PARAMS.items():
        value = ss.get(key, param.default)
        derived = key == LANDMARKS and (ss.get(SOURCE) == "upload" or ss.get(LANDMARKS_DEFAULT))
        if value is None or value == param.default or derived:  # a default landmark set is re-derived, not linked
            if key in shown:
                del qp[key]
                del shown[key]
            continue
        text = param.dump(value)
        if shown.get(key) != text:
            qp[key] = shown[key] = text
    origin = str(ss.get(LANDMARKS_ORIGIN))
    linked = LANDMARKS in shown and origin in DATA_DERIVED_ORIGINS
    if linked and shown.get(LANDMARKS_ORIGIN_LINK) != origin:
        qp[LANDMARKS_ORIGIN_LINK] = origin
    elif not linked and LANDMARKS_ORIGIN_LINK in shown:
        del qp[LANDMARKS_ORIGIN_LINK]


def bump(key: str) -> None:
    """Increment a counter key (used to give a chart a fresh widget identity)."""
    st.session_state[key] = st.session_state.get(key, 0) + 1


def nearest_epsilon(epsilon: float) -> float:
    """The slider value nearest to ε on a log scale (ε from 1e-9 to 1e300 maps to an end, never to a wrong middle)."""
    import math

    return min(EPSILON_OPTIONS, key=lambda e: abs(math.log(e) - math.log(epsilon)))


def repetitions_cap(n: int) -> int:
    """The most repetitions a series of n events may use (repetitions × n ≤ REPETITION_CELLS_MAX per scheme)."""
    return int(max(1, min(REPETITIONS_MAX, REPETITION_CELLS_MAX // max(int(n), 1))))


def default_repetitions(n: int) -> int:
    """Repetitions of a series of n events unless the user chose them: REPETITIONS_DEFAULT for short series; for long
    ones fewer (repetitions × n ≈ REPETITION_CELLS_DEFAULT, at least REPETITIONS_LONG_MIN) so an ε change stays
    interactive — each repetition releases all n events, so the MAE still averages many releases."""
    base = PARAMS[REPETITIONS].default
    return int(min(base, repetitions_cap(n), max(REPETITIONS_LONG_MIN, REPETITION_CELLS_DEFAULT // max(int(n), 1))))
